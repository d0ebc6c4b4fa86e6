"""TensorBoard's file format, shared by both engines' summary writers.

Both engines write *real* event files with the ``tensorboard`` package's own
writer and protocol buffers (the optional ``[tensorboard]`` extra), so the real
TensorBoard loads them and its reader (``EventAccumulator``) reads them back::

    engine value --> Summary proto (scalar / histogram / text) --> Event --> EventFileWriter
                                                                            (events.out.tfevents.*)

What differs between the frameworks lives here side by side, each matching
its original: TF's histogram op buckets values into its fixed exponential
buckets and collapses runs of empty ones (``histogram.cc``); PyTorch's
``add_histogram`` runs ``np.histogram`` over the same limits and trims empty
buckets at both ends.

>>> summary = scalar_summary("loss", 0.5)      # doctest: +SKIP
>>> summary.value[0].simple_value              # doctest: +SKIP
0.5
"""
from __future__ import annotations

import importlib
import sys
from typing import Any

import numpy as np

__all__ = ["require", "event_file_writer", "event", "scalar_summary", "tf_histogram_summary",
           "torch_histogram_summary", "text_summary", "tensor_shape_proto", "data_type",
           "tensor_proto", "DEFAULT_BUCKET_LIMITS"]

INSTALL = "pip install 'dyngraph-staticgraph[tensorboard]'"


def require(what: str = "TensorBoard summaries") -> Any:
    """The ``tensorboard.compat.proto`` modules as one namespace; a clear ImportError without them."""
    try:
        protos = importlib.import_module("tensorboard.compat.proto")
        for name in ("summary_pb2", "event_pb2", "graph_pb2", "node_def_pb2", "attr_value_pb2",
                     "tensor_pb2", "tensor_shape_pb2", "types_pb2", "versions_pb2"):
            importlib.import_module(f"tensorboard.compat.proto.{name}")
    except ImportError as e:
        raise ImportError(f"{what} need the `tensorboard` package ({e}); install it with: "
                          f"{INSTALL}") from None
    return protos


def event_file_writer(logdir: str, max_queue: int = 10, flush_secs: float = 120,
                      filename_suffix: str = ""):
    """TensorBoard's own ``EventFileWriter`` (creates ``logdir`` and the events file now)."""
    require()
    from tensorboard.summary.writer.event_file_writer import EventFileWriter  # optional (require)
    return EventFileWriter(str(logdir), max_queue, flush_secs, filename_suffix or "")


def event(**fields: Any):
    """An ``Event`` proto (``wall_time`` is set by the writers when they add it)."""
    return require().event_pb2.Event(**fields)


# --- dtypes and shapes -------------------------------------------------------------------

_DT = {"float16": "DT_HALF", "float32": "DT_FLOAT", "float64": "DT_DOUBLE", "int8": "DT_INT8",
       "int16": "DT_INT16", "int32": "DT_INT32", "int64": "DT_INT64", "uint8": "DT_UINT8",
       "uint16": "DT_UINT16", "bool": "DT_BOOL", "object": "DT_STRING"}


def data_type(dtype: Any) -> int:
    """TF's ``DataType`` enum value for a numpy dtype (``object`` is ``DT_STRING``)."""
    return require().types_pb2.DataType.Value(_DT.get(np.dtype(dtype).name, "DT_INVALID"))


def tensor_shape_proto(shape: tuple | None):
    """A ``TensorShapeProto``: ``None`` dims are ``-1``, an unknown rank is ``unknown_rank``."""
    ts = require().tensor_shape_pb2.TensorShapeProto
    if shape is None:
        return ts(unknown_rank=True)
    return ts(dim=[ts.Dim(size=-1 if d is None else int(d)) for d in shape])


def tensor_proto(value: Any):
    """A ``TensorProto`` holding ``value`` (numbers, bools or strings)."""
    require()
    from tensorboard.util import tensor_util  # optional (require)
    a = np.asarray(value)
    if a.dtype.kind in "OUS":
        a = np.vectorize(lambda s: s if isinstance(s, bytes) else str(s).encode(), otypes=[object])(a)
    return tensor_util.make_tensor_proto(a)


# --- summaries -----------------------------------------------------------------------------

def _summary(**value: Any):
    s = require().summary_pb2
    return s.Summary(value=[s.Summary.Value(**value)])


def scalar_summary(tag: str, value: Any):
    """A ``Summary`` with one ``simple_value`` (what TF1's ScalarSummary and PyTorch write)."""
    return _summary(tag=tag, simple_value=float(np.asarray(value).reshape(())))


def text_summary(tag: str, text: Any):
    """A ``Summary`` for TensorBoard's text plugin (TF1's ``tf.summary.text``)."""
    s = require().summary_pb2
    meta = s.SummaryMetadata(plugin_data=s.SummaryMetadata.PluginData(plugin_name="text"))
    return _summary(tag=tag, metadata=meta, tensor=tensor_proto(text))


def _default_limits() -> np.ndarray:
    """TF's bucket limits: +-1e-12 growing by 10% up to 1e20, 0 in the middle, +-DBL_MAX last."""
    pos, v = [], 1.0e-12
    while v < 1.0e20:
        pos.append(v)
        v *= 1.1
    pos.append(sys.float_info.max)
    return np.array([-p for p in reversed(pos)] + [0.0] + pos)


DEFAULT_BUCKET_LIMITS = _default_limits()


def _histogram_proto(values: np.ndarray, limits, counts):
    s = require().summary_pb2
    return s.HistogramProto(min=float(values.min()), max=float(values.max()), num=float(values.size),
                            sum=float(values.sum()), sum_squares=float(values.dot(values)),
                            bucket_limit=[float(x) for x in limits],
                            bucket=[float(c) for c in counts])


def tf_histogram_summary(tag: str, values: Any):
    """TF's ``HistogramSummary``: fixed exponential buckets, runs of empty buckets collapsed.

    A value ``v`` falls in the first bucket whose limit is greater than ``v``
    (``histogram.cc``); an empty input gives an empty histogram.
    """
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    if v.size == 0:
        s = require().summary_pb2
        return _summary(tag=tag, histo=s.HistogramProto())
    counts = np.bincount(np.searchsorted(DEFAULT_BUCKET_LIMITS, v, side="right"),
                         minlength=len(DEFAULT_BUCKET_LIMITS))[:len(DEFAULT_BUCKET_LIMITS)]
    limits, kept, i = [], [], 0
    while i < len(counts):
        end, count = DEFAULT_BUCKET_LIMITS[i], counts[i]
        i += 1
        if count <= 0:                       # a run of empty buckets becomes one
            while i < len(counts) and counts[i] <= 0:
                end, count = DEFAULT_BUCKET_LIMITS[i], counts[i]
                i += 1
        limits.append(end)
        kept.append(count)
    return _summary(tag=tag, histo=_histogram_proto(v, limits, kept))


def torch_histogram_summary(tag: str, values: Any, bins: Any, max_bins: int | None = None):
    """PyTorch's ``add_histogram``: ``np.histogram`` on ``bins``, empty ends trimmed.

    TensorBoard stores right bucket edges only, so one empty bucket is kept on
    the left to carry the leftmost edge (as ``torch.utils.tensorboard.summary``).
    Sums are taken in the values' own dtype, as PyTorch's are (TF's in double).
    """
    v = np.asarray(values).reshape(-1)
    if v.size == 0:
        raise ValueError("The input has no element.")
    counts, limits = np.histogram(v, bins=bins)
    if max_bins is not None and len(counts) > max_bins:
        step = len(counts) // max_bins
        if len(counts) % step:
            counts = np.pad(counts, (0, step - len(counts) % step))
        counts = counts.reshape(-1, step).sum(axis=-1)
        limits = np.concatenate([limits[:-1:step], limits[-1:]])
    cum = np.cumsum(np.greater(counts, 0))
    start, end = (int(i) for i in np.searchsorted(cum, [0, cum[-1] - 1], side="right"))
    end += 1
    counts = counts[start - 1:end] if start > 0 else np.concatenate([[0], counts[:end]])
    return _summary(tag=tag, histo=_histogram_proto(v, limits[start:end + 1], counts))
