"""Iterators: the graph nodes that run a Dataset inside a Session.

::

    make_initializable_iterator()   Iterator  --initializer-->  MakeIterator(dataset inputs...)
    make_one_shot_iterator()        OneShotIterator (initialized on its first get_next)
    it.get_next()                   IteratorGetNext:0, :1, ...  (one output per component)

The running Python iterator lives in the Session (``SessionState.resources``,
keyed by the iterator node), so two Sessions iterate independently and
re-running the initializer restarts the data.  The end of the data raises
``OutOfRangeError("End of sequence")`` as TF does.  ``MakeIterator`` and
``IteratorGetNext`` declare that they write/read the iterator, so the compiler
orders them like variable reads and writes.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..framework.errors import FailedPreconditionError, OutOfRangeError
from ..framework.error_text import at_node
from ..framework.graph import Operation, get_default_graph
from ..framework.kinds import Effects, defkind
from .structure import pack_as

if TYPE_CHECKING:                     # (only named in annotations: dataset.py imports this module)
    from .dataset import Dataset

__all__ = ["Iterator", "make_one_shot_iterator", "make_initializable_iterator", "get_next"]


class Iterator:
    """Yields a Dataset's elements, one ``get_next()`` run at a time."""

    def __init__(self, dataset: Dataset, one_shot: bool):
        graph = get_default_graph()
        self._dataset, self._one_shot = dataset, one_shot
        kind = "OneShotIterator" if one_shot else "Iterator"
        # the iterator node itself: a named handle (its state lives in each Session)
        self._resource = graph.create_op(kind, (), {"dataset": dataset}, [((), np.dtype(np.int64))],
                                         name=kind)
        self._key = self._resource.name
        if one_shot:
            self._initializer = None
        else:
            self._initializer = graph.create_op(
                "MakeIterator", tuple(dataset._inputs), {"dataset": dataset, "resource": self._key},
                [], name="MakeIterator")

    @property
    def initializer(self) -> Operation:
        if self._initializer is None:
            raise ValueError("Iterator does not have an initializer: a one-shot iterator "
                             "initializes itself on its first get_next().")
        return self._initializer

    @property
    def output_types(self):
        return self._dataset.output_types

    @property
    def output_shapes(self):
        return self._dataset.output_shapes

    @property
    def output_classes(self):
        return self._dataset.output_classes

    def get_next(self, name: str | None = None):
        """The next element: tensors in the dataset's structure (runs advance the iterator)."""
        ds = self._dataset
        inputs = tuple(ds._inputs) if self._one_shot else ()
        op = get_default_graph().create_op(
            "IteratorGetNext", inputs,
            {"dataset": ds, "resource": self._key, "one_shot": self._one_shot},
            [(s, d) for s, d in ds._specs], name=name or "IteratorGetNext")
        return pack_as(ds._structure, list(op.outputs))


def _key(op: Operation):
    return (op.graph, "iterator:" + op.attrs["resource"])


def _effects(op: Operation) -> Effects:
    name = frozenset({"iterator:" + op.attrs["resource"]})
    return Effects(name, name)


def _lower_make(op: Operation, ctx):
    store, key, dataset = ctx.state.resources, _key(op), op.attrs["dataset"]

    def make(*values):
        store[key] = iter(dataset._make(list(values), {}))
    return make


def _lower_get_next(op: Operation, ctx):
    store, key, dataset = ctx.state.resources, _key(op), op.attrs["dataset"]
    one_shot, single = op.attrs["one_shot"], len(op.outputs) == 1
    end = at_node("End of sequence", op.name)
    uninit = at_node("GetNext() failed because the iterator has not been initialized. Ensure that "
                     "you have run the initializer operation for this iterator before getting the "
                     "next element.", op.name)

    def get_next(*values):
        it = store.get(key)
        if it is None:
            if not one_shot:
                raise FailedPreconditionError(None, op, uninit)
            it = store[key] = iter(dataset._make(list(values), {}))
        try:
            element = next(it)
        except StopIteration:
            raise OutOfRangeError(None, op, end) from None
        return element[0] if single else element
    return get_next


defkind("OneShotIterator", lambda op, ctx: None, stateful=True, attrs=("dataset",))
defkind("Iterator", lambda op, ctx: None, stateful=True, attrs=("dataset",))
defkind("MakeIterator", _lower_make, effects=_effects, attrs=("dataset", "resource"))
defkind("IteratorGetNext", _lower_get_next, effects=_effects, attrs=("dataset", "resource", "one_shot"))


def make_one_shot_iterator(dataset: Dataset) -> Iterator:
    return dataset.make_one_shot_iterator()


def make_initializable_iterator(dataset: Dataset, shared_name=None) -> Iterator:
    return dataset.make_initializable_iterator()


def get_next(iterator: Iterator, name: str | None = None):
    return iterator.get_next(name)


