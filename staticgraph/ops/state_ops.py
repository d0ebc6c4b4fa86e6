"""Sparse updates of variables: ``tf.scatter_add`` and friends, ``Variable.scatter_*``.

Each is one node of TF's resource-variable op type (``ResourceScatterAdd``,
``ResourceScatterNdUpdate``, ...) that reads and writes its variable, so the compiler orders it
with every other access to that variable, never merges, drops or moves it, and a run that fails
puts the variable back (as for ``assign``).  The functions return what TF returns: the
variable read after the update (``_UnreadVariable``)::

    v = tf.Variable([[1., 2.], [3., 4.], [5., 6.]])
    tf.scatter_add(v, [0, 0, 2], [[1., 1.], [10., 10.], [100., 100.]])
        -> [[12., 13.], [3., 4.], [105., 106.]]      (repeated indices add up, as in TF)

The update makes a new array (the old one may be held by a read, a fetch or the run's
rollback snapshot); an index out of range is TF's ``indices[0] = 5 is not in [0, 3)``.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from common import numerics

from ..framework.check_numerics import finite_check
from ..framework.build import constant, convert_to_tensor
from ..framework.error_text import at_node, input_names, shape_inference_error, tf_shape
from ..framework.errors import OutOfRangeError
from ..framework.graph import get_default_graph
from ..framework.kinds import _reads_writes, _uninitialized, defkind, handle_op
from .core_ops import concat, expand_dims

__all__ = ["scatter_add", "scatter_sub", "scatter_mul", "scatter_div", "scatter_min",
           "scatter_max", "scatter_update", "scatter_nd_add", "scatter_nd_sub",
           "scatter_nd_update", "batch_scatter_update"]


def _at(ufunc) -> Callable:
    """``ufunc.at``: repeated indices all apply (TF's scatter_add adds each one)."""
    return lambda new, key, updates: ufunc.at(new, key, updates)


def _set(new, key, updates) -> None:
    new[key] = updates


def _scatter_lowering(combine: Callable, nd: bool):
    """The kernel of one scatter kind: a new array with ``updates`` combined in at ``indices``
    (rows for ``scatter_*``, index tuples along the last axis for ``scatter_nd_*``)."""
    def lowering(op, ctx):
        check = finite_check(op, handle_op(op.inputs[0]).site) if numerics.enabled() else None

        def scatter(handle, indices, updates):
            try:
                old = handle.store[handle.name]
            except KeyError:
                raise _uninitialized(op, handle.name) from None
            indices = np.asarray(indices)
            if nd:
                key = tuple(np.moveaxis(indices, -1, 0))
                size = old.shape[:indices.shape[-1]]
            else:
                key, size = indices, old.shape[:1]
            for axis, (ix, n) in enumerate(zip(key if nd else (key,), size)):
                bad = (ix < 0) | (ix >= n)
                if bad.any():   # numpy would wrap a negative index round: TF refuses it
                    at = int(np.flatnonzero(bad.reshape(-1))[0])
                    where = f"indices[{at}]" if not nd else f"indices{list(np.unravel_index(at, ix.shape))}"
                    raise IndexError(f"index {int(ix.reshape(-1)[at])} is out of bounds for axis "
                                     f"{axis} with size {n}") if not nd else \
                        _NdIndexError(f"{where} = {list(indices.reshape(-1, indices.shape[-1])[at])}"
                                      f" does not index into shape {list(old.shape)}")
            new = np.array(old)
            combine(new, key, np.asarray(updates, dtype=old.dtype))
            if check is not None:
                check(new)
            new.setflags(write=False)
            handle.store[handle.name] = new
        return scatter
    return lowering


class _NdIndexError(IndexError):
    """A ``scatter_nd`` index outside the variable, in TF's words (``err.tf``)."""

    def __init__(self, message: str):
        super().__init__(message)
        self.tf = message


_KINDS = {
    "ResourceScatterAdd": (_at(np.add), False), "ResourceScatterSub": (_at(np.subtract), False),
    "ResourceScatterMul": (_at(np.multiply), False),
    "ResourceScatterDiv": (_at(np.true_divide), False),
    "ResourceScatterMin": (_at(np.minimum), False), "ResourceScatterMax": (_at(np.maximum), False),
    "ResourceScatterUpdate": (_set, False),
    "ResourceScatterNdAdd": (_at(np.add), True), "ResourceScatterNdSub": (_at(np.subtract), True),
    "ResourceScatterNdUpdate": (_set, True),
}
for _type, (_combine, _nd) in _KINDS.items():
    defkind(_type, _scatter_lowering(_combine, _nd), effects=_reads_writes, attrs=("var", "dtype"))


def scatter_node(kind: str, ref, indices, updates, name: str | None):
    """One scatter node on variable ``ref`` (``Variable._scatter`` wraps it in the read after)."""
    indices = convert_to_tensor(indices)
    if indices.dtype not in ("int32", "int64"):
        raise TypeError(f"Value passed to parameter 'indices' has DataType {indices.dtype.name} "
                        f"not in list of allowed values: int32, int64")
    updates = convert_to_tensor(updates, dtype=ref.dtype.base_dtype)
    _check_shapes(kind, ref, indices, updates, name or kind)
    return get_default_graph().create_op(kind, (ref.handle, indices, updates),
                                         {"var": ref._shared, "dtype": ref.dtype.base_dtype}, [],
                                         name=name or kind)


def _check_shapes(kind: str, ref, indices, updates, name: str) -> None:
    """TF's build-time rule: ``updates`` is ``indices.shape + ref.shape[1:]`` (rows), or
    ``indices.shape[:-1] + ref.shape[indices.shape[-1]:]`` (nd); a scalar update broadcasts
    for ``scatter_update``.  Unknown dims pass."""
    if None in (ref.shape.rank, indices.shape.rank, updates.shape.rank):
        return
    var, idx, upd = ref.shape.as_list(), indices.shape.as_list(), updates.shape.as_list()
    if "Nd" in kind:
        if not idx or idx[-1] is None:
            return
        want = idx[:-1] + var[idx[-1]:]
    elif kind == "ResourceScatterUpdate" and upd == []:
        return
    else:
        want = idx + var[1:]
    node = get_default_graph().unique_name(name, mark_as_used=False)
    def fail(reason: str) -> ValueError:
        return ValueError(shape_inference_error(
            reason, node, kind, {"Tindices": indices.dtype, "dtype": ref.dtype.base_dtype},
            input_names((ref.handle, indices, updates)), [(), idx, upd]))
    if len(want) != len(upd):
        raise fail(f"Shapes must be equal rank, but are {len(upd)} and {len(want)}")
    for axis, (a, b) in enumerate(zip(upd, want)):
        if a is not None and b is not None and a != b:
            raise fail(f"Dimension {axis} in both shapes must be equal, but are {a} and {b}. "
                       f"Shapes are {tf_shape(upd)} and {tf_shape(want)}.")


def _scatter_function(name: str, kind: str, use_locking: bool, what: str):
    """``tf.<name>(ref, indices, updates)``: one ``kind`` node on variable ``ref``, the variable
    read after it returned (``use_locking``: TF's default, accepted and unused -- one run at a
    time writes a variable here)."""
    def scatter(ref, indices, updates, use_locking=use_locking, name=None):
        return ref._scatter(kind, indices, updates, name)
    scatter.__name__ = scatter.__qualname__ = name
    scatter.__doc__ = f"{what} (one ``{kind}`` node; the variable read after it)."
    return scatter


scatter_add = _scatter_function("scatter_add", "ResourceScatterAdd", False,
                                "``ref[indices] += updates`` (rows; repeated indices add up)")
scatter_sub = _scatter_function("scatter_sub", "ResourceScatterSub", False,
                                "``ref[indices] -= updates``")
scatter_mul = _scatter_function("scatter_mul", "ResourceScatterMul", False,
                                "``ref[indices] *= updates``")
scatter_div = _scatter_function("scatter_div", "ResourceScatterDiv", False,
                                "``ref[indices] /= updates``")
scatter_min = _scatter_function("scatter_min", "ResourceScatterMin", False,
                                "``ref[indices] = minimum(ref[indices], updates)``")
scatter_max = _scatter_function("scatter_max", "ResourceScatterMax", False,
                                "``ref[indices] = maximum(ref[indices], updates)``")
scatter_update = _scatter_function("scatter_update", "ResourceScatterUpdate", True,
                                   "``ref[indices] = updates``")
scatter_nd_add = _scatter_function("scatter_nd_add", "ResourceScatterNdAdd", False,
                                   "``ref[tuple(index)] += update`` for each index along "
                                   "``indices``' last axis")
scatter_nd_sub = _scatter_function("scatter_nd_sub", "ResourceScatterNdSub", False,
                                   "``ref[tuple(index)] -= update``")
scatter_nd_update = _scatter_function("scatter_nd_update", "ResourceScatterNdUpdate", True,
                                      "``ref[tuple(index)] = update``")


def batch_scatter_update(ref, indices, updates, use_locking=True, name=None):
    """``ref[b..., indices[b..., k]] = updates[b..., k]``: rows picked per batch entry (TF
    builds it as a ``scatter_nd_update`` with the batch coordinates prepended)."""
    indices = convert_to_tensor(indices)
    shape = indices.shape.as_list() if indices.shape.rank is not None else None
    if shape is None or None in shape:
        raise ValueError("batch_scatter_update here needs the indices' shape known when the "
                         "graph is built")
    batch = np.moveaxis(np.indices(shape)[:-1], 0, -1).astype(indices.dtype.as_numpy_dtype)
    nd = concat([constant(batch), expand_dims(indices, -1)], axis=-1)
    return ref._scatter("ResourceScatterNdUpdate", nd, updates, name)


def _count_up_to(op, ctx):
    """``ResourceCountUpTo``'s kernel: the value before, the variable one higher after; at
    ``limit`` the run fails (TF's ``OutOfRangeError``) and the variable keeps its value."""
    limit = op.attrs["limit"]

    def count(handle):
        try:
            old = handle.store[handle.name]
        except KeyError:
            raise _uninitialized(op, handle.name) from None
        if old >= limit:
            raise OutOfRangeError(None, op, at_node(f"Reached limit of {limit}", op.name))
        new = np.array(old + 1, dtype=old.dtype)
        new.setflags(write=False)
        handle.store[handle.name] = new
        return old
    return count


defkind("ResourceCountUpTo", _count_up_to, effects=_reads_writes, returns_state=True,
        attrs=("var", "limit", "T"))
