"""``tf.nn.rnn_cell``: TF 1.x's recurrent cells, variables made by ``get_variable``.

A cell is a function ``(inputs, state) -> (output, new_state)`` plus the
variables it owns.  They are created the first time the cell is built, under
``<current variable scope>/<cell name>`` exactly as TF names them::

    rnn/basic_lstm_cell/kernel:0        [input_depth + units, 4 * units]   gates i, j, f, o
    rnn/basic_lstm_cell/bias:0          [4 * units]
    rnn/gru_cell/gates/kernel:0 ...     rnn/lstm_cell/projection/kernel:0 (num_proj)
    rnn/multi_rnn_cell/cell_0/basic_lstm_cell/kernel:0

and every later call reuses them -- which is what lets ``static_rnn`` call the
cell once per step and ``dynamic_rnn`` call it once inside a ``while_loop``
body (the variables are built before the loop, so they live in the outer graph).

>>> import staticgraph as tf
>>> cell = tf.nn.rnn_cell.BasicLSTMCell(4)
>>> x = tf.placeholder(tf.float32, (2, 3))
>>> with tf.variable_scope("rnn"):
...     out, state = cell(x, cell.zero_state(2, tf.float32))
>>> [v.name for v in tf.global_variables()][-2:]
['rnn/basic_lstm_cell/kernel:0', 'rnn/basic_lstm_cell/bias:0']
"""
from __future__ import annotations

import collections
import types as _types

from common import layers as _layers

from ..framework import dtypes as _dtypes
from ..framework.build import convert_to_tensor
from ..framework.graph import Tensor, get_default_graph, name_scope
from ..training.initializers import Constant, Zeros
from ..util.nest import flatten, pack_sequence_as
from .array_ops import split
from .core_ops import add, clip_by_value, concat, matmul, multiply, sigmoid, subtract, tanh, zeros
from .nn_layers import dropout as _dropout  # (private: this module is tf.nn.rnn_cell)
from ..training.variable_scope import get_variable, variable_scope

__all__ = ["RNNCell", "BasicRNNCell", "BasicLSTMCell", "LSTMCell", "GRUCell", "MultiRNNCell",
           "DropoutWrapper", "LSTMStateTuple"]


class LSTMStateTuple(collections.namedtuple("LSTMStateTuple", ("c", "h"))):
    """``(c, h)``: the memory cell and the output of an LSTM."""

    __slots__ = ()

    @property
    def dtype(self):
        return self.c.dtype


def _zeros_for(size: int, batch_size, dtype):
    """``[batch_size, size]`` zeros (``batch_size`` an int, or a scalar tensor such as
    ``tf.shape(x)[0]``: TF's packed run-time shape)."""
    return zeros([batch_size, size], dtype)


def _depth(inputs: Tensor) -> int:
    depth = inputs.shape[-1] if inputs.shape.ndims else None
    if depth is None:
        raise ValueError(f"Expected inputs.shape[-1] to be known, saw shape: {inputs.shape}")
    return int(depth)


class RNNCell:
    """The cell protocol: ``state_size``, ``output_size``, ``zero_state``, ``__call__``.

    Subclasses define ``build(input_depth, dtype)`` (variables) and ``call(inputs, state)``.
    """

    _base_name = "rnn_cell"

    def __init__(self, trainable: bool = True, name: str | None = None, dtype=None, reuse=None,
                 **kwargs):
        self._name = name or self._base_name
        self._reuse, self._trainable = reuse, trainable
        self._dtype = None if dtype is None else _dtypes.as_dtype(dtype)
        self.built, self._scope, self._graph = False, None, None

    @property
    def name(self) -> str:
        return self._name

    @property
    def state_size(self):
        raise NotImplementedError(f"{type(self).__name__} must define state_size")

    @property
    def output_size(self):
        raise NotImplementedError(f"{type(self).__name__} must define output_size")

    @property
    def variables(self) -> list:
        return list(getattr(self, "_variables", []))

    trainable_variables = trainable_weights = weights = variables

    def _var(self, name: str, shape, dtype, initializer=None):
        v = get_variable(name, shape, dtype=dtype, initializer=initializer,
                         trainable=self._trainable)
        self.__dict__.setdefault("_variables", []).append(v)
        return v

    def build_for(self, input_depth: int, dtype) -> None:
        """Create the variables now (under ``<scope>/<name>``), once."""
        if self.built:
            return
        with variable_scope(self._name, reuse=self._reuse) as scope:
            self._scope, self._graph = scope, get_default_graph()
            self.build(input_depth, self._dtype or dtype)
        self.built = True

    def build(self, input_depth: int, dtype) -> None:
        """Subclasses create their variables here."""

    def __call__(self, inputs, state, scope=None):
        inputs = convert_to_tensor(inputs)
        if not self.built:
            if scope is not None:
                with variable_scope(scope):
                    self.build_for(_depth(inputs), inputs.dtype)
            else:
                self.build_for(_depth(inputs), inputs.dtype)
        graph = inputs.graph
        if graph is self._graph and self._scope.original_name_scope:
            scope_cm = graph.name_scope(self._scope.original_name_scope)   # TF: the same scope
        else:
            scope_cm = graph.name_scope(self._name)     # e.g. inside a while_loop body
        with scope_cm:
            return self.call(inputs, state)

    def call(self, inputs, state):
        raise NotImplementedError(f"{type(self).__name__} must define call()")

    def zero_state(self, batch_size, dtype):
        """Zeros shaped like ``state_size`` with ``batch_size`` rows (an int or a 0-d Tensor)."""
        dtype = _dtypes.as_dtype(dtype)
        with name_scope(type(self).__name__ + "ZeroState"):
            sizes = self.state_size
            return pack_sequence_as(sizes, [_zeros_for(s, batch_size, dtype) for s in flatten(sizes)])


_CELL_OPS = _types.SimpleNamespace(
    split=lambda x, num_split, axis: split(x, num_split, axis=axis), add=add, sub=subtract,
    mul=multiply, sigmoid=sigmoid, tanh=tanh, clip=clip_by_value)
"""The registry names ``common.layers``' cells call, as this module's builders: the nodes keep
the names TF's cells give them (``Sigmoid``, ``Mul_1``), not the registry's Python names."""


def _linear(args: list, kernel, bias):
    x = args[0] if len(args) == 1 else concat(args, 1)
    out = matmul(x, kernel)
    return out if bias is None else add(out, bias, name="BiasAdd")


class BasicRNNCell(RNNCell):
    """``output = new_state = activation(concat([x, h]) @ kernel + bias)``."""

    _base_name = "basic_rnn_cell"

    def __init__(self, num_units: int, activation=None, reuse=None, name=None, dtype=None, **kw):
        super().__init__(name=name, dtype=dtype, reuse=reuse, **kw)
        self._num_units, self._activation = num_units, activation or tanh

    state_size = output_size = property(lambda self: self._num_units)

    def build(self, input_depth, dtype):
        self._kernel = self._var("kernel", [input_depth + self._num_units, self._num_units], dtype)
        self._bias = self._var("bias", [self._num_units], dtype, Zeros())

    def call(self, inputs, state):
        out = self._activation(_linear([inputs, state], self._kernel, self._bias))
        return out, out


class BasicLSTMCell(RNNCell):
    """TF's basic LSTM: gates ``i, j, f, o`` in one kernel, ``forget_bias`` added to ``f``."""

    _base_name = "basic_lstm_cell"

    def __init__(self, num_units: int, forget_bias: float = 1.0, state_is_tuple: bool = True,
                 activation=None, reuse=None, name=None, dtype=None, **kw):
        super().__init__(name=name, dtype=dtype, reuse=reuse, **kw)
        self._num_units, self._forget_bias = num_units, forget_bias
        self._state_is_tuple, self._activation = state_is_tuple, activation or tanh

    @property
    def state_size(self):
        n = self._num_units
        return LSTMStateTuple(n, n) if self._state_is_tuple else 2 * n

    output_size = property(lambda self: self._num_units)

    def build(self, input_depth, dtype):
        n = self._num_units
        self._kernel = self._var("kernel", [input_depth + n, 4 * n], dtype)
        self._bias = self._var("bias", [4 * n], dtype, Zeros())

    def _split_state(self, state):
        if self._state_is_tuple:
            return state
        return split(state, 2, axis=1)

    def call(self, inputs, state):
        c, h = self._split_state(state)
        gates = _linear([inputs, h], self._kernel, self._bias)
        new_h, new_c = _layers.lstm_cell(_CELL_OPS, gates, c, _layers.TF_LSTM_GATES,
                                         self._forget_bias, self._activation)
        new_state = (LSTMStateTuple(new_c, new_h) if self._state_is_tuple
                     else concat([new_c, new_h], 1))
        return new_h, new_state


class LSTMCell(BasicLSTMCell):
    """The full LSTM: optional peepholes, cell clipping and a projection ``num_proj`` of ``h``."""

    _base_name = "lstm_cell"

    def __init__(self, num_units: int, use_peepholes: bool = False, cell_clip=None,
                 initializer=None, num_proj=None, proj_clip=None, num_unit_shards=None,
                 num_proj_shards=None, forget_bias: float = 1.0, state_is_tuple: bool = True,
                 activation=None, reuse=None, name=None, dtype=None, **kw):
        super().__init__(num_units, forget_bias, state_is_tuple, activation, reuse, name, dtype, **kw)
        self._use_peepholes, self._cell_clip, self._proj_clip = use_peepholes, cell_clip, proj_clip
        self._initializer, self._num_proj = initializer, num_proj

    @property
    def state_size(self):
        n, m = self._num_units, self._num_proj or self._num_units
        return LSTMStateTuple(n, m) if self._state_is_tuple else n + m

    output_size = property(lambda self: self._num_proj or self._num_units)

    def build(self, input_depth, dtype):
        n, h = self._num_units, self._num_proj or self._num_units
        init = self._initializer
        self._kernel = self._var("kernel", [input_depth + h, 4 * n], dtype, init)
        self._bias = self._var("bias", [4 * n], dtype, Zeros())
        if self._use_peepholes:
            self._w_f, self._w_i, self._w_o = (self._var(k, [n], dtype, init)
                                               for k in ("w_f_diag", "w_i_diag", "w_o_diag"))
        if self._num_proj is not None:
            self._proj = self._var("projection/kernel", [n, self._num_proj], dtype, init)

    def _split_state(self, state):
        if self._state_is_tuple:
            return state
        return split(state, [self._num_units, self._num_proj or self._num_units], axis=1)

    def call(self, inputs, state):
        c_prev, m_prev = self._split_state(state)
        m, c = _layers.lstm_cell(_CELL_OPS, _linear([inputs, m_prev], self._kernel, self._bias),
                                c_prev, _layers.TF_LSTM_GATES, self._forget_bias, self._activation,
                                (self._w_f, self._w_i, self._w_o) if self._use_peepholes else None,
                                self._cell_clip)
        if self._num_proj is not None:
            m = matmul(m, self._proj)
            if self._proj_clip is not None:
                m = clip_by_value(m, -self._proj_clip, self._proj_clip)
        new_state = LSTMStateTuple(c, m) if self._state_is_tuple else concat([c, m], 1)
        return m, new_state


class GRUCell(RNNCell):
    """Gates ``r, u`` from one kernel (bias starts at 1), then the candidate from ``r * h``."""

    _base_name = "gru_cell"

    def __init__(self, num_units: int, activation=None, reuse=None, kernel_initializer=None,
                 bias_initializer=None, name=None, dtype=None, **kw):
        super().__init__(name=name, dtype=dtype, reuse=reuse, **kw)
        self._num_units, self._activation = num_units, activation or tanh
        self._kernel_init, self._bias_init = kernel_initializer, bias_initializer

    state_size = output_size = property(lambda self: self._num_units)

    def build(self, input_depth, dtype):
        n, k, b = self._num_units, self._kernel_init, self._bias_init
        self._gate_kernel = self._var("gates/kernel", [input_depth + n, 2 * n], dtype, k)
        self._gate_bias = self._var("gates/bias", [2 * n], dtype, b or Constant(1.0))
        self._cand_kernel = self._var("candidate/kernel", [input_depth + n, n], dtype, k)
        self._cand_bias = self._var("candidate/bias", [n], dtype, b or Zeros())

    def call(self, inputs, state):
        new_h = _layers.gru_cell(
            _CELL_OPS, state, _linear([inputs, state], self._gate_kernel, self._gate_bias),
            lambda r: _linear([inputs, multiply(r, state)], self._cand_kernel, self._cand_bias),
            self._activation)
        return new_h, new_h


class MultiRNNCell(RNNCell):
    """Cells stacked: cell ``i`` runs under ``multi_rnn_cell/cell_i`` on the output of ``i - 1``."""

    _base_name = "multi_rnn_cell"

    def __init__(self, cells: list, state_is_tuple: bool = True):
        super().__init__()
        if not cells:
            raise ValueError("Must specify at least one cell for MultiRNNCell.")
        if not state_is_tuple:
            raise ValueError("MultiRNNCell here keeps its state as a tuple (state_is_tuple=True).")
        self._cells = list(cells)

    state_size = property(lambda self: tuple(c.state_size for c in self._cells))
    output_size = property(lambda self: self._cells[-1].output_size)
    variables = property(lambda self: [v for c in self._cells for v in c.variables])

    def build(self, input_depth, dtype):
        for i, cell in enumerate(self._cells):
            with variable_scope(f"cell_{i}"):
                cell.build_for(input_depth, dtype)
            input_depth = int(flatten(cell.output_size)[0])

    def call(self, inputs, state):
        new_states = []
        for i, cell in enumerate(self._cells):
            with name_scope(f"cell_{i}"):
                inputs, s = cell(inputs, state[i])
            new_states.append(s)
        return inputs, tuple(new_states)


class DropoutWrapper(RNNCell):
    """Dropout on a cell's inputs, outputs and (the ``h`` part of) its state, a fresh mask per
    step; a keep probability of exactly 1.0 adds no op."""

    def __init__(self, cell: RNNCell, input_keep_prob=1.0, output_keep_prob=1.0,
                 state_keep_prob=1.0, variational_recurrent: bool = False, input_size=None,
                 dtype=None, seed=None, dropout_state_filter_visitor=None):
        super().__init__()
        for name, p in (("input_keep_prob", input_keep_prob), ("output_keep_prob", output_keep_prob),
                        ("state_keep_prob", state_keep_prob)):
            if isinstance(p, (int, float)) and not 0 < p <= 1:
                raise ValueError(f"Parameter {name} must be between 0 and 1. Received {p:g}")
        if variational_recurrent:
            raise ValueError("DropoutWrapper(variational_recurrent=True) is not supported here: "
                             "it draws one mask per sequence; use the default per-step masks.")
        self._cell, self._seed = cell, seed
        self._keep = (input_keep_prob, output_keep_prob, state_keep_prob)

    state_size = property(lambda self: self._cell.state_size)
    output_size = property(lambda self: self._cell.output_size)
    variables = property(lambda self: self._cell.variables)
    wrapped_cell = property(lambda self: self._cell)

    def build_for(self, input_depth, dtype):
        self._cell.build_for(input_depth, dtype)
        self.built = True

    def _drop(self, x, keep):
        if isinstance(keep, (int, float)) and keep == 1:
            return x
        return _dropout(x, keep_prob=keep, seed=self._seed)

    def __call__(self, inputs, state, scope=None):
        inputs = self._drop(convert_to_tensor(inputs), self._keep[0])
        out, new_state = self._cell(inputs, state, scope=scope)
        return self._drop(out, self._keep[1]), self._drop_state(new_state)

    def _drop_state(self, state):
        """TF's default filter: every state tensor but the ``c`` of an LSTMStateTuple."""
        if isinstance(state, LSTMStateTuple):
            return LSTMStateTuple(state.c, self._drop_state(state.h))
        if isinstance(state, (tuple, list)):
            return type(state)(self._drop_state(s) for s in state)
        return self._drop(state, self._keep[2])
