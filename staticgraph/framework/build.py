"""``apply``: the one way a registry op becomes a graph node.

::

    apply(op, inputs, attrs)
      1. non-Tensor inputs -> Const nodes (Python scalars take the dtype of the
         tensor operands; TF's defaults otherwise: int -> int32, float -> float32)
      2. op.infer(*specs, **attrs)  -- shape/dtype now, at build time; a
         mismatch is raised HERE, naming the op, the shapes and the user's line
      3. graph.create_op(...)       -- returns the output Tensor

Gradient rules reach it through ``F = common.Namespace(apply)``, so backward
graphs are built by the same code path as forward ones.
"""
from __future__ import annotations

import math
import numbers
import os
from typing import Any

import numpy as np

from common import REGISTRY, DTypeError, Namespace, OpDef, ShapeError, Spec
from common.shapes import fmt_shape

from . import dtypes as _dtypes
from .errors import GraphDTypeError, GraphShapeError, ResourceExhaustedError
from .error_text import input_names, shape_inference_error
from .graph import Tensor, creation_site, get_default_graph, tensor_of
from .shape import as_shape_tuple

__all__ = ["apply", "F", "F_OPERATORS", "checked_array", "constant", "convert_to_tensor", "default_dtype", "is_tensor"]

_INPUT_NAMES = {"a": "x", "b": "y"}  # TF names a binary op's constant inputs "Add/y"


def is_tensor(x: Any) -> bool:
    return isinstance(x, Tensor)


def default_dtype(value: Any) -> np.dtype:
    """TF's defaults: Python int -> int32, float -> float32; numpy arrays keep theirs."""
    if isinstance(value, np.ndarray | np.generic):
        return value.dtype
    arr = _as_array(value)
    if arr.dtype == np.float64:
        return np.dtype(np.float32)
    if arr.dtype == np.int64:
        return np.dtype(np.int32)
    return arr.dtype


def _as_array(value: Any) -> np.ndarray:
    try:
        return np.asarray(value)
    except ValueError:
        raise ValueError("Can't convert non-rectangular Python sequence to Tensor.") from None


def checked_array(value: Any, dtype: np.dtype) -> np.ndarray:
    """``value`` as ``dtype``, refusing to silently truncate floats into ints (as TF)."""
    arr = _as_array(value)
    if arr.dtype.kind == "f" and np.dtype(dtype).kind in "iub" and not np.all(arr == np.trunc(arr)):
        raise TypeError(f"Expected {_dtypes.as_dtype(dtype).name}, got {value!r} of type "
                        f"'{type(value).__name__}' instead.")
    return np.array(arr, dtype=dtype)


def constant(value: Any, dtype=None, shape=None, name: str | None = "Const") -> Tensor:
    """A Const node holding ``value`` (broadcast to ``shape`` if given)."""
    return _constant(value, dtype, shape, name, None)


def _constant(value: Any, dtype, shape, name: str | None, site: str | None) -> Tensor:
    """:func:`constant`; ``site``: the creation site when the caller knows it already."""
    if shape is None:   # the common cases, already a number of the right kind: one copy
        arr = None
        if type(value) is np.ndarray and value.dtype.kind in "biuf" and (
                dtype is None or _dtypes.as_dtype(dtype)._np == value.dtype):
            arr = np.array(value)
        elif type(value) is float and (dtype is None or _dtypes.as_dtype(dtype)._np.kind == "f"):
            arr = np.array(value, dtype=np.float32 if dtype is None else _dtypes.as_dtype(dtype)._np)
        if arr is not None:
            arr.setflags(write=False)
            op = get_default_graph().create_op("Const", (), {"value": arr}, [(arr.shape, arr.dtype)],
                                               name=name or "Const", site=site)
            return op.outputs[0]
    if isinstance(value, Tensor):
        raise TypeError(f"constant() needs a Python or numpy value, not the symbolic {value}")
    if value is None:
        raise ValueError("None values not supported.")
    strings = _as_bytes(value)
    if strings is not None:  # tf.string: an object array of bytes, as TF fetches it
        value, dtype = strings, _dtypes.string
    np_dtype = default_dtype(value) if dtype is None else _dtypes.as_dtype(dtype)._np
    raw = _as_array(value)
    if raw.dtype.kind == "f" and np.dtype(np_dtype).kind in "iub":
        bad = raw.reshape(-1)[raw.reshape(-1) != np.trunc(raw.reshape(-1))]
        if bad.size:   # TF names the first value it cannot convert
            raise TypeError(f"Expected {_dtypes.as_dtype(np_dtype).name}, but got {bad[0].item()!r} "
                            f"of type 'float'.")
    arr = checked_array(value, np_dtype)
    if arr.dtype.kind == "O" and strings is None and arr.size:   # empty: a string tensor
        raise TypeError(f"Failed to convert elements of {value!r:.60} to Tensor: tensors hold "
                        f"numbers, bools and strings.")
    _dtypes.as_dtype(arr.dtype)  # complex, strings...: refused here, with the supported list
    shape = as_shape_tuple(shape)
    if shape is not None and arr.shape != shape:
        if arr.size == 1:
            arr = np.full(shape, arr.reshape(()), dtype=np_dtype)
        elif arr.size == int(np.prod(shape)):
            arr = arr.reshape(shape)
        else:
            raise TypeError(f"Expected Tensor's shape: {shape}, but got {arr.shape}.")
    arr.setflags(write=False)
    graph = get_default_graph()
    op = graph.create_op("Const", (), {"value": arr}, [(arr.shape, arr.dtype)], name=name or "Const",
                         site=site)
    return op.outputs[0]


def _as_bytes(value: Any) -> np.ndarray | None:
    """Python/numpy strings as TF holds them (an object array of ``bytes``), else None."""
    if isinstance(value, (str, bytes)):
        return np.array(value.encode() if isinstance(value, str) else value, dtype=object)
    if isinstance(value, (list, tuple, np.ndarray)):
        try:
            raw = np.asarray(value)
        except ValueError:
            return None
        if raw.dtype.kind in "SU" or raw.dtype.kind == "O" and raw.size and all(
                isinstance(v, (str, bytes)) for v in raw.reshape(-1)):
            flat = [v.encode() if isinstance(v, str) else bytes(v) for v in raw.reshape(-1).tolist()]
            out = np.empty(len(flat), dtype=object)
            out[:] = flat
            return out.reshape(raw.shape)
    return None


def convert_to_tensor(value: Any, dtype=None, name: str | None = None) -> Tensor:
    """A Tensor as is (dtype checked), anything else as a Const."""
    if isinstance(value, Tensor):
        if dtype is not None and value.dtype != _dtypes.as_dtype(dtype):
            raise ValueError(f"Tensor conversion requested dtype {_dtypes.as_dtype(dtype).name} "
                             f"for Tensor with dtype {value.dtype.name}: {value}")
        return value
    t = tensor_of(value)
    if t is not None:
        if dtype is not None and t.dtype != _dtypes.as_dtype(dtype):
            raise ValueError(f"Tensor conversion requested dtype {_dtypes.as_dtype(dtype).name} "
                             f"for Tensor with dtype {t.dtype.name}: {t}")
        return t
    if isinstance(value, (list, tuple)):
        found = _first_tensor_dtype(value)
        if found is not None:   # TF's auto-packing: ``[1, t, 2]`` is stack([1, t, 2])
            target = found if dtype is None else _dtypes.as_dtype(dtype)
            if target != found:   # an explicit dtype: every tensor cast to it first (TF)
                value = _cast_nested(value, target)
            with get_default_graph().name_scope(name or "packed") as scope:
                return _pack(value, target, scope)
    return constant(value, dtype=dtype, name=name or "Const")


def _is_tensorish(x: Any) -> bool:
    """A tensor or a variable (without making the variable's read: this only looks)."""
    return isinstance(x, Tensor) or hasattr(x, "_to_tensor")


def _first_tensor_dtype(items: list | tuple):
    """The dtype of the first tensor in a nested list, depth first (None: no tensor)."""
    for x in items:
        if type(x) in (int, float, bool):
            continue
        if _is_tensorish(x):
            return x.dtype.base_dtype
        if isinstance(x, (list, tuple)):
            found = _first_tensor_dtype(x)
            if found is not None:
                return found
    return None


def _cast_nested(items: list | tuple, dtype: _dtypes.DType) -> list:
    """The nested list with every tensor of another dtype cast to ``dtype``."""
    out = []
    for x in items:
        if _is_tensorish(x) and x.dtype.base_dtype != dtype:
            x = apply(REGISTRY["Cast"], (tensor_of(x),), {"dtype": dtype._np}, name="Cast")
        elif isinstance(x, (list, tuple)):
            x = _cast_nested(x, dtype)
        out.append(x)
    return out


def _pack(items: list | tuple, dtype: _dtypes.DType, scope: str):
    """A nested list holding tensors as one ``Pack`` per level that holds one, named as TF's:
    ``packed``; the values beside the tensors ``packed/0``...; each nested level in its own
    scope ``packed/<i>/`` (opened even for a level without tensors, which stays a list).  A
    tensor of another dtype than ``dtype`` is refused."""
    graph = get_default_graph()
    parts, has_tensor = [], False
    for i, x in enumerate(items):
        if _is_tensorish(x):
            x = tensor_of(x)
            if x.dtype.base_dtype != dtype:
                raise TypeError(f"Cannot convert a list containing a tensor of dtype "
                                f"{x.dtype} to {dtype} (Tensor is: {x!r})")
            has_tensor = True
        elif isinstance(x, (list, tuple)):
            with graph.name_scope(str(i)) as inner:
                x = _pack(x, dtype, inner)
            has_tensor = has_tensor or isinstance(x, Tensor)
        parts.append(x)
    if not has_tensor:
        return list(parts)
    with graph.name_scope(scope):
        tensors = [x if isinstance(x, Tensor) else constant(x, dtype=dtype, name=str(i))
                   for i, x in enumerate(parts)]
    return apply(REGISTRY["Pack"], tuple(tensors), {"axis": 0}, name=scope)


def _hint(inputs) -> np.dtype | None:
    """The dtype weak scalars adopt: that of the first non-bool tensor input (else any tensor)."""
    dtypes = [x.np_dtype if isinstance(x, Tensor) else x.dtype._np for x in inputs
              if isinstance(x, Tensor) or hasattr(x, "_to_tensor")]   # tensors and variables
    for d in dtypes:
        if d != np.bool_:
            return d
    return dtypes[0] if dtypes else None


def _as_input(x: Any, hint: np.dtype | None, const_name: str, site: str) -> Tensor:
    t = tensor_of(x)
    if t is not None:
        return t
    if isinstance(x, numbers.Number) and hint is not None:
        return _constant(x, hint, None, const_name, site)
    return _constant(x, None, None, const_name, site)


def _freeze(v: Any) -> Any:
    """Attributes are hashable: lists become tuples (recursively)."""
    return tuple(_freeze(i) for i in v) if isinstance(v, list) else v


def apply(op: OpDef, inputs: tuple, attrs: dict, name: str | None = None,
          tf_type: str | None = None) -> Tensor:
    """Add a node for registry op ``op``; return its output Tensor (an op declaring several
    ``outputs`` returns the tuple of them: ``split:0``, ``split:1``...).  ``tf_type``: the
    type TF gives this node when one op serves several of TF's (see ``Operation``)."""
    graph = get_default_graph()
    attrs = {k: _freeze(v) for k, v in attrs.items()} if attrs else {}
    name = name or op.name
    plain = name[-1] != "/"
    if plain:
        for x in inputs:
            if type(x) is not Tensor:
                plain = False
                break
    site = creation_site()
    if plain:
        # Nothing to convert, so no Const lands in the op's scope: the scope's name is all
        # that is needed (what ``name_scope(name)`` would take), without entering it.
        tensors, name = inputs, graph.unique_name(name)
    else:
        with graph.name_scope(name) as scope:  # TF: the op's name doubles as a scope
            hint = _hint(inputs)
            names = op.inputs if not op.variadic else [f"x_{i}" for i in range(len(inputs))]
            tensors = tuple(_as_input(x, hint, _INPUT_NAMES.get(n, n), site)  # its Consts: our line
                            for x, n in zip(inputs, names))
        name = scope[:-1]
    try:
        spec = op.infer(*[t._spec or _spec_of(t) for t in tensors], **attrs)
    except ShapeError as e:
        raise GraphShapeError(_build_message(op, name, tensors, e, site, tf_type)) from None
    except DTypeError as e:
        raise GraphDTypeError(_build_message(op, name, tensors, e, site, tf_type)) from None
    many = op.outputs is not None   # ``op.multi_output``
    specs = spec if many else (spec,)
    for s in specs:   # exact check only for results big enough to matter (a few per graph)
        shape = s.shape
        if shape and None not in shape and math.prod(shape) > _MANY:
            _check_fits(op, name, s, site)
    node = graph.create_op(op.name, tensors, attrs, specs, name, op, (), site, True, tf_type)
    return node.outputs if many else node.outputs[0]


def _spec_of(t: Tensor) -> Spec:
    """What shape rules read of ``t``, kept on it (every later consumer reuses it)."""
    t._spec = Spec(t._shape, t._dtype._np)
    return t._spec


def _physical_memory() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


MEMORY = _physical_memory()
_MANY = (MEMORY // 16) if MEMORY is not None else math.inf
"""Results with more elements than this may not fit (16 bytes: the widest element); fewer always fit."""


def _check_fits(op: OpDef, name: str, spec: Spec, site: str) -> None:
    """A result that cannot fit in this machine's memory is refused now, before any run allocates it."""
    nbytes = math.prod(spec.shape) * np.dtype(spec.dtype).itemsize
    if nbytes > MEMORY:
        dims = ",".join(map(str, spec.shape))
        raise ResourceExhaustedError(None, None, (
            f"OOM when allocating tensor with shape[{dims}] and type {_dtypes.as_dtype(spec.dtype).name}: "
            f"{nbytes} bytes, more than this machine's {MEMORY} bytes of memory\n  in op '{name}' "
            f"({op.name})\n  created at {site}"))


def _build_message(op: OpDef, name: str, tensors, err: Exception, site: str,
                   tf_type: str | None = None) -> str:
    """TF's sentence first (when the rule gave one), then ours: op, shapes, the user's line."""
    shapes = ", ".join(f"{fmt_shape(t._shape)} ({t.dtype.name})" for t in tensors)
    ours = (f"{err}\n  in op '{name}' ({tf_type or op.tf_type}) with input shapes: {shapes}\n"
            f"  created at {site}")
    reason = getattr(err, "tf", None)
    if reason is None:
        return ours
    # Only TF's "T": the registry does not declare each op's other TF attributes (MatMul's
    # transpose_a, ...), so the summary names the op, its type and its inputs, not every attr.
    attrs = {"T": tensors[0].dtype if tensors else _dtypes.float32}
    return (shape_inference_error(reason, name, tf_type or op.tf_type, attrs, input_names(tensors),
                                  [t._shape for t in tensors]) + f"\n{ours}")


class GraphNamespace(Namespace):
    """``F`` that builds nodes; ``F.shape`` answers None for a tensor of unknown rank."""

    @staticmethod
    def shape(x) -> tuple | None:
        return x._shape if isinstance(x, Tensor) else Namespace.shape(x)


F = GraphNamespace(apply)
"""The registry namespace bound to graph building (gradient rules and composites use it)."""

F_OPERATORS = GraphNamespace(lambda op, xs, attrs: apply(op, xs, attrs, name=op.fname))
"""``F`` whose nodes take the op's Python name (``add``, ``mul``, ``add_1``), as TF names what
its Python-level composites build with operators (``batchnorm/add_1``)."""
