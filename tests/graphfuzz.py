"""Graph files from strangers: damaged and crafted JSON graphs thrown at every graph loader.

A case starts from a valid export of a real graph (loops with their gradients, a cond, a
variable, a tf.data pipeline, several-output ops) and either *damages* its bytes (flips,
truncations, insertions, as a disk or a network does) or *crafts* a document that still
parses (a payload string in any field, wrong JSON types, unknown kinds, bad arity, huge or
negative shapes, deep nesting).  Each loader must then either load it -- and a Session that
runs every node must not run injected code -- or raise its one documented error
(``tf.errors.DataLossError``), leaving the graph it was loading into as it was::

    python -m tests.graphfuzz --count 20000 [--seed 0]    # the long run, outcomes by class

A payload creates a marker file when it runs; the marker must never appear.
"""
from __future__ import annotations

import argparse
import collections
import contextlib
import copy
import hashlib
import io
import json
import math
import os
import signal
import sys
import tempfile
import time
from typing import Any, Callable

import numpy as np

import staticgraph as tf
from staticgraph.interop.graph_schema import MAX_DEPTH

__all__ = ["GRAPHS", "payloads", "string_slots", "damage", "craft", "LOADERS", "run_case",
           "campaign", "exercise"]


# --- the graphs the cases start from -------------------------------------------------------

def _dense() -> tf.Graph:
    """A placeholder, a variable (its reads are store lookups), spelled ops, a train step."""
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        w = tf.Variable(np.ones((3, 2), np.float32), name="w")
        with tf.device("/job:worker/task:1"):
            y = tf.tanh(tf.matmul(x, w))
        loss = tf.reduce_sum(tf.transpose(y)[0, 1:])
        tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        tf.add_to_collection("losses", loss)
    return g


def _loops() -> tf.Graph:
    """A while_loop holding a cond and a variable read, its gradient, and a nested loop."""
    with tf.Graph().as_default() as g:
        xs = tf.placeholder(tf.float64, [None, 3], name="xs")
        steps = tf.placeholder(tf.int32, [], name="steps")
        w = tf.get_variable("w", [3, 3], tf.float64)

        def body(t, h):
            big = tf.reduce_sum(h) > 0.0
            return t + 1, tf.cond(big, lambda: tf.tanh(tf.matmul(h, w)), lambda: h * 0.5 + xs[t])
        _, h = tf.while_loop(lambda t, h: t < steps, body, [0, tf.ones((1, 3), tf.float64)])
        tf.gradients(tf.reduce_sum(h), [w, xs])
        tf.while_loop(lambda i: i < 3, lambda i: tf.while_loop(lambda j: j < 2, lambda j: j + 1, [i]) + 1,
                      [tf.constant(0)], maximum_iterations=5)
    return g


def _data() -> tf.Graph:
    """A tf.data pipeline (map/filter as traced bodies) behind a one-shot iterator."""
    with tf.Graph().as_default() as g:
        scale = tf.placeholder_with_default(tf.constant(2.0), [], name="scale")
        ds = (tf.data.Dataset.from_tensor_slices((np.arange(8.0, dtype=np.float32), np.arange(8)))
              .map(lambda a, b: (a * scale, b + 1)).filter(lambda a, b: b % 2 > 0).batch(2))
        a, b = tf.data.make_one_shot_iterator(ds).get_next()
        tf.identity(a, name="a")
    return g


def _misc() -> tf.Graph:
    """Several-output ops, strings in attributes, checks, a case, random ops."""
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [4, 2], name="x")
        top, _ = tf.split(x, 2, axis=0)
        vals, idx = tf.nn.top_k(x, 1)
        p = tf.Print(top, [top], "message: ")
        c = tf.check_numerics(p, "bad value")
        tf.case([(tf.reduce_sum(c) > 0, lambda: c * 2.0)], default=lambda: -c)
        tf.nn.dropout(tf.gather(x, [0, 2]), rate=0.5, seed=1)
    return g


GRAPHS: dict[str, Callable[[], tf.Graph]] = {"dense": _dense, "loops": _loops, "data": _data,
                                             "misc": _misc}


# --- what a load of a case must satisfy ----------------------------------------------------

class _TimedOut(BaseException):
    """A crafted loop that never ends (a changed constant): stopped (not an ``Exception``, so
    no kernel or run catches it)."""


def exercise(graph: tf.Graph, seconds: float = 5.0) -> bool:
    """Run every node of ``graph`` (placeholders fed ones, variables initialized): all at once,
    then one by one if that fails -- whatever raises, each line that may hold a payload runs.
    What its print nodes print is dropped.  False if it was stopped after ``seconds``."""
    feeds = {}
    for op in graph.get_operations():
        if op.type == "Placeholder":
            t = op.outputs[0]
            shape = [2] if t._shape is None else [1 if d is None else d for d in t._shape]
            if t.np_dtype.kind in "biuf" and math.prod(shape) < 10_000:
                feeds[t] = np.ones(shape, t.np_dtype)
    ops = [op for op in graph.get_operations() if op.type != "Placeholder"]
    quiet = io.StringIO()
    with tf.Session(graph=graph) as s, contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
        try:
            with _time_limit(seconds):
                for v in graph.get_collection(tf.GraphKeys.GLOBAL_VARIABLES):
                    _quietly(s.run, v.initializer)
                if not _quietly(s.run, ops, feeds):
                    for op in ops:
                        _quietly(s.run, op, feeds)
        except _TimedOut:
            return False
    return True


@contextlib.contextmanager
def _time_limit(seconds: float):
    """Raise _TimedOut in this (the main) thread after ``seconds``."""
    def stop(signum, frame):
        raise _TimedOut
    old = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _quietly(fn: Callable, *args) -> bool:
    try:
        fn(*args)
        return True
    except Exception:   # a crafted graph may fail to run: only code running would be wrong
        return False


def _state(graph: tf.Graph) -> tuple:
    return (list(graph._ops), dict(graph._names_in_use), dict(graph.grad_programs),
            {k: list(v) for k, v in graph._collections.items()})


def _prepared() -> tf.Graph:
    """A target graph with something in it besides nodes (a reserved name, a collection)."""
    g = tf.Graph()
    g.unique_name("taken")
    g.add_to_collection("notes", "kept")
    return g


def _from_json(text: str | bytes, workdir: str) -> tf.Graph:
    target = _prepared()
    before = _state(target)
    try:
        return tf.from_json(text, target)
    except tf.errors.DataLossError:
        assert _state(target) == before, "a failed from_json left a half-built graph"
        raise


def _import_meta_graph(text: str | bytes, workdir: str) -> tf.Graph:
    path = os.path.join(workdir, "model.meta")
    with open(path, "wb") as f:
        f.write(text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass"))
    with _prepared().as_default() as target:
        before = _state(target)
        try:
            tf.train.import_meta_graph(path)
        except tf.errors.DataLossError as e:
            assert _state(target) == before, "a failed import_meta_graph left a half-built graph"
            assert f"file {path}" in str(e), "the error does not name the file"
            raise
    return target


def _worker(text: str | bytes, workdir: str) -> tf.Graph:
    """A partition's text as a worker receives it (a str; the digest the driver computed)."""
    from staticgraph.client.distributed.worker import _load   # needs dask (an optional extra)
    if isinstance(text, bytes):
        text = text.decode("utf-8", "surrogateescape")
    return _load(hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest(), text)


LOADERS: dict[str, Callable[[str | bytes, str], tf.Graph]] = {
    "from_json": _from_json, "import_meta_graph": _import_meta_graph, "worker": _worker}


def run_case(text: str | bytes, loader: str, workdir: str, marker: str, run: bool = True) -> str:
    """Load ``text`` with ``loader`` (and run it when it loads); the outcome's class.

    ``"DataLossError"``, ``"loaded"`` or ``"loaded, run stopped"`` (a crafted loop that would
    not end); anything else raises AssertionError naming it."""
    try:
        graph = LOADERS[loader](text, workdir)
    except tf.errors.DataLossError as e:
        assert str(e).startswith("Cannot parse "), f"unclear error: {e}"
        outcome = "DataLossError"
    except AssertionError:
        raise
    except Exception as e:
        raise AssertionError(f"{loader} let {type(e).__name__} out: {e}"[:2000]) from e
    else:
        outcome = "loaded"
        if run and not exercise(graph):
            outcome = "loaded, run stopped"
    assert not os.path.exists(marker), f"injected code ran ({loader}, outcome {outcome})"
    return outcome


# --- damaged files ---------------------------------------------------------------------------

def damage(text: str, rng: np.random.Generator) -> bytes:
    """``text``'s bytes flipped, cut off, inserted or removed (as a disk or a network does)."""
    b = bytearray(text.encode())
    how = rng.integers(4)
    if how == 0:
        for _ in range(int(rng.integers(1, 4))):
            i = int(rng.integers(len(b)))
            b[i] ^= 1 << int(rng.integers(8))
    elif how == 1:
        del b[int(rng.integers(len(b))):]
    elif how == 2:
        i = int(rng.integers(len(b)))
        b[i:i] = bytes(rng.integers(0, 256, int(rng.integers(1, 8)), dtype=np.uint8))
    else:
        i = int(rng.integers(len(b)))
        del b[i:i + int(rng.integers(1, 16))]
    return bytes(b)


# --- crafted files ---------------------------------------------------------------------------

def payloads(marker: str) -> list[str]:
    """Strings that run ``open(marker, 'w')`` if pasted into source: after a line break at each
    indentation a generated function uses, or closing a string literal."""
    code = f"open({marker!r}, 'w').close()"
    out = [f"a{sep}{pad}{code}  #" for sep in ("\n", "\r", "\r\n", "\u2028", "\x0c\n", "\x00\n")
           for pad in ("", "    ", "        ", "            ")]
    out += [f"a{q}; {code}; {q}" for q in ("'", '"', "'''", '"""')]
    out += [f"a{q}]\n    {code}\n    #" for q in ("'", '"', "'''", '"""')]
    return out + [f"a\ud800\n    {code}  #"]     # a lone surrogate (JSON can escape one)


def string_slots(doc: Any) -> list[tuple]:
    """Every place in the document holding a string (value or object key): (container, key, is_key)."""
    slots, todo = [], [doc]
    while todo:
        node = todo.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for k, v in list(items):
            if isinstance(node, dict):
                slots.append((node, k, True))
            if isinstance(v, str):
                slots.append((node, k, False))
            elif isinstance(v, (dict, list)):
                todo.append(v)
    return slots


def _all_slots(doc: Any) -> list[tuple]:
    """Every (container, key) of the document, of any value type."""
    slots, todo = [], [doc]
    while todo:
        node = todo.pop()
        for k, v in list(node.items() if isinstance(node, dict) else enumerate(node)):
            slots.append((node, k))
            if isinstance(v, (dict, list)):
                todo.append(v)
    return slots


def _set_string(node, key, is_key: bool, value: str) -> None:
    if is_key:
        node[value] = node.pop(key)
    else:
        node[key] = value


_ODD_VALUES = [None, True, 0, -1, 1.5, 2 ** 63, -2 ** 40, "", "x", [], {}, [1, "a"], {"a": 1},
               {"__tuple__": "x"}, {"__ndarray__": [1, 2], "dtype": "<f4", "shape": [3]},
               {"__ndarray__": [], "dtype": "|V8", "shape": [0]}, {"__tensor__": "nosuch:0"},
               {"__op__": 3}, {"__region__": {}}, {"__dataset__": {"op": "GeneratorDataset"}},
               {"__dtype__": "O"}, {"__tfdtype__": "<c16"}, {"__slice__": [1, "2", None]}]


def craft(text: str, rng: np.random.Generator, marker: str) -> str:
    """One crafted variation of the valid JSON graph ``text``, as text."""
    doc = json.loads(text)
    how = rng.integers(8)
    pay = payloads(marker)
    if how == 0:     # a payload in strings the format leaves free: sites, devices, messages
        payload = _pick(pay, rng)
        for node, key, is_key in _free_strings(doc):
            if rng.integers(3) == 0:
                _set_string(node, key, is_key, payload)
    elif how == 1:   # a payload in any string, object keys included
        node, key, is_key = _pick(string_slots(doc), rng)
        _set_string(node, key, is_key, _pick(pay, rng))
    elif how == 2:   # any value replaced by one of another type
        node, key = _pick(_all_slots(doc), rng)
        node[key] = copy.deepcopy(_ODD_VALUES[int(rng.integers(len(_ODD_VALUES)))])
    elif how == 3:   # unknown or unloadable kinds, wrong types
        op = _pick(_ops(doc), rng)
        op[["kind", "type"][int(rng.integers(2))]] = ["NoSuchOp", "PyFunc", "Add", "Const",
                                                      "While", "9bad", "a b"][int(rng.integers(7))]
    elif how == 4:   # bad arity: inputs, outputs added or removed
        op = _pick(_ops(doc), rng)
        field = ["inputs", "outputs", "control"][int(rng.integers(3))]
        if op[field] and rng.integers(2):
            op[field].pop(int(rng.integers(len(op[field]))))
        else:
            op[field].append(copy.deepcopy(_pick(op[field], rng)) if op[field] else "x:0")
    elif how == 5:   # huge, negative or odd shapes
        op = _pick(_ops(doc), rng)
        if op["outputs"]:
            out = _pick(op["outputs"], rng)
            out["shape"] = [[2 ** 62], [-1], [10 ** 30], [1.5], ["3"], [None, -2], None, 3,
                            [2] * 40][int(rng.integers(9))]
    else:            # deep nesting, in an attribute or of the whole document
        depth = int(rng.integers(MAX_DEPTH - 2, 3 * MAX_DEPTH))
        if rng.integers(2):
            op = _pick(_ops(doc), rng)
            nested: Any = 1
            for _ in range(depth):
                nested = {"__tuple__": [nested]}
            op["attrs"]["deep"] = nested
        else:
            return "[" * depth * 40 + "]" * depth * 40
    return json.dumps(doc)


def _free_strings(doc: dict) -> list[tuple]:
    """Where any string is valid: each node's site and device, string attributes, collection
    keys -- as (container, key, is_key)."""
    slots = []
    for op in _ops(doc):
        slots += [(op, "site", False), (op, "device", False)]
        slots += [(op["attrs"], k, False) for k, v in op["attrs"].items() if isinstance(v, str)]
    return slots + [(doc["collections"], k, True) for k in doc.get("collections", {})]


def _ops(doc: dict) -> list[dict]:
    """Every node of the document, bodies' nodes included."""
    found, todo = [], [doc]
    while todo:
        node = todo.pop()
        if isinstance(node, dict):
            if isinstance(node.get("ops"), list):
                found += [op for op in node["ops"] if isinstance(op, dict)]
            todo += list(node.values())
        elif isinstance(node, list):
            todo += node
    return [op for op in found if all(k in op for k in ("inputs", "outputs", "control", "attrs"))]


def _pick(seq, rng: np.random.Generator):
    return seq[int(rng.integers(len(seq)))]


# --- a campaign -------------------------------------------------------------------------------

def campaign(count: int, seed: int = 0, loaders=None, run: bool = True) -> dict:
    """``count`` cases per loader (half damaged, half crafted), seeded; outcomes by class.

    Raises AssertionError at the first case a loader gets wrong (naming case and seed)."""
    loaders = list(loaders or LOADERS)
    texts = {name: tf.to_json(make()) for name, make in GRAPHS.items()}
    outcomes: collections.Counter = collections.Counter()
    with tempfile.TemporaryDirectory() as workdir:
        marker = os.path.join(workdir, "MARKER")
        rng = np.random.default_rng(seed)
        for case in range(count):
            name = list(GRAPHS)[case % len(GRAPHS)]
            crafted = case % 2 == 1
            text = craft(texts[name], rng, marker) if crafted else damage(texts[name], rng)
            ran = not run
            for loader in loaders:   # the graph each builds is from_json's: one of them runs it
                try:
                    out = run_case(text, loader, workdir, marker, not ran)
                    ran = ran or out.startswith("loaded")
                except AssertionError as e:
                    raise AssertionError(f"case {case} (seed {seed}, graph {name!r}, "
                                         f"{'crafted' if crafted else 'damaged'}): {e}") from e
                outcomes[(loader, "crafted" if crafted else "damaged", out)] += 1
    return dict(outcomes)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, default=2000, help="cases per loader")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--loaders", nargs="*", default=list(LOADERS))
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    outcomes = campaign(args.count, args.seed, args.loaders)
    for key, n in sorted(outcomes.items()):
        print(f"{' / '.join(key):50s} {n:7d}")
    print(f"{args.count} cases x {len(args.loaders)} loaders in {time.perf_counter() - t0:.1f} s: "
          f"no code ran, no other exception, no half-built graph")
    return 0


if __name__ == "__main__":
    sys.exit(main())
