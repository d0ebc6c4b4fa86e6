"""``tf.summary`` (TF 1.x): summary ops in the graph, ``FileWriter`` writing TensorBoard event files.

As in TF1, a summary is a graph node whose value -- computed when a Session
runs it -- is a serialized ``Summary`` protocol buffer (``bytes``)::

    loss = ...                                   sess.run(merged, feed) -> b"\\n\\x0b\\n\\x04loss..."
    tf.summary.scalar("loss", loss)  # ScalarSummary "loss", in the "summaries" collection
    merged = tf.summary.merge_all()  # MergeSummary "Merge/MergeSummary"
    writer = tf.summary.FileWriter(logdir, graph=sess.graph)
    writer.add_summary(sess.run(merged, feed), global_step=step)

The protos and the event-file writer are the ``tensorboard`` package's own
(the optional ``[tensorboard]`` extra), so the real TensorBoard reads the files.
"""
from __future__ import annotations

import time
from typing import Any

import numpy as np

from common import tensorboard as tb

from ..framework.build import convert_to_tensor
from ..framework.errors import InvalidArgumentError
from ..framework.error_text import at_node, tf_shape
from ..framework.graph import Graph, Operation, Tensor, get_default_graph
from ..framework.kinds import defkind
from ..interop.graph_def import as_graph_def

__all__ = ["scalar", "histogram", "text", "merge", "merge_all", "FileWriter", "SUMMARIES"]

SUMMARIES = "summaries"  # tf.GraphKeys.SUMMARIES


def _string_const(graph: Graph, value: str, name: str) -> Tensor:
    """A scalar string Const (a summary's tag), as TF writes ``loss/tags``."""
    op = graph.create_op("Const", (), {"value": np.array(value, dtype=object), "dtype": np.dtype(object)},
                         [((), np.object_)], name=name)
    return op.outputs[0]


def _summary_op(kind: str, name: str, inputs: tuple[str, str], tensor: Any, collections,
                family: str | None = None) -> Tensor:
    """``<name>/<tag input>`` Const + the ``kind`` node named ``name`` (under the current scope).

    ``inputs``: TF's names for the op's two inputs (a Python value becomes ``<name>/<second>``).
    A ``family`` prefixes the scope and, once more, the tag (TF 1: ``fam/fam/loss``).
    """
    tb.require("tf.summary ops")
    graph = get_default_graph()
    with graph.name_scope(name if family is None else f"{family}/{name}") as scope:
        tag = scope[:-1] if family is None else f"{family}/{scope[:-1]}"
        tags = _string_const(graph, tag, inputs[0])
        value = tensor if isinstance(tensor, Tensor) else convert_to_tensor(tensor, name=inputs[1])
        op = graph.create_op(kind, (tags, value), {}, [((), np.object_)], name=scope[:-1],
                             exact_name=True)
    for c in (SUMMARIES,) if collections is None else collections:
        graph.add_to_collection(c, op.outputs[0])
    return op.outputs[0]


def scalar(name: str, tensor: Any, collections=None, family=None) -> Tensor:
    """A ``ScalarSummary``: the scalar ``tensor``'s value under tag ``name`` (scoped like an op).

    As in TF, a non-scalar ``tensor`` is an error when the summary runs.
    """
    return _summary_op("ScalarSummary", name, ("tags", "values"), tensor, collections, family)


def histogram(name: str, values: Any, collections=None, family=None) -> Tensor:
    """A ``HistogramSummary`` of ``values`` (TF's exponential buckets; NaN/Inf are an error)."""
    return _summary_op("HistogramSummary", name, ("tag", "values"), values, collections, family)


def text(name: str, tensor: Any, collections=None) -> Tensor:
    """A ``TensorSummaryV2`` for TensorBoard's text dashboard (``tensor`` holds strings)."""
    if isinstance(tensor, (str, bytes)):
        graph = get_default_graph()
        tensor = _string_const(graph, tensor if isinstance(tensor, str) else tensor.decode(),
                               "Const")
    return _summary_op("TensorSummaryV2", name, ("tag", "tensor"), tensor, collections)


def merge(inputs, collections=None, name: str | None = None) -> Tensor:
    """One ``MergeSummary`` whose value holds every input summary's values, in order."""
    graph = get_default_graph()
    inputs = [convert_to_tensor(i) for i in inputs]
    with graph.name_scope(name or "Merge"):
        op = graph.create_op("MergeSummary", inputs, {}, [((), np.object_)],
                             name=name or "MergeSummary")
    for c in collections or ():
        graph.add_to_collection(c, op.outputs[0])
    return op.outputs[0]


def merge_all(key: str = SUMMARIES, scope: str | None = None, name: str | None = None) -> Tensor | None:
    """``merge`` of every summary in collection ``key`` (None when there are none, as TF)."""
    ops = get_default_graph().get_collection(key)
    if scope:
        ops = [t for t in ops if t.op.name.startswith(scope)]
    return merge(ops, name=name) if ops else None


# --- run time: each kernel returns the serialized Summary ---------------------------------

def _tag(t) -> str:
    return t.item() if isinstance(t, np.ndarray) else t


def _value(summary) -> np.ndarray:
    """A 0-d string tensor holding the serialized ``summary`` (a fetch returns the bytes)."""
    out = np.empty((), dtype=object)
    out[()] = summary.SerializeToString()
    return out


def _lower_scalar(op: Operation, ctx) -> Any:
    def kernel(tag, value):
        if np.ndim(value) != 0:
            raise InvalidArgumentError(
                None, op, at_node(f"tags and values are not the same shape: [] != "
                                  f"{tf_shape(np.shape(value))} (tag '{_tag(tag)}')", op.name))
        return _value(tb.scalar_summary(_tag(tag), value))
    return kernel


def _lower_histogram(op: Operation, ctx) -> Any:
    def kernel(tag, values):
        tag = _tag(tag)
        if not np.all(np.isfinite(values)):
            what = ("Nan in summary histogram for" if np.any(np.isnan(values))
                    else "Infinity in Histogram for")
            raise InvalidArgumentError(None, op, at_node(f"{what}: {tag}", op.name))
        return _value(tb.tf_histogram_summary(tag, values))
    return kernel


def _lower_text(op: Operation, ctx) -> Any:
    def kernel(tag, value):
        return _value(tb.text_summary(_tag(tag), value))
    return kernel


def _lower_merge(op: Operation, ctx) -> Any:
    def kernel(*serialized):
        pb = tb.require().summary_pb2
        merged = pb.Summary()
        for s in serialized:
            merged.MergeFromString(_tag(s))
        return _value(merged)
    return kernel


defkind("ScalarSummary", _lower_scalar)
defkind("HistogramSummary", _lower_histogram)
defkind("TensorSummaryV2", _lower_text)
defkind("MergeSummary", _lower_merge)


# --- FileWriter --------------------------------------------------------------------------------

class FileWriter:
    """TF1's ``tf.summary.FileWriter``: events (graph, summaries) in ``logdir``'s event file.

    >>> writer = FileWriter("/tmp/logs", graph=sess.graph)        # doctest: +SKIP
    >>> writer.add_summary(sess.run(merged), global_step=0); writer.close()  # doctest: +SKIP
    """

    def __init__(self, logdir: str, graph: Graph | None = None, max_queue: int = 10,
                 flush_secs: float = 120, graph_def=None, filename_suffix: str | None = None,
                 session=None):
        self._args = (str(logdir), max_queue, flush_secs, filename_suffix or "")
        self._writer = tb.event_file_writer(*self._args)
        self._closed = False
        if graph is not None or graph_def is not None:
            self.add_graph(graph, graph_def=graph_def)

    def get_logdir(self) -> str:
        return self._args[0]

    def add_event(self, event) -> None:
        """Write an ``Event`` proto (its ``wall_time`` is set now if unset)."""
        if not event.wall_time:
            event.wall_time = time.time()
        self._writer.add_event(event)

    def add_summary(self, summary: Any, global_step: int | None = None) -> None:
        """``summary``: a serialized ``Summary`` (a summary op's value) or a ``Summary`` proto."""
        pb = tb.require().summary_pb2
        if isinstance(summary, (bytes, bytearray)):
            summary = pb.Summary.FromString(bytes(summary))
        elif isinstance(summary, np.ndarray) and summary.dtype.kind == "O":
            summary = pb.Summary.FromString(summary.item())
        elif not isinstance(summary, pb.Summary):
            raise TypeError(f"add_summary expects a serialized Summary (bytes) or a Summary proto, "
                            f"got {type(summary).__name__}")
        ev = tb.event(summary=summary)
        if global_step is not None:
            ev.step = int(global_step)
        self.add_event(ev)

    def add_graph(self, graph: Graph | None, global_step: int | None = None, graph_def=None) -> None:
        """Write ``graph`` (or a ready ``graph_def`` proto) for TensorBoard's graph dashboard."""
        if graph is not None and graph_def is not None:
            raise ValueError("Please pass only graph, or graph_def (deprecated), but not both.")
        if graph is not None:
            graph_def = as_graph_def(graph)
        ev = tb.event(graph_def=graph_def.SerializeToString())
        if global_step is not None:
            ev.step = int(global_step)
        self.add_event(ev)

    def flush(self) -> None:
        self._writer.flush()

    def close(self) -> None:
        self._writer.close()
        self._closed = True

    def reopen(self) -> None:
        """After ``close``: continue in a new events file in the same directory."""
        if self._closed:
            self._writer = tb.event_file_writer(*self._args)
            self._closed = False

    def __enter__(self) -> "FileWriter":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
