"""Indexing keys (``x[1:, idx]``) as hashable op attributes.

A user's key mixes ints, slices, ``None``, ``...`` and integer arrays.  The
static parts become the ``GetItem`` op's ``index`` attribute (hashable, so the
compiler can compare nodes); each integer array becomes an extra *input* of
the op, marked by :data:`ARRAY` in the attribute.

>>> spec, arrays = encode_index((slice(1, None), [0, 2]))
>>> spec
(Slice(start=1, stop=None, step=None), ARRAY)
>>> decode_index(spec, [np.array([0, 2])])
(slice(1, None, None), array([0, 2]))
"""
from __future__ import annotations

import functools
import re
from typing import Any, NamedTuple

import numpy as np

from .errors import ShapeError

__all__ = ["Slice", "ARRAY", "encode_index", "decode_index", "index_shape"]


class Slice(NamedTuple):
    start: int | None
    stop: int | None
    step: int | None


class _ArrayMarker:
    __slots__ = ()

    def __repr__(self) -> str:
        return "ARRAY"

    def __reduce__(self):
        return "ARRAY"


ARRAY = _ArrayMarker()


def encode_index(key, is_array=lambda k: isinstance(k, (list, np.ndarray))) -> tuple[tuple, list]:
    """Split a key into its hashable spec and its integer-array parts.

    ``is_array`` lets a front end say which of its own objects (tensors) are arrays.
    """
    if not isinstance(key, tuple):
        key = (key,)
    spec, arrays = [], []
    for k in key:
        if isinstance(k, slice):
            spec.append(Slice(_int(k.start), _int(k.stop), _int(k.step)))
        elif k is None or k is Ellipsis:
            spec.append(k)
        elif isinstance(k, (bool, np.bool_)):
            raise TypeError("boolean scalars are not supported as indices")
        elif isinstance(k, (int, np.integer)):
            spec.append(int(k))
        elif is_array(k):
            spec.append(ARRAY)
            arrays.append(k)
        else:
            raise TypeError(f"unsupported index {k!r}: use ints, slices, None, ... or integer arrays")
    return tuple(spec), arrays


def decode_index(spec: tuple, arrays) -> tuple:
    """The numpy key for a spec and its arrays (the static part is decoded once per spec).

    A lone integer scalar (0-d) array picks like the integer it holds: the same result, but
    numpy then indexes basically (a view) instead of gathering a copy.
    """
    key, where = _decoded(spec)
    if not where:
        return key
    if len(arrays) != len(where):
        raise ValueError(f"index spec {spec} needs {len(where)} arrays, got {len(arrays)}")
    key = list(key)
    if len(where) == 1:
        a = arrays[0]
        if not isinstance(a, np.integer):
            a = np.asarray(a)
            if a.ndim == 0 and a.dtype.kind in "iu":
                a = a.item()
        key[where[0]] = int(a) if isinstance(a, np.integer) else a
        return tuple(key)
    for i, a in zip(where, arrays):
        key[i] = np.asarray(a)
    return tuple(key)


@functools.lru_cache(maxsize=4096)
def _decoded(spec: tuple) -> tuple[tuple, tuple[int, ...]]:
    """The numpy key of ``spec`` with its arrays' places left open, and those places: specs
    are op attributes, so a kernel indexing with one decodes it once, not once per run."""
    key = tuple(slice(*k) if isinstance(k, Slice) else k for k in spec)
    return key, tuple(i for i, k in enumerate(spec) if k is ARRAY)


def index_shape(shape, spec: tuple, array_shapes) -> tuple | None:
    """Result shape of indexing a partially known ``shape`` (numpy's rules, exactly).

    numpy itself answers, on a zero-stride view (no data is allocated).  Unknown
    dims are tried at two different large sizes; result dims that differ between
    the two tries depend on an unknown dim and are reported as ``None``.
    """
    if shape is None or any(s is None for s in array_shapes):
        return None
    passed = _passed_through(spec, len(shape))
    tries = []
    # index arrays of unknown length (tf.where's rows) are tried at two small lengths too
    for unknown, small, length in zip(_UNKNOWN_SIZES, (2, 3), (2, 3)):
        arrays = [np.zeros([length if d is None else d for d in s], dtype=np.intp)
                  for s in array_shapes]
        # dims an index passes through whole get a small size: an array index copies, and a
        # copy of a 10^6 x 10^6 dummy would be allocated for real
        dims = [d if d is not None else (small if i in passed else unknown) for i, d in enumerate(shape)]
        dummy = np.broadcast_to(np.empty((), np.int8), dims)
        try:
            tries.append(dummy[decode_index(spec, arrays)].shape)
        except IndexError as e:
            if any(None in s for s in array_shapes):
                return None       # unknown array lengths we could not line up: say nothing
            if array_shapes and 0 in dims:
                return None       # the run's index values decide (an empty axis: TF builds it)
            raise ShapeError(f"cannot index a tensor of shape {list(shape)}: {e}",
                             tf=_strided_slice_words(str(e), len(shape))) from None
    if len(tries[0]) != len(tries[1]):
        return None
    return tuple(a if a == b else None for a, b in zip(*tries))


_UNKNOWN_SIZES = (1_000_003, 1_000_033)
_OUT_OF_BOUNDS = re.compile(r"index (-?\d+) is out of bounds for axis (\d+) with size (\d+)")


def _strided_slice_words(numpy_words: str, rank: int) -> str | None:
    """TF's StridedSlice shape-function sentence for numpy's indexing error (None: no match)."""
    if not rank:
        return "Attempting to slice scalar input."
    if "too many indices" in numpy_words:
        return f"Index out of range using input dim {rank}; input has only {rank} dims"
    m = _OUT_OF_BOUNDS.search(numpy_words)
    if m:
        index, axis, size = (int(g) for g in m.groups())
        return f"slice index {index + size if index < 0 else index} of dimension {axis} out of bounds."
    return None


def _passed_through(spec: tuple, ndim: int) -> set[int]:
    """Dims of the indexed tensor that ``spec`` keeps whole (``:``, ``...`` or beyond the key)."""
    consuming = sum(1 for k in spec if k is not None and k is not Ellipsis)
    dims, dim = set(), 0
    for k in spec:
        if k is Ellipsis:
            dims.update(range(dim, dim + ndim - consuming))
            dim += ndim - consuming
        elif k is not None:
            if k == Slice(None, None, None):
                dims.add(dim)
            dim += 1
    return dims | set(range(dim, ndim))


def _int(v):
    if v is None:
        return None
    if hasattr(v, "item"):
        v = v.item()
    if not isinstance(v, (int, np.integer)):
        raise TypeError(f"slice bounds must be ints, not {v!r}")
    return int(v)
