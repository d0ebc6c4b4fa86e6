"""``SummaryWriter`` as in ``torch.utils.tensorboard``: scalars, histograms, the traced graph.

Events go through the ``tensorboard`` package's own ``EventFileWriter`` and
protos (the ``[tensorboard]`` extra), exactly as PyTorch's writer does, so
``tensorboard --logdir runs`` shows them::

    SummaryWriter("runs/exp")          runs/exp/events.out.tfevents.<time>.<host>.<pid>.0
      add_scalar("loss", v, step)      Summary(simple_value) at step
      add_scalars("run", {"a": v})     one writer per tag: runs/exp/run_a/events...
      add_histogram("w", t, step)      np.histogram over TF's bucket limits
      add_graph(model, x)              dyngraph.jit.trace(model, x) -> GraphDef

``add_graph`` records the model by tracing it (as PyTorch does with
``torch.jit.trace``): the graph written is the traced static graph, so a
Python branch shows only the path the example took.
"""
from __future__ import annotations

import os
import socket
import time
from datetime import datetime
from typing import Any

import numpy as np

from common import tensorboard as tb

from ... import jit

__all__ = ["SummaryWriter", "FileWriter"]


def _numpy(x: Any) -> np.ndarray:
    data = getattr(x, "_data", None)
    return np.asarray(x if data is None else data)


class FileWriter:
    """One events file in ``log_dir`` (PyTorch's ``torch.utils.tensorboard.writer.FileWriter``)."""

    def __init__(self, log_dir: str, max_queue: int = 10, flush_secs: float = 120,
                 filename_suffix: str = ""):
        self.event_writer = tb.event_file_writer(str(log_dir), max_queue, flush_secs, filename_suffix)

    def get_logdir(self) -> str:
        return self.event_writer.get_logdir()

    def add_event(self, event, step: int | None = None, walltime: float | None = None) -> None:
        event.wall_time = time.time() if walltime is None else walltime
        if step is not None:
            event.step = int(step)
        self.event_writer.add_event(event)

    def add_summary(self, summary, global_step: int | None = None,
                    walltime: float | None = None) -> None:
        self.add_event(tb.event(summary=summary), global_step, walltime)

    def add_graph(self, graph_profile, walltime: float | None = None) -> None:
        """``(GraphDef, RunMetadata)``: the graph event, then the run metadata tagged ``step1``."""
        graph, stepstats = graph_profile
        self.add_event(tb.event(graph_def=graph.SerializeToString()), None, walltime)
        trm = tb.require().event_pb2.TaggedRunMetadata(tag="step1",
                                                       run_metadata=stepstats.SerializeToString())
        self.add_event(tb.event(tagged_run_metadata=trm), None, walltime)

    def flush(self) -> None:
        self.event_writer.flush()

    def close(self) -> None:
        self.event_writer.close()


class SummaryWriter:
    """Writes scalars, histograms and graphs for TensorBoard (``torch.utils.tensorboard``).

    ``log_dir`` defaults to ``runs/<Mon>DD_HH-MM-SS_<hostname><comment>``.
    """

    def __init__(self, log_dir: str | None = None, comment: str = "", purge_step: int | None = None,
                 max_queue: int = 10, flush_secs: float = 120, filename_suffix: str = ""):
        if not log_dir:
            log_dir = os.path.join("runs", datetime.now().strftime("%b%d_%H-%M-%S") + "_"
                                   + socket.gethostname() + comment)
        self.log_dir = str(log_dir)
        self.purge_step = purge_step
        self.max_queue, self.flush_secs, self.filename_suffix = max_queue, flush_secs, filename_suffix
        self.file_writer = self.all_writers = None
        self._get_file_writer()
        self.default_bins = list(tb.DEFAULT_BUCKET_LIMITS[1:-1])   # PyTorch's: no +-DBL_MAX

    def _get_file_writer(self) -> FileWriter:
        """The default FileWriter (recreated after ``close``)."""
        if self.all_writers is None or self.file_writer is None:
            self.file_writer = FileWriter(self.log_dir, self.max_queue, self.flush_secs,
                                          self.filename_suffix)
            self.all_writers = {self.file_writer.get_logdir(): self.file_writer}
            if self.purge_step is not None:
                sl = tb.require().event_pb2.SessionLog
                self.file_writer.add_event(tb.event(step=self.purge_step, file_version="brain.Event:2"))
                self.file_writer.add_event(tb.event(step=self.purge_step,
                                                    session_log=sl(status=sl.START)))
                self.purge_step = None
        return self.file_writer

    def get_logdir(self) -> str:
        return self.log_dir

    def add_scalar(self, tag: str, scalar_value: Any, global_step: int | None = None,
                   walltime: float | None = None, new_style: bool = False,
                   double_precision: bool = False) -> None:
        """One point of the curve ``tag`` (a Python number or a one-element tensor)."""
        value = _numpy(scalar_value).squeeze()
        if value.ndim != 0:
            raise AssertionError(f"Tensor should contain one element (0 dimensions). Was given "
                                 f"size: {value.size} and {value.ndim} dimensions.")
        self._get_file_writer().add_summary(tb.scalar_summary(tag, value), global_step, walltime)

    def add_scalars(self, main_tag: str, tag_scalar_dict: dict, global_step: int | None = None,
                    walltime: float | None = None) -> None:
        """Several curves on one chart: each tag gets its own run ``<log_dir>/<main_tag>_<tag>``."""
        walltime = time.time() if walltime is None else walltime
        fw_logdir = self._get_file_writer().get_logdir()
        for tag, scalar_value in tag_scalar_dict.items():
            fw_tag = fw_logdir + "/" + main_tag.replace("/", "_") + "_" + tag
            fw = self.all_writers.get(fw_tag)
            if fw is None:
                fw = self.all_writers[fw_tag] = FileWriter(fw_tag, self.max_queue, self.flush_secs,
                                                           self.filename_suffix)
            fw.add_summary(tb.scalar_summary(main_tag, _numpy(scalar_value)), global_step, walltime)

    def add_histogram(self, tag: str, values: Any, global_step: int | None = None,
                      bins: Any = "tensorflow", walltime: float | None = None,
                      max_bins: int | None = None) -> None:
        """A histogram of ``values``; ``bins="tensorflow"`` uses TF's exponential bucket limits."""
        if isinstance(bins, str) and bins == "tensorflow":
            bins = self.default_bins
        self._get_file_writer().add_summary(
            tb.torch_histogram_summary(tag, _numpy(values), bins, max_bins), global_step, walltime)

    def add_text(self, tag: str, text_string: str, global_step: int | None = None,
                 walltime: float | None = None) -> None:
        self._get_file_writer().add_summary(tb.text_summary(tag, text_string), global_step, walltime)

    def add_graph(self, model: Any, input_to_model: Any = None, verbose: bool = False,
                  use_strict_trace: bool = True) -> None:
        """The model's graph, recorded by ``dyngraph.jit.trace(model, input_to_model)``.

        The traced graph is a staticgraph graph (the jit bridge), written as a
        TF ``GraphDef`` by ``staticgraph.interop.graph_def``.
        """
        from staticgraph.interop.graph_def import as_graph_def   # the jit bridge's graph, not the engine
        args = input_to_model if isinstance(input_to_model, tuple) else (
            tuple(input_to_model) if isinstance(input_to_model, list) else (input_to_model,))
        traced = jit.trace(model, args)
        graph_def = as_graph_def(traced.graph)
        if verbose:
            print(traced.graph)
        tb.require()
        from tensorboard.compat.proto import config_pb2, step_stats_pb2  # optional (tb.require)
        stats = config_pb2.RunMetadata(step_stats=step_stats_pb2.StepStats(
            dev_stats=[step_stats_pb2.DeviceStepStats(device="/device:CPU:0")]))
        self._get_file_writer().add_graph((graph_def, stats))

    def flush(self) -> None:
        for writer in (self.all_writers or {}).values():
            writer.flush()

    def close(self) -> None:
        if self.all_writers is None:
            return
        for writer in self.all_writers.values():
            writer.flush()
            writer.close()
        self.file_writer = self.all_writers = None

    def __enter__(self) -> "SummaryWriter":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
