"""``tf.TensorArray``: a list of same-shaped tensors written and read by index, in loops too.

Here a TensorArray is *functional*: its storage is one buffer tensor ``[size, *element]``,
and ``write`` returns a new TensorArray whose buffer is a ``TensorListSetItem`` node (a
fresh array with one row replaced).  So inside ``while_loop`` it is an ordinary loop
variable -- the loop carries the buffer and hands the body a TensorArray again -- and its
gradient is the registry's (a write sends row ``i`` of the gradient to the written value,
a read scatters back into row ``i``)::

    ta = tf.TensorArray(tf.float32, size=T)              # nothing written: an empty buffer
    def body(t, h, ta):
        h = tf.tanh(tf.matmul(h, w) + xs_ta.read(t))
        return t + 1, h, ta.write(t, h)                  # buffer -> TensorListSetItem(buffer, t, h)
    _, h, ta = tf.while_loop(lambda t, *_: t < T, body, [0, h0, ta])
    outputs = ta.stack()                                 # [T, batch, units]

The element shape is learned from the first write (or ``element_shape=``).  Until then the
buffer is the empty marker ``zeros([0])``, which the first write replaces by zeros of
``[size, *element]``.

>>> import staticgraph as tf
>>> ta = tf.TensorArray(tf.float32, size=2).write(0, [1.0, 2.0]).write(1, [3.0, 4.0])
>>> ta.stack().shape.as_list()
[2, 2]
"""
from __future__ import annotations

from typing import Any

import numpy as np

from common import REGISTRY
from common.indexing import ARRAY

from ..framework import dtypes as _dtypes
from ..framework.build import apply, constant, convert_to_tensor
from ..framework.graph import Tensor, get_default_graph, name_scope
from ..framework.shape import TensorShape, as_shape_tuple
from .array_ops import constant_value, gather, shape
from .core_ops import cast, gather_index, identity, reshape
from ..framework.sources import no_op

__all__ = ["TensorArray"]


class TensorArray:
    """TF's TensorArray (see the module docstring); every method returns a new value."""

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None,
                 tensor_array_name=None, handle=None, flow=None, infer_shape=True,
                 element_shape=None, colocate_with_first_write_call=True, name=None):
        self._dtype = _dtypes.as_dtype(dtype)
        self._dynamic = bool(dynamic_size)
        self._size = _static_int(size)
        if self._size is None and not self._dynamic:
            raise ValueError("TensorArray needs a size known when the graph is built, or "
                             "dynamic_size=True")
        self._element = None if element_shape is None else as_shape_tuple(element_shape)
        self._buf: Tensor | None = flow
        self._graph = get_default_graph()   # where its buffer is made, on first use
        self._infer = bool(infer_shape)
        self._declared = self._element      # what infer_shape=False still checks writes against
        self._ragged = False                # a list of elements of different shapes (see below)

    @classmethod
    def _with(cls, like: "TensorArray", buf: Tensor | None, element=None, size=None) -> "TensorArray":
        ta = cls.__new__(cls)
        ta._dtype, ta._dynamic = like._dtype, like._dynamic
        ta._size = like._size if size is None else size
        ta._element = like._element if element is None else element
        ta._buf, ta._graph = buf, like._graph
        ta._infer, ta._declared, ta._ragged = like._infer, like._declared, like._ragged
        return ta

    def _as_ragged(self, items: Tensor, element=None, size=None) -> "TensorArray":
        """A TensorArray holding ``items``, a list of elements that may differ in shape: TF's
        ``infer_shape=False`` arrays written with different shapes, and ``split``'s pieces.
        Its ops are ``common/ops/tensor_list.py``'s (no gradients flow through them yet)."""
        ta = TensorArray._with(self, items, size=size)
        ta._ragged, ta._element = True, element
        return ta

    def _ragged_buffer(self) -> Tensor:
        """This array's elements as a list: its dense buffer's rows (an unwritten buffer:
        ``size`` unwritten elements)."""
        if self._ragged:
            return self._buffer()
        return apply(REGISTRY["RaggedListFromTensor"], (self._buffer(),),
                     {"size": self._size, "dtype": self._dtype._np}, name="TensorListFromTensor")


    # --- facts --------------------------------------------------------------------------
    @property
    def dtype(self) -> _dtypes.DType:
        return self._dtype

    @property
    def element_shape(self) -> TensorShape:
        return TensorShape(self._element)

    @property
    def flow(self) -> Tensor:
        return self._as_graph_element()

    def size(self, name=None) -> Tensor:
        if self._size is not None and not self._dynamic:
            return constant(np.int32(self._size), name=name or "TensorArraySize")
        return gather_index(shape(self._buffer()), 0, name=name or "TensorArraySize")

    def _buffer(self) -> Tensor:
        """The storage tensor; before any write, zeros (element shape known) or the empty marker."""
        if self._buf is None and get_default_graph() is not self._graph:
            with self._graph.as_default():   # first used in a cond branch: made where it was
                return self._buffer()        # created, so the other branch may use it too
        if self._buf is None:
            if self._element is not None and None not in self._element and self._size is not None:
                self._buf = constant(self._zeros((self._size, *self._element)), self._dtype,
                                     name="TensorArray")
            else:
                self._buf = constant(self._zeros((0,)), self._dtype, name="TensorArray")
        return self._buf

    def _unwritten(self) -> bool:
        """Nothing written yet: no buffer, or the empty marker ``(0,)`` (an element shape known
        in full makes zeros instead, which read as TF's unwritten elements do)."""
        return not self._ragged and (self._buf is None or self._buf._shape == (0,))

    def _zeros(self, shape: tuple) -> np.ndarray:
        """What an unwritten element reads as: zeros, or empty strings (TF's zero of a string)."""
        if self._dtype == _dtypes.string:
            return np.full(shape, b"", dtype=object)
        return np.zeros(shape, self._dtype._np)

    def _as_graph_element(self) -> Tensor:
        """The buffer a loop or a cond carries.  An unwritten ``infer_shape=False`` array of an
        unknown element shape is carried as a list, so the body may write any shapes."""
        if self._buf is None and not self._infer and (self._element is None or None in self._element):
            with self._graph.as_default():
                size = constant(np.int32(self._size or 0), name="num_elements")
                self._buf = apply(REGISTRY["RaggedListReserve"], (size,), {"dtype": self._dtype._np},
                                  name="TensorListReserve")
            self._ragged = True
        return self._buffer()

    # --- loop variable protocol (while_loop carries the buffer) ---------------------------
    @property
    def _loop_shape(self) -> tuple | None:
        """The buffer's shape invariant in a loop: unknown until the element shape is."""
        if self._ragged:
            return (None,)
        if self._element is None or self._buffer()._shape != self._full_shape():
            return None
        return self._full_shape()

    def _full_shape(self) -> tuple | None:
        if self._element is None:
            return None
        return (None if self._dynamic else self._size, *self._element)

    def _loop_rewrap(self, buf: Tensor) -> "TensorArray":
        return TensorArray._with(self, buf)

    # --- writing and reading ---------------------------------------------------------------
    def write(self, index, value, name=None) -> "TensorArray":
        """A TensorArray with ``value`` at ``index`` (the element shape must not change)."""
        value = convert_to_tensor(value, dtype=self._dtype)
        if value.dtype != self._dtype:   # TF builds it (logging an error) and the run fails
            raise TypeError(f"Invalid data types; op elements {value.dtype.tf_name} but list "
                            f"elements {self._dtype.tf_name}: TensorArray.write of {value}")
        element = value._shape
        position = convert_to_tensor(index)
        if position.dtype != _dtypes.int32 and position.dtype.is_integer:
            position = cast(position, _dtypes.int32)
        if not self._infer:
            if self._declared is not None and element is not None and \
                    not TensorShape(self._declared).is_compatible_with(element):
                raise ValueError(f"Inconsistent shapes: saw {TensorShape(element)} but expected "
                                 f"{TensorShape(self._declared)}")
            if self._ragged or element is None or None in element or (
                    not self._unwritten() and self._element != element):
                # elements of different shapes: the array becomes a list of them
                items = apply(REGISTRY["RaggedListSetItem"], (self._ragged_buffer(), position, value),
                              {"size": None if self._dynamic else self._size},
                              name=name or "TensorArrayWrite")
                return self._as_ragged(items, self._declared)
        if self._element is not None and element is not None and \
                not TensorShape(self._element).is_compatible_with(element):
            raise ValueError(f"Inconsistent shapes: saw {TensorShape(element)} but expected "
                             f"{TensorShape(self._element)} (and infer_shape=True)")
        if element is None:
            element = self._element
        elif self._element is not None:
            element = TensorShape(self._element).merge_with(element).dims_tuple
        buf = apply(REGISTRY["TensorListSetItem"], (self._buffer(), position, value),
                    {"size": None if self._dynamic else self._size}, name=name or "TensorArrayWrite")
        return TensorArray._with(self, buf, element)

    def read(self, index, name=None) -> Tensor:
        """The element at ``index``."""
        if self._ragged or self._unwritten():   # a list, or nothing written: TF's checks
            out = apply(REGISTRY["RaggedListGetItem"], (self._buffer(), convert_to_tensor(index)),
                        {"element_shape": self._element, "dtype": self._dtype._np,
                         "size": None if self._dynamic else self._size},
                        name=name or "TensorArrayRead")
            return out
        out = apply(REGISTRY["GetItem"], (self._buffer(), convert_to_tensor(index)), {"key": (ARRAY,)},
                    name=name or "TensorArrayRead")
        if self._element is not None:
            out.set_shape(self._element)
        return out

    def stack(self, name=None) -> Tensor:
        """All elements stacked: ``[size, *element]`` (named as TF 2 names it:
        ``TensorArrayV2Stack/TensorListStack:0``)."""
        full = self._full_shape()
        buf = self._buffer()
        with name_scope(name or "TensorArrayV2Stack"):
            if self._ragged:
                return apply(REGISTRY["RaggedListStack"], (buf,),
                             {"element_shape": self._element, "dtype": self._dtype._np},
                             name="TensorListStack")
            if full is None or None in full[1:]:   # nothing written: TF's run-time refusal
                return apply(REGISTRY["TensorListStack"], (buf,),
                             {"element_shape": self._element,
                              "size": None if self._dynamic else self._size},
                             name="TensorListStack")
            if buf._shape != full:
                # nothing written to it (a loop of 0 steps) it is the empty marker [0]: TF's
                # stack of it is [0, *element]
                buf = reshape(buf, [-1, *full[1:]])
            out = identity(buf, name="TensorListStack")
        if full is not None and (out._shape is None or len(out._shape) == len(full)):
            out.set_shape(full)
        return out

    def gather(self, indices, name=None) -> Tensor:
        if self._ragged:
            return gather(self.stack(), indices, name=name or "TensorArrayGather")
        return gather(self._buffer(), indices, name=name or "TensorArrayGather")

    def concat(self, name=None) -> Tensor:
        """The elements joined along their first axis."""
        if self._ragged or (not self._infer and self._unwritten()):
            return apply(REGISTRY["RaggedListConcat"], (self._ragged_buffer(),),
                         {"element_shape": self._element, "dtype": self._dtype._np},
                         name=name or "TensorListConcatV2")
        if self._element is None or None in self._element[1:]:
            raise ValueError("TensorArray.concat needs a known element shape")
        return reshape(self._buffer(), [-1, *self._element[1:]], name=name or "TensorArrayConcat")

    def unstack(self, value, name=None) -> "TensorArray":
        """A TensorArray holding the rows of ``value``."""
        value = convert_to_tensor(value, dtype=self._dtype)
        if value.ndim is not None and value.ndim < 1:
            raise ValueError(f"Shape must be at least rank 1 but is rank {value.ndim}")
        size = value._shape[0] if value._shape is not None else None   # an unknown rank: TF builds
        if self._size is not None and size is not None and size != self._size and not self._dynamic:
            raise ValueError(f"Cannot unstack {size} elements into a TensorArray of size {self._size}")
        element = value._shape[1:] if value._shape is not None else None
        ta = TensorArray._with(self, value, element, size if size is not None else self._size)
        ta._ragged = False
        return ta

    def split(self, value, lengths, name=None) -> "TensorArray":
        """The pieces of ``value`` along its first axis, ``lengths[i]`` rows in element ``i``.
        Equal lengths known when the graph is built keep the dense buffer (a reshape, with
        gradients); other lengths make a list of the pieces (TF's ``TensorListSplit``)."""
        with name_scope(name or "TensorArraySplit"):
            value = convert_to_tensor(value, dtype=self._dtype)
            lengths = convert_to_tensor(lengths)
            known, rows = constant_value(lengths), value._shape
            if known is not None and np.ndim(known) == 1 and len(known) and \
                    len(set(np.asarray(known).tolist())) == 1 and rows is not None and \
                    len(rows) >= 1 and None not in rows and rows[0] == len(known) * int(known[0]):
                n, piece = len(known), int(known[0])
                ta = TensorArray._with(self, reshape(value, [n, piece, *rows[1:]]),
                                       (piece, *rows[1:]), n)
                ta._ragged = False
                return ta
            if lengths.dtype != _dtypes.int64:
                lengths = cast(lengths, _dtypes.int64)
            items = apply(REGISTRY["RaggedListSplit"], (value, lengths), {}, name="TensorListSplit")
            size = len(known) if known is not None and np.ndim(known) == 1 else self._size
            return self._as_ragged(items, None, size)

    def scatter(self, indices, value, name=None) -> "TensorArray":
        """Rows of ``value`` written at ``indices`` (known when the graph is built)."""
        idx = constant_value(indices)
        if idx is None:
            raise ValueError("TensorArray.scatter needs indices known when the graph is built")
        ta = self
        value = convert_to_tensor(value, dtype=self._dtype)
        for k, i in enumerate(np.asarray(idx).reshape(-1)):
            ta = ta.write(int(i), gather_index(value, k))
        return ta

    def close(self, name=None):
        return no_op(name=name or "TensorArrayClose")

    def __repr__(self) -> str:
        return f"<tf.TensorArray dtype={self._dtype.name} size={self._size} element_shape={self.element_shape}>"


def _static_int(size: Any) -> int | None:
    if size is None:
        return None
    if isinstance(size, Tensor):
        v = constant_value(size)
        return None if v is None else int(v)
    return int(size)
