"""Recurrent layers: ``RNNCell``/``LSTMCell``/``GRUCell`` and ``RNN``/``LSTM``/``GRU``.

The eager engine's answer to "how do you run a cell over a sequence" is a
Python loop: each step applies the cell and the tape records it, so the graph
of one pass is as long as the sequence (and a packed batch of shorter
sequences simply runs fewer rows on the later steps).  Parameters, their
names, shapes, gate orders and initialisation follow PyTorch, so a
``state_dict`` moves between the two unchanged::

    weight_ih_l{k}[_reverse]  (G*hidden, input)     G = 4 (LSTM: i, f, g, o),
    weight_hh_l{k}[_reverse]  (G*hidden, hidden)        3 (GRU: r, z, n), 1 (RNN)
    bias_ih_l{k}, bias_hh_l{k}  (G*hidden,)

As PyTorch's CPU layers do, the input's share of the gates is projected for the
whole sequence at once -- one ``(rows, input) @ W_ih.T`` matmul per layer and
direction over the step-major rows (a padded batch's ``T*B`` rows, or a packed
batch's data) -- and split into each step's rows with one ``split`` (whose
gradient is one concatenation, not a scatter per step); only ``h @ W_hh.T`` and
the gates run per step -- an LSTM's or GRU's pointwise part as one fused node
(``common/ops/cells.py``), as PyTorch's fused cells.

A float32 LSTM over a padded batch goes one step further, as PyTorch's CPU LSTM does (one
oneDNN ``MkldnnRnnLayerBackward0`` node per layer and direction): after the projection, the
whole layer-direction is ONE ``LSTMLayer`` node (``common/ops/rnn_layer.py``) -- a loop of
one product and one compiled cell pass per step, and a backward of one recurrence and one
weight product over all steps, instead of ~8 tape nodes a step and a weight product per
step.  Measured on the bench's ``lstm_50`` (hidden 128, batch 32, one core): 21 -> ~13 ms
fwd+bwd; ``lstm_200_train`` 113 -> ~82 ms and peak memory 64.1 -> 38.4 MiB.  float64 keeps
the per-step path (PyTorch's oneDNN layer is float32 only: its float64 output is a
``StackBackward0`` of the steps), so does a packed batch (fewer rows on later steps), and
so does GRU, whose PyTorch CPU layer is per step too (``StackBackward0`` over the steps'
``AddBackward0``, which ``tests/test_grad_fn_names.py`` compares).

>>> import dyngraph as torch
>>> lstm = torch.nn.LSTM(10, 20, num_layers=2)
>>> out, (h, c) = lstm(torch.randn(5, 3, 10))
>>> tuple(out.shape), tuple(h.shape)
((5, 3, 20), (2, 3, 20))
"""
from __future__ import annotations

import math
import numbers
import warnings

import numpy as np

from common.registry import REGISTRY

from .. import creation
from .. import functions as _f
from ..engine import apply, node_class_for
from ..selection import split
from ..tensor import Tensor
from . import init
from .functional_layers import dropout
from .module import Module, Parameter
from .utils.rnn import PackedSequence

__all__ = ["RNNCellBase", "RNNCell", "LSTMCell", "GRUCell", "RNNBase", "RNN", "LSTM", "GRU"]

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _uniform(shape: tuple, bound: float) -> Parameter:
    """``init.uniform_(param, -bound, bound)``: PyTorch's ``reset_parameters`` draws each
    parameter so, in the order they are registered -- the order they are made here."""
    return Parameter(init.uniform_(creation.empty(*shape), -bound, bound))


# --- one time step of each cell: ``gx`` is the input's share of the gates (``x @ W_ih.T``
# with the biases folded in, see ``_split_weights``), ``wh`` is ``W_hh.T`` and ``bh`` GRU's
# ``b_hh`` (the only bias that cannot be folded into ``gx``) --------------------------------------

def _rnn_step(act):
    def step(gx, state, wh, bh):
        return (act(gx + state[0].matmul(wh)),)
    return step


_LSTM_CELL = REGISTRY["FusedLSTMCell"]
_LSTM_NODE = node_class_for(_LSTM_CELL, "cell")


def _lstm_step(gx, state, wh, bh):
    """Gates in PyTorch's order i, f, g, o; the pointwise part is one ``FusedLSTMCell`` node
    (``common.ops.cells``: ``common.layers.lstm_cell``'s maths, which TF's cells share; its
    bits in ``cells.set_exact(True)`` mode), as PyTorch's fused cell -- one node instead of
    a dozen."""
    h, c = state
    h, c, _ = apply(_LSTM_CELL, (gx + h.matmul(wh), c), cls=_LSTM_NODE)   # _: the workspace
    return h, c


_LSTM_LAYER = REGISTRY["LSTMLayer"]
_FORWARD, _REVERSE = {"reverse": False}, {"reverse": True}

_GRU_CELL = REGISTRY["FusedGRUCell"]
_GRU_NODE = node_class_for(_GRU_CELL, "cell")


def _gru_step(gi, state, wh, bh):
    """Gates in PyTorch's order r, z, n; ``b_hn`` stays inside ``r * (...)`` as PyTorch's.
    The pointwise part is one ``FusedGRUCell`` node (``common.ops.cells``: the maths of
    ``common.layers.gru_cell``, which TF's ``GRUCell`` shares; its bits in exact mode)."""
    h = state[0]
    gh = h.matmul(wh)
    if bh is not None:
        gh = gh + bh
    return (apply(_GRU_CELL, (gi, gh, h), cls=_GRU_NODE)[0],)


def _step_for(mode: str):
    return {"RNN_TANH": _rnn_step(_f.tanh), "RNN_RELU": _rnn_step(_f.relu),
            "LSTM": _lstm_step, "GRU": _gru_step}[mode]


def _split_weights(w_ih, w_hh, b_ih, b_hh, mode: str) -> tuple:
    """``(W_ih.T, bias of the input share, W_hh.T, bias of the hidden share)``, transposed once
    per forward: both biases go into the input share (added once per sequence), but GRU's
    ``b_hh`` must stay on the hidden share, inside ``r * (...)``."""
    if b_ih is None:
        return w_ih.t(), None, w_hh.t(), None
    if mode == "GRU":
        return w_ih.t(), b_ih, w_hh.t(), b_hh
    return w_ih.t(), b_ih + b_hh, w_hh.t(), None


def _project(x, wi, bi):
    """The input's share of the gates, ``x @ W_ih.T (+ bias)``, for any number of rows."""
    gx = x.matmul(wi)
    return gx if bi is None else gx + bi


# --- cells --------------------------------------------------------------------------------

class RNNCellBase(Module):
    """Parameters of one cell: ``weight_ih``, ``weight_hh``, ``bias_ih``, ``bias_hh``."""

    _mode = "RNN_TANH"

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int):
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        k = 1.0 / math.sqrt(hidden_size) if hidden_size > 0 else 0.0
        self.weight_ih = _uniform((num_chunks * hidden_size, input_size), k)
        self.weight_hh = _uniform((num_chunks * hidden_size, hidden_size), k)
        if bias:
            self.bias_ih = _uniform((num_chunks * hidden_size,), k)
            self.bias_hh = _uniform((num_chunks * hidden_size,), k)
        else:
            self.bias_ih = self.bias_hh = None

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if not self.bias:
            s += ", bias=False"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def _check(self, input: Tensor, state: tuple[Tensor, ...]) -> None:
        if input.dim() not in (1, 2):
            raise ValueError(f"{type(self).__name__}: Expected input to be 1D or 2D, "
                             f"got {input.dim()}D instead")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[-1]} "
                               f"expected {self.input_size}")
        for i, h in enumerate(state):
            if input.dim() == 2 and h.shape[0] != input.shape[0]:
                raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match hidden{i} "
                                   f"batch size {h.shape[0]}")
            if h.shape[-1] != self.hidden_size:
                raise RuntimeError(f"hidden{i} has inconsistent hidden_size: got {h.shape[-1]}, "
                                   f"expected {self.hidden_size}")

    def _cell(self, input: Tensor, state: tuple[Tensor, ...] | None, n_state: int):
        if state is None:
            shape = (input.shape[0], self.hidden_size) if input.dim() == 2 else (self.hidden_size,)
            state = tuple(creation.zeros(*shape, dtype=input.dtype) for _ in range(n_state))
        self._check(input, state)
        wi, bi, wh, bh = _split_weights(self.weight_ih, self.weight_hh, self.bias_ih,
                                        self.bias_hh, self._mode)
        return _step_for(self._mode)(_project(input, wi, bi), state, wh, bh)


class RNNCell(RNNCellBase):
    """``h' = tanh(x @ W_ih.T + b_ih + h @ W_hh.T + b_hh)`` (or relu)."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 nonlinearity: str = "tanh"):
        super().__init__(input_size, hidden_size, bias, 1)
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}")
        self.nonlinearity = nonlinearity
        self._mode = "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU"

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        return self._cell(input, None if hx is None else (hx,), 1)[0]


class LSTMCell(RNNCellBase):
    """``(h', c') = LSTMCell(x, (h, c))`` with gates i, f, g, o stacked in ``weight_ih``."""

    _mode = "LSTM"

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True):
        super().__init__(input_size, hidden_size, bias, 4)

    def forward(self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None):
        return self._cell(input, None if hx is None else tuple(hx), 2)


class GRUCell(RNNCellBase):
    """``h' = (1 - z) * n + z * h`` with gates r, z, n stacked in ``weight_ih``."""

    _mode = "GRU"

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True):
        super().__init__(input_size, hidden_size, bias, 3)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        return self._cell(input, None if hx is None else (hx,), 1)[0]


# --- layers over sequences -----------------------------------------------------------------

def _run(step, gxs: list, state0: tuple, wh, bh, reverse: bool):
    """One direction over time: ``gxs[t]`` is step ``t``'s projected input, ``batch_sizes[t]``
    rows (all equal for a padded batch, shrinking for a packed one).

    Rows whose sequence has ended are set aside (forward) or joined from ``state0`` when
    their sequence begins (reverse), so a shorter sequence runs fewer steps.
    Returns the per-step outputs in time order and the final state.
    """
    steps = range(len(gxs) - 1, -1, -1) if reverse else range(len(gxs))
    state, done, outs = None, [], [None] * len(gxs)
    for t in steps:
        bs = gxs[t].shape[0]
        if state is None:
            state = tuple(s[:bs] if bs < s.shape[0] else s for s in state0)
        elif bs < state[0].shape[0]:
            done.append(tuple(s[bs:] for s in state))
            state = tuple(s[:bs] for s in state)
        elif bs > state[0].shape[0]:
            cur = state[0].shape[0]
            state = tuple(_f.cat([s, s0[cur:bs]]) for s, s0 in zip(state, state0))
        state = step(gxs[t], state, wh, bh)
        outs[t] = state[0]
    if done:
        state = tuple(_f.cat([s] + [d[k] for d in done[::-1]]) for k, s in enumerate(state))
    return outs, state


class RNNBase(Module):
    """The layer machinery shared by ``RNN``, ``LSTM`` and ``GRU``."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False):
        super().__init__()
        if (not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1
                or isinstance(dropout, bool)):
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                          "non-zero dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}", stacklevel=2)
        if not isinstance(hidden_size, int) or isinstance(hidden_size, bool):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.bias, self.batch_first = num_layers, bias, batch_first
        self.dropout, self.bidirectional = float(dropout), bidirectional
        gates = _GATES[mode]
        k = 1.0 / math.sqrt(hidden_size)
        dirs = 2 if bidirectional else 1
        self._flat_weights_names = []
        for layer in range(num_layers):
            for d in range(dirs):
                sfx = f"_l{layer}" + ("_reverse" if d else "")
                in_size = input_size if layer == 0 else hidden_size * dirs
                names = [("weight_ih", (gates * hidden_size, in_size)),
                         ("weight_hh", (gates * hidden_size, hidden_size))]
                if bias:
                    names += [("bias_ih", (gates * hidden_size,)), ("bias_hh", (gates * hidden_size,))]
                for name, shape in names:
                    setattr(self, name + sfx, _uniform(shape, k))
                    self._flat_weights_names.append(name + sfx)

    def flatten_parameters(self) -> None:
        """Nothing to do: PyTorch packs the weights into one cuDNN buffer here (a no-op on
        the CPU too); the word-language-model example calls it after loading a model."""

    @property
    def all_weights(self) -> list[list[Parameter]]:
        per = 4 if self.bias else 2
        ws = [getattr(self, n) for n in self._flat_weights_names]
        return [ws[i:i + per] for i in range(0, len(ws), per)]

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if not self.bias:
            s += ", bias=False"
        if self.batch_first:
            s += ", batch_first=True"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional:
            s += ", bidirectional=True"
        return s

    def _state_count(self) -> int:
        return 2 if self.mode == "LSTM" else 1

    def _layout(self, input):
        """The input as step-major rows: ``(data, batch_sizes, batch, unbatched)``, where
        ``data`` is 2-D and step ``t`` owns the next ``batch_sizes[t]`` rows."""
        if isinstance(input, PackedSequence):
            sizes = [int(b) for b in input.batch_sizes.tolist()]
            return input.data, sizes, sizes[0] if sizes else 0, False
        if input.dim() not in (2, 3):
            raise ValueError(f"{type(self).__name__}: Expected input to be 2D or 3D, "
                             f"got {input.dim()}D instead")
        if input.dim() == 2:
            return input, [1] * input.shape[0], 1, True
        if self.batch_first:
            input = input.transpose(0, 1)
        steps, batch = input.shape[0], input.shape[1]
        return input.reshape(steps * batch, input.shape[2]), [batch] * steps, batch, False

    def _initial(self, hx, batch: int, dtype, unbatched: bool, packed) -> tuple:
        dirs = 2 if self.bidirectional else 1
        shape = (self.num_layers * dirs, batch, self.hidden_size)
        if hx is None:
            return tuple(creation.zeros(*shape, dtype=dtype) for _ in range(self._state_count()))
        hx = tuple(hx) if self.mode == "LSTM" else (hx,)
        if unbatched:
            for h in hx:
                if h.dim() != 2:
                    raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got "
                                       f"{h.dim()}-D tensor")
            hx = tuple(h.unsqueeze(1) for h in hx)
        for i, h in enumerate(hx):
            if tuple(h.shape) != shape:
                what = f"hidden[{i}]" if self.mode == "LSTM" else "hidden"
                raise RuntimeError(f"Expected {what} size {shape}, got {list(h.shape)}")
        if packed is not None and packed.sorted_indices is not None:
            hx = tuple(h[:, packed.sorted_indices] for h in hx)
        return hx

    def forward(self, input, hx=None):
        packed = input if isinstance(input, PackedSequence) else None
        data, sizes, batch, unbatched = self._layout(input)
        if sizes and data.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {data.shape[-1]}")
        state0 = self._initial(hx, batch, data.dtype, unbatched, packed)
        if self.mode == "LSTM" and packed is None and sizes and data._data.dtype == np.float32:
            out, state = self._lstm_layers(data, len(sizes), batch, state0)
            return self._pack_result(out, state, packed, unbatched)
        step, dirs = _step_for(self.mode), 2 if self.bidirectional else 1
        finals = [[] for _ in state0]
        for layer in range(self.num_layers):
            if layer and self.dropout and self.training:
                data = dropout(data, self.dropout)
            stacked = layer == self.num_layers - 1 and packed is None
            outs = []
            for d in range(dirs):
                wi, bi, wh, bh = _split_weights(*self._weights(layer, d), self.mode)
                gxs = split(_project(data, wi, bi), sizes)
                s0 = tuple(s[layer * dirs + d] for s in state0)
                seq, final = _run(step, gxs, s0, wh, bh, bool(d))
                # the last layer of a padded batch is (T, B, H) as PyTorch's; the others stay rows
                outs.append(_f.stack(seq) if stacked else _f.cat(seq))
                for k, s in enumerate(final):
                    finals[k].append(s)
            data = outs[0] if dirs == 1 else _f.cat(outs, dim=-1)
        return self._pack_result(data, tuple(_f.stack(f) for f in finals), packed, unbatched)

    def _lstm_layers(self, data, steps: int, batch: int, state0: tuple):
        """An LSTM over a padded batch: per layer and direction, the input projection (one
        product over all steps' rows, without the bias) and ONE ``LSTMLayer`` node
        (``common.ops.rnn_layer``), as PyTorch's CPU LSTM is one ``MkldnnRnnLayerBackward0``
        node per layer and direction; the reverse direction runs the steps backwards (its
        ``reverse`` attribute).  As PyTorch's, only for float32 (oneDNN's RNN takes no
        float64: a float64 LSTM steps the cell, its output a ``StackBackward0``) and a
        padded batch (a packed one runs fewer rows on later steps: the per-step path).
        ``data``: the step-major rows; returns ``out (T, B, dirs*H)`` and ``(h_n, c_n)``."""
        dirs = 2 if self.bidirectional else 1
        finals: tuple[list, list] = ([], [])
        for layer in range(self.num_layers):
            if layer and self.dropout and self.training:
                data = dropout(data, self.dropout)
            outs = []
            for d in range(dirs):
                wi, bi, wh, _ = _split_weights(*self._weights(layer, d), self.mode)
                gx = data.matmul(wi)             # the bias is added in the layer's kernel
                if gx.dim() == 2:
                    gx = gx.reshape(steps, batch, gx.shape[-1])
                if bi is None:
                    bi = creation.zeros(gx.shape[-1], dtype=gx.dtype)
                k = layer * dirs + d
                out, h, c, _ = apply(_LSTM_LAYER, (gx, state0[0][k], state0[1][k], wh, bi),
                                     _REVERSE if d else _FORWARD)   # _: the workspace
                outs.append(out)
                finals[0].append(h)
                finals[1].append(c)
            data = outs[0] if dirs == 1 else _f.cat(outs, dim=-1)
        return data, (_f.stack(finals[0]), _f.stack(finals[1]))

    def _weights(self, layer: int, direction: int):
        sfx = f"_l{layer}" + ("_reverse" if direction else "")
        w_ih, w_hh = getattr(self, "weight_ih" + sfx), getattr(self, "weight_hh" + sfx)
        if not self.bias:
            return w_ih, w_hh, None, None
        return w_ih, w_hh, getattr(self, "bias_ih" + sfx), getattr(self, "bias_hh" + sfx)

    def _pack_result(self, out, state, packed, unbatched):
        if packed is not None:
            if packed.unsorted_indices is not None:
                state = tuple(s[:, packed.unsorted_indices] for s in state)
            out = PackedSequence(out, packed.batch_sizes, packed.sorted_indices,
                                 packed.unsorted_indices)
        elif unbatched:
            out, state = out.squeeze(1), tuple(s.squeeze(1) for s in state)
        elif self.batch_first:
            out = out.transpose(0, 1)
        return (out, state) if self.mode == "LSTM" else (out, state[0])


class RNN(RNNBase):
    """Elman RNN: ``h_t = tanh(x_t @ W_ih.T + b_ih + h_{t-1} @ W_hh.T + b_hh)`` (or relu)."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 nonlinearity: str = "tanh", bias: bool = True, batch_first: bool = False,
                 dropout: float = 0.0, bidirectional: bool = False):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", input_size,
                         hidden_size, num_layers, bias, batch_first, dropout, bidirectional)
        self.nonlinearity = nonlinearity


class LSTM(RNNBase):
    """Long short-term memory; returns ``(output, (h_n, c_n))``."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False):
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional)


class GRU(RNNBase):
    """Gated recurrent unit; returns ``(output, h_n)``."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False):
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional)
