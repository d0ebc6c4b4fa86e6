"""Layer composites: plain functions over registry ops, shared by both engines.

Normalisation, dropout, embedding lookup, adaptive pooling and flattening need no primitive
of their own: written over ``F`` they get gradients (of any order) from the primitives they
use, in both engines.  What is *state* (running statistics) or *randomness* (dropout masks)
stays with the engines: a composite takes the statistics or the mask as an input, so it is
a pure function and one definition serves eager, ``create_graph`` and static graphs.

>>> import numpy as np
>>> from common import numpy_namespace
>>> F = numpy_namespace()
>>> mean, var = moments(F, np.array([[1.0, 3.0]]), axes=(1,))
>>> float(mean[0]), float(var[0])
(2.0, 1.0)
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from .indexing import ARRAY

__all__ = ["dropout", "moments", "normalize", "batch_norm_train", "layer_norm", "embedding",
           "adaptive_avg_pool2d", "adaptive_pool_matrix", "flatten", "attention", "lstm_cell",
           "TORCH_LSTM_GATES", "TF_LSTM_GATES", "gru_cell"]


def dropout(F, x, scaled_keep_mask):
    """``x * mask``: the mask holds ``0`` (dropped) or ``1/keep_prob`` (kept), drawn by the engine.

    Inverted dropout: the scaling happens at training time, so evaluation is the identity.
    The mask is an input of the product, so the backward step keeps it (``g * mask``).
    """
    return F.mul(x, scaled_keep_mask)


def moments(F, x, axes: Sequence[int], keepdims: bool = False):
    """``(mean, variance)`` over ``axes`` (biased variance, as ``tf.nn.moments``).

    TF computes the variance around ``stop_gradient(mean)``: the mean's own gradient path
    already carries that dependence, and the value is the same.
    """
    axes = tuple(axes)
    mean = F.mean(x, axis=axes, keepdims=True)
    d = F.sub(x, F.stop_gradient(mean))
    var = F.mean(F.mul(d, d), axis=axes, keepdims=True)
    if not keepdims:
        mean, var = F.squeeze(mean, axis=axes), F.squeeze(var, axis=axes)
    return mean, var


def normalize(F, x, mean, variance, offset, scale, eps: float):
    """``(x - mean) / sqrt(variance + eps) * scale + offset`` (``tf.nn.batch_normalization``).

    Written as TF writes it -- ``x * inv + (offset - mean * inv)`` with
    ``inv = scale / sqrt(variance + eps)`` -- so the per-element work is one multiply-add.
    ``offset`` and ``scale`` may be None.
    """
    inv = F.div(1.0, F.sqrt(F.add(variance, eps)))
    if scale is not None:
        inv = F.mul(inv, scale)
    shift = F.neg(F.mul(mean, inv)) if offset is None else F.sub(offset, F.mul(mean, inv))
    return F.add(F.mul(x, inv), shift)


def batch_norm_train(F, x, axes: Sequence[int], offset, scale, eps: float):
    """Normalise ``x`` with its own statistics over ``axes``; also return them (kept dims).

    The engines update their running statistics from the returned (biased) mean and variance.
    """
    mean = F.mean(x, axis=tuple(axes), keepdims=True)
    d = F.sub(x, mean)
    var = F.mean(F.mul(d, d), axis=tuple(axes), keepdims=True)
    inv = F.div(1.0, F.sqrt(F.add(var, eps)))
    if scale is not None:
        inv = F.mul(inv, scale)
    y = F.mul(d, inv)
    return (y if offset is None else F.add(y, offset)), mean, var


def layer_norm(F, x, ndim: int, weight, bias, eps: float):
    """Normalise over the last ``ndim`` dims (biased variance), then ``* weight + bias``.

    The normalised value is PyTorch's ``x * rstd + (-mean * rstd)``, not ``(x - mean) / std``
    (they differ by an ulp); with both ``weight`` and ``bias`` it is one registry op,
    ``LayerNormAffine``, because PyTorch rounds its forward and its weight gradient
    differently (see there).
    """
    axes = tuple(range(-ndim, 0))
    mean = F.mean(x, axis=axes, keepdims=True)
    d = F.sub(x, mean)
    var = F.mean(F.mul(d, d), axis=axes, keepdims=True)
    rstd = F.div(1.0, F.sqrt(F.add(var, eps)))
    if weight is not None and bias is not None:
        return F.layer_norm_affine(x, mean, rstd, weight, bias)
    y = F.add(F.mul(x, rstd), F.neg(F.mul(mean, rstd)))
    if weight is not None:
        y = F.mul(y, weight)
    return y if bias is None else F.add(y, bias)


def embedding(F, weight, ids):
    """Rows of ``weight`` picked by integer ``ids`` (any shape): ``weight[ids]``.

    The gradient is ``GetItem``'s scatter-add, so repeated ids accumulate.
    """
    return F.getitem(weight, ids, key=(ARRAY,))


def adaptive_pool_matrix(size: int, out: int, dtype) -> np.ndarray:
    """``(out, size)`` averaging matrix: row ``i`` averages ``[floor(i*size/out), ceil((i+1)*size/out))``.

    >>> adaptive_pool_matrix(5, 2, np.float64).round(3).tolist()
    [[0.333, 0.333, 0.333, 0.0, 0.0], [0.0, 0.0, 0.333, 0.333, 0.333]]
    """
    m = np.zeros((out, size), dtype=dtype)
    for i in range(out):
        lo, hi = (i * size) // out, -(-((i + 1) * size) // out)
        m[i, lo:hi] = 1.0 / (hi - lo)
    return m


def adaptive_avg_pool2d(F, x, output_size: tuple[int, int]):
    """PyTorch's adaptive average pooling of the last two dims: ``Ph @ x @ Pw^T``.

    Two small matmuls with constant averaging matrices: exact for any input and output
    size, differentiable through ``MatMul``.
    """
    h, w = F.shape(x)[-2:]
    dtype = F.dtype(x)
    y = F.matmul(adaptive_pool_matrix(h, output_size[0], dtype), x)
    return F.matmul(y, adaptive_pool_matrix(w, output_size[1], dtype).T.copy())


def flatten(F, x, start: int = 1):
    """Dims ``start`` and after merged into one (only dims before ``start`` may be unknown)."""
    shape = F.shape(x)
    rest = int(np.prod(shape[start:]))
    return F.reshape(x, shape=((-1,) + tuple(shape[1:start]) if start else ()) + (rest,))


def attention(F, q, k, v, bias=None, scale: float = 1.0, keep_mask=None, dead_rows=None):
    """Scaled dot-product attention: ``softmax(q @ k^T * scale + bias) @ v``; also the weights.

    Written as PyTorch's math path writes it: both factors are scaled by ``sqrt(|scale|)``
    before the product (the query carries a negative scale's sign), which keeps the scores'
    magnitude down in low precision.  ``bias`` is the additive mask (``-inf`` where a key
    may not be attended to); ``dead_rows`` (bool, ``[..., L, 1]``) marks query rows whose
    every key is masked: their weights are zero instead of ``0/0`` (PyTorch's
    ``_safe_softmax``), and their scores are replaced before the softmax so that no NaN
    reaches the gradient either.  ``keep_mask`` is dropout's scaled mask, drawn by the
    engine, applied to the weights.
    """
    root = math.sqrt(abs(scale))
    rank = F.rank(k)
    k_t = F.transpose(k, perm=tuple(range(rank - 2)) + (rank - 1, rank - 2))
    scores = F.matmul(F.mul(q, -root if scale < 0 else root), F.mul(k_t, root))
    if bias is not None:
        scores = F.add(scores, bias)
    if dead_rows is not None:
        scores = F.where(dead_rows, 0.0, scores)
    weights = F.softmax(scores, axis=-1)
    if dead_rows is not None:
        weights = F.where(dead_rows, 0.0, weights)
    if keep_mask is not None:
        weights = dropout(F, weights, keep_mask)
    return F.matmul(weights, v), weights


TORCH_LSTM_GATES = "ifgo"
"""PyTorch's gate order in ``weight_ih``/``weight_hh``: input, forget, cell candidate, output."""
TF_LSTM_GATES = "igfo"
"""TF's order in an LSTM cell's ``kernel``: ``i, j, f, o`` -- TF calls the candidate ``j``."""


def lstm_cell(F, gates, c, order: str, forget_bias: float | None = None, activation=None,
              peepholes: tuple | None = None, cell_clip: float | None = None):
    """One LSTM step: ``(h', c')`` from the gates' pre-activations and the cell state ``c``.

    ``gates`` is ``(..., 4 * units)``: the four blocks in ``order`` (:data:`TORCH_LSTM_GATES`
    or :data:`TF_LSTM_GATES`), each engine having already added its input and recurrent
    shares and biases.  Then::

        c' = sigmoid(f + forget_bias) * c + sigmoid(i) * activation(g)
        h' = sigmoid(o) * activation(c')

    ``forget_bias`` is TF's (added inside, even when 0, as TF's cells build it); PyTorch has
    none (None).  TF's ``LSTMCell`` options: ``peepholes = (w_f, w_i, w_o)`` add ``w * c`` to
    the gates f and i (old cell) and o (new cell); ``cell_clip`` clips ``c'``.  The gates are
    split in one node and each activated on its own block, so the value of every block (and
    its gradient) is the same whichever engine or order built it.
    """
    pieces = dict(zip(order, F.split(gates, num_split=4, axis=-1)))
    i, f, g, o = pieces["i"], pieces["f"], pieces["g"], pieces["o"]
    act = activation or F.tanh
    if peepholes is not None:
        f = F.add(f, F.mul(peepholes[0], c))
        i = F.add(i, F.mul(peepholes[1], c))
    if forget_bias is not None:
        f = F.add(f, forget_bias)
    c = F.add(F.mul(c, F.sigmoid(f)), F.mul(F.sigmoid(i), act(g)))
    if cell_clip is not None:
        c = F.clip(c, -cell_clip, cell_clip)
    if peepholes is not None:
        o = F.add(o, F.mul(peepholes[2], c))
    return F.mul(act(c), F.sigmoid(o)), c


def gru_cell(F, h, gates, candidate, activation=None):
    """One GRU step: ``h' = z * h + (1 - z) * activation(candidate(r))``.

    ``gates`` is ``(..., 2 * units)``: the pre-activations of the reset gate ``r`` then the
    update gate ``z`` (PyTorch's ``r, z`` blocks; TF's ``r, u``), input and recurrent shares
    and biases already in.  The two frameworks differ only in where the reset gate acts,
    so the engine passes that as ``candidate(r)``, the candidate's pre-activation:

    - PyTorch (reset *after* the recurrent matmul): ``x W_in + b_in + r * (h W_hn + b_hn)``;
    - TF's ``GRUCell`` (reset *before*): ``[x, r * h] @ candidate/kernel + candidate/bias``.
    """
    r, z = F.split(F.sigmoid(gates), num_split=2, axis=-1)
    n = (activation or F.tanh)(candidate(r))
    return F.add(F.mul(z, h), F.mul(F.sub(1.0, z), n))
