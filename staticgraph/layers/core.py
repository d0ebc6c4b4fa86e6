"""``tf.layers`` (TF1): dense, conv2d, pooling, flatten, dropout and batch normalization.

Each call makes its variables with ``tf.get_variable`` under a variable scope named after the
layer (``dense``, ``dense_1``..., or ``name``), so they are called as TF calls them
(``net/dense/kernel:0``, ``conv2d/bias:0``, ``batch_normalization/moving_mean:0``) and a
reusing scope shares them.  The math is ``tf.nn``'s.

Batch normalization's moving statistics are non-trainable Variables; in training mode the
call adds one ``assign_sub`` per statistic to the ``UPDATE_OPS`` collection, which TF1 code
runs with the train op::

    update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    with tf.control_dependencies(update_ops):
        train_op = optimizer.minimize(loss)

Moving averages as TF's: ``moving -= (moving - batch) * (1 - momentum)``; the batch variance
feeding it is unbiased (``n / (n - 1)``) for 4-d inputs normalised over channels (TF's fused
kernel) and biased otherwise.

>>> import staticgraph as tf
>>> x = tf.placeholder(tf.float32, (None, 4))
>>> y = tf.layers.dense(x, 3)
>>> [v.name for v in tf.global_variables()]
['dense/kernel:0', 'dense/bias:0']
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..ops import array_ops
from ..ops import nn_ops as nn
from ..framework.build import F, constant, convert_to_tensor
from ..control.control_flow import cond
from ..framework.graph import Tensor, get_default_graph
from ..framework.graph_keys import GraphKeys
from ..training.initializers import Ones, Zeros
from ..keras import regularizers
from ..ops.core_ops import identity, matmul, multiply, reshape, subtract, where
from ..training.variable_scope import get_variable, variable_scope
from ..training.variables import Variable

__all__ = ["dense", "conv2d", "conv1d", "conv2d_transpose", "max_pooling2d", "average_pooling2d", "flatten", "dropout",
           "batch_normalization", "UPDATE_OPS", "REGULARIZATION_LOSSES"]

UPDATE_OPS = GraphKeys.UPDATE_OPS
REGULARIZATION_LOSSES = GraphKeys.REGULARIZATION_LOSSES


# --- variables ---------------------------------------------------------------------------------

def _variable(name: str, shape: tuple, dtype, initializer, trainable: bool = True,
              regularizer: Callable | None = None) -> Variable:
    """A layer variable, as TF's layers make it: ``tf.get_variable`` in the layer's scope
    (so ``reuse`` shares it; no ``initializer``: glorot-uniform, seeded as TF seeds it).
    A regularizer may be named (``"l2"``) or a Keras config, as Keras layers accept it."""
    return get_variable(name, tuple(shape), dtype, initializer=initializer,
                        regularizer=regularizers.get(regularizer), trainable=trainable)


def _scope(name: str | None, default: str, reuse=None):
    """The layer's variable scope: ``name``, or the first unused ``default``, ``default_1``...;
    inside a reusing scope (or with ``reuse=True``) the layer shares the existing variables."""
    if reuse and name is None:      # TF names the layer first ("dense"), then reuses that scope
        name = default
    return variable_scope(name, default_name=default, reuse=reuse)


def _activate(y: Tensor, activation) -> Tensor:
    return y if activation is None else activation(y)


# --- layers -------------------------------------------------------------------------------------

def dense(inputs, units: int, activation=None, use_bias: bool = True, kernel_initializer=None,
          bias_initializer=None, kernel_regularizer=None, bias_regularizer=None,
          activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
          trainable: bool = True, name: str | None = None, reuse=None) -> Tensor:
    """``activation(inputs @ kernel + bias)`` with ``kernel`` ``(in, units)``."""
    x = convert_to_tensor(inputs)
    shape = x.shape.as_list()
    if shape[-1] is None:
        raise ValueError("The last dimension of the inputs to `Dense` should be defined. Found `None`.")
    with _scope(name, "dense", reuse):
        kernel = _variable("kernel", (shape[-1], units), x.dtype, kernel_initializer, trainable,
                           kernel_regularizer)
        bias = _variable("bias", (units,), x.dtype, bias_initializer or Zeros(), trainable,
                         bias_regularizer) if use_bias else None
        flat = x if len(shape) == 2 else reshape(x, (-1, shape[-1]))
        y = matmul(flat, kernel, name="MatMul")
        if len(shape) != 2:   # leading dims back; two or more unknown ones come from tf.shape(x)
            lead = shape[:-1] if shape[:-1].count(None) <= 1 else [
                d if d is not None else array_ops.shape(x)[i] for i, d in enumerate(shape[:-1])]
            y = reshape(y, [-1 if d is None else d for d in lead] + [units], name="Tensordot")
        if bias is not None:
            y = nn.bias_add(y, bias, name="BiasAdd")
        return _activate(y, activation)


def _pair(v) -> tuple[int, int]:
    return (int(v), int(v)) if isinstance(v, (int, np.integer)) else tuple(int(i) for i in v)


def _tf_padding(padding: str) -> str:
    p = padding.upper()
    if p not in ("SAME", "VALID"):
        raise ValueError(f"The `padding` argument must be a string, one of \"valid\" or \"same\". "
                         f"Received: {padding}")
    return p


def _data_format(data_format: str) -> str:
    return "NHWC" if data_format == "channels_last" else "NCHW"


def conv2d(inputs, filters: int, kernel_size, strides=(1, 1), padding: str = "valid",
           data_format: str = "channels_last", dilation_rate=(1, 1), activation=None,
           use_bias: bool = True, kernel_initializer=None, bias_initializer=None,
           kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
           kernel_constraint=None, bias_constraint=None, trainable: bool = True,
           name: str | None = None, reuse=None) -> Tensor:
    """2-d convolution layer: kernel ``(kh, kw, in, filters)``, bias, activation."""
    x = convert_to_tensor(inputs)
    fmt = _data_format(data_format)
    channels = x.shape.as_list()[-1 if fmt == "NHWC" else 1]
    kh, kw = _pair(kernel_size)
    with _scope(name, "conv2d", reuse):
        kernel = _variable("kernel", (kh, kw, channels, filters), x.dtype, kernel_initializer,
                           trainable, kernel_regularizer)
        bias = _variable("bias", (filters,), x.dtype, bias_initializer or Zeros(), trainable,
                         bias_regularizer) if use_bias else None
        y = nn.conv2d(x, kernel, strides=_pair(strides), padding=_tf_padding(padding),
                      data_format=fmt, dilations=_pair(dilation_rate), name="Conv2D")
        if bias is not None:
            y = nn.bias_add(y, bias, data_format=fmt, name="BiasAdd")
        return _activate(y, activation)


def conv1d(inputs, filters: int, kernel_size, strides=1, padding: str = "valid",
           data_format: str = "channels_last", dilation_rate=1, activation=None,
           use_bias: bool = True, kernel_initializer=None, bias_initializer=None,
           kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
           kernel_constraint=None, bias_constraint=None, trainable: bool = True,
           name: str | None = None, reuse=None) -> Tensor:
    """1-d convolution layer over ``(batch, width, channels)``: kernel ``(k, in, filters)``."""
    if data_format != "channels_last":
        raise ValueError("tf.layers.conv1d supports data_format='channels_last' here")
    x = convert_to_tensor(inputs)
    (k,), (stride,), (rate,) = (np.atleast_1d(v).tolist() for v in (kernel_size, strides, dilation_rate))
    with _scope(name, "conv1d", reuse):
        kernel = _variable("kernel", (int(k), x.shape.as_list()[-1], filters), x.dtype,
                           kernel_initializer, trainable, kernel_regularizer)
        bias = _variable("bias", (filters,), x.dtype, bias_initializer or Zeros(), trainable,
                         bias_regularizer) if use_bias else None
        y = nn.conv1d(x, kernel, stride=int(stride), padding=_tf_padding(padding),
                      dilations=int(rate), name="conv1d")
        if bias is not None:
            y = nn.bias_add(y, bias, name="BiasAdd")
        return _activate(y, activation)


def conv2d_transpose(inputs, filters: int, kernel_size, strides=(1, 1), padding: str = "valid",
                     data_format: str = "channels_last", activation=None, use_bias: bool = True,
                     kernel_initializer=None, bias_initializer=None, kernel_regularizer=None,
                     bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                     bias_constraint=None, trainable: bool = True, name: str | None = None,
                     reuse=None) -> Tensor:
    """Transposed 2-d convolution layer: kernel ``(kh, kw, filters, in)``; the output's height
    is ``h * stride`` (SAME) or ``(h - 1) * stride + kh`` (VALID), as TF."""
    if data_format != "channels_last":
        raise ValueError("tf.layers.conv2d_transpose supports data_format='channels_last' here")
    x = convert_to_tensor(inputs)
    kh, kw = _pair(kernel_size)
    sh, sw = _pair(strides)
    n, h, w, channels = x.shape.as_list()
    if h is None or w is None:
        raise ValueError("tf.layers.conv2d_transpose needs the input's height and width known")
    same = padding.lower() == "same"
    out_h, out_w = (h * sh, w * sw) if same else ((h - 1) * sh + kh, (w - 1) * sw + kw)
    with _scope(name, "conv2d_transpose", reuse):
        kernel = _variable("kernel", (kh, kw, filters, channels), x.dtype, kernel_initializer,
                           trainable, kernel_regularizer)
        bias = _variable("bias", (filters,), x.dtype, bias_initializer or Zeros(), trainable,
                         bias_regularizer) if use_bias else None
        batch = n if n is not None else array_ops.shape(x)[0]
        y = nn.conv2d_transpose(x, kernel, [batch, out_h, out_w, filters], strides=(1, sh, sw, 1),
                                padding=_tf_padding(padding), name="conv2d_transpose")
        if bias is not None:
            y = nn.bias_add(y, bias, name="BiasAdd")
        return _activate(y, activation)


def _pooling(fn, default, inputs, pool_size, strides, padding, data_format, name):
    with _scope(name, default):
        return fn(convert_to_tensor(inputs), _pair(pool_size), _pair(strides), _tf_padding(padding),
                  _data_format(data_format))


def max_pooling2d(inputs, pool_size, strides, padding: str = "valid",
                  data_format: str = "channels_last", name: str | None = None) -> Tensor:
    return _pooling(nn.max_pool, "max_pooling2d", inputs, pool_size, strides, padding, data_format, name)


def average_pooling2d(inputs, pool_size, strides, padding: str = "valid",
                      data_format: str = "channels_last", name: str | None = None) -> Tensor:
    return _pooling(nn.avg_pool, "average_pooling2d", inputs, pool_size, strides, padding,
                    data_format, name)


def flatten(inputs, name: str | None = None, data_format: str = "channels_last") -> Tensor:
    """``(batch, everything else)``."""
    x = convert_to_tensor(inputs)
    rest = x.shape.as_list()[1:]
    if None in rest:
        raise ValueError(f"flatten needs every dimension but the first known, got {x.shape}")
    with _scope(name, "flatten"):
        return reshape(x, (-1, int(np.prod(rest))), name="Reshape")


def _branch(training, train_fn: Callable, infer_fn: Callable):
    """Python bools pick a branch now; a boolean tensor picks it when the graph runs."""
    if isinstance(training, (bool, np.bool_)):
        return train_fn() if training else infer_fn()
    return cond(convert_to_tensor(training), train_fn, infer_fn)


def dropout(inputs, rate: float = 0.5, noise_shape=None, seed=None, training=False,
            name: str | None = None) -> Tensor:
    """``tf.nn.dropout(inputs, rate)`` when ``training``, else ``inputs``."""
    x = convert_to_tensor(inputs)
    with _scope(name, "dropout"):
        return _branch(training, lambda: nn.dropout(x, rate=rate, noise_shape=noise_shape, seed=seed),
                       lambda: identity(x))


def batch_normalization(inputs, axis: int = -1, momentum: float = 0.99, epsilon: float = 1e-3,
                        center: bool = True, scale: bool = True, beta_initializer=None,
                        gamma_initializer=None, moving_mean_initializer=None,
                        moving_variance_initializer=None, beta_regularizer=None,
                        gamma_regularizer=None, beta_constraint=None, gamma_constraint=None,
                        training=False, trainable: bool = True, name: str | None = None,
                        reuse=None, renorm: bool = False, renorm_clipping=None,
                        renorm_momentum: float = 0.99, fused=None, virtual_batch_size=None,
                        adjustment=None) -> Tensor:
    """Normalise with batch statistics (training) or the moving ones (inference)."""
    x = convert_to_tensor(inputs)
    rank = len(x.shape.as_list())
    ax = axis % rank
    c = x.shape.as_list()[ax]
    axes = [i for i in range(rank) if i != ax]
    bshape = [c if i == ax else 1 for i in range(rank)]
    unbiased = rank == 4 and ax in (1, 3)                      # TF's fused kernel
    with _scope(name, "batch_normalization", reuse):
        gamma = _variable("gamma", (c,), x.dtype, gamma_initializer or Ones(), trainable,
                          gamma_regularizer) if scale else None
        beta = _variable("beta", (c,), x.dtype, beta_initializer or Zeros(), trainable,
                         beta_regularizer) if center else None
        moving_mean = _variable("moving_mean", (c,), x.dtype, moving_mean_initializer or Zeros(),
                                trainable=False)
        moving_var = _variable("moving_variance", (c,), x.dtype,
                               moving_variance_initializer or Ones(), trainable=False)

        def shaped(v):
            return None if v is None else reshape(v, bshape)

        def normalize(mean, var):
            return nn.batch_normalization(x, reshape(mean, bshape), reshape(var, bshape),
                                          shaped(beta), shaped(gamma), epsilon)

        mean, var = nn.moments(x, axes)
        y = _branch(training, lambda: normalize(mean, var), lambda: normalize(moving_mean, moving_var))
        if training is False:
            return y
        if unbiased:
            n = _count(x, axes)
            var = multiply(var, n / (n - 1.0))
        decay = 1.0 - momentum
        if not isinstance(training, (bool, np.bool_)):
            decay = where(convert_to_tensor(training), constant(decay, x.dtype), constant(0.0, x.dtype))
        graph = get_default_graph()
        for variable, value, scope in ((moving_mean, mean, "AssignMovingAvg"),
                                       (moving_var, var, "AssignMovingAvg_1")):
            with graph.name_scope(scope):
                update = variable.assign_sub(multiply(subtract(variable, value), decay), read_value=False)
            graph.add_to_collection(UPDATE_OPS, update)
        return y


def _count(x: Tensor, axes) -> Any:
    """Elements per channel: a float when the shape is known, else a run-time ReduceSize."""
    dims = [x.shape.as_list()[a] for a in axes]
    if None not in dims:
        return float(np.prod(dims))
    return F.reduce_size(x, axis=tuple(axes))
