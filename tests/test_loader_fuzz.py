"""Loader fuzz: damaged and crafted checkpoints, state files, manifests and state dicts.

Every case gives a loader something a stranger could have written -- a byte
flipped, a file cut short, a zip member whose header lies, an object array, an
index that disagrees with its data, a state file naming ``../`` or nothing, a
manifest nested 10,000 deep, an optimizer state of the wrong shape -- and checks
the loader's promises:

* it returns, or raises its one documented error (``Saver.restore``: TF's
  ``ValueError``, ``NotFoundError``, ``DataLossError``, ``InvalidArgumentError``;
  ``latest_checkpoint``: TF's ``ValueError`` for a state file naming nothing;
  ``dyngraph.load``: ``CheckpointError``; ``optimizer.load_state_dict``:
  ``ValueError``; ``module.load_state_dict``: ``RuntimeError``, or ``TypeError``
  for a non-mapping), never anything else;
* no code runs: no audit event of unpickling, exec or process spawning while it
  loads (and a pickled payload's marker file is never created);
* it allocates no more than the file holds (tracemalloc's peak, a small factor
  of the file's size plus 1 MiB of slack);
* nothing is half-applied: a failed restore or load leaves every variable,
  parameter and optimizer state as it was; a successful one holds exactly the
  file's values (read back with numpy's own reader), and an optimizer that
  loaded can ``step()``.

The suite runs a few hundred cases per loader in a child process (the audit hook
and tracemalloc stay out of the other tests).  Longer, by hand::

    python -m tests.test_loader_fuzz --count 5000 --seed 7
    python -m tests.test_loader_fuzz --only restore:123    # one case again
"""
from __future__ import annotations

import argparse
import collections
import copy
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc
import zipfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SUITE_COUNT = int(os.environ.get("LOADER_FUZZ_COUNT", "200"))
MIB = 2 ** 20

# --- what a case may not do ----------------------------------------------------------------

_FORBIDDEN = {"exec", "pickle.find_class", "os.system", "os.exec", "os.spawn", "os.posix_spawn",
              "os.fork", "subprocess.Popen", "ctypes.dlopen"}
_watching = False
_events: list[str] = []


def _audit(event: str, args) -> None:
    """Record forbidden events -- but not a lazy import running a module's body from disk
    (a codec the first time it is used, say)."""
    if not _watching or event not in _FORBIDDEN:
        return
    code = args[0] if event == "exec" and args else None
    if code is not None and code.co_name == "<module>" and os.path.isfile(code.co_filename):
        return
    _events.append(event)


class Violation(AssertionError):
    """A loader broke one of its promises."""


def _guarded(load, allowed: tuple, budget: int | None):
    """``load()`` watched: (outcome name, result); raises :class:`Violation` if it raised
    anything but the exact types ``allowed``, ran code, or allocated more than ``budget``."""
    global _watching
    _events.clear()
    tracemalloc.start()              # only while loading: it slows everything it watches
    _watching = True
    try:
        result, outcome = load(), "loaded"
    except BaseException as e:  # noqa: BLE001 -- the point: nothing else may escape
        if type(e) not in allowed:       # exactly: a UnicodeDecodeError is no documented ValueError
            raise Violation(f"{type(e).__name__} escaped: {e}"[:500]) from e
        result, outcome = e, type(e).__name__
    finally:
        _watching = False
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    if _events:
        raise Violation(f"code ran while loading: {_events}")
    if budget is not None and peak > budget:
        raise Violation(f"allocated {peak} bytes, more than {budget}")
    return outcome, result


def _budget(*paths) -> int:
    size = sum(os.path.getsize(p) for p in paths if os.path.isfile(p))
    return 8 * size + MIB


# --- damaging bytes ------------------------------------------------------------------------

def _damage(rng: random.Random, data: bytes) -> bytes:
    """``data`` with one random kind of damage: flipped bits, cut short, a span zeroed,
    inserted, deleted or duplicated, junk appended, a zip size field changed."""
    data, n = bytearray(data), len(data)
    kind = rng.randrange(8)
    if n == 0 or kind == 7:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(64)))
    i = rng.randrange(n)
    span = rng.randrange(1, 64)
    if kind == 0:
        for _ in range(rng.randrange(1, 4)):
            data[rng.randrange(n)] ^= 1 << rng.randrange(8)
    elif kind == 1:
        del data[i:]
    elif kind == 2:
        data[i:i + span] = bytes(len(data[i:i + span]))
    elif kind == 3:
        data[i:i] = bytes(rng.randrange(256) for _ in range(span))
    elif kind == 4:
        del data[i:i + span]
    elif kind == 5:
        data[i:i] = data[max(0, i - span):i]
    else:
        at = data.rfind(b"PK\x01\x02") if rng.random() < 0.5 else data.find(b"PK\x03\x04")
        if at >= 0:                        # a size, method, flag or offset field of a zip header
            field = at + rng.choice([6, 8, 10, 18, 20, 22, 24, 28, 42])
            data[field:field + 4] = rng.choice([b"\xff\xff\xff\x7f", b"\0\0\0\0", b"\x08\0",
                                                b"\x0c\0", b"\x63\0", b"\x41\0"])
    return bytes(data)


# --- crafting npz archives -----------------------------------------------------------------

class _Evil:
    """Unpickling this creates the marker file: it must never happen."""

    def __init__(self, marker: str):
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


def _npy_member(rng: random.Random, array: np.ndarray, marker: str) -> bytes:
    """``array`` as an .npy member -- or, sometimes, one whose header lies about it."""
    buf = io.BytesIO()
    lie = rng.randrange(9)
    if lie == 0:
        np.lib.format.write_array(buf, np.array([_Evil(marker)], dtype=object), allow_pickle=True)
        return buf.getvalue()
    header = {"descr": np.lib.format.dtype_to_descr(array.dtype), "fortran_order": False,
              "shape": array.shape}
    if lie == 1:
        header["shape"] = rng.choice([(2 ** 40,), (10 ** 7,), (-1, -1), (3, -4), (2 ** 62, 2 ** 3)])
    elif lie == 2:
        header["descr"] = rng.choice(["|V0", "<U0", "|O", "<f8", "<i2", ">f8", "|b1", "<c16",
                                      [("a", "<f8"), ("b", "<i4")], "<f8 (1000000,)"])
    elif lie == 3:
        header["fortran_order"] = True
    if lie == 4:
        buf.write(b"\x93NUMPY\x03\x00")                 # a format version never written
    else:
        np.lib.format.write_array_header_1_0(buf, header)
    return buf.getvalue() + np.ascontiguousarray(array).tobytes()


def _npz(rng: random.Random, arrays: dict, marker: str) -> bytes:
    """``arrays`` as an .npz: about a third with a lying, missing or compressed member, some
    with an extra one."""
    out = io.BytesIO()
    odds = 0.1 / len(arrays)
    with zipfile.ZipFile(out, "w") as z:
        for name, array in arrays.items():
            member = (_npy_member(rng, array, marker) if rng.random() < 2 * odds
                      else _faithful(array))
            method = zipfile.ZIP_DEFLATED if rng.random() < odds else zipfile.ZIP_STORED
            if rng.random() < odds:
                continue                                   # a member missing
            z.writestr(zipfile.ZipInfo(name + ".npy"), member, compress_type=method)
        if rng.random() < 0.05:
            z.writestr("extra.npy", _faithful(np.arange(rng.randrange(5))))
        if rng.random() < 0.03:
            z.writestr("notes.txt", b"hello")
    return out.getvalue()


def _faithful(array: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array(buf, array, allow_pickle=False)
    return buf.getvalue()


def _random_array(rng: random.Random, like: np.ndarray) -> np.ndarray:
    """Usually ``like``'s shape and dtype with new values; sometimes another shape or dtype."""
    shape = like.shape if rng.random() < 0.8 else tuple(rng.randrange(4) for _ in range(rng.randrange(3)))
    dtype = like.dtype if rng.random() < 0.8 else np.dtype(rng.choice(
        ["float32", "float64", "int64", "int32", "bool", "uint8", "float16", ">f8", "U3"]))
    return np.asarray(np.random.default_rng(rng.randrange(2 ** 32)).normal(size=shape) * 3
                      ).astype(dtype)


# --- crafting JSON and text ----------------------------------------------------------------

def _json_value(rng: random.Random, depth: int = 0):
    """A random JSON value: atoms, and (not too deep) lists, manifest-like entries and pairs."""
    kind = rng.randrange(9 if depth < 4 else 6)
    if kind < 6:
        return [None, True, rng.randrange(-3, 10), rng.random() * 10,
                rng.choice(["", "w", "t0", "float64"]), 2 ** 70][kind]
    if kind == 6:
        return [_json_value(rng, depth + 1) for _ in range(rng.randrange(3))]
    if kind == 7:
        return {rng.choice(["tensor", "value", "list", "dict", "odict", "tuple", "x"]):
                _json_value(rng, depth + 1)}
    return [[rng.choice(["a", 1, None]), _json_value(rng, depth + 1)]]


def _deep(open_: str, close: str, leaf: str, n: int) -> str:
    return open_ * n + leaf + close * n


def _mutate_json(rng: random.Random, value):
    """``value`` (parsed JSON) with one random leaf or branch replaced, deleted or duplicated."""
    value = json.loads(json.dumps(value))
    holder, key = None, None
    node = value
    for _ in range(rng.randrange(1, 8)):
        if isinstance(node, dict) and node:
            holder, key = node, rng.choice(list(node))
        elif isinstance(node, list) and node:
            holder, key = node, rng.randrange(len(node))
        else:
            break
        node = holder[key]
    if holder is None:
        return _json_value(rng)
    action = rng.randrange(3)
    if action == 0:
        holder[key] = _json_value(rng)
    elif action == 1 and isinstance(holder, dict):
        del holder[key]
    elif action == 1:
        holder.pop(key)
    else:
        holder[key] = [holder[key], holder[key]] if rng.random() < 0.5 else {"list": [holder[key]]}
    return value


def _text_json(rng: random.Random, value) -> bytes:
    """JSON text of ``value`` -- or something that is almost JSON, or is not UTF-8."""
    r = rng.random()
    if r < 0.05:
        return _deep("[", "]", "1", rng.choice([500, 5000, 100000])).encode()
    if r < 0.08:
        return json.dumps(value).encode()[:-1]
    if r < 0.1:
        return b"\xff\xfe" + json.dumps(value).encode()
    return json.dumps(value).encode()


# --- the static engine: Saver.restore and the state file --------------------------------

class _StaticWorld:
    """A graph, its session and saver, and the files of one good checkpoint of it."""

    def __init__(self, root: str):
        import staticgraph as tf
        self.tf = tf
        self.graph = tf.Graph()
        with self.graph.as_default():
            tf.Variable(np.linspace(-1, 1, 12).reshape(3, 4), name="w")
            tf.Variable(np.arange(4, dtype=np.float32), name="b")
            tf.Variable(np.int64(7), name="n")
            tf.Variable(np.array([True, False]), name="flag")
            self.saver = tf.train.Saver()
            self.sess = tf.Session()
            self.sess.run(tf.global_variables_initializer())
        self.good = os.path.join(root, "good")
        os.makedirs(self.good)
        self.prefix = self.saver.save(self.sess, os.path.join(self.good, "m"))
        self.files = {suffix: open(self.prefix + suffix, "rb").read()
                      for suffix in (".data-00000-of-00001", ".index", ".meta")}
        self.saved = dict(np.load(self.prefix + ".data-00000-of-00001"))

    def scramble(self) -> dict:
        """Give every variable another value (so a restore has something to change)."""
        state = self.sess.state.variables
        for name, value in list(state.items()):
            new = np.array(value, copy=True)
            new.flat[0] = not new.flat[0] if new.dtype == bool else new.flat[0] + 1
            state[name] = new
        return {k: v.copy() for k, v in state.items()}

    def restore_case(self, prefix: str, paths: list[str]) -> str:
        """Restore ``prefix``; check the outcome against the files. Returns the outcome."""
        tf = self.tf
        before = self.scramble()
        outcome, _ = _guarded(lambda: self.saver.restore(self.sess, prefix),
                              (ValueError, tf.errors.NotFoundError, tf.errors.DataLossError,
                               tf.errors.InvalidArgumentError), _budget(*paths))
        now = self.sess.state.variables
        if outcome != "loaded":
            if now.keys() != before.keys() or not all(np.array_equal(now[k], v) and now[k].dtype
                                                      == v.dtype for k, v in before.items()):
                raise Violation("a failed restore changed variables")
            return outcome
        with np.load(prefix + ".data-00000-of-00001", allow_pickle=False) as saved:
            for name, value in now.items():   # numpy's own reader: the values the file holds
                native = saved[name].dtype.newbyteorder("=")          # (any byte order)
                if not (np.array_equal(saved[name], value) and native == value.dtype):
                    raise Violation(f"restored {name} = {value!r}, the file holds {saved[name]!r}")
        return outcome


def _case_restore(world: _StaticWorld, rng: random.Random, folder: str, marker: str) -> str:
    """A checkpoint whose data, index or both were damaged or crafted; restore it."""
    files = dict(world.files)
    target = rng.choice(["data", "data", "index", "both", "crafted", "missing"])
    if target in ("data", "both"):
        files[".data-00000-of-00001"] = _damage(rng, files[".data-00000-of-00001"])
    if target in ("index", "both"):
        files[".index"] = (_damage(rng, files[".index"]) if rng.random() < 0.5 else
                           _text_json(rng, _mutate_json(rng, json.loads(files[".index"]))))
    if target == "crafted":                          # values changed; index kept consistent or not
        arrays = {k: _random_array(rng, v) if k != "__format__" and rng.random() < 0.5 else v
                  for k, v in world.saved.items()}
        files[".data-00000-of-00001"] = _npz(rng, arrays, marker)
        if rng.random() < 0.8:
            files[".index"] = json.dumps({k: [list(a.shape), a.dtype.name] for k, a in
                                          arrays.items() if k != "__format__"}).encode()
    if target == "missing":
        del files[rng.choice([".data-00000-of-00001", ".index"])]
    prefix = os.path.join(folder, "m")
    for suffix, data in files.items():
        with open(prefix + suffix, "wb") as f:
            f.write(data)
    return world.restore_case(prefix, [prefix + s for s in files])


_STATE_WORDS = ["model_checkpoint_path", "all_model_checkpoint_paths", "last_preserved_timestamp",
                "all_model_checkpoint_timestamps", ":", ":", ":", ",", ";", "#", "\n", " ", "'",
                '"', "\\", "1.5e9", "inf", "x", "[", "]", "{", "\t"]


def _state_path(rng: random.Random, world: _StaticWorld) -> str:
    return rng.choice(["m", "m-1", "../good/m", world.prefix, "/nowhere/m", "", "..", ".",
                       "m\\000", "\u00e9/m", "a\"b", "m\n", "../" * 40 + "etc/passwd"])


def _quoted(rng: random.Random, path: str) -> str:
    return json.dumps(path, ensure_ascii=False) if rng.random() < 0.8 else "'" + path + "'"


def _case_state(world: _StaticWorld, rng: random.Random, folder: str, marker: str) -> str:
    """A state file (well-formed, damaged or random tokens); latest_checkpoint and
    get_checkpoint_state read it, and whatever they name is restored."""
    tf = world.tf
    lines = [f"model_checkpoint_path: {_quoted(rng, _state_path(rng, world))}"] + [
        f"all_model_checkpoint_paths: {_quoted(rng, _state_path(rng, world))}"
        for _ in range(rng.randrange(3))]
    text = "\n".join(rng.sample(lines, len(lines))).encode()
    r = rng.random()
    if r < 0.3:
        text = _damage(rng, text)
    elif r < 0.5:
        text = "".join(rng.choice(_STATE_WORDS) for _ in range(rng.randrange(30))).encode()
    elif r < 0.55:
        text = bytes(rng.randrange(256) for _ in range(rng.randrange(100)))
    if rng.random() < 0.5:                           # a whole checkpoint beside the state file
        for suffix, data in world.files.items():
            with open(os.path.join(folder, "m" + suffix), "wb") as f:
                f.write(data)
    state = os.path.join(folder, "checkpoint")
    with open(state, "wb") as f:
        f.write(text)
    outcome, latest = _guarded(lambda: tf.train.latest_checkpoint(folder), (ValueError,),
                               _budget(state))
    other, _ = _guarded(lambda: tf.train.get_checkpoint_state(folder), (ValueError,),
                        _budget(state))
    if other != outcome:
        raise Violation(f"get_checkpoint_state {other}, latest_checkpoint {outcome}")
    if outcome != "loaded":
        return outcome
    if latest is None:
        return "None"
    if not isinstance(latest, str):
        raise Violation(f"latest_checkpoint returned {latest!r}")
    return "a path -> restore " + world.restore_case(latest, [latest + ".data-00000-of-00001",
                                                              latest + ".index"])


# --- the eager engine: dyngraph.load, optimizer and module load_state_dict -----------------

class _EagerWorld:
    """A checkpoint such as a training script saves (its bytes, its arrays, its manifest),
    and the state dict of a model with parameters and buffers."""

    def __init__(self, root: str):
        import dyngraph as torch
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4),
                                    torch.nn.Linear(4, 2))
        model(torch.randn(5, 3))
        self.model_state = model.state_dict()
        head = torch.nn.Linear(3, 2)
        opt = torch.optim.SGD(head.parameters(), lr=0.1, momentum=0.9)
        head(torch.randn(5, 3)).sum().backward()
        opt.step()
        state = {"model": head.state_dict(), "norm": model[1].state_dict(),
                 "optimizer": opt.state_dict(), "epoch": 3, "tags": ["a", None, 1.5],
                 "pair": (torch.ones(2), torch.zeros(1, dtype=torch.int64))}
        path = os.path.join(root, "eager.pt")
        torch.save(state, path)
        self.file = open(path, "rb").read()
        with np.load(path, allow_pickle=False) as saved:
            self.arrays = dict(saved)
        self.manifest = json.loads(str(self.arrays["__manifest__"]))


def _case_load(world: _EagerWorld, rng: random.Random, folder: str, marker: str) -> str:
    """A dyngraph checkpoint, damaged as bytes or rebuilt with a crafted manifest or arrays."""
    import dyngraph as torch
    from common.checkpoint import CheckpointError
    r = rng.random()
    if r < 0.4:
        data = _damage(rng, world.file)
    else:
        manifest, arrays = dict(world.manifest), dict(world.arrays)
        if r < 0.7:
            manifest["root"] = _mutate_json(rng, manifest["root"])
        for name in list(arrays):
            if name != "__manifest__" and rng.random() < 0.1:
                arrays[name] = _random_array(rng, arrays[name])
        text = _text_json(rng, manifest).decode("utf-8", "replace")
        if rng.random() < 0.05:
            text = '{"format": "dyngraph/1", "root": ' + _deep('{"list": [', "]}", '{"value": 1}',
                                                                   rng.choice([99, 101, 3000])) + "}"
        arrays["__manifest__"] = np.array(text)
        data = _npz(rng, arrays, marker)
    path = os.path.join(folder, "m.pt")
    with open(path, "wb") as f:
        f.write(data)
    outcome, result = _guarded(lambda: torch.load(path), (CheckpointError,), _budget(path))
    if outcome == "loaded":
        _only_plain(result)
    return outcome


def _only_plain(obj) -> None:
    """What load returns holds tensors, atoms, dicts, lists and tuples: nothing else."""
    import dyngraph as torch
    stack = [obj]
    while stack:
        x = stack.pop()
        if isinstance(x, dict):
            stack += list(x.keys()) + list(x.values())
        elif isinstance(x, (list, tuple)):
            stack += list(x)
        elif not isinstance(x, (torch.Tensor, bool, int, float, str, type(None))):
            raise Violation(f"load returned a {type(x).__name__}")


def _random_leaf(rng: random.Random, like):
    import dyngraph as torch
    choices = [None, "0.1", True, -1, 2.5, 2 ** 70, float("nan"), [0.0] * 4, (0.9, 0.999),
               {"a": 1}, torch.zeros(3), torch.ones(4), torch.ones(4, 1), torch.tensor(3.0),
               torch.ones(2, dtype=torch.int64), torch.ones(4, dtype=torch.bool)]
    if isinstance(like, torch.Tensor):
        shape = like.shape if rng.random() < 0.6 else tuple(rng.randrange(5) for _ in range(rng.randrange(3)))
        choices += [torch.from_numpy(np.full(tuple(shape), rng.choice([0, 1.5, -2]),
                                             dtype=rng.choice(["float32", "float64", "int64", "bool"])))] * 4
    return rng.choice(choices)


def _mutate_dict(rng: random.Random, sd):
    """A state dict with a few random edits: values replaced, keys dropped or added."""
    sd = copy.copy(sd)
    for _ in range(rng.randrange(1, 4)):
        holders, node = [], sd
        while isinstance(node, (dict, list)) and node and rng.random() < 0.8:
            key = rng.choice(list(node)) if isinstance(node, dict) else rng.randrange(len(node))
            holders.append((node, key))
            node = node[key]
        if not holders:
            return _random_leaf(rng, None) if rng.random() < 0.5 else sd
        holder, key = holders[-1]
        action = rng.randrange(4)
        if action < 2:
            holder[key] = _random_leaf(rng, holder[key])
        elif action == 2 and isinstance(holder, dict):
            del holder[key]
        elif isinstance(holder, dict):
            holder[rng.choice(["extra", 5, "params", "step", "lr"])] = _random_leaf(rng, None)
    return sd


def _deep_copy(sd):
    """A copy of a state dict down to its tensors (mutations never touch the original)."""
    import dyngraph as torch
    if isinstance(sd, dict):
        return {k: _deep_copy(v) for k, v in sd.items()}
    if isinstance(sd, list):
        return [_deep_copy(v) for v in sd]
    return torch.from_numpy(sd.numpy().copy()) if isinstance(sd, torch.Tensor) else sd


def _snapshot_optimizer(opt) -> str:
    return repr(opt.param_groups) + repr({id(p): {k: (v._data.tolist(), str(v._data.dtype))
                                                  if hasattr(v, "_data") else v
                                                  for k, v in s.items()}
                                          for p, s in opt.state.items()})


def _case_optimizer(world: _EagerWorld, rng: random.Random, folder: str, marker: str) -> str:
    import dyngraph as torch
    torch.manual_seed(1)
    params = [torch.nn.Parameter(torch.randn(4, 3)), torch.nn.Parameter(torch.randn(4))]
    kind = rng.choice(["adam", "sgd", "rmsprop", "adagrad", "adamw"])
    make = {"adam": lambda: torch.optim.Adam(params, amsgrad=rng.random() < 0.5),
            "adamw": lambda: torch.optim.AdamW(params),
            "sgd": lambda: torch.optim.SGD(params, lr=0.1, momentum=0.9),
            "rmsprop": lambda: torch.optim.RMSprop(params, momentum=0.5, centered=True),
            "adagrad": lambda: torch.optim.Adagrad(params)}[kind]
    source, opt = make(), make()
    for p in params:
        p.grad = torch.ones_like(p)
    source.step()
    sd = _mutate_dict(rng, _deep_copy(source.state_dict()))
    before, values = _snapshot_optimizer(opt), [p._data.copy() for p in params]
    outcome, _ = _guarded(lambda: opt.load_state_dict(sd), (ValueError,), None)
    if outcome != "loaded":
        if _snapshot_optimizer(opt) != before:
            raise Violation("a failed load_state_dict changed the optimizer")
        return outcome
    if any(not np.array_equal(p._data, v) for p, v in zip(params, values)):
        raise Violation("load_state_dict changed a parameter")
    try:
        with np.errstate(all="ignore"):
            opt.step()
    except Exception as e:  # noqa: BLE001
        raise Violation(f"step() after a successful load raised {type(e).__name__}: {e}") from e
    return outcome


def _case_module(world: _EagerWorld, rng: random.Random, folder: str, marker: str) -> str:
    import dyngraph as torch
    torch.manual_seed(2)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.Linear(4, 2))
    sd = _mutate_dict(rng, _deep_copy(world.model_state))
    strict = rng.random() < 0.7
    before = {k: v._data.copy() for k, v in model.state_dict().items()}
    outcome, error = _guarded(lambda: model.load_state_dict(sd, strict=strict),
                              (RuntimeError, TypeError), None)
    now = {k: v._data for k, v in model.state_dict().items()}
    if outcome == "TypeError" and isinstance(sd, dict):
        raise Violation(f"TypeError for a dict: {error}")
    if outcome != "loaded":
        if not all(np.array_equal(before[k], now[k]) for k in before):
            raise Violation("a failed load_state_dict changed the module")
        return outcome
    for k, v in now.items():
        if k in sd and not np.array_equal(v, sd[k]._data.astype(v.dtype)):
            raise Violation(f"{k} was not loaded as given")
    model.eval()
    model(torch.randn(2, 3))
    return outcome


# --- the driver ----------------------------------------------------------------------------

LOADERS = {"restore": _case_restore, "state_file": _case_state, "dyngraph_load": _case_load,
           "optimizer_load_state_dict": _case_optimizer, "module_load_state_dict": _case_module}


def run(count: int, seed: int, only: str | None = None) -> dict[str, collections.Counter]:
    """Run ``count`` cases per loader; outcomes by loader. Raises on the first violation,
    naming the case (``--only loader:index`` runs it again)."""
    import logging
    logging.getLogger("tensorflow").setLevel(logging.CRITICAL)   # TF's "Checkpoint ignored" etc.
    os.fsync = lambda fd: None        # saving the templates is setup here: no need to wait on disk
    outcomes = {name: collections.Counter() for name in LOADERS}
    root = tempfile.mkdtemp(prefix="loader-fuzz-")
    try:
        static, eager = _StaticWorld(root), _EagerWorld(root)
        marker = os.path.join(root, "pwned")
        sys.addaudithook(_audit)      # after the imports: their module bodies are not watched
        for name, case in LOADERS.items():
            world = static if name in ("restore", "state_file") else eager
            folder = os.path.join(root, name)
            os.makedirs(folder)
            for i in range(count):
                if only and only != f"{name}:{i}":
                    continue
                try:
                    outcomes[name][case(world, random.Random(f"{seed}:{name}:{i}"), folder,
                                        marker)] += 1
                except Violation as e:
                    raise Violation(f"{name} case {i} (seed {seed}): {e}") from e
                if os.path.exists(marker):
                    raise Violation(f"{name} case {i} (seed {seed}): unpickling ran code")
                for leftover in os.listdir(folder):
                    os.remove(os.path.join(folder, leftover))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return outcomes


def report(outcomes: dict, seconds: float) -> str:
    lines = []
    for name, counter in outcomes.items():
        lines.append(f"{name}: {sum(counter.values())} cases: " +
                     ", ".join(f"{k} {v}" for k, v in counter.most_common()))
    return "\n".join(lines) + f"\n{seconds:.1f} s"


def test_loaders_keep_their_promises_on_damaged_and_crafted_input():
    """The fuzz in a child process (its audit hook and tracemalloc stay out of the suite);
    every loader ran its cases, and both loaded some and refused some."""
    proc = subprocess.run([sys.executable, "-m", "tests.test_loader_fuzz", "--count",
                           str(SUITE_COUNT)], cwd=ROOT, env=dict(os.environ, PYTHONPATH=ROOT),
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for name in LOADERS:
        line = next(line for line in proc.stdout.splitlines() if line.startswith(name + ":"))
        outcomes = dict(item.rsplit(" ", 1) for item in line.split(" cases: ")[1].split(", "))
        assert sum(map(int, outcomes.values())) == SUITE_COUNT, line
        assert any(o.endswith("loaded") for o in outcomes), line
        assert any(not o.endswith("loaded") for o in outcomes), line


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=SUITE_COUNT, help="cases per loader")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", help="one case, as loader:index")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    try:
        outcomes = run(args.count, args.seed, args.only)
    except Violation as e:
        print(f"VIOLATION: {e}", file=sys.stderr)
        return 1
    print(report(outcomes, time.perf_counter() - start))
    return 0


if __name__ == "__main__":
    sys.exit(main())
