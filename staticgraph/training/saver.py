"""``train.Saver``: variable values to a checkpoint and back; the graph itself as a meta file.

::

    saver.save(sess, "run/model")        run/model.data-00000-of-00001  .npz: one array per variable
                                         run/model.meta   the graph as JSON (serialize.to_json)
                                         run/model.index  names, shapes, dtypes (JSON), written last
                                         run/checkpoint   the state file, naming the newest checkpoint
                                         (TF's file names, so ``os.path.exists(p + ".index")`` and
                                         globbing for ``*.index`` work as with TF)
    --- a fresh process ---
    saver = tf.train.import_meta_graph("run/model.meta")   # rebuilds the graph (default graph)
    saver.restore(sess, "run/model")                       # checks everything, then assigns

A save writes all or nothing, and a save killed at any point leaves the latest
checkpoint loadable.  Everything that can fail (uninitialized variables, a graph
that cannot be serialized) is checked before any file is touched; every file is
written atomically (:mod:`common.checkpoint`); the index, whose presence marks a
whole checkpoint, comes after its data and meta files; the state file names the
new checkpoint only once it is whole; and checkpoints beyond ``max_to_keep`` are
deleted only after the state file has stopped naming them.

``restore`` reads and checks everything before it assigns anything: the index
(its own file), the data file, that the two agree on every name, shape and
dtype, and that every variable is present with its own shape and dtype.  A bad
checkpoint raises TF's error -- ``NotFoundError`` (a missing data file or
variable), ``DataLossError`` (a damaged file, or an index that disagrees with
its data), ``InvalidArgumentError`` (a value that does not fit its variable),
``ValueError`` (no checkpoint at that path) -- and the session's variables stay
as they were.  Nothing is signed: a self-consistent crafted checkpoint restores
as the values it holds.
"""
from __future__ import annotations

import json
import os

import numpy as np

from common.checkpoint import CheckpointError, read_arrays, remove_stale_temps, write_arrays, write_text

from .checkpoint_state import (STATE_FILE, CheckpointState, checkpoint_exists, data_path,
                               get_checkpoint_state, index_path, latest_checkpoint, write_state)
from ..framework.errors import DataLossError, FailedPreconditionError, InvalidArgumentError, NotFoundError
from ..framework.error_text import dt_name
from ..framework.graph import get_default_graph
from ..framework.kinds import uninitialized_message
from ..framework.sources import placeholder_with_default
from ..framework.build import convert_to_tensor
from ..interop.graph_def import as_graph_def
from ..interop.serialize import from_json, to_json
from .meta_graph import MetaGraphDef, MetaGraphFileError, SaverDef
from .partitioned_variables import PartitionedVariable
from .variables import GLOBAL_VARIABLES, Variable, global_variables
from ..framework.dtypes import as_dtype

__all__ = ["Saver", "SaverDef", "MetaGraphDef", "import_meta_graph", "export_meta_graph", "latest_checkpoint", "list_variables", "load_variable",
           "get_checkpoint_state", "checkpoint_exists", "CheckpointState", "NewCheckpointReader",
           "load_checkpoint", "CheckpointReader", "data_path"]

FORMAT = "staticgraph-checkpoint/1"
_MARK = "__format__"
_SUFFIXES = (data_path(""), index_path(""), ".meta")   # the files of one checkpoint
RESTORE_FAILED = ("Restoring from checkpoint failed. This is most likely due to a Variable name or "
                  "other graph key that is missing from the checkpoint. Please ensure that you have "
                  "not altered the graph expected based on the checkpoint. Original error:\n\n")


class Saver:
    """Saves and restores ``var_list`` (default: every global variable, optimizer slots too).

    ``var_list`` may be a list of Variables (checkpoint keys are their op names,
    e.g. ``"w"`` and ``"w/Adam"``) or a dict ``{key: Variable}``.
    """

    def __init__(self, var_list=None, reshape: bool = False, sharded: bool = False,
                 max_to_keep: int | None = 5, keep_checkpoint_every_n_hours: float = 10000.0,
                 name: str | None = None, restore_sequentially: bool = False, saver_def=None,
                 builder=None, defer_build: bool = False, allow_empty: bool = False,
                 write_version: int = 2, pad_step_number: bool = False,
                 save_relative_paths: bool = False, filename: str | bytes | None = None):
        if defer_build and var_list:
            raise ValueError("If `var_list` is provided then build cannot be deferred. Either "
                             "set defer_build=False or var_list=None.")
        self._allow_empty, self._max_to_keep = allow_empty, max_to_keep
        self._name, self._filename = name, filename
        self._write_version = write_version
        self.saver_def = SaverDef(max_to_keep=max_to_keep or 0, sharded=sharded,
                                  keep_checkpoint_every_n_hours=keep_checkpoint_every_n_hours,
                                  version=write_version)
        self.last_checkpoints: list[str] = []
        self._vars: dict[str, Variable] | None = None   # None until built (defer_build)
        self.graph = get_default_graph()
        if not defer_build:
            self._build(var_list)

    def build(self) -> None:
        """With ``defer_build=True``: take the global variables as they are now."""
        if self._vars is None:
            self._build(None)

    def as_saver_def(self) -> "SaverDef":
        """This saver's ``SaverDef`` (TF's proto fields; see :class:`SaverDef`)."""
        return self.saver_def

    def _build(self, var_list) -> None:
        if var_list is None:
            var_list = global_variables()
        if not isinstance(var_list, dict):   # keyed by name; a partitioned one's pieces as one
            keyed: dict = {}
            for v in sorted(var_list, key=lambda v: v.name):   # (TF's order: by name)
                info = getattr(v, "_save_slice_info", None)
                key = v.name if isinstance(v, PartitionedVariable) else (
                    info.full_name if info is not None else v.op.name)
                if info is not None and not isinstance(v, PartitionedVariable):
                    if not isinstance(keyed.setdefault(key, []), list):
                        raise ValueError(f"Mixing slices and non-slices with the same name: {key}")
                    keyed[key].append(v)
                    continue
                if key in keyed:
                    raise ValueError(f"At least two variables have the same name: {key}")
                keyed[key] = v
            var_list = keyed
        var_list = {key: list(v) if isinstance(v, PartitionedVariable) else v
                    for key, v in var_list.items()}
        self._empty = not var_list   # allow_empty: save returns None, restore does nothing (TF)
        if self._empty and not self._allow_empty:
            raise ValueError("No variables to save")
        for key, v in var_list.items():
            if not all(isinstance(p, Variable) for p in (v if isinstance(v, list) else [v])):
                raise TypeError(f"Saver var_list entries must be Variables; {key!r} is {v!r}")
        self._vars = dict(var_list)   # key -> a Variable, or a partitioned one's pieces
        first = next(iter(self._vars.values()), None)
        self.graph = (get_default_graph() if first is None else
                      (first[0] if isinstance(first, list) else first).graph)
        if not self._empty:
            self.saver_def.filename_tensor_name = self._filename_tensor().name

    def _filename_tensor(self):
        """TF's ``save/Const``: the checkpoint path a run of TF's save and restore nodes takes
        (``"model"`` or ``filename`` unless fed).  Here saving and restoring run in Python
        (:meth:`save`, :meth:`restore`), so the SaverDef names no save or restore node."""
        graph = self.graph
        with graph.as_default(), graph.control_dependencies(None), \
                graph.name_scope(self._name or "save"):
            with graph.name_scope("filename") as scope:
                default = convert_to_tensor(self._filename or "model", name="input")
                inner = placeholder_with_default(default, shape=(), name=scope)
            return placeholder_with_default(inner, shape=(), name="Const")

    def save(self, sess, save_path: str, global_step=None, write_meta_graph: bool = True,
             **_) -> str:
        """Write the variables' current values; returns the checkpoint path (``save_path-step``).

        ``save_path`` may be a ``file://`` URI (TF's file systems): the files go to its path.
        A saver of no variables (``allow_empty``) writes only the graph (``.meta``) and
        returns None, as TF's."""
        if self._vars is None:
            raise RuntimeError("`build()` should be called before save if defer_build==True")
        requested = save_path
        save_path = _local_path(save_path)
        if self._empty:
            if write_meta_graph:
                write_text(save_path + ".meta", to_json(self.graph))
            return None
        self._check_session(sess)
        stem = os.path.basename(save_path)
        if global_step is not None:
            step = global_step if isinstance(global_step, (int, np.integer)) else sess.run(global_step)
            save_path, requested = f"{save_path}-{int(step)}", f"{requested}-{int(step)}"
        store = sess.state.variables
        arrays = {_MARK: np.array(FORMAT)}
        for key, v in self._vars.items():
            for piece in v if isinstance(v, list) else [v]:
                if piece.op.name not in store:
                    raise FailedPreconditionError(None, piece.op, uninitialized_message(
                        piece.op.name, f"save/{key}", piece.op.site) + f" (while saving {save_path})")
            arrays[key] = _whole(v, store) if isinstance(v, list) else store[v.op.name]
        meta = to_json(self.graph) if write_meta_graph else None   # may raise: nothing written yet
        remove_stale_temps(os.path.dirname(save_path), lambda name: name == STATE_FILE or (
            name.startswith(stem) and name.endswith(_SUFFIXES)))   # left by killed saves
        write_arrays(data_path(save_path), arrays)
        if meta is not None:
            write_text(save_path + ".meta", meta)
        write_text(index_path(save_path), json.dumps(   # last: its presence marks a whole save
            {key: [list(a.shape), a.dtype.name] for key, a in arrays.items() if key != _MARK}))
        self._record(save_path)
        return requested

    def _record(self, save_path: str) -> None:
        """Name ``save_path`` (now whole) in the state file as the newest checkpoint; then, as
        TF, delete the oldest checkpoints beyond ``max_to_keep`` -- after the state file has
        stopped naming them, so a kill in between never leaves it naming a deleted one."""
        if not self._max_to_keep:   # None or 0: keep every checkpoint, list none (TF)
            write_state(save_path, [save_path])
            return
        kept = [p for p in self.last_checkpoints if p != save_path] + [save_path]
        dropped = kept[:-self._max_to_keep]
        kept = kept[len(dropped):]
        write_state(save_path, kept)
        self.last_checkpoints = kept
        for old in dropped:   # the index first: from then on it is no longer a checkpoint
            for path in (index_path(old), data_path(old), old + ".meta"):
                if os.path.exists(path):
                    os.remove(path)

    def export_meta_graph(self, filename: str | None = None, collection_list=None,
                          as_text: bool = False, export_scope=None, clear_devices: bool = False,
                          **_) -> MetaGraphDef:
        """This saver's graph (and SaverDef) as :func:`export_meta_graph` exports it."""
        return export_meta_graph(filename, graph=self.graph, saver_def=self.saver_def,
                                 clear_devices=clear_devices)

    def restore(self, sess, save_path: str) -> None:
        """Assign every variable its saved value -- all of them, or (on any error) none."""
        if self._vars is None:
            self.build()   # (TF builds a deferred saver on restore)
        if self._empty:
            return
        self._check_session(sess)
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        save_path = _local_path(save_path)
        if not checkpoint_exists(save_path):
            raise ValueError(f"The passed save_path is not a valid checkpoint: {save_path}")
        arrays = _read_checkpoint(save_path, RESTORE_FAILED)
        values = {}
        for key, v in self._vars.items():
            if isinstance(v, list):   # a partitioned variable: its pieces of the whole value
                whole = self._checked(key, v[0], arrays, save_path, v[0]._save_slice_info.full_shape)
                for piece in v:
                    values[piece.op.name] = np.ascontiguousarray(whole[_piece(piece)])
            else:
                values[v.op.name] = self._checked(key, v, arrays, save_path)
        for value in values.values():
            value.setflags(write=False)      # stored values are never changed in place
        sess.state.variables.update(values)

    @staticmethod
    def _checked(key: str, v: Variable, arrays: dict, save_path: str,
                 shape: list[int] | None = None) -> np.ndarray:
        """The saved value for ``v`` (of ``shape``: a partitioned variable's whole), refused
        unless it is present and fits exactly."""
        if key not in arrays:
            raise NotFoundError(None, v.op, f"{RESTORE_FAILED}Key {key} not found in checkpoint "
                                            f"{save_path}")
        value, shape = arrays[key], (v._shape if shape is None else tuple(shape))
        if value.dtype != v.dtype._np:
            raise InvalidArgumentError(None, v.op, f"tensor_name = {key}; expected dtype "
                                                   f"{v.dtype.name} does not equal original dtype "
                                                   f"{value.dtype.name} in checkpoint {save_path}")
        if shape is not None and (len(shape) != value.ndim or any(
                d is not None and d != n for d, n in zip(shape, value.shape))):
            raise InvalidArgumentError(None, v.op, f"Assign requires shapes of both tensors to "
                                                   f"match. lhs shape= {list(shape)} "
                                                   f"rhs shape= {list(value.shape)} (variable {key} "
                                                   f"in checkpoint {save_path})")
        return value

    def _check_session(self, sess) -> None:
        if sess._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        if sess.graph is not self.graph:
            raise ValueError("The Session graph is not the graph of this Saver's variables: build "
                             "the Saver in the graph the Session runs.")


def export_meta_graph(filename: str | None = None, meta_info_def=None, graph_def=None,
                      saver_def=None, collection_list=None, as_text: bool = False, graph=None,
                      export_scope=None, clear_devices: bool = False, **_) -> MetaGraphDef:
    """The graph (``graph`` or the default one) as a :class:`MetaGraphDef`, also written to
    ``filename`` when given (whole or not at all).  TF's proto holds a ``GraphDef``; here the
    graph is the project's JSON (see ``interop/serialize.py``), in a file whatever ``as_text``
    says.  ``graph_def``, when given, must be the graph's own (``graph.as_graph_def()``): a
    ``GraphDef`` cannot be turned back into a graph here.  ``clear_devices``: the nodes'
    devices are left out."""
    graph = graph or get_default_graph()
    if graph_def is not None and graph_def != as_graph_def(graph):
        raise ValueError("export_meta_graph here exports a graph, not a GraphDef: `graph_def` "
                         "must be the exported graph's own as_graph_def()")
    meta = MetaGraphDef(to_json(graph, clear_devices=clear_devices), saver_def)
    if filename:
        write_text(filename, meta.graph_json)
    return meta


def import_meta_graph(meta_graph_or_file, clear_devices: bool = False, import_scope=None,
                      graph=None, **_) -> Saver | None:
    """Rebuild an exported graph -- a :class:`MetaGraphDef`, or a ``.meta`` file written by
    :meth:`Saver.save` or :func:`export_meta_graph` -- in ``graph`` (the default graph).

    Every name goes under ``import_scope``, or under the name scope open at the call (TF's
    rule); without either, names are restored exactly, so the graph must be empty
    (``tf.reset_default_graph()`` or ``with tf.Graph().as_default():``).  Returns a Saver
    for the graph's variables, keyed by their names as saved (so it restores the exported
    model's checkpoint into the scope); when the import brings none, a Saver of every
    variable if some are under the scope, else None (TF's rule).
    ``clear_devices=True`` drops the ops' devices.

    A file that is not a whole, valid graph (damaged, truncated, not a meta graph, written
    by hand) raises ``tf.errors.DataLossError`` that is also an ``OSError`` (TF's type),
    "Cannot parse file <path>: ..." (TF's words, naming the node and field), and the graph
    stays as it was; a missing file raises ``FileNotFoundError`` (TF: ``OSError``), with
    TF's sentence.  Every field is checked before anything is built (see ``from_json``).
    """
    graph = graph or get_default_graph()
    if isinstance(meta_graph_or_file, MetaGraphDef):
        text, source = meta_graph_or_file.graph_json, "the MetaGraphDef"
    else:
        try:
            with open(meta_graph_or_file, "rb") as f:
                text = f.read()
        except FileNotFoundError:
            raise FileNotFoundError(f"File does not exist. Received: {meta_graph_or_file}.") from None
        source = f"file {meta_graph_or_file}"
    scope = (graph.unique_name(import_scope, mark_as_used=False) if import_scope
             else graph._name_stack)
    prefix = scope + "/" if scope else ""
    if graph._ops and not prefix:
        raise ValueError("import_meta_graph restores op names exactly, so it needs an empty "
                         "default graph: call tf.reset_default_graph() or build inside "
                         "`with tf.Graph().as_default():` first.")
    before = set(map(id, graph.get_collection(GLOBAL_VARIABLES)))
    try:
        from_json(text, graph, source=source, prefix=prefix, clear_devices=clear_devices)
    except DataLossError as e:
        if isinstance(meta_graph_or_file, MetaGraphDef):
            raise
        raise MetaGraphFileError(None, None, e.message) from e.__cause__
    variables = graph.get_collection(GLOBAL_VARIABLES)
    imported = [v for v in variables if id(v) not in before]
    with graph.as_default():
        if imported:
            return Saver({v.op.name[len(prefix):]: v for v in imported})
        if any(v.op.name.startswith(prefix) for v in variables):
            return Saver()
    return None


def _piece(piece: Variable) -> tuple[slice, ...]:
    """Where a partitioned variable's piece sits in the whole value."""
    info = piece._save_slice_info
    return tuple(slice(o, o + n) for o, n in zip(info.var_offset, info.var_shape))


def _whole(pieces: list[Variable], store: dict) -> np.ndarray:
    """A partitioned variable's whole value, assembled from its pieces' values in ``store``."""
    first = store[pieces[0].op.name]
    whole = np.empty(pieces[0]._save_slice_info.full_shape, dtype=first.dtype)
    for piece in pieces:
        whole[_piece(piece)] = store[piece.op.name]
    return whole


def _local_path(path: str) -> str:
    """A ``file://`` URI's path (TF's local file system takes both); other paths as they are."""
    return path[len("file://"):] if path.startswith("file://") else path


# --- reading a checkpoint: its index and its data file, checked against each other -----------

def _read_checkpoint(prefix: str, not_found: str = "") -> dict[str, np.ndarray]:
    """Checkpoint ``prefix``'s values by name, once its index and data file agree.

    ``not_found`` starts the message of a missing data file (restore's preamble, as TF).
    """
    index = _read_index(prefix)
    try:
        arrays = read_arrays(data_path(prefix))
    except FileNotFoundError:
        raise NotFoundError(None, None, f"{not_found}{data_path(prefix)}; No such file or "
                                        f"directory") from None
    except CheckpointError as e:
        raise DataLossError(None, None, str(e)) from None
    if str(arrays.pop(_MARK, "")) != FORMAT:
        raise DataLossError(None, None, f"{prefix} is not a staticgraph checkpoint "
                                        f"(no {FORMAT!r} marker)")
    for key in sorted(index.keys() | arrays.keys()):
        saved = [list(arrays[key].shape), arrays[key].dtype.name] if key in arrays else None
        if index.get(key) != saved:
            problem = (f"{key} is in the index but not in the data file" if saved is None else
                       f"{key} is in the data file but not in the index" if key not in index else
                       f"{key} is {index[key][1]} {index[key][0]} in the index but {saved[1]} "
                       f"{saved[0]} in the data file")
            raise DataLossError(None, None, f"checkpoint {prefix}: its index {index_path(prefix)} "
                                            f"does not match its data file {data_path(prefix)} "
                                            f"({problem})")
    return arrays


def _read_index(prefix: str) -> dict[str, list]:
    """``{name: [shape, dtype name]}`` from checkpoint ``prefix``'s index (JSON)."""
    path = index_path(prefix)
    try:
        with open(path, "rb") as f:
            index = json.loads(f.read().decode("utf-8"))
        if not isinstance(index, dict):
            raise ValueError("not an object of {name: [shape, dtype name]}")
        for key, entry in index.items():
            if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], list)
                    and all(type(n) is int and n >= 0 for n in entry[0])
                    and isinstance(entry[1], str)):
                raise ValueError(f"{key}: {entry!r} is not [shape, dtype name]")
        return index
    except RecursionError:
        reason = "nested too deeply"
    except (OSError, ValueError) as e:   # ValueError: UnicodeDecodeError, JSONDecodeError too
        reason = f"{type(e).__name__}: {e}"
    raise DataLossError(None, None, f"{path} is not a valid checkpoint index ({reason})")


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
    return _read_checkpoint(path)


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
        return {k: as_dtype(v.dtype) for k, v in self._arrays.items()}

    def has_tensor(self, name: str) -> bool:
        return name in self._arrays

    def get_tensor(self, name: str) -> np.ndarray:
        if name not in self._arrays:
            raise NotFoundError(None, None, f"Key {name} not found in checkpoint")
        return self._arrays[name]

    def debug_string(self) -> bytes:
        return "".join(f"{k} ({dt_name(as_dtype(v.dtype))}) {list(v.shape)}\n"
                       for k, v in sorted(self._arrays.items())).encode()


def NewCheckpointReader(filepattern: str) -> CheckpointReader:  # noqa: N802  (TF's name)
    return CheckpointReader(filepattern)


load_checkpoint = NewCheckpointReader
