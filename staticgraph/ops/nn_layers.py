"""``tf.nn`` layers: conv1d/conv2d/conv2d_transpose, pooling, dropout, moments, batch norm,
embedding lookup, bias_add.

TF's argument forms (``strides=[1, 2, 2, 1]``, ``padding="SAME"`` or explicit pairs,
``data_format``) become the registry ops' attributes; node names and types are TF's
(``Conv2D``, ``MaxPool``, ``BiasAdd``, ``moments/mean``, ``dropout/SelectV2``...).

Dropout needs randomness at run time: ``tf.random_uniform`` (a stateful registry op, never
folded or merged) draws a fresh uniform tensor shaped like its input on every run, seeded by
``tf.set_random_seed`` and the op's ``seed`` as TF seeds it.

>>> import staticgraph as tf
>>> x = tf.placeholder(tf.float32, (None, 28, 28, 1))
>>> tf.nn.max_pool(x, ksize=2, strides=2, padding="VALID").shape
TensorShape([None, 14, 14, 1])
"""
from __future__ import annotations

import numpy as np

from common import REGISTRY, layers

from ..framework.build import F, F_OPERATORS, apply, constant, convert_to_tensor, is_tensor
from ..framework.graph import Tensor, get_default_graph
from ..framework.shape_values import static_value
from .core_ops import (concat, expand_dims, gather_index, greater_equal, identity, multiply, realdiv, reduce_mean,
                       reshape, squeeze, stop_gradient, subtract, where)
from .array_ops import shape as shape_of
from .random_ops import get_seed, random_uniform

__all__ = ["conv1d", "conv2d", "conv2d_transpose", "conv2d_backprop_input", "conv2d_backprop_filter",
           "convolution", "depthwise_conv2d", "max_pool", "max_pool1d", "max_pool2d", "avg_pool",
           "avg_pool1d", "avg_pool2d",
           "dropout", "moments", "batch_normalization", "embedding_lookup", "bias_add"]

_R = REGISTRY
_PADDINGS = ("SAME", "VALID")
_CONV_DTYPES = ("float16", "bfloat16", "float32", "float64", "int32")


def _spatial_pair(v, data_format: str, what: str) -> tuple[int, int]:
    """TF's ``strides``/``ksize``/``dilations``: an int, 1, 2 or 4 ints (4: in data_format order)."""
    if isinstance(v, (int, np.integer)):
        return int(v), int(v)
    v = [int(i) for i in v]
    if len(v) == 1:
        return v[0], v[0]
    if len(v) == 2:
        return v[0], v[1]
    if len(v) == 4:
        return (v[1], v[2]) if data_format == "NHWC" else (v[2], v[3])
    raise ValueError(f"{what} should be of length 1, 2 or 4. Received: {what}={v} of length {len(v)}")


def _padding(padding, data_format: str, op_type: str):
    if isinstance(padding, str):
        if padding not in _PADDINGS:
            raise ValueError(f"Attr 'padding' of '{op_type}' Op passed string '{padding}' not in: "
                             f"\"SAME\", \"VALID\", \"EXPLICIT\".")
        return padding
    if len(padding) != 4:   # TF's _convert_padding words
        raise ValueError(f"When padding is a list, it must be of size 4. Received: "
                         f"padding={padding} of size {len(padding)}")
    for i, p in enumerate(padding):
        if np.ndim(p) != 1 or len(p) != 2:
            raise ValueError(f"When `padding` is a list, each element of `padding` must be a "
                             f"list/tuple of size 2. Received: padding={padding} with element "
                             f"at index {i} of " + (f"size {len(p)}" if np.ndim(p) == 1
                                                    else f"type {type(p)}"))
    pairs = [tuple(int(i) for i in p) for p in padding]
    if any(i < 0 for p in pairs for i in p):   # TF's Conv2D shape function's checks
        raise ValueError(f"All elements of explicit_paddings must be nonnegative for '{op_type}' "
                         f"(padding={padding!r})")
    spatial = (1, 2) if data_format == "NHWC" else (2, 3)
    if any(pairs[d] != (0, 0) for d in range(4) if d not in spatial):
        raise ValueError(f"Nonzero explicit padding in the batch or depth dimensions is not "
                         f"supported for '{op_type}' (padding={padding!r})")
    return tuple(pairs[d] for d in spatial)


def _channels(t, data_format):
    s = t._shape
    return None if s is None else (s[-1] if data_format == "NHWC" else s[1])


def conv2d(input=None, filter=None, strides=None, padding=None, use_cudnn_on_gpu=True,  # noqa: A002
           data_format="NHWC", dilations=(1, 1, 1, 1), name=None, filters=None):
    """2-d convolution of ``input`` by ``filter`` ``[kh, kw, in, out]`` (TF1 signature)."""
    x = convert_to_tensor(input)
    w = convert_to_tensor(filter if filter is not None else filters)
    if x.dtype.name not in _CONV_DTYPES:   # TF's list; the registry's Conv2D takes int64 too (PyTorch does)
        raise TypeError(f"Value passed to parameter 'input' has DataType {x.dtype.name} not in list of "
                        f"allowed values: {', '.join(_CONV_DTYPES)}")
    c = _channels(x, data_format)
    fc = w._shape[2] if w._shape is not None and len(w._shape) == 4 else None   # (rank: infer's)
    groups = 1 if c is None or fc is None else max(c // fc, 1)   # Conv2D's rule checks c == fc * groups
    attrs = dict(strides=_spatial_pair(strides, data_format, "strides"),
                 padding=_padding(padding, data_format, "Conv2D"),
                 dilations=_spatial_pair(dilations, data_format, "dilations"), groups=groups,
                 data_format=data_format, filter_format="HWIO")
    if x._shape is not None and len(x._shape) > 4:
        return _squeeze_batch_dims(x, w, attrs, name)
    return apply(_R["Conv2D"], (x, w), attrs, name=name)


def _squeeze_batch_dims(x: Tensor, w: Tensor, attrs: dict, name) -> Tensor:
    """TF's ``squeeze_batch_dims``: an input with several batch dims (``[2, 5, h, w, c]``) is
    convolved as one batch (``Reshape`` to ``[-1, h, w, c]``, ``Conv2D``) and the batch dims
    put back (``Reshape_1``), so its gradient is Conv2D's between two reshapes."""
    batch = x._shape[:-3]
    with get_default_graph().name_scope(name or "squeeze_batch_dims"):
        flat = reshape(x, [-1, *x._shape[-3:]] if None not in x._shape[-3:]
                       else concat([[-1], shape_of(x)[-3:]], 0))
        out = apply(_R["Conv2D"], (flat, w), attrs, name="Conv2D")
        inner = out._shape[1:]
        if None in batch or None in inner:
            return reshape(out, concat([shape_of(x)[:-3], shape_of(out)[1:]], 0))
        return reshape(out, [*batch, *inner])


def depthwise_conv2d(input, filter, strides, padding, rate=None, name=None, data_format=None,  # noqa: A002
                     dilations=None):
    """Each input channel convolved with its own ``channel_multiplier`` filters: ``filter`` is
    ``[kh, kw, in, multiplier]``, a grouped conv2d with one group per input channel."""
    x, w = convert_to_tensor(input), convert_to_tensor(filter)
    fmt = data_format or "NHWC"
    kh, kw, c, m = w.shape.as_list()
    attrs = dict(strides=_spatial_pair(strides, fmt, "strides"), padding=_padding(padding, fmt, "Conv2D"),
                 dilations=_spatial_pair(dilations or rate or 1, fmt, "dilations"), groups=c,
                 data_format=fmt, filter_format="HWIO")
    with get_default_graph().name_scope(name or "depthwise") as scope:  # the reshape inside it
        return apply(_R["Conv2D"], (x, reshape(w, (kh, kw, 1, c * m))), attrs, name=scope)


def conv1d(value=None, filters=None, stride=None, padding=None, use_cudnn_on_gpu=None,
           data_format=None, name=None, input=None, dilations=None):  # noqa: A002
    """1-d convolution (``NWC``): a 2-d one over a height of one, as TF builds it."""
    x = convert_to_tensor(value if value is not None else input)
    fmt = "NHWC" if data_format in (None, "NWC") else "NCHW"
    graph = get_default_graph()
    with graph.name_scope(name or "conv1d"):
        x4 = expand_dims(x, 1 if fmt == "NHWC" else 2, name="ExpandDims")
        w4 = expand_dims(convert_to_tensor(filters), 0, name="ExpandDims_1")
        s = stride if isinstance(stride, (int, np.integer)) else _spatial_pair(stride, "NHWC", "stride")[0]
        d = 1 if dilations is None else (dilations if isinstance(dilations, int) else list(dilations)[-1])
        y = conv2d(x4, w4, strides=(1, s), padding=padding, data_format=fmt, dilations=(1, d))
        return squeeze(y, [1 if fmt == "NHWC" else 2], name="Squeeze")


def conv2d_transpose(value=None, filter=None, output_shape=None, strides=None, padding="SAME",  # noqa: A002
                     data_format="NHWC", name=None, input=None, filters=None, dilations=None):
    """The input-gradient of a conv2d: ``filter`` is ``[kh, kw, out_channels, in_channels]``.

    Only the output's height and width must be Python ints: the batch entry may be a tensor
    (``tf.shape(x)[0]``), since the batch comes from ``value`` itself.
    """
    x = convert_to_tensor(value if value is not None else input)
    w = convert_to_tensor(filter if filter is not None else filters)
    if is_tensor(output_shape) or len(output_shape) != 4:
        raise ValueError("conv2d_transpose here needs output_shape as a list of 4 entries whose "
                         f"height and width are ints, got {output_shape!r}")
    hw = [output_shape[i] for i in ((1, 2) if data_format == "NHWC" else (2, 3))]
    channels = None if w._shape is None else w._shape[2]
    size = (1, int(hw[0]), int(hw[1]), channels or 1) if data_format == "NHWC" else \
        (1, channels or 1, int(hw[0]), int(hw[1]))
    ref = apply(_R["BroadcastTo"], (np.zeros((), x.np_dtype),), {"shape": size},
                name=(name or "conv2d_transpose") + "/output_shape")
    attrs = dict(strides=_spatial_pair(strides, data_format, "strides"),
                 padding=_padding(padding, data_format, "Conv2DBackpropInput"),
                 dilations=_spatial_pair(dilations or 1, data_format, "dilations"), groups=1,
                 data_format=data_format, filter_format="HWIO")
    return apply(_R["Conv2DBackpropInput"], (x, w, ref), attrs, name=name or "conv2d_transpose")


def _sizes(sizes, what: str) -> tuple[int, ...]:
    """A shape argument TF takes as a tensor, here needed when the graph is built."""
    value = static_value(sizes) if is_tensor(sizes) else sizes
    if value is None:
        raise ValueError(f"{what} here must be known when the graph is built (a list or a "
                         f"constant), got {sizes}")
    return tuple(int(d) for d in np.asarray(value).reshape(-1))


def _conv_grad(op_type: str, first, second, sizes, what: str, strides, padding, data_format,
               dilations, name):
    """``Conv2DBackpropInput``/``Filter``: the registry op with a shape-only reference input
    of the result's shape (TF's first/second input ``input_sizes``/``filter_sizes``)."""
    shape = _sizes(sizes, what)
    name = name or op_type
    ref = apply(_R["BroadcastTo"], (np.zeros((), first.np_dtype),), {"shape": shape},
                name=f"{name}/{what}")
    attrs = dict(strides=_spatial_pair(strides, data_format, "strides"),
                 padding=_padding(padding, data_format, op_type),
                 dilations=_spatial_pair(dilations or 1, data_format, "dilations"), groups=1,
                 data_format=data_format, filter_format="HWIO")
    return apply(_R[op_type], (first, second, ref), attrs, name=name)


def conv2d_backprop_input(input_sizes, filter=None, out_backprop=None, strides=None,  # noqa: A002
                          padding=None, use_cudnn_on_gpu=True, data_format="NHWC",
                          dilations=(1, 1, 1, 1), name=None, filters=None):
    """The gradient of ``conv2d`` with respect to its input, of shape ``input_sizes``."""
    w = convert_to_tensor(filter if filter is not None else filters)
    g = convert_to_tensor(out_backprop)
    sizes = _sizes(input_sizes, "input_sizes")
    if len(sizes) == 2:   # TF: the spatial sizes only; batch from out_backprop, channels from filter
        n, c = g.shape.as_list()[0], w.shape.as_list()[2]
        sizes = (n, *sizes, c) if data_format == "NHWC" else (n, c, *sizes)
    return _conv_grad("Conv2DBackpropInput", g, w, sizes, "input_sizes", strides, padding,
                      data_format, dilations, name)


def conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding,  # noqa: A002
                           use_cudnn_on_gpu=True, data_format="NHWC", dilations=(1, 1, 1, 1),
                           name=None):
    """The gradient of ``conv2d`` with respect to its filter, of shape ``filter_sizes``."""
    return _conv_grad("Conv2DBackpropFilter", convert_to_tensor(input),
                      convert_to_tensor(out_backprop), filter_sizes, "filter_sizes", strides,
                      padding, data_format, dilations, name)


def convolution(input, filter=None, padding=None, strides=None, dilation_rate=None,  # noqa: A002
                name=None, data_format=None, filters=None, dilations=None):
    """N-d convolution by the input's rank: ``conv1d`` (rank 3) or ``conv2d`` (rank 4), with
    TF's ``strides``/``dilation_rate`` given per spatial dimension."""
    x = convert_to_tensor(input)
    w = convert_to_tensor(filter if filter is not None else filters)
    rank = w.shape.rank if w.shape.rank is not None else x.shape.rank   # TF: the filter's rank
    dilation = dilation_rate if dilation_rate is not None else dilations
    spatial = (rank or 0) - 2
    if spatial not in (1, 2):
        raise ValueError(f"convolution here takes 1-d and 2-d filters (rank 3 or 4); got "
                         f"{w.name} of shape {w.shape}")
    strides = [1] * spatial if strides is None else list(np.broadcast_to(strides, (spatial,)))
    dilation = [1] * spatial if dilation is None else list(np.broadcast_to(dilation, (spatial,)))
    with get_default_graph().name_scope(name or "convolution") as scope:
        if spatial == 1:
            fmt = "NWC" if data_format in (None, "NWC") else "NCW"
            return conv1d(x, w, stride=int(strides[0]), padding=padding, data_format=fmt,
                          dilations=int(dilation[0]), name=scope)
        fmt = data_format or "NHWC"
        return conv2d(x, w, strides=[int(s) for s in strides], padding=padding, data_format=fmt,
                      dilations=[int(d) for d in dilation], name=scope)


def _pool(op_type, value, ksize, strides, padding, data_format, name):
    x = convert_to_tensor(value)
    attrs = dict(ksize=_spatial_pair(ksize, data_format, "ksize"),
                 strides=_spatial_pair(strides, data_format, "strides"),
                 padding=_padding(padding, data_format, op_type), data_format=data_format)
    return apply(_R[op_type], (x,), attrs, name=name)


def max_pool(value=None, ksize=None, strides=None, padding=None, data_format="NHWC", name=None,
             input=None):  # noqa: A002
    """The maximum of each window."""
    return _pool("MaxPool", value if value is not None else input, ksize, strides, padding,
                 data_format, name)


def avg_pool(value=None, ksize=None, strides=None, padding=None, data_format="NHWC", name=None,
             input=None):  # noqa: A002
    """The mean of each window (SAME padding: only the real cells are counted, as TF)."""
    return _pool("AvgPool", value if value is not None else input, ksize, strides, padding,
                 data_format, name)


def _pool1d(fn, default, input, ksize, strides, padding, data_format, name):  # noqa: A002
    """A 1-d pooling as TF builds it: over a height of one."""
    fmt = "NHWC" if data_format in (None, "NWC") else "NCHW"
    axis = 1 if fmt == "NHWC" else 2
    with get_default_graph().name_scope(name or default):
        x = expand_dims(convert_to_tensor(input), axis, name="ExpandDims")
        k = ksize if isinstance(ksize, (int, np.integer)) else list(ksize)[-2 if fmt == "NHWC" else -1]
        s = strides if isinstance(strides, (int, np.integer)) else list(strides)[-2 if fmt == "NHWC" else -1]
        y = fn(x, (1, int(k)), (1, int(s)), padding, fmt)
        return squeeze(y, [axis], name="Squeeze")


def max_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
    return _pool1d(max_pool, "MaxPool1d", input, ksize, strides, padding, data_format, name)


def avg_pool1d(value, ksize, strides, padding, data_format="NWC", name=None):
    return _pool1d(avg_pool, "AvgPool1D", value, ksize, strides, padding, data_format, name)


def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    return max_pool(input, ksize, strides, padding, data_format, name)


def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    return avg_pool(input, ksize, strides, padding, data_format, name)


# --- dropout ---------------------------------------------------------------------------------

def _uniform_like(x: Tensor, seed) -> Tensor:
    """U[0, 1) shaped like ``x`` (at run time, if its shape is not fully known), drawn by
    ``tf.random_uniform`` -- seeded by ``tf.set_random_seed`` and ``seed`` as TF seeds it."""
    shape = x.shape.as_list() if x.shape.is_fully_defined() else shape_of(x)
    return random_uniform(shape, dtype=x.dtype, seed=seed)


def _noise_like(x: Tensor, noise_shape) -> Tensor:
    """A view of ``x`` shaped like ``noise_shape`` (each entry 1 or x's size): one draw per kept
    slice, broadcast over the dims where ``noise_shape`` is 1 (``[batch, 1, 1, C]``: whole maps)."""
    shape = x._shape
    noise = list(noise_shape)
    if shape is None or len(noise) != len(shape) or any(
            not (n in (1, None) or d is None or n == d) for n, d in zip(noise, shape)):
        raise ValueError(f"noise_shape {noise} must match the rank of x {x.shape} with each "
                         f"entry 1 or x's size there")
    return gather_index(x, tuple(slice(0, 1) if n == 1 and d != 1 else slice(None)
                                 for n, d in zip(noise, shape)), name="noise_shape")


def dropout(x, keep_prob=None, noise_shape=None, seed=None, name=None, rate=None):
    """Inverted dropout: ``x / (1 - rate)`` where a fresh uniform draw is ``>= rate``, else 0.

    ``rate`` (or ``keep_prob = 1 - rate``) may be a tensor -- TF1 programs often feed
    ``keep_prob`` through a placeholder, 1.0 to evaluate -- then it is checked only by its use.
    """
    if keep_prob is not None and rate is not None:
        raise ValueError("Cannot specify both 'keep_prob' and 'rate'.")
    if keep_prob is None and rate is None:
        raise ValueError(f"`rate` must be provided. Received: rate={rate}")
    symbolic = is_tensor(keep_prob if keep_prob is not None else rate)
    if not symbolic:
        rate = 1 - keep_prob if keep_prob is not None else rate
        if not 0 <= rate < 1:
            raise ValueError(f"`rate` must be a scalar tensor or a float in the range [0, 1). "
                             f"Received: rate={rate}")
    x = convert_to_tensor(x)
    if not symbolic and rate == 0:   # TF returns x, but still takes an op seed: the seeds of
        get_seed(seed)
        return x
    with get_default_graph().name_scope(name or "dropout"):
        noise_like = x if noise_shape is None else _noise_like(x, noise_shape)
        if symbolic:   # TF: x / (1 - rate), one rounding -- not x * (1 / (1 - rate))
            rate = subtract(1.0, keep_prob, name="sub") if keep_prob is not None else rate
            scaled = realdiv(x, subtract(1.0, rate))
        else:
            scaled = multiply(x, 1.0 / (1.0 - rate), name="Mul")
        keep = greater_equal(_uniform_like(noise_like, seed), rate, name="GreaterEqual")
        return where(keep, scaled, 0.0, name="SelectV2")


# --- normalisation, embedding, bias -------------------------------------------------------------

def moments(x, axes, shift=None, name=None, keep_dims=None, keepdims=None):
    """``(mean, variance)`` over ``axes``; the variance is taken around ``stop_gradient(mean)``."""
    keep = bool(keep_dims if keepdims is None else keepdims)
    x = convert_to_tensor(x)
    with get_default_graph().name_scope(name or "moments"):
        mean = reduce_mean(x, axes, keepdims=True, name="mean")
        d = subtract(x, stop_gradient(mean), name="SquaredDifference")
        variance = reduce_mean(multiply(d, d), axes, keepdims=True, name="variance")
        if not keep:
            mean, variance = squeeze(mean, axes, name="Squeeze"), squeeze(variance, axes, name="Squeeze_1")
        return mean, variance


def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """``(x - mean) * scale / sqrt(variance + eps) + offset``, computed as TF does."""
    with get_default_graph().name_scope(name or "batchnorm"):
        return layers.normalize(F_OPERATORS, convert_to_tensor(x), convert_to_tensor(mean),
                                convert_to_tensor(variance),
                                None if offset is None else convert_to_tensor(offset),
                                None if scale is None else convert_to_tensor(scale), variance_epsilon)


def embedding_lookup(params, ids, partition_strategy="mod", name=None, validate_indices=True,
                     max_norm=None):
    """Rows of ``params`` at ``ids``; the gradient scatter-adds (repeated ids accumulate).

    ``params`` may be a list of shards of one table (TF's partitioned embeddings): with
    ``partition_strategy="mod"`` shard ``p`` of ``P`` holds ids ``p, p + P, ...``; with
    ``"div"`` the shards hold consecutive runs of ids, the first ``total % P`` one id more.
    The lookup reads the shards stacked in order, at each id's row there (a constant table
    maps id to row), which picks the rows TF's per-shard gathers pick; each shard gets the
    gradient of its own rows."""
    shards = list(params) if isinstance(params, (list, tuple)) else [params]
    if not shards:
        raise ValueError("Need at least one param")
    with get_default_graph().name_scope(name or "embedding_lookup"):
        ids = convert_to_tensor(ids)
        if not ids.dtype.is_integer:
            raise TypeError(f"Value passed to parameter 'indices' has DataType {ids.dtype.name} not "
                            f"in list of allowed values: int32, int64")
        shards = [convert_to_tensor(p) for p in shards]
        if len(shards) == 1:
            return identity(layers.embedding(F, shards[0], ids), name="Identity")
        rows = constant(_shard_rows([p._shape[0] if p._shape else None for p in shards],
                                    partition_strategy), name="shard_rows")
        table = concat(shards, 0, name="shards")
        return identity(layers.embedding(F, table, layers.embedding(F, rows, ids)), name="Identity")


def _shard_rows(sizes: list, partition_strategy: str) -> np.ndarray:
    """For each id of a table split into shards of ``sizes`` rows, its row in the shards
    stacked in order (TF's ``mod`` / ``div`` assignment of ids to shards)."""
    if partition_strategy not in ("mod", "div"):
        raise ValueError(f"Unrecognized partition strategy: {partition_strategy}")
    if any(n is None for n in sizes):
        raise ValueError("embedding_lookup over several shards needs each shard's first "
                         "dimension known when the graph is built")
    n_shards, total = len(sizes), sum(sizes)
    ids = np.arange(total, dtype=np.int64)
    if partition_strategy == "mod":
        shard, local = ids % n_shards, ids // n_shards
    else:
        per, extras = divmod(total, n_shards)
        shard = np.maximum(ids // (per + 1), (ids - extras) // max(per, 1))
        local = np.where(shard < extras, ids % (per + 1), (ids - extras) % max(per, 1))
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    return starts[shard] + local


def bias_add(value, bias, data_format=None, name=None):
    """``value + bias`` along the channel axis (last, or 1 for ``NC...``)."""
    fmt = "NHWC" if data_format in (None, "NHWC", "N...C") else "NCHW"
    return apply(_R["BiasAdd"], (convert_to_tensor(value), convert_to_tensor(bias)),
                 {"data_format": fmt}, name=name)
