"""``train.Saver``: variable values to a checkpoint and back; the graph itself as a meta file.

::

    saver.save(sess, "run/model")        run/model.data-00000-of-00001  .npz: one array per variable
                                         run/model.index  names, shapes, dtypes (JSON), written last
                                         run/model.meta   the graph as JSON (serialize.to_json)
                                         (TF's file names, so ``os.path.exists(p + ".index")`` and
                                         globbing for ``*.index`` work as with TF)
    --- a fresh process ---
    saver = tf.train.import_meta_graph("run/model.meta")   # rebuilds the graph (default graph)
    saver.restore(sess, "run/model")                       # checks everything, then assigns

Both files are written atomically (:mod:`common.checkpoint`), so a crash
mid-save leaves the previous checkpoint whole, and everything that can fail
(uninitialized variables, a graph that cannot be serialized) is checked before
either file is touched: a save writes all or nothing.  ``restore`` reads and checks
every value (present, same shape, same dtype) before it assigns any: a bad
checkpoint raises and the session's variables stay as they were.
"""
from __future__ import annotations

import json
import os

import numpy as np

from common.checkpoint import CheckpointError, read_arrays, write_arrays, write_text

from .errors import DataLossError, FailedPreconditionError, InvalidArgumentError, NotFoundError
from .graph import get_default_graph
from .kinds import uninitialized_message
from .serialize import from_json, to_json
from .variables import Variable, global_variables

__all__ = ["Saver", "import_meta_graph", "latest_checkpoint", "list_variables", "load_variable",
           "get_checkpoint_state", "checkpoint_exists", "CheckpointState", "NewCheckpointReader",
           "load_checkpoint", "CheckpointReader", "data_path"]

FORMAT = "staticgraph-checkpoint/1"
_MARK = "__format__"


def data_path(prefix: str) -> str:
    """Where the values of checkpoint ``prefix`` live (TF's single-shard data file name)."""
    return prefix + ".data-00000-of-00001"


def _index_path(prefix: str) -> str:
    return prefix + ".index"


def checkpoint_exists(checkpoint_prefix: str) -> bool:
    """Whether a checkpoint was saved under ``checkpoint_prefix`` (its ``.index`` exists)."""
    return os.path.isfile(_index_path(checkpoint_prefix))


class Saver:
    """Saves and restores ``var_list`` (default: every global variable, optimizer slots too).

    ``var_list`` may be a list of Variables (checkpoint keys are their op names,
    e.g. ``"w"`` and ``"w/Adam"``) or a dict ``{key: Variable}``.
    """

    def __init__(self, var_list=None, max_to_keep: int = 5, name: str | None = None, **_):
        if var_list is None:
            var_list = global_variables()
        if not isinstance(var_list, dict):
            var_list = {v.op.name: v for v in var_list}
        if not var_list:
            raise ValueError("No variables to save")
        for key, v in var_list.items():
            if not isinstance(v, Variable):
                raise TypeError(f"Saver var_list entries must be Variables; {key!r} is {v!r}")
        self._vars: dict[str, Variable] = dict(var_list)
        self.graph = next(iter(self._vars.values())).graph
        self._max_to_keep = max_to_keep
        self.last_checkpoints: list[str] = []

    def save(self, sess, save_path: str, global_step=None, write_meta_graph: bool = True,
             **_) -> str:
        """Write the variables' current values; returns the checkpoint path (``save_path-step``)."""
        self._check_session(sess)
        if global_step is not None:
            step = global_step if isinstance(global_step, (int, np.integer)) else sess.run(global_step)
            save_path = f"{save_path}-{int(step)}"
        store = sess.state.variables
        arrays = {_MARK: np.array(FORMAT)}
        for key, v in self._vars.items():
            if v.op.name not in store:
                raise FailedPreconditionError(None, v.op, uninitialized_message(
                    v.op.name, f"save/{key}", v.op.site) + f" (while saving {save_path})")
            arrays[key] = store[v.op.name]
        meta = to_json(self.graph) if write_meta_graph else None   # may raise: nothing written yet
        write_arrays(data_path(save_path), arrays)
        write_text(_index_path(save_path), json.dumps(   # last: its presence marks a whole save
            {key: [list(a.shape), a.dtype.name] for key, a in arrays.items() if key != _MARK}))
        if meta is not None:
            write_text(save_path + ".meta", meta)
        self._keep(save_path)
        _write_state(save_path, self.last_checkpoints)
        return save_path

    def _keep(self, save_path: str) -> None:
        """Remember ``save_path``; delete the oldest checkpoints beyond ``max_to_keep`` (TF)."""
        if save_path in self.last_checkpoints:
            self.last_checkpoints.remove(save_path)
        self.last_checkpoints.append(save_path)
        while self._max_to_keep and len(self.last_checkpoints) > self._max_to_keep:
            old = self.last_checkpoints.pop(0)
            for path in (data_path(old), _index_path(old), old + ".meta"):
                if os.path.exists(path):
                    os.remove(path)

    def restore(self, sess, save_path: str) -> None:
        """Assign every variable its saved value -- all of them, or (on any error) none."""
        self._check_session(sess)
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        if not checkpoint_exists(save_path):
            raise ValueError(f"The passed save_path is not a valid checkpoint: {save_path}")
        try:
            arrays = read_arrays(data_path(save_path))
        except CheckpointError as e:
            raise DataLossError(None, None, str(e)) from None
        if str(arrays.pop(_MARK, "")) != FORMAT:
            raise DataLossError(None, None, f"{save_path} is not a staticgraph checkpoint "
                                            f"(no {FORMAT!r} marker)")
        values = {v.op.name: self._checked(key, v, arrays, save_path)
                  for key, v in self._vars.items()}
        for value in values.values():
            value.setflags(write=False)      # stored values are never changed in place
        sess.state.variables.update(values)

    @staticmethod
    def _checked(key: str, v: Variable, arrays: dict, save_path: str) -> np.ndarray:
        """The saved value for ``v``, refused unless it is present and fits exactly."""
        if key not in arrays:
            raise NotFoundError(None, v.op, (
                "Restoring from checkpoint failed. This is most likely due to a Variable name or "
                "other graph key that is missing from the checkpoint. Please ensure that you have "
                "not altered the graph expected based on the checkpoint. Original error:\n\n"
                f"Key {key} not found in checkpoint {save_path}"))
        value, shape = arrays[key], v._shape
        if value.dtype != v.dtype._np:
            raise InvalidArgumentError(None, v.op, f"tensor_name = {key}; expected dtype "
                                                   f"{v.dtype.name} does not equal original dtype "
                                                   f"{value.dtype.name} in checkpoint {save_path}")
        if shape is not None and (len(shape) != value.ndim or any(
                d is not None and d != n for d, n in zip(shape, value.shape))):
            raise InvalidArgumentError(None, v.op, f"Assign requires shapes of both tensors to "
                                                   f"match. lhs shape= {list(v.shape.as_list())} "
                                                   f"rhs shape= {list(value.shape)} (variable {key} "
                                                   f"in checkpoint {save_path})")
        return value

    def _check_session(self, sess) -> None:
        if sess._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        if sess.graph is not self.graph:
            raise ValueError("The Session graph is not the graph of this Saver's variables: build "
                             "the Saver in the graph the Session runs.")


def import_meta_graph(meta_graph_or_file: str, clear_devices: bool = False, **_) -> Saver | None:
    """Rebuild a saved graph (a ``.meta`` file written by :meth:`Saver.save`) in the default graph.

    Returns a Saver for its variables (None for a graph without variables, as TF);
    ``clear_devices=True`` drops the ops' devices.
    The default graph must be empty
    (``tf.reset_default_graph()`` or ``with tf.Graph().as_default():``), since
    names are restored exactly.

    A file that is not a whole, valid graph (damaged, truncated, not a meta graph, written
    by hand) raises ``tf.errors.DataLossError`` ("Cannot parse file <path>: ...", TF's words
    for a meta graph it cannot parse, naming the node and field), and the default graph
    stays as it was; a missing file raises ``FileNotFoundError`` (TF: ``OSError``), with
    TF's sentence.  Every field is checked before anything is built (see ``from_json``).
    """
    graph = get_default_graph()
    if graph._ops:
        raise ValueError("import_meta_graph restores op names exactly, so it needs an empty "
                         "default graph: call tf.reset_default_graph() or build inside "
                         "`with tf.Graph().as_default():` first.")
    try:
        with open(meta_graph_or_file, "rb") as f:
            text = f.read()
    except FileNotFoundError:
        raise FileNotFoundError(f"File does not exist. Received: {meta_graph_or_file}.") from None
    from_json(text, graph, source=f"file {meta_graph_or_file}")
    if clear_devices:                       # TF: forget where the saved graph asked to run
        for op in graph._ops:
            op._device = ""
    return Saver() if global_variables() else None


# --- the checkpoint directory's state file (TF's ``checkpoint``) and reading checkpoints ---------

_STATE = "checkpoint"


def _write_state(save_path: str, kept: list[str]) -> None:
    """``<dir>/checkpoint``: the newest path and the kept ones, in TF's text format; paths as
    the program gave them (absolute stay absolute; relative ones are read relative to the
    directory), as TF writes them."""
    directory = os.path.dirname(save_path) or "."
    rel = [p if os.path.isabs(p) else os.path.relpath(p, directory) for p in kept]
    lines = [f'model_checkpoint_path: "{rel[-1]}"'] + [f'all_model_checkpoint_paths: "{r}"' for r in rel]
    write_text(os.path.join(directory, _STATE), "\n".join(lines) + "\n")


class CheckpointState:
    """What ``get_checkpoint_state`` returns (TF's ``CheckpointState`` proto, its two fields)."""

    def __init__(self, model_checkpoint_path: str, all_model_checkpoint_paths: list[str]):
        self.model_checkpoint_path = model_checkpoint_path
        self.all_model_checkpoint_paths = all_model_checkpoint_paths

    def __str__(self) -> str:
        return "".join([f'model_checkpoint_path: "{self.model_checkpoint_path}"\n'] +
                       [f'all_model_checkpoint_paths: "{p}"\n' for p in self.all_model_checkpoint_paths])

    __repr__ = __str__


def get_checkpoint_state(checkpoint_dir: str, latest_filename: str | None = None) -> CheckpointState | None:
    """The ``checkpoint`` file of ``checkpoint_dir`` (relative paths joined to the directory),
    or None when there is none.

    >>> ckpt = tf.train.get_checkpoint_state("run")   # doctest: +SKIP
    >>> if ckpt and ckpt.model_checkpoint_path: saver.restore(sess, ckpt.model_checkpoint_path)
    """
    state = os.path.join(checkpoint_dir, latest_filename or _STATE)
    if not os.path.isfile(state):
        return None
    newest, kept = None, []
    with open(state, encoding="utf-8") as f:
        for line in f:
            key, _, value = line.partition(":")
            path = value.strip().strip('"')
            path = path if os.path.isabs(path) else os.path.join(checkpoint_dir, path)
            if key.strip() == "model_checkpoint_path":
                newest = path
            elif key.strip() == "all_model_checkpoint_paths":
                kept.append(path)
    return None if newest is None else CheckpointState(newest, kept)


def latest_checkpoint(checkpoint_dir: str, latest_filename: str | None = None) -> str | None:
    """The newest checkpoint path saved in ``checkpoint_dir`` (None if there is none)."""
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state is None or not checkpoint_exists(state.model_checkpoint_path):
        return None
    return state.model_checkpoint_path


def _open(ckpt_dir_or_file: str) -> dict:
    path = ckpt_dir_or_file
    if os.path.isdir(path):
        path = latest_checkpoint(path)
        if path is None:
            raise ValueError(f"Couldn't find 'checkpoint' file or checkpoints in given directory "
                             f"{ckpt_dir_or_file}")
    if not checkpoint_exists(path):
        raise NotFoundError(None, None, f"Unsuccessful TensorSliceReader constructor: Failed to find "
                                        f"any matching files for {ckpt_dir_or_file}")
    try:
        arrays = read_arrays(data_path(path))
    except CheckpointError as e:
        raise DataLossError(None, None, str(e)) from None
    arrays.pop(_MARK, None)
    return arrays


def list_variables(ckpt_dir_or_file: str) -> list[tuple[str, list[int]]]:
    """``[(name, shape), ...]`` of a checkpoint (a file or a directory's latest), sorted by name."""
    return [(k, list(v.shape)) for k, v in sorted(_open(ckpt_dir_or_file).items())]


def load_variable(ckpt_dir_or_file: str, name: str) -> np.ndarray:
    """The saved value of variable ``name`` (``":0"`` is ignored, as TF)."""
    name = name.removesuffix(":0")
    arrays = _open(ckpt_dir_or_file)
    if name not in arrays:
        raise NotFoundError(None, None, f"Key {name} not found in checkpoint")
    return arrays[name]


class CheckpointReader:
    """``tf.train.NewCheckpointReader(path)`` / ``load_checkpoint``: a saved checkpoint's
    names, shapes, dtypes and values."""

    def __init__(self, ckpt_dir_or_file: str):
        self._arrays = _open(ckpt_dir_or_file)

    def get_variable_to_shape_map(self) -> dict[str, list[int]]:
        return {k: list(v.shape) for k, v in self._arrays.items()}

    def get_variable_to_dtype_map(self) -> dict:
        from .dtypes import as_dtype  # noqa: PLC0415
        return {k: as_dtype(v.dtype) for k, v in self._arrays.items()}

    def has_tensor(self, name: str) -> bool:
        return name in self._arrays

    def get_tensor(self, name: str) -> np.ndarray:
        if name not in self._arrays:
            raise NotFoundError(None, None, f"Key {name} not found in checkpoint")
        return self._arrays[name]

    def debug_string(self) -> bytes:
        from .dtypes import as_dtype  # noqa: PLC0415
        return "".join(f"{k} (DT_{as_dtype(v.dtype).tf_name.upper()}) {list(v.shape)}\n"
                       for k, v in sorted(self._arrays.items())).encode()


def NewCheckpointReader(filepattern: str) -> CheckpointReader:  # noqa: N802  (TF's name)
    return CheckpointReader(filepattern)


load_checkpoint = NewCheckpointReader
