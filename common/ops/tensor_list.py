"""Lists of tensors of different shapes: a ``TensorArray`` whose elements may differ.

A TensorArray is normally one dense buffer ``[size, *element]`` (``TensorListSetItem``).  TF's
``infer_shape=False`` arrays and ``TensorArray.split`` hold elements of different shapes --
``[[4., 5.]]``, ``[[1.]]`` and ``-3.`` in one array, or rows ``[0:2]``, ``[2:2]``, ``[2:3]``
of a split -- so there the list is what TF's ``TensorList`` is: a one-dimensional object
array whose entries are the element arrays (``None``: not written yet).  Every op returns a
fresh list (an element is copied in, so no later in-place step can change it).

The element dtype travels as the ``dtype`` attribute (the list itself is an object array);
``element_shape`` is what the graph knows of every element (None: nothing).  The refusals are
TF's kernels' words (``invalid``: an ``InvalidArgumentError`` when the graph runs).
"""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError, invalid
from ..examples import Example as E
from ..registry import REGISTRY, Spec, defop
from ..shapes import fmt_shape, tf_shape

_LIST = np.dtype(object)


def ragged_list(items: list) -> np.ndarray:
    """``items`` (arrays or None) as a list value: a 1-D object array holding them as they are
    (``np.array`` would try to stack equal-shaped ones)."""
    out = np.empty(len(items), dtype=object)
    for i, item in enumerate(items):
        out[i] = item
    return out


def _shown(shape) -> str:
    return "<unknown>" if shape is None else tf_shape(shape)


def _merged(known, shape: tuple, words: str) -> tuple:
    """TF's ``PartialTensorShape::MergeWith``: ``known`` (None: nothing yet) refined by an
    element's ``shape``, or TF's refusal."""
    if known is None:
        return shape
    if len(known) != len(shape):
        raise invalid(f"{words}Incompatible ranks during merge: {len(known)} vs. {len(shape)}")
    for a, b in zip(known, shape):
        if a is not None and a != b:
            raise invalid(f"{words}Incompatible shapes during merge: {tf_shape(known)} vs. "
                          f"{tf_shape(shape)}")
    return shape


def _filled(items: np.ndarray, element_shape, dtype, what: str) -> list[np.ndarray]:
    """The elements with each unwritten one as zeros of the shape the written ones and
    ``element_shape`` agree on (TF's rule; an undecided shape is its refusal)."""
    if all(item is not None for item in items):
        return list(items)
    shape = None if element_shape is None else tuple(element_shape)
    for item in items:
        if item is not None:
            shape = _merged(shape, item.shape, "PartialTensorShape: ")
    if shape is None or None in shape:
        raise invalid(f"Trying to {what} an uninitialized tensor but element_shape is not fully "
                      f"defined: {_shown(element_shape)} and no list element is set.")
    return [np.zeros(shape, dtype) if item is None else item for item in items]


def _reserve(num_elements, dtype=None):
    """A list of ``num_elements`` unwritten elements (TF's ``TensorListReserve``)."""
    return ragged_list([None] * int(num_elements))


def _from_tensor(tensor, size=None, dtype=None):
    """The rows of a dense buffer as a list; the dense empty marker ``(0,)`` (nothing written)
    is ``size`` unwritten elements."""
    if tensor.shape == (0,):
        return _reserve(size or 0)
    return ragged_list([np.array(row) for row in tensor])


def _set(items, position, item, size=None):
    """``items`` with element ``position`` replaced by (a copy of) ``item``; a list of dynamic
    size (``size=None``) grows to hold it."""
    i = int(position)
    n = len(items) if size is None else size
    if i < 0 or (i >= n and size is not None):
        raise invalid(f"Trying to modify element {i} in a list with {n} elements.")
    out = ragged_list([*items, *[None] * (i + 1 - len(items))]) if i >= len(items) else items.copy()
    out[i] = np.array(item)
    return out


def _get(items, position, element_shape=None, dtype=None, size=None):
    """Element ``position``; an unwritten one is zeros when its shape is known (TF's rule).
    Also reads a dense array's empty marker ``(0,)``, where nothing is written."""
    i = int(position)
    n = len(items) if size is None else size
    if not 0 <= i < n:
        raise invalid(f"Trying to access element {i} in a list with {n} elements.")
    item = items[i] if i < len(items) else None
    if item is not None:
        return np.array(item)
    written = [x for x in items if x is not None] if items.dtype == _LIST else []
    return _filled(ragged_list([None, *written]), element_shape, dtype, "read")[0]


def _stack(items, element_shape=None, dtype=None):
    """The elements stacked along a new first axis (all one shape, TF's words where not)."""
    if not len(items):
        if element_shape is None or None in element_shape:
            raise invalid(f"Tried to stack elements of an empty list with non-fully-defined "
                          f"element_shape: {_shown(element_shape)}")
        return np.zeros((0, *element_shape), dtype)
    shape = None if element_shape is None else tuple(element_shape)
    for item in items:
        if item is not None:
            shape = _merged(shape, item.shape, "PartialTensorShape: ")
    return np.stack(_filled(items, element_shape, dtype, "stack"))


def _concat(items, element_shape=None, dtype=None):
    """The elements joined along their first axis: each at least a vector, the rest of their
    shapes equal (TF's ``TensorListConcatV2``)."""
    rest = None if element_shape is None else tuple(element_shape)[1:]
    for i, item in enumerate(items):
        if item is None:
            continue
        if item.ndim == 0:
            raise invalid(f"Concat saw a scalar shape at index {i} but requires at least vectors.")
        rest = _merged(rest, item.shape[1:], "PartialTensorShape: ")
    if not len(items):
        if rest is None or None in rest:
            raise invalid(f"All except the first dimension must be fully defined when concating "
                          f"an empty tensor list. element_shape: {_shown(element_shape)}")
        return np.zeros((0, *rest), dtype)
    known = None if rest is None else (None, *rest)
    return np.concatenate(_filled(items, known if element_shape is None else element_shape,
                                  dtype, "concat"))


def _split(tensor, lengths):
    """Consecutive pieces of ``tensor`` along its first axis, ``lengths[i]`` rows each."""
    lengths = np.asarray(lengths)
    if lengths.ndim != 1:
        raise invalid(f"Expected lengths to be a vector, received shape: {tf_shape(lengths.shape)}")
    pieces, start = [], 0
    for n in lengths.tolist():
        if start + n > len(tensor):
            raise invalid(f"Attempting to slice [{start}, {start + n}] from tensor with length "
                          f"{len(tensor)}")
        pieces.append(np.array(tensor[start:start + n]))
        start += n
    if start != len(tensor):
        raise invalid(f"Unused values in tensor. Length of tensor: {len(tensor)} Values used: "
                      f"{start}")
    return ragged_list(pieces)


def _split_infer(tensor: Spec, lengths: Spec) -> Spec:
    if tensor.shape is not None and len(tensor.shape) < 1:
        raise ShapeError(f"TensorArray.split of a scalar: {fmt_shape(tensor.shape)}",
                         tf="Shape must be at least rank 1 but is rank 0")
    return Spec((None if lengths.shape is None or len(lengths.shape) != 1 else lengths.shape[0],),
                _LIST)


# --- gradients: a list's gradient is a list; an entry no gradient reached is 0 (what
# ``zeros_like`` of a list holds, and what ``AddN`` of lists adds to an array as nothing)

def _present(g) -> bool:
    return isinstance(g, (np.ndarray, np.generic))


def _clear_item(g, items, position):
    """The gradient of a write's input list: ``g`` without element ``position`` (the write
    replaced it) and as long as that list was (a write may have grown it)."""
    out = ragged_list(list(g[:items.shape[0]]) + [0] * (items.shape[0] - len(g)))
    if 0 <= int(position) < len(out):
        out[int(position)] = 0
    return out


def _item_grad(g, position, item):
    """The gradient of a written element: element ``position`` of ``g``, zeros where none."""
    got = g[int(position)] if int(position) < len(g) else 0
    return np.array(got, item.dtype) if _present(got) else np.zeros(item.shape, item.dtype)


def _put_item(g, items, position):
    """The gradient of a read's list: ``g`` at ``position``, nothing elsewhere."""
    out = ragged_list([0] * items.shape[0])
    if int(position) < len(out):
        out[int(position)] = np.array(g)
    return out


def _join_grads(g, tensor, lengths):
    """The gradient of a split's tensor: the pieces' gradients joined, zeros where none."""
    rest = tuple(tensor.shape[1:])
    return np.concatenate([np.asarray(p, tensor.dtype) if _present(p) else
                           np.zeros((int(n), *rest), tensor.dtype)
                           for p, n in zip(g, np.asarray(lengths).tolist())]
                          or [np.zeros((0, *rest), tensor.dtype)])


def _rows_grad(g, tensor):
    """The gradient of a dense buffer made a list: its rows' gradients stacked, zeros where
    none (the empty marker ``(0,)`` gets its zeros: nothing was written into it)."""
    if tuple(tensor.shape) == (0,):
        return np.zeros((0,), tensor.dtype)
    row = tuple(tensor.shape[1:])
    return np.stack([np.asarray(r, tensor.dtype) if _present(r) else np.zeros(row, tensor.dtype)
                     for r in g]).reshape(tensor.shape)


def _pieces_grad(g, items, element_shape=None, dtype=None):
    """The gradient of a concat's list: ``g`` cut into the elements' lengths."""
    lengths = [x.shape[0] for x in _filled(items, element_shape, dtype, "concat")]
    return ragged_list([piece.copy() for piece in np.split(np.asarray(g), np.cumsum(lengths)[:-1])]
                       if lengths else [])


_THREE = ragged_list([np.ones((1, 2)), None, np.full((2, 2), 3.0)])
_SCALARS = ragged_list([np.float64(1.0), np.float64(2.0)])

defop("RaggedListReserve", _reserve, lambda num_elements, dtype=None: Spec((None,), _LIST),
      inputs=("num_elements",), tf_type="TensorListReserve", sized_by_values=True,
      examples=(E((np.array(3),)),))
defop("RaggedListFromTensor", _from_tensor,
      lambda tensor, size=None, dtype=None: Spec(
          (size,) if tensor.shape == (0,) else (None if tensor.shape is None else tensor.shape[0],),
          _LIST),
      inputs=("tensor",), tf_type="TensorListFromTensor",
      examples=(E(((3, 2),)), E((np.zeros((0,)),), {"size": 2})),
      grads=(lambda F, g, tensor_shape: F.ragged_list_rows_grad(g, tensor_shape),))
defop("RaggedListSetItem", _set, lambda items, position, item, size=None: Spec(
          (size,) if size is not None else (None,), _LIST),
      inputs=("items", "position", "item"), tf_type="TensorListSetItem", sized_by_values=True,
      examples=(E((_THREE, np.array(1), (1,)), {}), E((_THREE, np.array(4), (3,)))),
      grads=(lambda F, g, items_shape, position: F.ragged_list_clear_item(g, items_shape, position),
             None,
             lambda F, g, position, item_shape: F.ragged_list_item_grad(g, position, item_shape)))
defop("RaggedListGetItem", _get,
      lambda items, position, element_shape=None, dtype=None, size=None: Spec(
          element_shape, np.dtype(dtype or np.float64)),
      inputs=("items", "position"), tf_type="TensorListGetItem",
      grads=(lambda F, g, items_shape, position: F.ragged_list_put_item(g, items_shape, position),
             None),
      examples=(E((_THREE, np.array(2)), {"element_shape": (2, 2)}),
                E((ragged_list([np.ones((1, 2)), None]), np.array(1)), {"element_shape": (1, 2)}),
                E((np.zeros((0,)), np.array(1)), {"element_shape": (2,), "size": 3})))
defop("RaggedListStack", _stack,
      lambda items, element_shape=None, dtype=None: Spec(
          None if element_shape is None else (items.shape[0], *element_shape),
          np.dtype(dtype or np.float64)),
      inputs=("items",), tf_type="TensorListStack",
      grads=(lambda F, g: F.ragged_list_from_tensor(g),),
      examples=(E((_SCALARS,), {"element_shape": ()}),))
defop("RaggedListConcat", _concat,
      lambda items, element_shape=None, dtype=None: Spec(
          None if element_shape is None else (None, *tuple(element_shape)[1:]),
          np.dtype(dtype or np.float64)),
      inputs=("items",), tf_type="TensorListConcatV2", sized_by_values=True,
      grads=(lambda F, g, items, element_shape, dtype:
             F.ragged_list_pieces_grad(g, items, element_shape=element_shape, dtype=dtype),),
      examples=(E((ragged_list([np.ones((1, 2)), np.full((2, 2), 3.0)]),),
                  {"element_shape": (None, 2)}),))
defop("RaggedListSplit", _split, _split_infer, inputs=("tensor", "lengths"),
      tf_type="TensorListSplit",
      grads=(lambda F, g, tensor_shape, lengths: F.ragged_list_join_grads(g, tensor_shape, lengths),
             None),
      examples=(E(((3, 2), np.array([2, 0, 1]))),))

_GRADS = ragged_list([np.ones((1, 2)), 0, np.full((2, 2), 3.0)])
defop("RaggedListClearItem", _clear_item, lambda g, items, position: Spec(items.shape, _LIST),
      inputs=("g", "items", "position"), shape_only=(1,), fname="ragged_list_clear_item",
      examples=(E((_GRADS, ragged_list([None, None]), np.array(0))),))
defop("RaggedListItemGrad", _item_grad, lambda g, position, item: Spec(item.shape, item.dtype),
      inputs=("g", "position", "item"), shape_only=(2,), fname="ragged_list_item_grad",
      examples=(E((_GRADS, np.array(1), (1, 2))), E((_GRADS, np.array(2), (2, 2)))))
defop("RaggedListPutItem", _put_item, lambda g, items, position: Spec(items.shape, _LIST),
      inputs=("g", "items", "position"), shape_only=(1,), fname="ragged_list_put_item",
      examples=(E((np.array(2.0), ragged_list([None, None, None]), np.array(1))),))
defop("RaggedListJoinGrads", _join_grads,
      lambda g, tensor, lengths: Spec(tensor.shape, tensor.dtype),
      inputs=("g", "tensor", "lengths"), shape_only=(1,), fname="ragged_list_join_grads",
      examples=(E((_GRADS, (5, 2), np.array([1, 2, 2]))),))
defop("RaggedListRowsGrad", _rows_grad, lambda g, tensor: Spec(tensor.shape, tensor.dtype),
      inputs=("g", "tensor"), shape_only=(1,), fname="ragged_list_rows_grad",
      examples=(E((ragged_list([np.ones(2), 0, np.ones(2)]), (3, 2))),
                E((ragged_list([0, 0]), np.zeros((0,)))),))
defop("RaggedListPiecesGrad", _pieces_grad,
      lambda g, items, element_shape=None, dtype=None: Spec(items.shape, _LIST),
      inputs=("g", "items"), fname="ragged_list_pieces_grad",
      examples=(E(((3, 2), ragged_list([np.ones((1, 2)), np.full((2, 2), 3.0)])),
                  {"element_shape": (None, 2)}),))

LIST_OPS = frozenset(name for name in ("RaggedListReserve", "RaggedListFromTensor",
                                       "RaggedListSetItem", "RaggedListSplit",
                                       "RaggedListClearItem", "RaggedListPutItem",
                                       "RaggedListPiecesGrad"))
"""The ops whose result is a list: a gradient flows into one (``differentiable``)."""

KERNELS = frozenset(name for name, op in REGISTRY.items() if op.impl.__module__ == __name__)
"""Every op of this module: their values are lists (object arrays of arrays), which the
generic per-op harnesses (placeholders fed an example, dyngraph tensors) cannot hold; they are
checked end to end through ``tf.TensorArray`` instead (tests/test_tf_tensor_array.py)."""
