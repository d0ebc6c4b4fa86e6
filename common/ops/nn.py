"""Neural-network ops: softmax, log-softmax, sparse softmax cross-entropy, one-hot, and the
affine step of layer normalisation.

They are primitives (not composites of exp/sum) because the fused forms are
numerically stable and their gradients are short:
``softmax: y * (g - sum(g*y))``, ``log_softmax: g - exp(y) * sum(g)``,
``xent: (softmax(z) - onehot(labels)) * g``.
"""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError, invalid
from ..examples import Example as E, ints, pos
from ..registry import Spec, defop
from ..shapes import fmt_shape, normalize_axes, require_kind, tf_shape, unbroadcast as ub
from .elementwise import binary, floating


# np.max/np.sum call exactly these reductions, after a Python-level dispatch: same bits
_max, _sum = np.maximum.reduce, np.add.reduce


def _row_max(x, axis):
    """``max(x, axis, keepdims=True)``.  Over a short last axis (a batch of logits, ``(64,
    10)``) numpy's reduction runs one tiny loop per row, ~4x slower than the max over axis 0
    of the transposed copy, which compares whole columns: that way then.  The maxima are the
    same numbers; a row whose maximum is a tie of ``0.0`` and ``-0.0`` may get the other zero,
    which neither softmax nor log-softmax can tell (``exp(+-0) = 1``, and such a row sums to
    at least 2, so ``log`` of its sum is not 0)."""
    shape = getattr(x, "shape", ())   # (a list or a number: numpy's own way below)
    if len(shape) >= 2 and 0 < shape[-1] <= 32 and (axis == -1 or axis == len(shape) - 1) \
            and x.size >= 8 * shape[-1]:
        columns = np.ascontiguousarray(x.reshape(-1, shape[-1]).T)
        return _max(columns, axis=0).reshape(shape[:-1] + (1,))
    if getattr(x, "size", 1) == 0:   # an empty tensor: no maximum, and no row that needs one
        return np.zeros_like(x, shape=np.shape(np.sum(x, axis=axis, keepdims=True)))
    return _max(x, axis=axis, keepdims=True)


def _softmax(x, axis=-1):
    e = np.exp(x - _row_max(x, axis))
    return e / _sum(e, axis=axis, keepdims=True)


def _log_softmax(x, axis=-1):
    shifted = x - _row_max(x, axis)
    return shifted - np.log(_sum(np.exp(shifted), axis=axis, keepdims=True))


def _softmax_infer(x: Spec, axis=-1) -> Spec:
    require_kind("softmax", "fiu", x)         # the max-shift subtracts: numpy refuses bools
    if x.shape is not None:
        normalize_axes(axis, len(x.shape))
    return floating(x)


SOFTMAX = (E(((4,),)), E(((2, 3),)), E(((2, 3),), {"axis": 0}))

defop("Softmax", _softmax, _softmax_infer, inputs=("x",), fname="softmax", examples=SOFTMAX,
      grads=(lambda F, g, out, axis: F.mul(out, F.sub(g, F.sum(F.mul(g, out), axis=axis, keepdims=True))),))
defop("LogSoftmax", _log_softmax, _softmax_infer, inputs=("x",), fname="log_softmax", examples=SOFTMAX,
      grads=(lambda F, g, out, axis: F.sub(g, F.mul(F.exp(out), F.sum(g, axis=axis, keepdims=True))),))


def _one_hot(labels, depth, dtype):
    return (labels[..., None] == np.arange(depth)).astype(dtype)


def _one_hot_infer(labels: Spec, depth, dtype) -> Spec:
    return Spec(None if labels.shape is None else labels.shape + (depth,), np.dtype(dtype))


defop("OneHot", _one_hot, _one_hot_infer, inputs=("labels",), fname="one_hot", dtype_attr="dtype",
      examples=(E((ints((4,), 3),), {"depth": 3, "dtype": np.dtype(np.float64)}),))


def _xent(logits, labels):
    """Per-example ``-log softmax(logits)[label]`` (TF's sparse_softmax_cross_entropy_with_logits),
    as TF's kernel computes it: ``log(sum(exp(shifted))) - shifted[label]`` (only the picked
    entries are subtracted, not the whole log-softmax: ~10% faster; the same values, but a
    loss of exactly zero is +0.0, as in TF, where the negated log-softmax gave -0.0)."""
    if labels.shape != logits.shape[:-1]:
        raise invalid(_xent_shape_words(logits.shape, labels.shape))
    if labels.size and (labels.min() < 0 or labels.max() >= logits.shape[-1]):
        flat = labels.ravel()
        bad = flat[(flat < 0) | (flat >= logits.shape[-1])][-1]   # TF's kernel names the last
        raise invalid(f"Received a label value of {bad} which is outside the valid range of "
                      f"[0, {logits.shape[-1]}).  Label values: {' '.join(map(str, flat))}")
    shifted = logits - _max(logits, axis=-1, keepdims=True)
    log_total = np.log(_sum(np.exp(shifted), axis=-1))
    if shifted.ndim == 2:        # the usual [batch, classes]: one gather, same values
        return log_total - shifted[np.arange(len(labels)), labels]
    picked = np.take_along_axis(shifted, labels[..., None].astype(np.intp), axis=-1)[..., 0]
    return log_total - picked


def _xent_shape_words(logits: tuple, labels: tuple) -> str:
    """TF's kernel words for labels that do not match ``logits[:-1]`` at run time."""
    if len(logits) == 2 and len(labels) != 1:
        return f"labels must be 1-D, but got shape {tf_shape(labels)}"
    if len(logits) != 2 and len(labels) != len(logits) - 1:
        return f"labels must be {len(logits) - 1}-D, but got shape {tf_shape(labels)}"
    return (f"logits and labels must have the same first dimension, got logits shape "
            f"{tf_shape(logits)} and labels shape {tf_shape(labels)}")


def _xent_infer(logits: Spec, labels: Spec) -> Spec:
    require_kind("softmax", "fiu", logits)
    if not np.issubdtype(labels.dtype, np.integer):
        raise ShapeError(f"labels must be integers, not {labels.dtype}")
    if logits.shape is not None and labels.shape is not None:
        if len(logits.shape) != len(labels.shape) + 1 or any(
                a is not None and b is not None and a != b
                for a, b in zip(logits.shape[:-1], labels.shape)):
            raise ShapeError(f"logits {fmt_shape(logits.shape)} need labels of shape "
                             f"{fmt_shape(logits.shape[:-1])}, got {fmt_shape(labels.shape)}")
    return Spec(None if logits.shape is None else logits.shape[:-1], floating(logits).dtype)


def _xent_grad(F, g, logits, labels):
    depth = F.shape(logits)[-1]
    if depth is None:
        raise ShapeError("the gradient of sparse softmax cross-entropy needs a known number of classes")
    onehot = F.one_hot(labels, depth=depth, dtype=F.dtype(logits))
    return F.mul(F.sub(F.softmax(logits, axis=-1), onehot), F.expand_dims(g, axis=-1))


defop("SparseSoftmaxCrossEntropyWithLogits", _xent, _xent_infer, inputs=("logits", "labels"),
      fname="sparse_softmax_cross_entropy", torch_name="NllLossBackward0",
      examples=(E(((4, 3), ints((4,), 3))), E(((2, 5, 3), ints((2, 5), 3)))),
      grads=(_xent_grad, None))


def _softplus(x):
    """``log(1 + exp(x))`` as TF's kernel computes it, in ``x``'s float dtype: ``x`` above
    ``-t``, ``exp(x)`` below ``t``, ``log(exp(x) + 1)`` between (``t = log(eps) + 2``), so the
    float32 results are TF's bits and nothing overflows."""
    x = np.asarray(x)
    x = x.astype(np.result_type(x.dtype, np.float16), copy=False)
    t = np.log(np.finfo(x.dtype).eps) + 2
    with np.errstate(over="ignore"):
        e = np.exp(x)
        return np.asarray(np.where(x > -t, x, np.where(x < t, e, np.log(e + 1))), dtype=x.dtype)


defop("Softplus", _softplus, floating, inputs=("x",), fname="softplus",
      doc="``log(1 + exp(x))``, stable for large ``|x|``.  A primitive so its gradient is\n"
          "``sigmoid(x)`` everywhere -- a ``max(x, 0) + log1p(exp(-|x|))`` composite gives 0 instead\n"
          "of 1/2 at ``x == 0`` (relu's and abs's gradients there), e.g. for zero-initialised logits.",
      examples=(E(((4,),)), E((np.array([-30.0, -1.0, 0.0, 2.0, 40.0]),)), E(((2, 3),))),
      grads=(lambda F, g, x: F.mul(g, F.sigmoid(x)),))

# --- layer normalisation's affine step -------------------------------------------------


def _layer_norm_affine(x, mean, rstd, weight, bias):
    """``(x * rstd + (-mean * rstd)) * weight + bias``, each step rounded (PyTorch's
    vectorised forward kernel)."""
    return (x * rstd + -(mean * rstd)) * weight + bias


def _layer_norm_affine_infer(x: Spec, mean: Spec, rstd: Spec, weight: Spec, bias: Spec) -> Spec:
    require_kind("layer_norm", "fiuc", x, mean, rstd, weight, bias)   # numpy negates no bools
    return binary(binary(binary(x, mean), binary(rstd, weight)), bias)


def _xhat_fused(F, x, mean, rstd):
    """The normalised value as PyTorch's backward kernel computes it for the weight's
    gradient: ``fma(x, rstd, -mean * rstd)``, one rounding (GCC contracts its scalar loop)."""
    return F.fma(x, rstd, F.neg(F.mul(mean, rstd)))


defop("LayerNormAffine", _layer_norm_affine, _layer_norm_affine_infer,
      inputs=("x", "mean", "rstd", "weight", "bias"), fname="layer_norm_affine",
      examples=(E(((2, 3), (2, 1), pos((2, 1)), (3,), (3,))),
                E(((2, 2, 3), (2, 1, 1), pos((2, 1, 1)), (2, 3), (2, 3)))),
      grads=(lambda F, g, weight, rstd, x_shape: ub(F, F.mul(F.mul(g, weight), rstd), x_shape),
             lambda F, g, weight, rstd, mean_shape:
                 ub(F, F.neg(F.mul(F.mul(g, weight), rstd)), mean_shape),
             lambda F, g, x, mean, weight, rstd_shape:
                 ub(F, F.mul(F.mul(g, weight), F.sub(x, mean)), rstd_shape),
             lambda F, g, x, mean, rstd, weight_shape:
                 ub(F, F.mul(g, _xhat_fused(F, x, mean, rstd)), weight_shape),
             lambda F, g, bias_shape: ub(F, g, bias_shape)),
      doc="Layer normalisation's last step, ``xhat * weight + bias`` with ``xhat = x * rstd - "
      "mean * rstd``, rounded as PyTorch's kernels round it: the forward step by step, the "
      "weight's gradient with ``xhat`` from one fused multiply-add (the two differ where a "
      "row is one element: 0 forward, ``x * rstd``'s rounding error in the gradient).")
