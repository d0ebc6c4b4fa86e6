"""``torch.nn.functional`` for attention: ``scaled_dot_product_attention`` and
``multi_head_attention_forward`` (the body of ``nn.MultiheadAttention``).

Both follow PyTorch 2's own code path by path, so a seeded run draws the same dropout masks
in the same order and a loaded ``state_dict`` gives the same numbers:

```
multi_head_attention_forward
  in-projection (one packed Linear, or q/k/v weights when kdim/vdim differ)
  masks -> additive float masks (-inf where a key is excluded); key padding merged in
  need_weights=True:  softmax(q*s @ k^T + mask) -> dropout -> @ v   (weights returned)
  need_weights=False: scaled_dot_product_attention(q, k, v, mask, dropout_p, is_causal)
  out-projection
```

The arithmetic of attention itself is one composite over registry ops
(``common.layers.attention``), so its gradients are those of matmul, softmax and where.

>>> import dyngraph as torch
>>> q = torch.ones(1, 2, 4)
>>> scaled_dot_product_attention(q, q, q, is_causal=True).shape
torch.Size([1, 2, 4])
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from common import REGISTRY, composites, layers

from .. import creation
from ..engine import node_class_for
from ..errors import broadcast_message, c_type_name
from ..functions import OPS, cat
from ..selection import index_select
from ..node import renamed
from ..tensor import Tensor
from .functional_layers import dropout, dropout_mask, pad

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward"]


# --- scaled dot-product attention ---------------------------------------------------------------

def _check_sdpa(query, key, value, attn_mask, dropout_p) -> None:
    """PyTorch's checks before any arithmetic, in its order and words."""
    for position, (name, arg) in enumerate((("query", query), ("key", key), ("value", value),
                                            ("attn_mask", attn_mask)), 1):
        if not isinstance(arg, Tensor) and not (arg is None and name == "attn_mask"):
            raise TypeError(f"scaled_dot_product_attention(): argument '{name}' (position "
                            f"{position}) must be Tensor, not {type(arg).__name__}")
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise RuntimeError(f"Expected query, key, and value to all be  at least 2 dimensional, but "
                           f"got query.dim: {query.dim()} key.dim: {key.dim()} and value.dim: "
                           f"{value.dim()} instead.")
    dtypes = [t.np_dtype for t in (query, key, value)]
    if dtypes[0] != dtypes[1] or dtypes[0] != dtypes[2]:
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got "
                           f"query.dtype: {c_type_name(dtypes[0])} key.dtype: "
                           f"{c_type_name(dtypes[1])} and value.dtype: {c_type_name(dtypes[2])} "
                           f"instead.")
    if attn_mask is not None and attn_mask.np_dtype not in (np.bool_, dtypes[0]):
        raise RuntimeError(f"Expected attn_mask dtype to be bool or float or to match query dtype, "
                           f"but got attn_mask.dtype: {c_type_name(attn_mask.np_dtype)} and  "
                           f"query.dtype: {c_type_name(dtypes[0])} instead.")
    if not 0.0 <= dropout_p <= 1.0:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {dropout_p}")
    if not query.dtype.is_floating_point:
        raise RuntimeError(f"expected scalar type Float but found {query.dtype.scalar_name}")


def _fused_kernel(query, key, value, dropout_p: float) -> bool:
    """Whether PyTorch's CPU dispatcher would pick its fused (flash) kernel over the math one:
    4-D inputs of one batch and head count and one head size, no dropout.  The two differ in
    one visible way: only the fused kernel accepts ``is_causal`` together with a mask."""
    shapes = [tuple(t.shape) for t in (query, key, value)]
    return (all(len(s) == 4 for s in shapes) and dropout_p == 0.0
            and len({s[:2] for s in shapes}) == 1 and len({s[3] for s in shapes}) == 1)


def _attn_bias(attn_mask, is_causal: bool, L: int, S: int, dtype):
    """The additive mask: ``0`` where a key takes part, ``-inf`` where it does not.

    A bool mask (True = takes part) and the causal mask are constants; a float mask is added
    as it is (it may require grad, as in PyTorch).  ``is_causal`` with an explicit mask applies
    both, as PyTorch 2's fused CPU kernel does.
    """
    bias = None
    if is_causal:
        bias = np.where(np.tril(np.ones((L, S), bool)), 0.0, -np.inf).astype(dtype)
    if attn_mask is None:
        return bias
    if attn_mask.np_dtype == np.bool_:
        fixed = np.where(attn_mask._data, 0.0, -np.inf).astype(dtype)
        return fixed if bias is None else fixed + bias
    return attn_mask if bias is None else attn_mask + creation.as_tensor(bias)


def _repeat_heads(key, value, query):
    """Grouped-query attention: each key/value head serves ``Hq / Hkv`` query heads."""
    hq, hk, hv = query.shape[-3], key.shape[-3], value.shape[-3]
    if hq % hk or hq % hv:
        raise RuntimeError(f"number of heads in key/value must divide number of heads in query "
                           f"(query heads {hq}, key heads {hk}, value heads {hv})")
    key = index_select(key, -3, creation.as_tensor(np.repeat(np.arange(hk), hq // hk)))
    return key, index_select(value, -3, creation.as_tensor(np.repeat(np.arange(hv), hq // hv)))


def _dead_rows(bias, scores_shape: tuple) -> np.ndarray | None:
    """The query rows whose every key is masked (``[..., L, 1]``), or None; first the mask must
    fit the scores it is added to in place (PyTorch's ``add_``: no growing them)."""
    data = bias._data if isinstance(bias, Tensor) else bias
    message = broadcast_message([scores_shape, data.shape])
    if message:
        raise RuntimeError(message)
    full = tuple(np.broadcast_shapes(scores_shape, data.shape))
    if full != scores_shape:
        raise RuntimeError(f"output with shape {list(scores_shape)} doesn't match the broadcast "
                           f"shape {list(full)}")
    dead = np.isneginf(data).all(axis=-1, keepdims=True)
    return dead if dead.any() else None


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p: float = 0.0,
                                 is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False):
    """``softmax(query @ key^T * scale + mask) @ value`` over the last two dims.

    ``attn_mask``: bool (True = may attend) or float (added), broadcast to ``[..., L, S]``.
    ``scale`` defaults to ``1/sqrt(E)``.  Query rows that may attend to nothing give zeros
    (PyTorch's safe softmax).  Dropout on the weights draws ``bernoulli_(1 - p)`` over
    ``[..., L, S]`` from the default generator, as PyTorch's math kernel does.
    """
    _check_sdpa(query, key, value, attn_mask, dropout_p)
    if is_causal and attn_mask is not None and not _fused_kernel(query, key, value, dropout_p):
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set "
                           "when is_causal=True")
    if enable_gqa and query.dim() >= 3 and key.shape[-3] != query.shape[-3]:
        key, value = _repeat_heads(key, value, query)
    if query.dim() >= 3 and key.dim() >= 3:
        message = broadcast_message([query.shape[:-2], key.shape[:-2]])
        if message:
            raise RuntimeError(message)
    L, S = query.shape[-2], key.shape[-2]
    scores_shape = tuple(np.broadcast_shapes(query.shape[:-2], key.shape[:-2])) + (L, S)
    dtype = query.np_dtype
    bias = _attn_bias(attn_mask, is_causal, L, S, dtype)
    dead_rows = None if bias is None else _dead_rows(bias, scores_shape)
    if scale is None:
        scale = 1.0 / math.sqrt(query.shape[-1])
    keep = dropout_mask(scores_shape, dropout_p, dtype) if dropout_p > 0.0 else None
    out, _ = layers.attention(OPS, query, key, value, bias, scale, keep, dead_rows)
    # PyTorch's math kernel ends in a batched matmul, whose result is an UnsafeView
    return out if query.dim() <= 2 else renamed(out, _BATCHED_MATMUL)


_BATCHED_MATMUL = node_class_for(REGISTRY["MatMul"], "batched")


# --- multi-head attention -----------------------------------------------------------------------

def _linear(x, weight, bias):
    """``F.linear``: the composite both engines share."""
    return composites.linear(OPS, x, weight, bias)


def _canonical_mask(mask, mask_name: str, other_type, other_name: str, target_type,
                    check_other: bool = True):
    """A bool mask (True = excluded) as a float mask of ``target_type`` (``-inf`` = excluded)."""
    if mask is None:
        return None
    if mask.np_dtype != np.bool_ and not mask.dtype.is_floating_point:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use "
                      f"same type for both instead.", stacklevel=3)
    if mask.np_dtype != np.bool_:
        return mask
    return creation.as_tensor(np.where(mask._data, -np.inf, 0.0).astype(target_type.np))


def _none_or_dtype(input):
    if input is None:
        return None
    if isinstance(input, Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads: int) -> bool:
    """Whether the input is batched; PyTorch's AssertionErrors for ranks that do not fit."""
    if query.dim() not in (2, 3):
        raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received "
                             f"{query.dim()}-D query tensor")
    batched = query.dim() == 3
    name, rank = ("batched (3-D)", 3) if batched else ("unbatched (2-D)", 2)
    if key.dim() != rank or value.dim() != rank:
        raise AssertionError(f"For {name} `query`, expected `key` and `value` to be {rank}-D but "
                             f"found {key.dim()}-D and {value.dim()}-D tensors respectively")
    if key_padding_mask is not None and key_padding_mask.dim() != rank - 1:
        raise AssertionError(f"For {name} `query`, expected `key_padding_mask` to be `None` or "
                             f"{rank - 1}-D but found {key_padding_mask.dim()}-D tensor instead")
    if attn_mask is not None:
        if attn_mask.dim() not in (2, 3):
            raise AssertionError(f"For {name} `query`, expected `attn_mask` to be `None`, 2-D or "
                                 f"3-D but found {attn_mask.dim()}-D tensor instead")
        expected = (num_heads, query.shape[0], key.shape[0])
        if not batched and attn_mask.dim() == 3 and tuple(attn_mask.shape) != expected:
            raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got "
                                 f"{attn_mask.shape}")
    return batched


def _split_packed(proj, n: int, E: int):
    """``[..., n*E]`` as ``[n, ..., E]`` (PyTorch's unflatten/unsqueeze/transpose/squeeze)."""
    return proj.unflatten(-1, (n, E)).unsqueeze(0).transpose(0, -2).squeeze(-2)


def _in_projection_packed(q, k, v, w, b=None):
    """q, k, v through one packed ``(3E, E)`` weight (split where q/k/v differ), as PyTorch."""
    E = q.shape[-1]
    if k is v and q is k:
        proj = _split_packed(_linear(q, w, b), 3, E)
        return proj[0], proj[1], proj[2]
    if k is v:
        w_q, w_kv = w.split([E, E * 2])
        b_q, b_kv = (None, None) if b is None else b.split([E, E * 2])
        kv = _split_packed(_linear(k, w_kv, b_kv), 2, E)
        return _linear(q, w_q, b_q), kv[0], kv[1]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None,) * 3 if b is None else b.chunk(3)
    return _linear(q, w_q, b_q), _linear(k, w_k, b_k), _linear(v, w_v, b_v)


def _in_projection(q, k, v, w_q, w_k, w_v, b_q=None, b_k=None, b_v=None):
    """Separate q/k/v projections (``kdim``/``vdim`` differ from ``embed_dim``)."""
    return _linear(q, w_q, b_q), _linear(k, w_k, b_k), _linear(v, w_v, b_v)


def _check_attn_mask_shape(attn_mask, tgt_len: int, src_len: int, bsz: int, num_heads: int):
    """A 2-D mask is one for all heads; a 3-D one has a row block per (batch, head)."""
    if attn_mask.dim() == 2:
        if tuple(attn_mask.shape) != (tgt_len, src_len):
            raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                               f"{(tgt_len, src_len)}.")
        return attn_mask.unsqueeze(0)
    if attn_mask.dim() == 3:
        if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
            raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                               f"{(bsz * num_heads, tgt_len, src_len)}.")
        return attn_mask
    raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")


def _check_key_padding_mask(key_padding_mask, src_len: int, bsz: int) -> None:
    if key_padding_mask.shape[0] != bsz:
        raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                             f"{key_padding_mask.shape[0]}")
    if key_padding_mask.shape[1] != src_len:
        raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                             f"{key_padding_mask.shape[1]}")


def _mha_masks(query, key_padding_mask, attn_mask, is_causal: bool, need_weights: bool):
    """Both masks as float masks; the causal hint kept only where SDPA can use it alone."""
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                       _none_or_dtype(attn_mask), "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        return key_padding_mask, None, True
    attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
    return key_padding_mask, attn_mask, is_causal and key_padding_mask is None


def multi_head_attention_forward(query, key, value, embed_dim_to_check: int, num_heads: int,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn: bool,
                                 dropout_p: float, out_proj_weight, out_proj_bias,
                                 training: bool = True, key_padding_mask=None,
                                 need_weights: bool = True, attn_mask=None,
                                 use_separate_proj_weight: bool = False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights: bool = True,
                                 is_causal: bool = False):
    """Multi-head attention over ``(L, N, E)`` (or unbatched ``(L, E)``) inputs, as PyTorch's.

    Returns ``(output, weights)``; weights are ``None`` unless ``need_weights`` (then
    averaged over heads unless ``average_attn_weights=False``).
    """
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    key_padding_mask, attn_mask, is_causal = _mha_masks(query, key_padding_mask, attn_mask,
                                                        is_causal, need_weights)
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got "
                             f"{embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match "
                                 f"value's {value.shape[:2]}")
        b = (None,) * 3 if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = _in_projection(query, key, value, q_proj_weight, k_proj_weight, v_proj_weight, *b)
    else:
        if key.shape != value.shape:
            raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    if attn_mask is not None:
        attn_mask = _check_attn_mask_shape(attn_mask, tgt_len, key.shape[0], bsz, num_heads)
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k, v = cat([k, bias_k.repeat(1, bsz, 1)]), cat([v, bias_v.repeat(1, bsz, 1)])
        attn_mask = None if attn_mask is None else pad(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else pad(key_padding_mask, (0, 1))
    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = _heads(k, static_k, bsz, num_heads, head_dim)
    v = _heads(v, static_v, bsz, num_heads, head_dim)
    if add_zero_attn:
        zeros = creation.zeros(bsz * num_heads, 1, head_dim, dtype=k.dtype)
        k, v = cat([k, zeros], 1), cat([v, zeros], 1)
        attn_mask = None if attn_mask is None else pad(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else pad(key_padding_mask, (0, 1))
    src_len = k.shape[1]
    if key_padding_mask is not None:
        _check_key_padding_mask(key_padding_mask, src_len, bsz)
        key_padding_mask = (key_padding_mask.reshape(bsz, 1, 1, src_len)
                            .expand(-1, num_heads, -1, -1).reshape(bsz * num_heads, 1, src_len))
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask
    if not training:
        dropout_p = 0.0
    if need_weights:
        out, weights = _attention_with_weights(q, k, v, attn_mask, dropout_p)
    else:
        weights = None
        out = _attention_sdpa(q, k, v, attn_mask, dropout_p, is_causal, bsz, num_heads)
    out = out.reshape(tgt_len * bsz, embed_dim)
    out = _linear(out, out_proj_weight, out_proj_bias)
    out = out.reshape(tgt_len, bsz, out_proj_weight.shape[0])
    if weights is not None:
        weights = weights.reshape(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
    if not is_batched:
        out = out.squeeze(1)
        weights = None if weights is None else weights.squeeze(0)
    return out, weights


def _heads(x, static, bsz: int, num_heads: int, head_dim: int):
    """``(S, N, E)`` as ``(N * heads, S, head_dim)``, or the caller's precomputed ``static``."""
    if static is None:
        return x.reshape(x.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    if static.shape[0] != bsz * num_heads:
        raise AssertionError(f"expecting static_k.size(0) of {bsz * num_heads}, but got "
                             f"{static.shape[0]}")
    if static.shape[2] != head_dim:
        raise AssertionError(f"expecting static_k.size(2) of {head_dim}, but got {static.shape[2]}")
    return static


def _attention_with_weights(q, k, v, attn_mask, dropout_p: float):
    """PyTorch's ``need_weights`` path: ``baddbmm(mask, q * s, k^T)``, plain softmax, dropout.

    The output is returned ``(L, N*heads, head_dim)``-ordered for the out-projection.
    """
    scores = (q * math.sqrt(1.0 / float(q.shape[-1]))).matmul(k.transpose(-2, -1))
    if attn_mask is not None:
        scores = attn_mask + scores
    weights = scores.softmax(-1)
    if dropout_p > 0.0:
        weights = dropout(weights, p=dropout_p)
    return weights.matmul(v).transpose(0, 1), weights


def _attention_sdpa(q, k, v, attn_mask, dropout_p: float, is_causal: bool, bsz: int,
                    num_heads: int):
    """PyTorch's fast path: SDPA on ``(N, heads, L, head_dim)`` views; ``(L, N, heads, hd)`` out."""
    if attn_mask is not None:
        if attn_mask.shape[0] == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.reshape(bsz, num_heads, -1, attn_mask.shape[-1])
    q, k, v = (x.reshape(bsz, num_heads, x.shape[1], x.shape[2]) for x in (q, k, v))
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    return out.permute(2, 0, 1, 3)
