"""ONNX files from strangers: ``import_graph`` refuses a damaged or crafted model with
``ModelImportError`` (naming the file and the problem), runs no code, allocates no more than
the file holds, and leaves the target graph as it was; a model it accepts runs, or fails
with a documented error.

The crafted cases below are regression tests (each failed before the importer validated its
input); the fuzz test mutates valid exports byte by byte.  The suite runs a few hundred
cases; a longer run, by hand::

    python -m tests.test_onnx_import_untrusted --count 5000 [--seed 1]

(or ``ONNX_FUZZ_COUNT=5000 pytest tests/test_onnx_import_untrusted.py``).
"""
from __future__ import annotations

import argparse
import collections
import functools
import os
import re
import signal
import sys
import tempfile
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

from onnx import TensorProto as TP, helper, numpy_helper  # noqa: E402

import dyngraph as torch  # noqa: E402
import staticgraph as tf  # noqa: E402
import staticgraph.interop.onnx as sgo  # noqa: E402
from staticgraph.control.control_flow import regions_of  # noqa: E402
from staticgraph.errors import OpError  # noqa: E402
from tests.test_onnx import _mlp  # noqa: E402

MARKER = Path(tempfile.gettempdir()) / f"onnx_import_untrusted_marker_{os.getpid()}"
"""Created by the code the crafted names carry, should anything ever execute it."""

INJECTED = [f"x\n    open({str(MARKER)!r}, 'w').close()  #", "'''\nopen(%r,'w')\n'''" % str(MARKER),
            "nul\x00byte", "a/", "//", ":0", "é\u202e"]
"""Names a model may carry: code on a line of its own (indented as a generated plan's body
is), a triple quote, NUL, a trailing slash (an exact scope name to ``create_op``), nothing but
separators, a bidi control character."""

TF_OP_NAME = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\\/>-]*$")   # TF's _VALID_OP_NAME_REGEX


def _model(nodes, inputs, outputs, inits=(), opset=18, **kw):
    return helper.make_model(helper.make_graph(nodes, "g", inputs, outputs, list(inits)),
                             opset_imports=[helper.make_opsetid("", opset)], **kw)


def _vi(name, shape=(2,), dtype=TP.FLOAT):
    return helper.make_tensor_value_info(name, dtype, None if shape is None else list(shape))


def _relu(x="x", y="y", **kw):
    return _model([helper.make_node("Relu", [x], [y], name="r")], [_vi(x)], [_vi(y)], **kw)


# --- valid models: what the fuzz test mutates ---------------------------------------------------

def _static_exports() -> dict[str, bytes]:
    """staticgraph.interop.onnx exports: an MLP with variables, a loop with a branch, shape ops."""
    out = {}
    g, x, probs, _ = _mlp()
    with tf.Session(graph=g) as sess:
        sess.run(tf.global_variables_initializer())
        out["static_mlp"] = sgo.to_model(sess, [probs], [x]).SerializeToString()
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, (3,), name="x")
        n = tf.placeholder(tf.float32, (), name="n")
        a, _ = tf.while_loop(lambda a, b: a < b, lambda a, b: (a + 2.0, b + 1.0),
                             [tf.constant(0.0), n])
        y = tf.cond(tf.reduce_sum(x) > 0, lambda: x * a, lambda: x - 1.0)
    out["static_loop_cond"] = sgo.to_model(None, [y], [x, n], graph=g).SerializeToString()
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, (2, 3), name="x")
        t = tf.transpose(tf.reshape(x, [3, 2]))
        c = tf.concat([t, x], axis=1)
        s = tf.reduce_sum(tf.expand_dims(c, 0), axis=[2], keepdims=True)
        y = tf.cast(tf.squeeze(s, [0]), tf.float64) + tf.cast(tf.maximum(x, 0.5), tf.float64)
    out["static_shapes"] = sgo.to_model(None, [y], [x], graph=g).SerializeToString()
    return out


def _dyngraph_export() -> bytes:
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 5), torch.nn.ReLU(), torch.nn.Linear(5, 2))
    with tempfile.TemporaryDirectory() as d:
        proto = torch.onnx.export(model, (torch.randn(2, 4),), os.path.join(d, "m.onnx"),
                                  dynamic_axes={"input": {0: "batch"}})
    return proto.SerializeToString()


def _hand_built() -> dict[str, bytes]:
    """Models as other exporters write them: Gemm, Constant + Cast + Where, Loop with a trip
    count, If with sub-graph initializers."""
    w = numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(2, 3), "w")
    gemm = _model([helper.make_node("Gemm", ["input", "w"], ["h"], transB=1, alpha=0.5),
                   helper.make_node("Relu", ["h"], ["output"])],
                  [_vi("input", ["batch", 3])], [_vi("output", ["batch", 2])], [w])
    consts = _model([helper.make_node("Constant", [], ["k"], value_ints=[1, 0, 1]),
                     helper.make_node("Cast", ["k"], ["c"], to=TP.BOOL),
                     helper.make_node("Constant", [], ["z"], value_float=0.0),
                     helper.make_node("Where", ["c", "x", "z"], ["y"])],
                    [_vi("x", [3])], [_vi("y", [3])])
    body = helper.make_graph(
        [helper.make_node("Add", ["v", "one"], ["v2"]),
         helper.make_node("Less", ["v2", "limit"], ["go"])], "body",
        [_vi("i", [], TP.INT64), _vi("c", [], TP.BOOL), _vi("v", [])],
        [_vi("go", [], TP.BOOL), _vi("v2", [])],
        [numpy_helper.from_array(np.array(1.5, np.float32), "one")])
    loop = _model([helper.make_node("Loop", ["m", "", "v0"], ["vn"], body=body)],
                  [_vi("m", [], TP.INT64), _vi("v0", [])], [_vi("vn", [])],
                  [numpy_helper.from_array(np.array(4.0, np.float32), "limit")])
    branch = lambda op, k: helper.make_graph(  # noqa: E731
        [helper.make_node(op, ["x", f"k{k}"], [f"o{k}"])], f"b{k}", [], [_vi(f"o{k}", [2])],
        [numpy_helper.from_array(np.full(2, k, np.float32), f"k{k}")])
    if_ = _model([helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
                  helper.make_node("Greater", ["s", "zero"], ["p"]),
                  helper.make_node("If", ["p"], ["y"], then_branch=branch("Mul", 2),
                                   else_branch=branch("Sub", 3))],
                 [_vi("x")], [_vi("y")], [numpy_helper.from_array(np.array(0, np.float32), "zero")])
    return {"gemm": gemm.SerializeToString(), "consts": consts.SerializeToString(),
            "loop": loop.SerializeToString(), "if": if_.SerializeToString()}


CORPUS = ("static_mlp", "static_loop_cond", "static_shapes", "dyngraph_mlp", "gemm", "consts",
          "loop", "if")


@functools.lru_cache(maxsize=None)
def corpus() -> dict[str, bytes]:
    """The valid models, by name (:data:`CORPUS`), made on first use (not at collection)."""
    models = {**_static_exports(), "dyngraph_mlp": _dyngraph_export(), **_hand_built()}
    assert tuple(models) == CORPUS
    return models


# --- crafted models: each a regression test, and a seed for the fuzz test ----------------------

def _tensor(name, dims, raw: bytes | None = None, dtype=TP.FLOAT, **fields):
    t = TP(name=name, data_type=dtype, dims=list(dims))
    if raw is not None:
        t.raw_data = raw
    for k, v in fields.items():
        getattr(t, k).extend(v)
    return t


def _add_init(t, x_shape=(2,)):
    return _model([helper.make_node("Add", ["x", t.name], ["y"], name="add")],
                  [_vi("x", x_shape)], [_vi("y", x_shape)], [t])


def _nested_ifs(depth: int):
    """``depth`` Ifs, each in the then_branch of the one outside it."""
    g = helper.make_graph([helper.make_node("Identity", ["x"], ["o0"])], "leaf", [], [_vi("o0")])
    for k in range(1, depth + 1):
        other = helper.make_graph([helper.make_node("Identity", ["x"], [f"e{k}"])], f"else{k}",
                                  [], [_vi(f"e{k}")])
        g = helper.make_graph([helper.make_node("If", ["p"], [f"o{k}"], then_branch=g,
                                                else_branch=other)], f"level{k}", [], [_vi(f"o{k}")])
    return _model(list(g.node), [_vi("x"), _vi("p", [], TP.BOOL)], [_vi(f"o{depth}")])


def _loop_with_scan():
    body = helper.make_graph([helper.make_node("Identity", ["c"], ["c2"]),
                              helper.make_node("Identity", ["v"], ["v2"]),
                              helper.make_node("Identity", ["v"], ["scan"])], "body",
                             [_vi("i", [], TP.INT64), _vi("c", [], TP.BOOL), _vi("v")],
                             [_vi("c2", [], TP.BOOL), _vi("v2"), _vi("scan")])
    return _model([helper.make_node("Loop", ["m", "", "x"], ["y", "ys"], body=body, name="loop")],
                  [_vi("m", [], TP.INT64), _vi("x")], [_vi("y"), _vi("ys", [None, 2])])


def _add_then_mismatch():
    """Two nodes that build, then one the shape rules refuse: nothing may stay behind."""
    return _model([helper.make_node("Relu", ["x"], ["a"], name="first"),
                   helper.make_node("Neg", ["a"], ["b"], name="second"),
                   helper.make_node("Add", ["b", "z"], ["y"], name="bad_add")],
                  [_vi("x", [2]), _vi("z", [3])], [_vi("y", [3])])


def _utf8_broken():
    data = _relu("xa").SerializeToString()
    return data.replace(b"xa", b"\xff\xfe")


def _external():
    t = _tensor("w", [2])
    t.data_location = TP.EXTERNAL
    t.external_data.add(key="location", value="/etc/passwd")
    return _add_init(t)


def _reshape_dynamic():
    return _model([helper.make_node("Reshape", ["x", "s"], ["y"], name="reshape")],
                  [_vi("x", [2, 3]), _vi("s", [2], TP.INT64)], [_vi("y", [3, 2])])


def _negative_input_dim():
    m = _relu()
    m.graph.input[0].type.tensor_type.shape.dim[0].dim_value = -3
    return m


REFUSED = {
    # name: (model or bytes, the message after "<file>: ")
    "empty file": (b"", r"No graph was found in the protobuf"),
    "garbage": (b"\xff\xff\xff\x07garbage", r"Protobuf parsing failed: not an ONNX model, or a "
                                            r"damaged one \(Error parsing message"),
    "empty graph": (_model([], [], []), r"the graph has no outputs"),
    "no ir_version": (helper.make_model(_relu().graph, ir_version=0,
                                        opset_imports=[helper.make_opsetid("", 18)]),
                      r"The model does not have an ir_version set properly: 0"),
    "old opset": (_relu(opset=9), r"the default ONNX domain's opset is 9: this importer reads "
                                  r"opsets 13 to \d+"),
    "dangling input": (_model([helper.make_node("Relu", ["z"], ["y"], name="r")], [_vi("x")],
                              [_vi("y")]),
                       r"Node input 'z' is not a graph input, initializer, or output of a "
                       r"previous node \(node 'r' \(Relu\) in the graph\)"),
    "cycle": (_model([helper.make_node("Add", ["x", "b"], ["a"], name="n1"),
                      helper.make_node("Relu", ["a"], ["b"], name="n2")], [_vi("x")], [_vi("a")]),
              r"Nodes in a graph must be topologically sorted, however input 'b' of node 'n1' "
              r"\(Add\) in the graph is not output of any previous nodes"),
    "unknown op": (_model([helper.make_node("Frobnicate", ["x"], ["y"], name="f")], [_vi("x")],
                          [_vi("y")]),
                   r"No Op registered for Frobnicate with domain_version of 18 \(node 'f'"),
    "other domain": (_model([helper.make_node("Relu", ["x"], ["y"], name="r", domain="com.x")],
                            [_vi("x")], [_vi("y")]),
                     r"ONNX op Relu of domain 'com.x' \(node 'r' in the graph\) has no "
                     r"staticgraph counterpart"),
    "arity": (_model([helper.make_node("Add", ["x"], ["y"], name="a")], [_vi("x")], [_vi("y")]),
              r"Node\(a\) with schema\(::Add:14\) has input size 1 not in range \[min=2, max=2\]"),
    "attr type": (_model([helper.make_node("Softmax", ["x"], ["y"], name="s", axis=1.5)],
                         [_vi("x")], [_vi("y")]),
                  r"Mismatched attribute type in 's : axis'. Expected: 'INT', actual: 'FLOAT'"),
    "unknown attr": (_model([helper.make_node("Relu", ["x"], ["y"], name="s", foo=1)],
                            [_vi("x")], [_vi("y")]),
                     r"Unrecognized attribute: foo for operator Relu"),
    "huge raw shape": (_add_init(_tensor("w", [100000, 100000], raw=b"\0" * 8)),
                       r"TensorProto \(tensor name: w\) raw_data size \(8 bytes\) does not match "
                       r"the declared shape \[100000, 100000\] and type FLOAT \(40000000000 bytes "
                       r"required\)"),
    "huge raw shape, 3 dims": (_add_init(_tensor("w", [2 ** 20, 2 ** 20, 2 ** 20], raw=b"\0" * 8)),
                               r"TensorProto \(tensor name: w\) raw_data size \(8 bytes\) does "
                               r"not match the declared shape \[1048576, 1048576, 1048576\] and "
                               r"type FLOAT \(4611686018427387904 bytes required\)"),
    "huge typed shape": (_add_init(_tensor("w", [2 ** 20, 2 ** 20, 2 ** 20], float_data=[1.0])),
                         r"TensorProto \(tensor name: w\) float_data size \(1\) does not match "
                         r"the declared shape \[1048576, 1048576, 1048576\] \(1152921504606846976 "
                         r"FLOAT values required\)"),
    "huge shape, more than an array holds": (
        _add_init(_tensor("w", [2 ** 40, 2 ** 40, 2 ** 40], float_data=[1.0])),
        r"tensor 'w' \(an initializer of the graph\) declares the shape \[1099511627776, "
        r"1099511627776, 1099511627776\]: more elements than an array can hold"),
    "empty but huge shape": (_add_init(_tensor("w", [0, 2 ** 62, 2 ** 62], raw=b"")),
                             r"tensor 'w' \(an initializer of the graph\) declares the shape "
                             r"\[0, 4611686018427387904, 4611686018427387904\]: more elements "
                             r"than an array can hold"),
    "rank 40": (_add_init(_tensor("w", [1] * 40, float_data=[1.0])),
                r"tensor 'w' \(an initializer of the graph\) has 40 dimensions: the importer "
                r"reads 32 at most"),
    "shape without data": (_add_init(_tensor("w", [2])),
                           r"TensorProto \(tensor name: w\) float_data size \(0\) does not "
                           r"match the declared shape \[2\] \(2 FLOAT values required\)"),
    "negative dim": (_add_init(_tensor("w", [-2], float_data=[1.0, 2.0])),
                     r"tensor 'w' \(an initializer of the graph\) declares the shape \[-2\]: "
                     r"sizes are at least 0"),
    "negative input dim": (_negative_input_dim(), r"graph input 'x' has dimension 0 of size "
                                                  r"-3: sizes are at least 0"),
    "string tensor": (_add_init(_tensor("w", [1], dtype=TP.STRING, string_data=[b"a"])),
                      r"tensor 'w' \(an initializer of the graph\) has element type STRING: "
                      r"staticgraph's are FLOAT, DOUBLE"),
    "cast to string": (_model([helper.make_node("Cast", ["x"], ["y"], name="c", to=TP.STRING)],
                              [_vi("x")], [_vi("y")]),
                       r"attribute 'to' of node 'c' \(Cast\) in the graph has element type STRING"),
    "bool out of range": (_add_init(_tensor("w", [2], dtype=TP.BOOL, int32_data=[1, 7])),
                          r"tensor 'w' \(an initializer of the graph\) holds 7 in int32_data, "
                          r"outside BOOL's range 0..1"),
    "external data": (_external(), r"tensor 'w' \(an initializer of the graph\) keeps its data in "
                                   r"another file \(external data is not imported"),
    "duplicate outputs": (_model([helper.make_node("Relu", ["x"], ["y"], name="a"),
                                  helper.make_node("Neg", ["x"], ["y"], name="b")],
                                 [_vi("x")], [_vi("y")]),
                          r"Graph must be in single static assignment \(SSA\) form, however 'y' "
                          r"has been used as output names multiple times"),
    "duplicate graph outputs": (_model([helper.make_node("Relu", ["x"], ["y"])], [_vi("x")],
                                       [_vi("y"), _vi("y")]),
                                r"output 'y' of the graph is listed twice"),
    "missing graph output": (_model([helper.make_node("Relu", ["x"], ["y"])], [_vi("x")],
                                    [_vi("q")]),
                             r"Graph output 'q' is not an output of any node in the graph"),
    "not utf-8": (_utf8_broken(), r"graph input b'\\xff\\xfe' is not valid UTF-8 text"),
    "nested too deep": (_nested_ifs(17), r"the else_branch of node 'o1' \(If\) is nested 17 "
                                         r"sub-graphs deep: the importer reads 16 at most"),
    "scan outputs": (_loop_with_scan(), r"node 'loop' \(Loop\) in the graph: scan outputs are not "
                                        r"imported"),
    "shape computed at run time": (_reshape_dynamic(),
                                   r"node 'reshape' \(Reshape\): its shape \(input 1, 's'\) is "
                                   r"computed at run time; staticgraph takes shape as an attribute"),
    "shape mismatch after two good nodes": (_add_then_mismatch(),
                                            r"node 'bad_add' \(Add\): Dimensions must be "
                                            r"equal, but are 2 and 3"),
}


def _bytes(m) -> bytes:
    return m if isinstance(m, bytes) else m.SerializeToString()


# --- one case: import, check, run -------------------------------------------------------------

class _Timeout(BaseException):
    """A run stopped by the alarm (BaseException: no ``except Exception`` on the way turns it
    into something else)."""


def _target() -> tuple[tf.Graph, list]:
    """A graph with ops of its own; what must not change when an import fails."""
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, (2,), name="x")
        tf.identity(x, name="input")
    return g, [(op.name, op.type) for op in g.get_operations()]


def _all_ops(graph):
    """Every op, the ones inside loop and branch regions too."""
    stack = list(graph.get_operations())
    while stack:
        op = stack.pop()
        yield op
        if op.type in ("While", "StatelessWhile", "If", "StatelessIf"):
            for region in regions_of(op):
                stack.extend(region.graph.get_operations())


def _feed(t, rng):
    shape = [2 if d is None else d for d in (t.shape.as_list() or [])] if t.shape.ndims is not None else [2]
    v = rng.standard_normal(shape) * 3
    return v.astype(t.dtype.as_numpy_dtype)


RUN_LIMIT = 10 ** 6   # elements: a result larger than this is not run (the run would be slow)


def _too_big(graph) -> bool:
    for op in _all_ops(graph):
        for t in op.outputs:
            if t.shape.ndims is not None and np.prod([2 if d is None else d for d in t.shape.as_list()],
                                                    dtype=float) > RUN_LIMIT:
                return True
    return False


def attempt(data: bytes, path: Path, rng) -> str:
    """Import ``data`` (written to ``path``) into a graph of its own; the outcome's class.

    Asserts the promises: ModelImportError only, naming the file; the target graph unchanged
    when it fails; no code run; at most 16 x the file's size + 4 MiB allocated; op names TF
    allows; a run that works, or raises an OpError, or runs on (a loop) until stopped."""
    path.write_bytes(data)
    graph, before = _target()
    version = graph.version
    tracemalloc.start()
    try:
        imported = sgo.import_graph(path, graph=graph)
    except sgo.ModelImportError as e:
        imported, refused = None, e
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert not MARKER.exists(), "code from the file ran"
    assert peak <= 16 * len(data) + 4 * 2 ** 20, f"import allocated {peak} bytes for a {len(data)}-byte file"
    if imported is None:
        msg = str(refused)
        assert msg.startswith(f"{path}: "), msg
        assert [(op.name, op.type) for op in graph.get_operations()] == before, msg
        assert graph.version == version
        return "refused: " + _problem(msg[len(str(path)) + 2:])
    names = [op.name for op in _all_ops(graph)]
    assert all(TF_OP_NAME.match(n) for n in names), [n for n in names if not TF_OP_NAME.match(n)]
    assert [(op.name, op.type) for op in graph.get_operations()][:len(before)] == before
    if _too_big(graph):
        return "imported; not run (a result above 10**6 elements)"
    feeds = {t: _feed(t, rng) for t in imported.inputs.values()}
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, 2.0)
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"), tf.Session(graph=graph) as s:
            warnings.simplefilter("ignore")
            s.run(list(imported.outputs.values()), feeds)
        outcome = "imported; ran"
    except OpError as e:
        outcome = f"imported; run raised {type(e).__name__}"
    except _Timeout:
        assert any(op.type in ("While", "StatelessWhile") for op in _all_ops(graph))
        outcome = "imported; a loop still running after 2 s, stopped"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert not MARKER.exists(), "code from the file ran"
    return outcome


def _alarm(signum, frame):
    raise _Timeout


def _problem(msg: str) -> str:
    """A refusal's class: its first words, with names and numbers left out."""
    msg = re.sub(r"'[^']*'|\([^)]*\)|b'.*?'|\d+", "_", msg.split("\n")[0])
    return " ".join(msg.split()[:8])


# --- mutations ---------------------------------------------------------------------------------

def mutate(data: bytes, rng) -> bytes:
    """One random damage: half the time to a field of the parsed model (what gets past the
    parser), else to the bytes."""
    if rng.random() < 0.5:
        try:
            return mutate_field(onnx.ModelProto.FromString(data), rng)
        except Exception:  # noqa: BLE001  (bytes that do not parse: damage the bytes)
            pass
    return mutate_bytes(data, rng)


def _fields(msg, out: list) -> list:
    """Every (message, field, index) of ``msg``, nested ones too: index None for a repeated
    field as a whole, -1 for a singular scalar."""
    for field, value in msg.ListFields():
        if field.is_repeated:
            out.append((msg, field, None))
            for i, v in enumerate(value):
                if field.type == field.TYPE_MESSAGE:
                    _fields(v, out)
                else:
                    out.append((msg, field, i))
        elif field.type == field.TYPE_MESSAGE:
            _fields(value, out)
        else:
            out.append((msg, field, -1))
    return out


def _new_value(field, old, names: list, rng):
    if field.type == field.TYPE_STRING:
        return [*names, *INJECTED, ""][rng.integers(len(names) + len(INJECTED) + 1)]
    if field.type == field.TYPE_BYTES:
        return [old[:len(old) // 2], old + old, b"", old[1:]][rng.integers(4)]
    if field.type in (field.TYPE_FLOAT, field.TYPE_DOUBLE):
        return [float("nan"), float("inf"), -0.0, 1e30, 0.5][rng.integers(5)]
    if field.type == field.TYPE_BOOL:
        return not old
    return [0, 1, -1, 2, 7, 16, 2 ** 31 - 1, 2 ** 40, -2 ** 62, old + 1, old - 1][rng.integers(11)]


def mutate_field(model, rng) -> bytes:
    """One field of ``model`` changed: a scalar set to a boundary value or another name, or a
    repeated field's element dropped or duplicated."""
    fields = _fields(model, [])
    names = sorted({v for m, f, i in fields if f.type == f.TYPE_STRING and i is not None
                    for v in ([getattr(m, f.name)] if i == -1 else [getattr(m, f.name)[i]])})
    msg, field, i = fields[rng.integers(len(fields))]
    values = getattr(msg, field.name)
    if i is None:
        k = rng.integers(len(values))
        if rng.random() < 0.5:
            del values[k]
        elif field.type == field.TYPE_MESSAGE:
            values.add().CopyFrom(values[k])
        else:
            values.append(values[k])
    else:
        new = _new_value(field, getattr(msg, field.name) if i == -1 else values[i], names, rng)
        try:
            if i == -1:
                setattr(msg, field.name, new)
            else:
                values[i] = new
        except (ValueError, TypeError):   # out of the field's range: a closed enum, uint64
            pass
    return model.SerializeToString()


def mutate_bytes(data: bytes, rng) -> bytes:
    """Flipped bytes, a truncation, a cut-out span or a duplicated span."""
    if not data:
        return rng.integers(0, 256, rng.integers(1, 16), dtype=np.uint8).tobytes()
    b = bytearray(data)
    kind = rng.integers(4)
    if kind == 0:
        for _ in range(rng.integers(1, 5)):
            b[rng.integers(len(b))] ^= int(rng.integers(1, 256))
    elif kind == 1:
        del b[rng.integers(len(b)):]
    elif kind == 2:
        i = rng.integers(len(b))
        del b[i:i + rng.integers(1, 16)]
    else:
        i = rng.integers(len(b))
        b[i:i] = b[i:i + rng.integers(1, 16)]
    return bytes(b)


def cases(count: int, seed: int):
    """(label, bytes): the crafted models, then ``count`` mutations of valid and crafted ones."""
    seeds = {**corpus(), **{k: _bytes(m) for k, (m, _) in REFUSED.items()},
             **{f"injected {i}": _relu(name, f"{name}_out").SerializeToString()
                for i, name in enumerate(INJECTED)}}
    yield from seeds.items()
    rng = np.random.default_rng(seed)
    names = sorted(corpus()) * 3 + sorted(seeds)     # mostly the valid exports
    for k in range(count):
        base = names[rng.integers(len(names))]
        yield f"{base} #{k}", mutate(seeds[base], rng)


def run(count: int, seed: int, tmp: Path) -> collections.Counter:
    rng = np.random.default_rng(seed + 1)
    outcomes = collections.Counter()
    for label, data in cases(count, seed):
        try:
            outcomes[attempt(data, tmp / "case.onnx", rng)] += 1
        except BaseException as e:
            raise AssertionError(f"case {label!r} (seed {seed}): {type(e).__name__}: {e}") from e
    return outcomes


# --- the tests ---------------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(REFUSED))
def test_crafted_model_is_refused_by_name(name, tmp_path):
    model, pattern = REFUSED[name]
    path = tmp_path / "crafted.onnx"
    path.write_bytes(_bytes(model))
    graph, before = _target()
    with pytest.raises(sgo.ModelImportError) as info:
        sgo.import_graph(path, graph=graph)
    assert re.match(re.escape(f"{path}: ") + pattern, str(info.value)), str(info.value)
    assert [(op.name, op.type) for op in graph.get_operations()] == before


def test_a_huge_declared_shape_is_refused_before_allocating(tmp_path):
    path = tmp_path / "huge.onnx"
    path.write_bytes(_add_init(_tensor("w", [2 ** 16, 2 ** 16], raw=b"\0" * 8)).SerializeToString())
    tracemalloc.start()
    with pytest.raises(sgo.ModelImportError, match="raw_data size"):
        sgo.import_graph(path)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 2 ** 20, peak


def test_a_model_proto_and_a_file_object_are_named_so(tmp_path):
    with pytest.raises(sgo.ModelImportError, match=r"^<ModelProto>: the graph has no outputs"):
        sgo.import_graph(_model([], [], []))
    path = tmp_path / "e.onnx"
    path.write_bytes(b"")
    named = f"^{re.escape(str(path))}: No graph"
    with open(path, "rb") as f, pytest.raises(sgo.ModelImportError, match=named):
        sgo.import_graph(f)
    with pytest.raises(FileNotFoundError):
        sgo.import_graph(tmp_path / "missing.onnx")


@pytest.mark.parametrize("name", INJECTED)
def test_names_become_tf_op_names_and_run_no_code(name, tmp_path):
    graph, before = _target()
    imported = sgo.import_graph(_relu(name, "out"), graph=graph)
    ph = imported.inputs[name]
    assert TF_OP_NAME.match(ph.op.name), ph.op.name
    assert [(op.name, op.type) for op in graph.get_operations()][:len(before)] == before
    assert graph.get_operation_by_name("x").type == "Placeholder"       # not replaced
    with tf.Session(graph=graph) as s:
        got = s.run(imported.outputs["out"], {ph: np.array([-1.0, 2.0], np.float32)})
    assert got.tolist() == [0.0, 2.0]
    assert not MARKER.exists()


def test_a_loop_named_with_code_runs_no_code():
    """A Loop's node name names the while op, which a compiled plan's source mentions: with
    the name as the file has it, this run would execute the line it carries."""
    model = onnx.ModelProto.FromString(corpus()["loop"])
    model.graph.node[0].name = INJECTED[0]
    imported = sgo.import_graph(model)
    assert TF_OP_NAME.match(imported.outputs["vn"].op.name)
    with tf.Session(graph=imported.graph) as s:
        got = s.run(imported.outputs["vn"], {imported.inputs["m"]: np.array(9),
                                             imported.inputs["v0"]: np.array(0.0, np.float32)})
    assert got == 4.5 and not MARKER.exists()


def test_a_finalized_graph_is_refused_before_reading_the_file(tmp_path):
    graph, before = _target()
    graph.finalize()
    with pytest.raises(RuntimeError, match="Graph is finalized and cannot be modified."):
        sgo.import_graph(tmp_path / "never_read.onnx", graph=graph)
    assert [(op.name, op.type) for op in graph.get_operations()] == before


def test_a_trailing_slash_does_not_take_an_existing_name():
    graph, _ = _target()
    x = graph.get_operation_by_name("x")
    imported = sgo.import_graph(_relu("x/", "y"), graph=graph)
    assert graph.get_operation_by_name("x") is x
    assert imported.inputs["x/"].op.name == "x_1"


def _ort(model, feeds):
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


def _both(model, feeds):
    """(onnxruntime's results, the imported graph's) for ``feeds`` keyed by input name."""
    imported = sgo.import_graph(model)
    with tf.Session(graph=imported.graph) as s:
        got = s.run(list(imported.outputs.values()),
                    {imported.inputs[k]: v for k, v in feeds.items()})
    return _ort(model, feeds), got


@pytest.mark.parametrize("name", CORPUS)
def test_every_model_the_fuzz_test_starts_from_imports_and_matches_onnxruntime(name):
    model = onnx.ModelProto.FromString(corpus()[name])
    rng = np.random.default_rng(0)
    feeds = {}
    for vi in model.graph.input:
        t = vi.type.tensor_type
        dims = [d.dim_value if d.HasField("dim_value") else 2 for d in t.shape.dim]
        dtype = onnx.helper.tensor_dtype_to_np_dtype(t.elem_type)
        feeds[vi.name] = np.asarray(rng.standard_normal(dims) * 3).astype(dtype)
    want, got = _both(model, feeds)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


def test_reshape_zero_copies_the_input_size_as_onnx_does():
    shape = numpy_helper.from_array(np.array([0, -1], np.int64), "shape")
    model = _model([helper.make_node("Reshape", ["x", "shape"], ["y"])], [_vi("x", [2, 3, 2])],
                   [_vi("y", [2, 6])], [shape])
    x = np.arange(12, dtype=np.float32).reshape(2, 3, 2)
    want, got = _both(model, {"x": x})
    assert got[0].shape == want[0].shape == (2, 6)


def test_expand_broadcasts_both_ways_as_onnx_does():
    shape = numpy_helper.from_array(np.array([2, 1], np.int64), "shape")
    model = _model([helper.make_node("Expand", ["x", "shape"], ["y"])], [_vi("x", [1, 3])],
                   [_vi("y", [2, 3])], [shape])
    x = np.arange(3, dtype=np.float32).reshape(1, 3)
    want, got = _both(model, {"x": x})
    np.testing.assert_array_equal(got[0], want[0])


def test_reduce_with_empty_axes_and_noop_is_the_input_as_onnx_does():
    axes = numpy_helper.from_array(np.array([], np.int64), "axes")
    model = _model([helper.make_node("ReduceSum", ["x", "axes"], ["y"], noop_with_empty_axes=1)],
                   [_vi("x", [2, 3])], [_vi("y", [2, 3])], [axes])
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    want, got = _both(model, {"x": x})
    np.testing.assert_array_equal(got[0], want[0])


def test_loaders_given_onnx_attributes_read_them():
    """An op loaded as its registry op gets the node's attributes as is: only ops whose ONNX
    schema has none may be loaded that way (an attribute would reach the op unread)."""
    from staticgraph.interop.onnx.importer import _loaders
    from staticgraph.interop.onnx.rules import _apply_load
    passed_as_is = [t for t, (_, load) in _loaders().items() if load is _apply_load]
    assert passed_as_is and not [t for t in passed_as_is
                                 if onnx.defs.get_schema(t, sgo.DEFAULT_OPSET).attributes]


def test_fuzzed_files_are_refused_or_run(tmp_path):
    count = int(os.environ.get("ONNX_FUZZ_COUNT", "300"))
    outcomes = run(count, seed=0, tmp=tmp_path)
    assert sum(outcomes.values()) == count + len(REFUSED) + len(INJECTED) + len(corpus())
    assert sum(v for k, v in outcomes.items() if k.startswith("refused")) > count // 4
    assert outcomes["imported; ran"] > count // 20


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--count", type=int, default=5000)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as d:
        outcomes = run(args.count, args.seed, Path(d))
    total = sum(outcomes.values())
    print(f"{total} cases ({args.count} mutated, seed {args.seed}) in "
          f"{time.perf_counter() - start:.1f} s")
    for k, v in outcomes.most_common():
        print(f"{v:6d}  {k}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
