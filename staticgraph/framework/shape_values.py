"""What the graph already knows about a tensor's *value* when it is built.

TF's shape functions read constant inputs: ``tf.reshape(x, [tf.shape(x)[0], 2])`` has the
static shape ``(3, 2)`` when ``x`` is ``[3, 4]`` and ``(None, 2)`` when it is ``[None, 4]``.
Three helpers give the front ends the same knowledge:

* :func:`constant_value` -- the whole value, if fixed before any run (TF's
  ``tensor_util.constant_value``, which like TF's C++ shape inference also evaluates small
  pure subgraphs: ``tf.shape(k)[0] * 2`` is 6 for a ``[3, 4]`` ``k``);
* :func:`constant_value_as_shape` -- a shape vector entry by entry, None where unknown;
* :func:`shape_tensor` -- a shape argument as an int tensor: a list mixing Python ints and
  scalar tensors becomes a ``Pack`` (TF's auto-packing), a scalar a one-element vector.

>>> import staticgraph as tf
>>> x = tf.placeholder(tf.float32, [None, 4])
>>> constant_value_as_shape(tf.stack([tf.shape(x)[0], 2]))
(None, 2)
"""
from __future__ import annotations

from typing import Any

import numpy as np

from common import REGISTRY
from common.indexing import decode_index

from .build import apply, constant
from .graph import Tensor, name_scope

__all__ = ["constant_value", "constant_value_as_shape", "shape_tensor", "is_runtime_shape",
           "stack_or_none", "static_value"]

_FOLD_LIMIT = 1 << 12  # elements: larger values are left to the compiler's folding pass
_DEPTH_LIMIT = 64


def constant_value(t: Any, _depth: int = 0) -> np.ndarray | None:
    """The value of ``t`` if the graph fixes it before any run, else None."""
    if not isinstance(t, Tensor):
        return None if hasattr(t, "_as_graph_element") else np.asarray(t)
    op = t.op
    if op.kind == "Const":
        return op.attrs["value"]
    if op.kind in ("Shape", "Size", "Rank"):
        s = op.inputs[0]._shape
        if s is None or (op.kind != "Rank" and None in s):
            return None
        return np.asarray(op.op_def.impl(np.broadcast_to(np.empty((), np.int8), s), **op.attrs))
    if op.kind == "Placeholder":   # a body's stand-in for an outer tensor: that tensor's value
        outer = getattr(op.graph, "captured_from", {}).get(t)
        return None if outer is None or _depth > _DEPTH_LIMIT else constant_value(outer, _depth + 1)
    if op.kind == "GetItem":
        vs = [constant_value(i, _depth + 1) for i in op.inputs]
        return None if any(v is None for v in vs) else vs[0][decode_index(op.attrs["key"], vs[1:])]
    return _evaluated(op, _depth)


def _evaluated(op, depth: int) -> np.ndarray | None:
    """A small pure op over constant inputs, computed now (TF's ``EvaluateConstantTensor``)."""
    d = op.op_def
    if (d is None or d.stateful or depth > _DEPTH_LIMIT or op.control_inputs or len(op.outputs) != 1
            or _too_big(op.outputs[0]._shape)):
        return None
    vs = []
    for i, x in enumerate(op.inputs):
        if d.reads_shape_only(i):
            if x._shape is None or None in x._shape:
                return None
            vs.append(np.empty(x._shape, x.np_dtype))
            continue
        v = constant_value(x, depth + 1)
        if v is None:
            return None
        vs.append(v)
    try:
        return np.asarray(d.impl(*vs, **op.attrs))
    except Exception:  # noqa: BLE001  (the run will raise it, at the node, with TF's message)
        return None


def _too_big(shape) -> bool:
    return shape is None or None in shape or int(np.prod(shape)) > _FOLD_LIMIT


def constant_value_as_shape(t: Tensor) -> tuple | None:
    """A shape vector's static value entry by entry (``None`` where only the run knows it), or
    None for an unknown rank -- TF's ``tensor_util.constant_value_as_shape``."""
    value = constant_value(t)
    if value is not None:
        return tuple(int(d) for d in np.reshape(value, -1))
    op = t.op
    if op.kind == "Shape":
        return op.inputs[0]._shape
    if op.kind == "Pack" and op.attrs.get("axis", 0) == 0:
        return tuple(_entry(x) for x in op.inputs)
    if op.kind == "ConcatV2":
        parts = [constant_value_as_shape(x) for x in op.inputs]
        return None if any(p is None for p in parts) else sum(parts, ())
    if op.kind == "Cast":
        return constant_value_as_shape(op.inputs[0])
    if op.kind == "GetItem" and len(op.inputs) == 1 and op.inputs[0].op.kind == "Shape":
        whole = op.inputs[0].op.inputs[0]._shape
        key = op.attrs["key"]
        if whole is not None and len(key) == 1 and not isinstance(key[0], int):
            return tuple(whole[decode_index(key, [])[0]])
    s = t._shape
    return None if s is None or s[0] is None else (None,) * s[0]


def _entry(x: Tensor) -> int | None:
    v = constant_value(x)
    return None if v is None or int(v) < 0 else int(v)


def is_runtime_shape(shape: Any) -> bool:
    """Is ``shape`` a tensor, or a list holding one (so it needs :func:`shape_tensor`)?"""
    return isinstance(shape, Tensor) or isinstance(shape, (list, tuple)) and any(
        isinstance(d, Tensor) for d in shape)


def shape_tensor(shape: Any, name: str = "shape") -> Tensor:
    """``shape`` as a 1-D int tensor: a tensor as is (a scalar reshaped to one entry), a list
    of ints and scalar tensors packed (``Pack``; ints take the tensors' dtype), as TF does."""
    if isinstance(shape, Tensor):
        if shape._shape == ():
            return apply(REGISTRY["Reshape"], (shape,), {"shape": (-1,)}, name="Reshape")
        return shape
    tensors = [d for d in shape if isinstance(d, Tensor)]
    dtype = tensors[0].np_dtype if tensors else np.dtype(np.int32)
    for d in tensors:
        if d.np_dtype != dtype:
            raise TypeError(f"Tensors in list passed to 'values' of 'Pack' Op have types "
                            f"[{', '.join(x.dtype.name for x in tensors)}] that don't all match.")
    with name_scope(None, name) as scope:  # TF's auto-packing: constants named by position
        parts = [d if isinstance(d, Tensor) else constant(np.array(d, dtype), name=str(i))
                 for i, d in enumerate(shape)]
        return apply(REGISTRY["Pack"], parts, {"axis": 0}, name=scope[:-1] + "/")


def stack_or_none(values) -> np.ndarray | None:
    """A list mixing numbers and tensors, as an array if every tensor has a build-time value."""
    parts = [constant_value(p) for p in values]
    return None if any(p is None for p in parts) else np.array(parts)


def static_value(shape: Any) -> np.ndarray | None:
    """A shape argument (tensor, or list mixing ints and tensors) if the graph fixes it."""
    return constant_value(shape) if isinstance(shape, Tensor) else stack_or_none(shape)
