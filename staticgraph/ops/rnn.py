"""``tf.nn.static_rnn``, ``tf.nn.dynamic_rnn``, ``tf.nn.bidirectional_dynamic_rnn``.

The two TF 1.x answers to "run a cell over a sequence" in a graph::

    static_rnn    Python loop at BUILD time: one copy of the cell per step,
                  one graph per sequence length (inputs: a list of [batch, depth]).
    dynamic_rnn   ONE while_loop over time whose body calls the cell once,
                  reading its input from one TensorArray and writing its
                  output into another; the trip count comes from the fed
                  tensor, so one graph serves every length.

``sequence_length`` gives TF's semantics in both: at step ``t`` a row with
``t >= sequence_length[row]`` outputs zeros and carries its state through
unchanged, so the final state is each row's state at its own last step.

>>> import staticgraph as tf
>>> x = tf.placeholder(tf.float32, (2, None, 3))
>>> out, state = tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(4), x, dtype=tf.float32)
>>> out.shape.as_list(), state.shape.as_list()
([2, None, 4], [2, 4])
"""
from __future__ import annotations

from ..framework import dtypes as _dtypes
from .array_ops import shape as _shape
from ..framework.build import convert_to_tensor
from ..control.control_flow import while_loop
from ..framework.graph import Tensor, name_scope
from .core_ops import (cast, concat, constant, expand_dims, greater_equal, less, stack, transpose,
                       unstack, where, zeros, zeros_like)
from .sequence_ops import reverse, reverse_sequence
from .tensor_array import TensorArray
from ..util.nest import flatten, pack_sequence_as
from .rnn_cell import _depth
from ..training.variable_scope import variable_scope

__all__ = ["static_rnn", "dynamic_rnn", "bidirectional_dynamic_rnn", "static_bidirectional_rnn"]


def _check_step_inputs(inputs) -> None:
    """``static_rnn``'s ``inputs``: a non-empty list of per-step tensors (TF's words)."""
    if not isinstance(inputs, (list, tuple)):
        raise TypeError(f"Argument `inputs` must be a sequence. Received: {inputs}")
    if not inputs:
        raise ValueError("Argument `inputs` must not be empty.")


def _check_cell(cell) -> None:
    """TF's duck-typed check, in its words."""
    missing = [f"'{p}' property is missing" for p in ("output_size", "state_size")
               if not hasattr(cell, p)]
    if not hasattr(cell, "zero_state") and not hasattr(cell, "get_initial_state"):
        missing.append("either 'zero_state' or 'get_initial_state' method is required")
    if missing or not callable(cell):
        raise TypeError(f"The argument 'cell' ({cell}) is not an RNNCell: " + ", ".join(
            missing or ["is not callable"]) + ".")


def _batch_size(x: Tensor, axis: int):
    b = x.shape[axis] if x.shape.ndims else None
    return int(b) if b is not None else _shape(x)[axis]


def _initial_state(cell, initial_state, batch, dtype):
    if initial_state is not None:
        return initial_state
    if dtype is None:
        raise ValueError("If no initial_state is provided, argument `dtype` must be specified")
    return cell.zero_state(batch, dtype)


def _seq_len(sequence_length):
    if sequence_length is None:
        return None
    sequence_length = cast(convert_to_tensor(sequence_length), _dtypes.int32, name="sequence_length")
    if sequence_length.shape.ndims not in (None, 1):
        raise ValueError(f"Argument sequence_length must be a vector of length batch_size. "
                         f"Received sequence_length={sequence_length} of shape: "
                         f"{tuple(sequence_length.shape.as_list())}")
    return sequence_length


def _masked(time, sequence_length, zero_output, state, output, new_state):
    """TF's ``_rnn_step`` select: finished rows output zeros and keep their state."""
    done = expand_dims(greater_equal(time, sequence_length), 1)
    output = where(done, zero_output, output)
    flat = [where(done, s, n) for s, n in zip(flatten(state), flatten(new_state))]
    return output, pack_sequence_as(new_state, flat)


def static_rnn(cell, inputs, initial_state=None, dtype=None, sequence_length=None, scope=None):
    """The cell called once per element of ``inputs`` (a list of ``[batch, depth]`` tensors)."""
    _check_cell(cell)
    _check_step_inputs(inputs)
    with variable_scope(scope or "rnn"):
        inputs = [convert_to_tensor(x) for x in inputs]
        state = _initial_state(cell, initial_state, _batch_size(inputs[0], 0), dtype)
        sequence_length = _seq_len(sequence_length)
        outputs, zero_output = [], None
        for time, x in enumerate(inputs):
            output, new_state = cell(x, state)
            if sequence_length is not None:
                if zero_output is None:
                    zero_output = zeros_like(output)
                output, new_state = _masked(constant(time, _dtypes.int32), sequence_length,
                                            zero_output, state, output, new_state)
            outputs.append(output)
            state = new_state
        return outputs, state


def _reverse_time(x, sequence_length, t_axis: int, b_axis: int):
    """TF's ``_reverse``: a flip of the time axis, or of each row's first ``length`` steps."""
    x = convert_to_tensor(x)
    if sequence_length is None:
        return reverse(x, [t_axis])
    return reverse_sequence(x, sequence_length, seq_axis=t_axis, batch_axis=b_axis)


def static_bidirectional_rnn(cell_fw, cell_bw, inputs, initial_state_fw=None, initial_state_bw=None,
                             dtype=None, sequence_length=None, scope=None):
    """Forward and backward ``static_rnn``; outputs concatenated per step."""
    _check_cell(cell_fw)
    _check_cell(cell_bw)
    _check_step_inputs(inputs)
    with variable_scope(scope or "bidirectional_rnn"):
        with variable_scope("fw") as fw_scope:
            out_fw, st_fw = static_rnn(cell_fw, inputs, initial_state_fw, dtype, sequence_length,
                                       scope=fw_scope)
        with variable_scope("bw") as bw_scope:
            rev = unstack(_reverse_time(stack(inputs), sequence_length, 0, 1))
            out_bw, st_bw = static_rnn(cell_bw, rev, initial_state_bw, dtype, sequence_length,
                                       scope=bw_scope)
        out_bw = unstack(_reverse_time(stack(out_bw), sequence_length, 0, 1))
        return [concat([f, b], 1) for f, b in zip(out_fw, out_bw)], st_fw, st_bw


def _output_array(cell, inputs: Tensor, steps: Tensor, dtype) -> TensorArray:
    """The output TensorArray of a loop whose length is only known when fed: sized to it
    up front (TF's ``TensorArray(size=time_steps)``), as zeros ``[steps, batch, units]``, so
    every write fills a row of one buffer instead of growing (copying) it."""
    units = cell.output_size
    if not isinstance(units, int):        # nested outputs: a buffer that grows as written
        return TensorArray(dtype, size=0, dynamic_size=True, name="output")
    batch = _batch_size(inputs, 1)
    buf = zeros(stack([steps, batch, units]), dtype, name="output_buffer")
    buf.set_shape([None, batch if isinstance(batch, int) else None, units])
    return TensorArray(dtype, size=0, dynamic_size=True, name="output", flow=buf,
                       element_shape=buf.shape[1:])


def _time_loop(cell, inputs, state, sequence_length, steps):
    """TF's ``_dynamic_rnn_loop``: one while_loop over time on time-major ``inputs`` that reads
    step ``t`` from an input TensorArray and writes its output into an output TensorArray."""
    dtype = inputs.dtype
    known = isinstance(steps, int)             # else the buffers take the fed length
    with name_scope("dynamic_rnn"):
        in_ta = TensorArray(dtype, size=steps if known else 0, dynamic_size=not known,
                            element_shape=inputs.shape[1:], name="input").unstack(inputs)
        out_ta = (TensorArray(dtype, size=steps, name="output") if known else
                  _output_array(cell, inputs, steps, dtype))
    flat_state = flatten(state)

    def body(time, ta, *flat):
        prev = pack_sequence_as(state, list(flat))
        output, new_state = cell(in_ta.read(time), prev)
        if sequence_length is not None:
            output, new_state = _masked(time, sequence_length, zeros_like(output), prev, output,
                                        new_state)
        return (time + 1, ta.write(time, output), *flatten(new_state))

    time = constant(0, _dtypes.int32, name="time")
    results = while_loop(lambda time, *_: less(time, steps), body, (time, out_ta, *flat_state),
                         maximum_iterations=steps)
    return results[1].stack(), pack_sequence_as(state, list(results[2:]))


def dynamic_rnn(cell, inputs, sequence_length=None, initial_state=None, dtype=None,
                parallel_iterations=None, swap_memory=False, time_major=False, scope=None):
    """``(outputs, final_state)``; outputs ``[batch, time, out]`` (``[time, batch, out]`` when
    ``time_major``), zeros past each row's ``sequence_length``."""
    _check_cell(cell)
    with variable_scope(scope or "rnn"):
        inputs = convert_to_tensor(inputs)
        if inputs.shape.ndims is not None and inputs.shape.ndims < 2:
            raise ValueError(f"Expected input tensor {inputs.name} to have rank at least 2")
        if not time_major:
            inputs = transpose(inputs, [1, 0] + list(range(2, inputs.shape.ndims)))
        batch = _batch_size(inputs, 1)
        state = _initial_state(cell, initial_state, batch, dtype)
        sequence_length = _seq_len(sequence_length)
        if hasattr(cell, "build_for"):      # variables in the outer graph, before the loop
            cell.build_for(_depth(inputs), inputs.dtype)
        steps = _batch_size(inputs, 0)
        outputs, final = _time_loop(cell, inputs, state, sequence_length, steps)
        if isinstance(steps, int) and outputs.shape.ndims:
            outputs.set_shape([steps, *outputs.shape.as_list()[1:]])
        if not time_major:
            outputs = transpose(outputs, [1, 0] + list(range(2, outputs.shape.ndims)))
        return outputs, final


def bidirectional_dynamic_rnn(cell_fw, cell_bw, inputs, sequence_length=None, initial_state_fw=None,
                              initial_state_bw=None, dtype=None, parallel_iterations=None,
                              swap_memory=False, time_major=False, scope=None):
    """``((out_fw, out_bw), (state_fw, state_bw))``: the backward cell reads each row's
    sequence reversed within its length, and its outputs are reversed back."""
    _check_cell(cell_fw)
    _check_cell(cell_bw)
    with variable_scope(scope or "bidirectional_rnn"):
        with variable_scope("fw") as fw_scope:
            out_fw, st_fw = dynamic_rnn(cell_fw, inputs, sequence_length, initial_state_fw, dtype,
                                        time_major=time_major, scope=fw_scope)
        t_axis, b_axis = (0, 1) if time_major else (1, 0)
        with variable_scope("bw") as bw_scope:
            rev = _reverse_time(inputs, sequence_length, t_axis, b_axis)
            out_bw, st_bw = dynamic_rnn(cell_bw, rev, sequence_length, initial_state_bw, dtype,
                                        time_major=time_major, scope=bw_scope)
        out_bw = _reverse_time(out_bw, sequence_length, t_axis, b_axis)
    return (out_fw, out_bw), (st_fw, st_bw)
