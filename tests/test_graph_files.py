"""Graph files from strangers: names checked as TF checks them, no string from a graph ever
pasted into generated source unescaped, every field of a loaded file checked, one clear error
(``DataLossError``) for a file that is not a valid graph, and nothing half-built.

The long campaign over damaged and crafted files is ``python -m tests.graphfuzz --count 20000``;
a few hundred of its cases run here (``GRAPHFUZZ_COUNT`` sets how many).
"""
import json
import os
import re

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.framework.graph import pinned_site
from tests import graphfuzz

pytestmark = pytest.mark.usefixtures("fresh_graph")

ROOT = r"A root scope name has to match the following pattern: ^[A-Za-z0-9.][A-Za-z0-9_.\\/>-]*$"
SCOPE = r"A scope name has to match the following pattern: ^[A-Za-z0-9_.\\/>-]*$"


def _scope(name):
    with tf.name_scope(name) as s:
        return s


def _variable_scope(name):
    with tf.variable_scope(name) as s:
        return s.name


def _x():
    return tf.placeholder(tf.float32, name="x")


# (what the program does, the name it gives, what TF 2.21 says: None when TF accepts it)
NAMES = [
    (lambda n: tf.identity(_x(), name=n), "a\nprint(1)  #", f"'a\nprint(1)  #' is not a valid root scope name. {ROOT}"),
    (lambda n: tf.identity(_x(), name=n), "_a", f"'_a' is not a valid root scope name. {ROOT}"),
    (lambda n: tf.identity(_x(), name=n), "a b", f"'a b' is not a valid root scope name. {ROOT}"),
    (lambda n: tf.identity(_x(), name=n), "a:b", f"'a:b' is not a valid root scope name. {ROOT}"),
    (lambda n: tf.identity(_x(), name=n), "a/b", None),
    (lambda n: tf.placeholder(tf.float32, name=n), "p\nq", f"'p\nq' is not a valid root scope name. {ROOT}"),
    (_scope, "a\nb", f"'a\nb' is not a valid root scope name. {ROOT}"),
    (_scope, "a b/", f"'a b/' is not a valid root scope name. {ROOT}"),
    (_variable_scope, "a\nb", f"'a\nb' is not a valid root scope name. {ROOT}"),
    (lambda n: tf.Variable(1.0, name=n), "v\nw", f"'v\nw' is not a valid root scope name. {ROOT}"),
    (lambda n: tf.get_variable(n, shape=[]), "v\nw", f"'v\nw' is not a valid root scope name. {ROOT}"),
    (lambda n: tf.group(_x().op, name=n), "g\n/", f"'g\n/' is not a valid root scope name. {ROOT}"),
]
IN_SCOPE = [   # the same inside ``with tf.name_scope("outer"):`` / ``tf.variable_scope("outer")``
    (lambda n: tf.identity(_x(), name=n), "a\nb", f"'a\nb' is not a valid scope name. {SCOPE}"),
    (lambda n: tf.identity(_x(), name=n), "_a", None),
    (lambda n: tf.identity(_x(), name=n), "-a", None),
    (_scope, "a\nb", f"'a\nb' is not a valid scope name. {SCOPE}"),
    (lambda n: tf.Variable(1.0, name=n), "v\nw", f"'v\nw' is not a valid scope name. {SCOPE}"),
]


@pytest.mark.parametrize("make, name, message", NAMES + [(m, n, e) for m, n, e in IN_SCOPE])
def test_names_are_checked_where_a_program_gives_them_with_tfs_words(make, name, message):
    nested = (make, name, message) in IN_SCOPE
    with tf.name_scope("outer") if nested else tf.name_scope(None):
        if message is None:
            make(name)
            return
        before = len(tf.get_default_graph().get_operations())
        with pytest.raises(ValueError) as e:
            make(name)
    assert str(e.value) == message
    assert len(tf.get_default_graph().get_operations()) <= before + 1   # at most the _x() input


def test_a_variable_scope_prefix_makes_the_variable_name_a_root_name_as_in_tf():
    with tf.variable_scope("vouter"):
        with pytest.raises(ValueError, match=re.escape(f"'vouter/v\nw' is not a valid root scope name. {ROOT}")):
            tf.get_variable("v\nw", shape=[])
        assert tf.get_variable("_w", shape=[]).name == "vouter/_w:0"


def test_a_trailing_newline_is_refused_where_tfs_pattern_lets_it_through():
    with pytest.raises(ValueError, match="is not a valid root scope name"):
        tf.identity(_x(), name="abc\n")   # TF 2.21 accepts 'abc\n' ($ matches before a newline)


def test_generated_source_writes_sites_and_names_through_repr(tmp_path):
    """A creation site is a file path: any string.  It reaches the compiled plan and the
    loop kernels only as a string literal inside a comment."""
    marker = tmp_path / "MARKER"
    site = f"a\n    open({str(marker)!r}, 'w').close()  #"
    with pinned_site(site):
        x = tf.placeholder(tf.float32, [2], name="x")
        y = tf.tanh(x)
        _, z = tf.while_loop(lambda i, v: i < 2, lambda i, v: (i + 1, v * 2.0), [0, y])
    with tf.Session() as s:
        np.testing.assert_allclose(s.run(z, {x: [1.0, 2.0]}), 4 * np.tanh([1.0, 2.0]))
        source = s.compiled(z, {x: [1.0, 2.0]}).source
    assert not marker.exists()
    assert f"# Tanh 'Tanh' ({site!r})" in source and site not in source


@pytest.fixture
def marker(tmp_path):
    path = tmp_path / "MARKER"
    yield str(path)
    assert not path.exists(), "injected code ran"


@pytest.mark.parametrize("graph", ["dense", "loops"])
def test_a_payload_in_any_string_of_a_graph_file_never_runs(graph, marker, tmp_path):
    """Every string of the file -- names, types, kinds, devices, attribute values and keys,
    dtype names, tensor references, collection keys, field names -- holding a line break and
    code at every indentation, or a quote closing a literal: refused, or loaded and run
    harmlessly.  Two strings of each kind (the field they are in, or the key they are);
    sites, free in every node, are the next test's; the fuzz test picks any slot."""
    doc = json.loads(tf.to_json(graphfuzz.GRAPHS[graph]()))
    payloads = graphfuzz.payloads(marker)
    chosen = [payloads[i] for i in (1, 6, 10, 13, 16, 18, 20, 26, 30, len(payloads) - 1)]
    outcomes, seen = set(), {}
    slots = []
    for node, key, is_key in graphfuzz.string_slots(doc):
        kind = (is_key, key if isinstance(key, str) else type(node[key]).__name__)
        seen[kind] = seen.get(kind, 0) + 1
        if key != "site" and seen[kind] <= 2:
            slots.append((node, key, is_key))
    for k, (node, key, is_key) in enumerate(slots):
        original = key if is_key else node[key]
        graphfuzz._set_string(node, key, is_key, chosen[k % len(chosen)])
        outcomes.add(graphfuzz.run_case(json.dumps(doc), "from_json", str(tmp_path), marker))
        graphfuzz._set_string(node, chosen[k % len(chosen)] if is_key else key, is_key, original)
    assert outcomes == {"loaded", "DataLossError"}


def test_every_site_holding_a_payload_loads_and_runs_without_running_it(marker, tmp_path):
    """The one field the format leaves free in every node (a site is any file path): all of
    them at once, for each payload, through both file loaders."""
    doc = json.loads(tf.to_json(graphfuzz.GRAPHS["loops"]()))
    for payload in graphfuzz.payloads(marker)[:24:5]:
        for op in graphfuzz._ops(doc):
            op["site"] = payload
        for loader in ("from_json", "import_meta_graph"):
            assert graphfuzz.run_case(json.dumps(doc), loader, str(tmp_path), marker) == "loaded"


def _saved(tmp_path, text: str | bytes) -> str:
    path = str(tmp_path / "model.meta")
    with open(path, "wb") as f:
        f.write(text if isinstance(text, bytes) else text.encode())
    return path


def _refused(path: str, message: str) -> None:
    """import_meta_graph(path) raises DataLossError naming the file, ``message`` (a regex)
    in it, and leaves the default graph empty."""
    with tf.Graph().as_default() as g:
        with pytest.raises(tf.errors.DataLossError) as e:
            tf.train.import_meta_graph(path)
        assert g.get_operations() == []
    assert str(e.value).startswith(f"Cannot parse file {path}: ")
    assert re.search(message, str(e.value)), str(e.value)


def _dense_doc() -> dict:
    return json.loads(tf.to_json(graphfuzz.GRAPHS["dense"]()))


def _op(doc, name):
    return next(op for op in doc["ops"] if op["name"] == name)


def _loop(doc):
    return next(op for op in doc["ops"] if op["type"] == "StatelessWhile")


def _rename(attrs: dict, old: str, new: str) -> None:
    attrs[new] = attrs.pop(old)


def _set(path, value):
    def change(doc):
        *where, last = path(doc)
        target = doc
        for k in where:
            target = target[k] if not callable(k) else k(target)
        target[last] = value
    return change


# (what is changed, what the error says after "Cannot parse file <path>: ")
FIELDS = [
    (lambda d: _op(d, "Tanh").update(name="y\nprint(1)"), r"ops\[\d+\]: Node 'y\\nprint\(1\)': Node name contains invalid characters"),
    (lambda d: _op(d, "Tanh").update(name="x"), r"Node 'x' is not unique"),
    (lambda d: _op(d, "Tanh").update(kind="NoSuchOp"), r"node 'Tanh' at ops\[\d+\]: Op type not registered 'NoSuchOp'"),
    (lambda d: _op(d, "Tanh").update(type="Tanh'\n"), r"node 'Tanh' at ops\[\d+\]: \"Tanh'\\n\" is not an op type name"),
    (lambda d: _op(d, "Tanh").update(site=3), r"'site' must be a string, not an integer"),
    (lambda d: _op(d, "Tanh").update(extra=1), r"unknown field 'extra' in a node"),
    (lambda d: _op(d, "Tanh").pop("outputs"), r"a node needs the field 'outputs'"),
    (lambda d: _op(d, "Tanh")["inputs"].append("x:0"), r"Tanh takes 1 inputs \(x\), not 2"),
    (lambda d: _op(d, "Tanh")["outputs"].append({"shape": None, "dtype": "<f4"}), r"Tanh has 1 output, not 2"),
    (lambda d: _op(d, "Tanh")["attrs"].update(axis=1), r"Tanh has no attribute 'axis'"),
    (lambda d: _rename(_op(d, "w/Initializer/initial_value")["attrs"], "value", "values"), r"node 'w/Initializer/initial_value' at ops\[\d+\]: Const has no attribute 'values'"),
    (lambda d: _op(d, "w/Initializer/initial_value")["attrs"].pop("value"), r"node 'w/Initializer/initial_value' at ops\[\d+\]: Const is missing attribute 'value'"),
    (lambda d: _rename(_op(d, "w")["attrs"], "shared_name", "name"), r"node 'w' at ops\[\d+\]: VarHandleOp has no attribute 'name'"),
    (lambda d: _op(d, "w")["attrs"].pop("shared_name"), r"node 'w' at ops\[\d+\]: VarHandleOp is missing attribute 'shared_name'"),
    (lambda d: _op(d, "Tanh")["inputs"].__setitem__(0, "nosuch:0"), r"Node 'Tanh': Unknown input node 'nosuch'"),
    (lambda d: _op(d, "Tanh")["inputs"].__setitem__(0, "MatMul:3"), r"Node 'Tanh': Connecting to invalid output 3 of source node MatMul which has 1 outputs."),
    (lambda d: _op(d, "x")["inputs"].append("Tanh:0"), r"Node 'x': Unknown input node 'Tanh' \(a node may only use nodes listed before it\)"),
    (lambda d: _op(d, "Tanh")["control"].append("^x"), r"Unknown input node '\^x'"),
    (lambda d: _op(d, "Tanh")["outputs"][0].update(shape=[-1, 2]), r"outputs\[0\]: a shape's dimensions must be non-negative integers or null, not -1"),
    (lambda d: _op(d, "Tanh")["outputs"][0].update(shape=["2) or open('f', 'w') or (2"]), r"must be non-negative integers or null, not \"2\) or open"),
    (lambda d: _op(d, "Tanh")["outputs"][0].update(dtype="O"), r"'O' is not a dtype \(known: "),
    (lambda d: _op(d, "x")["attrs"].update(dtype={"__tfdtype__": "<c16"}), r"attrs\['dtype'\]: '<c16' is not a dtype"),
    (lambda d: _op(d, "x")["attrs"].update(shape=[2, 3]), r"an attribute value is never a plain list"),
    (lambda d: _op(d, "x")["attrs"].update(shape={"__code__": "x"}), r"unknown attribute value \['__code__'\]"),
    (lambda d: _op(d, "x")["attrs"].update(shape={"__tuple__": [1], "x": 2}), r"unknown field 'x' in a __tuple__ value"),
    (lambda d: _op(d, "w/Initializer/initial_value")["attrs"].update(value={"__ndarray__": [[1, 2]], "dtype": "<f4", "shape": [3, 2]}), r"an array's values do not have its shape \[3, 2\]"),
    (lambda d: _op(d, "w/Initializer/initial_value")["attrs"].update(value={"__ndarray__": ["a"], "dtype": "<f4", "shape": [1]}), r"an array of float32 holds a string 'a'"),
    (lambda d: _op(d, "w/Initializer/initial_value")["attrs"].update(value={"__ndarray__": [{}], "dtype": "|O", "shape": [1]}), r"an array of object holds an object"),
    (lambda d: d["variables"][0].update(op="Tanh"), r"variables\[0\]: 'Tanh' is not a VarHandleOp"),
    (lambda d: d["variables"][0].update(trainable="yes"), r"'trainable' must be true or false, not a string"),
    (lambda d: d["collections"].update(losses=[["code", "x"]]), r"collections\['losses'\]: a collection item is \[\"variable\"\|\"tensor\"\|\"op\", name\]"),
    (lambda d: d["collections"].update(losses=[["variable", "x"]]), r"'x' is not one of the graph's variables"),
    (lambda d: d["grad_programs"].update(Tanh=[]), r"grad_programs: 'Tanh' is not a while_loop or cond node of this graph"),
    (lambda d: d.update(format="staticgraph/1"), r"not a staticgraph JSON graph \(format='staticgraph/1'; this version reads 'staticgraph/2'\)"),
    (lambda d: _op(d, "x")["attrs"].update(deep=json.loads('{"__tuple__": [' * 40 + "1" + "]}" * 40)), r"nested deeper than 32 levels"),
]


@pytest.mark.parametrize("change, message", FIELDS)
def test_each_field_of_a_file_is_checked_and_the_error_names_file_node_and_field(change, message, tmp_path):
    doc = _dense_doc()
    change(doc)
    _refused(_saved(tmp_path, json.dumps(doc)), message)


@pytest.mark.parametrize("change, message", [
    (lambda a: _rename(a, "body", "bodies"), r"StatelessWhile has no attribute 'bodies'"),
    (lambda a: a.pop("n_vars"), r"StatelessWhile is missing attribute 'n_vars'"),
])
def test_a_loops_attributes_are_those_its_kind_declares(change, message):
    """A While's lowering reads its attributes by name: a file that renamed or dropped one
    used to load and fail at Session.run with a bare KeyError (issue #26)."""
    doc = json.loads(tf.to_json(graphfuzz.GRAPHS["loops"]()))
    loop = _loop(doc)
    change(loop["attrs"])
    with pytest.raises(tf.errors.DataLossError, match=r"Cannot parse the JSON graph: node "
                       rf"{re.escape(repr(loop['name']))} at ops\[\d+\]: {message}$"):
        tf.from_json(json.dumps(doc))


def test_every_node_kind_declares_the_attributes_its_builders_write():
    """Every graph graphfuzz builds has, in each node of an engine kind, exactly the attributes
    that kind declares (required ones all there, no other): the declarations match the builders."""
    from staticgraph.framework.kinds import KINDS

    def nodes(ops):
        for op in ops:
            yield op
            for v in op["attrs"].values():
                if isinstance(v, dict) and "__region__" in v:
                    yield from nodes(v["__region__"]["ops"])
                for r in v.get("__tuple__", []) if isinstance(v, dict) else []:
                    if isinstance(r, dict) and "__region__" in r:
                        yield from nodes(r["__region__"]["ops"])
    seen = set()
    for build in graphfuzz.GRAPHS.values():
        for op in nodes(json.loads(tf.to_json(build()))["ops"]):
            kind = KINDS.get(op["kind"])
            if kind is not None:
                seen.add(kind.name)
                assert kind.attrs <= set(op["attrs"]) <= kind.attrs | kind.optional_attrs, op["name"]
    assert {"Const", "Placeholder", "VarHandleOp", "ReadVariableOp", "StatelessWhile"} <= seen


def test_a_body_is_checked_as_the_graph_is(tmp_path):
    doc = json.loads(tf.to_json(graphfuzz.GRAPHS["loops"]()))
    body = _loop(doc)["attrs"]["body"]["__region__"]
    body["ops"][-1]["site"] = None
    with pytest.raises(tf.errors.DataLossError, match=r"Cannot parse the JSON graph: node '[^']+' at "
                       r"ops\[\d+\]\.attrs\['body'\]\.ops\[\d+\]: 'site' must be a string, not null"):
        tf.from_json(json.dumps(doc))
    body["ops"][-1]["site"] = "x.py:1"
    n = len(body["placeholders"])
    body["captured"].append("xs:0")
    with pytest.raises(tf.errors.DataLossError, match=f"a body captures {n + 1} tensors into {n} placeholders"):
        tf.from_json(json.dumps(doc))


def _dataset(doc):
    """The BatchDataset of the data graph's iterator (the last dataset op of its pipeline)."""
    return next(op for op in doc["ops"] if "dataset" in op["attrs"])["attrs"]["dataset"]["__dataset__"]


@pytest.mark.parametrize("change, message", [
    (lambda ds: ds["params"].update(batch_size="2"), r"BatchDataset's 'batch_size' must be an integer, not a string"),
    (lambda ds: ds["parents"][0].update(op="GeneratorDataset"), r"unknown dataset op 'GeneratorDataset'"),
    (lambda ds: ds["parents"].append(ds["parents"][0]), r"a BatchDataset has 1 parents, not 2"),
])
def test_a_pipeline_is_checked_as_its_graph_form_says(change, message):
    doc = json.loads(tf.to_json(graphfuzz.GRAPHS["data"]()))
    change(_dataset(doc))
    with pytest.raises(tf.errors.DataLossError, match=r"node 'OneShotIterator' at ops\[\d+\]\.attrs\['dataset'\](\.parents\[0\])?: " + message):
        tf.from_json(json.dumps(doc))


def test_a_py_func_node_in_a_file_holds_no_function_and_fails_when_run():
    """No attribute value decodes to a Python callable: a PyFunc node written by hand loads,
    and running it is TF's InvalidArgumentError -- its "function" is a string."""
    doc = _dense_doc()
    _op(doc, "Tanh").update(kind="PyFunc", attrs={"func": "print", "token": "pyfunc_0"})
    g = tf.from_json(json.dumps(doc))
    with tf.Session(graph=g) as s:
        s.run("w/Assign")
        with pytest.raises(tf.errors.InvalidArgumentError, match="TypeError: 'str' object is not callable"):
            s.run("Tanh:0", {"x:0": [[1.0, 2.0, 3.0]]})


def _truncated(text):
    return text[: len(text) // 2].encode()


DAMAGED = [
    (_truncated, r"not JSON \(Unterminated string|not JSON \(Expecting"),
    (lambda t: b"\xff\xfe" + t.encode(), r"not UTF-8 text \(invalid start byte at byte 0\)"),
    (lambda t: b"", r"not JSON \(Expecting value: line 1 column 1 \(char 0\)\)"),
    (lambda t: b"[" * 100_000 + b"]" * 100_000, r"not a JSON graph: nested too deeply"),
    (lambda t: b"[1, 2]", r"not a staticgraph JSON graph \(format=None"),
    (lambda t: b"1" * 5000, r"not JSON \(Exceeds the limit"),
]


@pytest.mark.parametrize("damage, message", DAMAGED)
def test_a_damaged_meta_file_raises_data_loss_error_naming_the_file(damage, message, tmp_path):
    """TF raises ``OSError("Cannot parse file <path>: ...")`` for a meta graph it cannot parse
    (and lets ``UnicodeDecodeError`` out for non-UTF-8 bytes); here one tf.errors class,
    DataLossError -- TF's error for a truncated or corrupted file -- with TF's words."""
    path = _saved(tmp_path, damage(tf.to_json(graphfuzz.GRAPHS["dense"]())))
    _refused(path, message)
    with pytest.raises(tf.errors.DataLossError, match=r"^Cannot parse the JSON graph: " + message):
        tf.from_json(open(path, "rb").read())


def test_a_missing_meta_file_raises_tfs_sentence(tmp_path):
    path = str(tmp_path / "nothing.meta")
    with pytest.raises(FileNotFoundError, match=re.escape(f"File does not exist. Received: {path}.")):
        tf.train.import_meta_graph(path)


def test_a_failed_load_leaves_the_graph_as_it_was_and_a_later_one_works(tmp_path):
    """A file whose fields are all valid but that fails while it is built (a variable with no
    IsInitialized node): nothing of it stays -- no node, no reserved name, no collection."""
    doc = _dense_doc()
    doc["ops"] = [op for op in doc["ops"] if op["type"] != "VarIsInitializedOp"]
    good = _saved(tmp_path, tf.to_json(graphfuzz.GRAPHS["dense"]()))
    bad = str(tmp_path / "bad.meta")
    with open(bad, "w") as f:
        json.dump(doc, f)
    with tf.Graph().as_default() as g:
        tf.add_to_collection("notes", "kept")
        with pytest.raises(tf.errors.DataLossError, match=r"Cannot parse file .*bad\.meta: StopIteration"):
            tf.train.import_meta_graph(bad)
        assert g.get_operations() == [] and g._names_in_use == {}
        assert g.get_all_collection_keys() == ["notes"] and tf.global_variables() == []
        saver = tf.train.import_meta_graph(good)
        assert [v.op.name for v in tf.global_variables()] == ["w"] and saver is not None
        assert tf.identity(g.get_tensor_by_name("Tanh:0"), name="y").name == "y:0"


def test_import_meta_graph_of_a_graph_without_variables_returns_none_as_tf(tmp_path):
    with tf.Graph().as_default() as g:
        tf.identity(tf.placeholder(tf.float32, name="x"), name="y")
        path = _saved(tmp_path, tf.to_json(g))
    with tf.Graph().as_default() as g:
        assert tf.train.import_meta_graph(path) is None
        assert [op.name for op in g.get_operations()] == ["x", "y"]


def test_from_json_needs_an_empty_graph_to_rebuild_into():
    text = tf.to_json(graphfuzz.GRAPHS["dense"]())
    g = tf.Graph()
    with g.as_default():
        tf.constant(1.0, name="x")
    with pytest.raises(ValueError, match="from_json restores op names exactly, so it needs an empty graph"):
        tf.from_json(text, g)
    assert [op.name for op in g.get_operations()] == ["x"]


def test_a_worker_refuses_a_graph_that_does_not_match_its_digest():
    worker = pytest.importorskip("staticgraph.client.distributed.worker")
    text = tf.to_json(graphfuzz.GRAPHS["dense"]())
    with pytest.raises(tf.errors.DataLossError, match=r"^Cannot parse the graph 0{12} shipped to "
                       r"this worker: its text does not match its SHA-256 digest"):
        worker._load("0" * 64, text)


def test_graph_file_fuzz(tmp_path):
    """Seeded damaged and crafted files through every loader (see tests/graphfuzz.py): no code
    runs, no exception but DataLossError, no half-built graph, loaded graphs run harmlessly."""
    loaders = ["from_json", "import_meta_graph"]
    try:
        import staticgraph.client.distributed.worker  # noqa: F401  (needs dask)
        loaders.append("worker")
    except ImportError:
        pass
    count = int(os.environ.get("GRAPHFUZZ_COUNT", "240"))
    outcomes = graphfuzz.campaign(count, seed=int(os.environ.get("GRAPHFUZZ_SEED", "0")), loaders=loaders)
    assert sum(outcomes.values()) == count * len(loaders)
    for loader in loaders:
        for kind in ("damaged", "crafted"):
            assert outcomes[(loader, kind, "DataLossError")] > 0
            assert outcomes[(loader, kind, "loaded")] > 0   # some cases load and are run


def test_attributes_an_expression_writes_go_through_int(marker):
    """GetItem and Transpose are written as Python expressions (``v0.transpose((1, 0))[1]``)
    over their attributes: a crafted attribute is refused by ``int()`` while the plan is
    compiled, and nothing of it runs."""
    x = tf.placeholder(tf.float32, [4, 3], name="x")
    y = tf.transpose(x)[1]
    doc = json.loads(tf.to_json(tf.get_default_graph()))
    payload = f"0]\n    open({marker!r}, 'w').close()\n    #"
    for op in doc["ops"]:
        if op["kind"] == "GetItem":
            op["attrs"]["key"] = {"__tuple__": [payload]}
    g = tf.from_json(json.dumps(doc))
    with tf.Session(graph=g) as s:
        with pytest.raises(ValueError, match="invalid literal for int"):
            s.run(y.name, {"x:0": np.ones((4, 3))})
