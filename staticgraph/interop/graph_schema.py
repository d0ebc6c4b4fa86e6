"""What a JSON graph must hold, checked field by field before anything is built.

A graph read back -- ``tf.from_json`` text, a Saver's ``.meta`` file, a partition shipped to a
Dask worker -- may come from anyone, so nothing in it is trusted::

    text --parse()--> dict --check()--> every field valid --(serialize builds it)--> Graph
             |                  |
             DataLossError: "Cannot parse <source>: <where>: <problem>"

``check`` walks the whole document once: each field's JSON type; node names (TF's pattern,
unique), op types (an identifier), kinds (registry ops and the engine's node kinds), a registry
op's arity, outputs and attribute names, a node kind's attribute names (as its ``defkind``
declares them); dtype names from a closed list; shapes of non-negative ints; every reference
to a node or tensor (an earlier one, as the graph is built in order); loop/branch bodies,
datasets and collections; and how deep anything nests.  The error names the source, the node and where in the document.

Why so strict: the compiler writes each node's type, name and creation site into the Python
source it compiles.  Those strings go through ``repr()`` there (:func:`.compiler.emit.comment`),
and a file holding anything the format does not allow never gets that far.  TF's own words
lead where TF has them (``Node 'y': Unknown input node 'x'``, ``Op type not registered``).
"""
from __future__ import annotations

import inspect
import json
import re
from typing import Any

import numpy as np

from common import REGISTRY

from ..control.control_flow import BRANCH_TYPES, CASE_TYPES, LOOP_TYPES
from ..data.graph_form import FORMS
from ..framework.errors import DataLossError
from ..framework.kinds import KINDS
from ..framework.graph import VALID_OP_NAME, VALID_SCOPE_NAME

__all__ = ["parse", "check", "DTYPE_NAMES", "MAX_DEPTH"]

FORMAT = "staticgraph/2"
"""The format this version writes and reads (``to_json`` puts it in every document)."""
MAX_DEPTH = 32
"""How deeply attribute values, bodies and datasets may nest (a loop in a loop: 2 levels).
Deeper would exhaust Python's stack while the graph is built or compiled."""

DTYPE_NAMES = frozenset(np.dtype(t).str for t in (
    np.float16, np.float32, np.float64, np.int8, np.int16, np.int32, np.int64, np.uint8,
    np.uint16, np.uint32, np.uint64, np.bool_, np.object_)) | {"resource"}
"""Every dtype a graph may name (``to_json`` writes numpy's ``dtype.str``; ``|O`` is tf.string)."""

_NODE_NAME = re.compile(f"{VALID_OP_NAME.pattern}|_{VALID_SCOPE_NAME.pattern}")
"""TF's node name pattern (``tf.Graph`` refuses others at creation), with a leading ``_`` as
TF's graph constructor allows it for internal nodes: a distributed partition names the
placeholders it receives into ``_recv/...``, where no user's name can be."""
_TYPE = re.compile(r"[A-Za-z_][A-Za-z0-9_>]*")          # TF's op type names
_MAX_DIM = 2 ** 63 - 1
_OP_FIELDS = ("name", "type", "inputs", "control", "attrs", "outputs", "site")
_REGION_FIELDS = ("name", "ops", "grad_programs", "args", "outs", "captured", "placeholders",
                  "control_captures")
_TAGS = {"__ndarray__": ("__ndarray__", "dtype", "shape"), "__dtype__": ("__dtype__",),
         "__tfdtype__": ("__tfdtype__",), "__slice__": ("__slice__",), "__array__": ("__array__",),
         "__ellipsis__": ("__ellipsis__",), "__tuple__": ("__tuple__",), "__tensor__": ("__tensor__",),
         "__op__": ("__op__",), "__region__": ("__region__",), "__dataset__": ("__dataset__",)}
_LEAVES = {"f": (int, float), "i": (int,), "u": (int,), "b": (bool,), "O": (str,)}
_PARAMS = {"integer": (int,), "integer or null": (int, type(None)), "bool": (bool,)}
_PARAM_LISTS = {"numbers": ("a padding value", (int, float, bool, str)),
                "seeds": ("a seed", (int, type(None)))}
_JSON_TYPES = {dict: "an object", list: "a list", str: "a string", int: "an integer",
               float: "a number", bool: "true or false", type(None): "null"}


def parse(text: str | bytes, source: str) -> dict:
    """The JSON document ``text`` (its format checked), or DataLossError naming ``source``."""
    try:
        if isinstance(text, bytes):
            text = text.decode("utf-8")
        data = json.loads(text)
    except UnicodeDecodeError as e:
        raise _error(source, f"not UTF-8 text ({e.reason} at byte {e.start})") from None
    except RecursionError:
        raise _error(source, "not a JSON graph: nested too deeply") from None
    except ValueError as e:   # json.JSONDecodeError, or an integer of over 4300 digits
        raise _error(source, f"not JSON ({e})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        found = data.get("format") if isinstance(data, dict) else None
        raise _error(source, f"not a staticgraph JSON graph (format={found!r}; this version "
                             f"reads {FORMAT!r})")
    return data


def check(data: dict, source: str) -> None:
    """Every field of the parsed graph ``data``, or DataLossError naming the first bad one."""
    _Checker(source).graph(data)


def _error(source: str, problem: str) -> DataLossError:
    return DataLossError(None, None, f"Cannot parse {source}: {problem}")


def _what(v: Any) -> str:
    return _JSON_TYPES.get(type(v), type(v).__name__)


_Names = dict[str, tuple[str, int]]
"""One graph's nodes so far, name -> (kind, number of outputs): what a reference may name."""


class _Checker:
    """The walk over one document; ``path`` says where it is, ``node`` in which node."""

    def __init__(self, source: str):
        self.source = source
        self.path: list[str] = []
        self.node: str | None = None
        self.depth = 0

    def fail(self, problem: str):
        where = "".join(self.path).lstrip(".") or "the top level"
        if self.node is not None:
            where = f"node {self.node!r} at {where}"
        raise _error(self.source, f"{where}: {problem}")

    # --- JSON shapes ---------------------------------------------------------------------
    def want(self, v: Any, types: tuple, what: str) -> Any:
        if type(v) not in types:
            self.fail(f"{what} must be {' or '.join(_JSON_TYPES[t] for t in types)}, not {_what(v)}")
        return v

    def fields(self, d: Any, required: tuple, optional: tuple = (), what: str = "a node") -> dict:
        self.want(d, (dict,), what)
        for k in required:
            if k not in d:
                self.fail(f"{what} needs the field {k!r}")
        for k in d:
            if k not in required and k not in optional:
                self.fail(f"unknown field {k!r} in {what}")
        return d

    def strings(self, v: Any, what: str) -> list:
        for s in self.want(v, (list,), what):
            self.want(s, (str,), f"each of {what}")
        return v

    def nested(self):
        self.depth += 1
        if self.depth > MAX_DEPTH:
            self.fail(f"nested deeper than {MAX_DEPTH} levels")

    # --- references ----------------------------------------------------------------------
    def op_ref(self, name: Any, names: _Names, what: str = "input node") -> str:
        if type(name) is not str or name not in names:
            node = f"Node {self.node!r}: " if self.node is not None else ""
            self.fail(f"{node}Unknown {what} {name!r} (a node may only use nodes listed before it)")
        return name

    def tensor_ref(self, ref: Any, names: _Names) -> None:
        self.want(ref, (str,), "a tensor name")
        op, sep, index = ref.rpartition(":")
        if not sep or not (index.isascii() and index.isdigit()):
            self.fail(f"{ref!r} is not a tensor name (\"<op_name>:<output_index>\")")
        n = names[self.op_ref(op, names)][1]
        if int(index) >= n:
            node = f"Node {self.node!r}: " if self.node is not None else ""
            self.fail(f"{node}Connecting to invalid output {int(index)} of source node {op} which "
                      f"has {n} outputs.")

    # --- the document --------------------------------------------------------------------
    def graph(self, d: dict) -> None:
        self.fields(d, ("format", "ops", "grad_programs", "variables"), ("collections",),
                    "a JSON graph")
        names = self.ops(d["ops"])
        self.grad_programs(d["grad_programs"], names)
        handles = set()
        for i, v in enumerate(self.want(d["variables"], (list,), "variables")):
            self.path.append(f"variables[{i}]")
            handles.add(self.variable(v, names))
            self.path.pop()
        for key, items in self.want(d.get("collections", {}), (dict,), "collections").items():
            self.path.append(f"collections[{key!r}]")
            for item in self.want(items, (list,), "a collection"):
                self.collection_item(item, names, handles)
            self.path.pop()

    def ops(self, ops: Any) -> _Names:
        names = _Names()
        self.path.append(".ops")
        for i, d in enumerate(self.want(ops, (list,), "ops")):
            self.path.append(f"[{i}]")
            self.op(d, names)
            self.path.pop()
        self.path.pop()
        return names

    def op(self, d: Any, names: _Names) -> None:
        self.fields(d, _OP_FIELDS, ("kind", "device"))
        name = self.want(d["name"], (str,), "a node's name")
        if not _NODE_NAME.fullmatch(name):
            self.fail(f"Node {name!r}: Node name contains invalid characters")
        if name in names:
            self.fail(f"Node {name!r} is not unique")
        outer_node, self.node = self.node, name
        if not _TYPE.fullmatch(self.want(d["type"], (str,), "'type'")):
            self.fail(f"{d['type']!r} is not an op type name")
        kind = self.want(d.get("kind", d["type"]), (str,), "'kind'")
        if kind not in REGISTRY and kind not in KINDS:
            self.fail(f"Op type not registered {kind!r} (staticgraph runs the registry's ops "
                      f"and its own node kinds)")
        self.want(d["site"], (str,), "'site'")
        self.want(d.get("device", ""), (str,), "'device'")
        for ref in self.strings(d["inputs"], "'inputs'"):
            self.tensor_ref(ref, names)
        for c in self.strings(d["control"], "'control'"):
            self.op_ref(c, names)
        outputs = self.want(d["outputs"], (list,), "'outputs'")
        for k, o in enumerate(outputs):
            self.path.append(f".outputs[{k}]")
            self.fields(o, ("shape", "dtype"), (), "an output")
            self.shape(o["shape"])
            self.dtype(o["dtype"])
            self.path.pop()
        self.attrs(self.want(d["attrs"], (dict,), "'attrs'"), names)
        self.registry_op(kind, d)
        self.kind_attrs(kind, d["attrs"])
        names[name] = (kind, len(outputs))
        self.node = outer_node

    def registry_op(self, kind: str, d: dict) -> None:
        """A registry op's inputs, outputs and attributes are what its kernel takes."""
        op = REGISTRY.get(kind)
        if op is None:
            return
        if not op.variadic and len(d["inputs"]) != len(op.inputs):
            self.fail(f"{kind} takes {len(op.inputs)} inputs ({', '.join(op.inputs)}), "
                      f"not {len(d['inputs'])}")
        if op.outputs is None and len(d["outputs"]) != 1:
            self.fail(f"{kind} has 1 output, not {len(d['outputs'])}")
        allowed = _attribute_names(op)
        if allowed is not None:
            self.attribute_names(kind, d["attrs"], allowed)

    def kind_attrs(self, kind: str, attrs: dict) -> None:
        """An engine node kind's attributes are those its ``defkind`` declares: its lowering
        reads them by name, so a renamed or missing one fails here, not at ``Session.run``."""
        decl = KINDS.get(kind)
        if decl is not None:
            self.attribute_names(kind, attrs, decl.attrs | decl.optional_attrs, decl.attrs)

    def attribute_names(self, kind: str, attrs: dict, allowed: frozenset,
                        required: frozenset = frozenset()) -> None:
        unknown = set(attrs) - allowed
        if unknown:
            self.fail(f"{kind} has no attribute {sorted(unknown)[0]!r}")
        missing = required - set(attrs)
        if missing:
            self.fail(f"{kind} is missing attribute {sorted(missing)[0]!r}")

    def shape(self, shape: Any) -> None:
        if shape is None:
            return
        for dim in self.want(shape, (list,), "a shape"):
            if dim is not None and (type(dim) is not int or not 0 <= dim <= _MAX_DIM):
                self.fail(f"a shape's dimensions must be non-negative integers or null, not {dim!r}")

    def dtype(self, name: Any, resource: bool = True) -> None:
        if type(name) is not str or name not in DTYPE_NAMES or (name == "resource" and not resource):
            self.fail(f"{name!r} is not a dtype (known: {', '.join(sorted(DTYPE_NAMES))})")

    # --- attributes ----------------------------------------------------------------------
    def attrs(self, attrs: dict, names: _Names) -> None:
        for key, v in attrs.items():
            self.path.append(f".attrs[{key!r}]")
            self.value(v, names)
            self.path.pop()

    def value(self, v: Any, names: _Names) -> None:
        """One attribute value: a JSON scalar, or one of the tagged forms ``to_json`` writes."""
        if type(v) in (str, int, float, bool) or v is None:
            return
        if type(v) is list:
            self.fail("an attribute value is never a plain list (a tuple is {\"__tuple__\": [...]})")
        tag = next((k for k in v if k in _TAGS), None)
        if tag is None:
            self.fail(f"unknown attribute value {sorted(v)!r}")
        self.fields(v, _TAGS[tag], (), f"a {tag} value")
        x = v[tag]
        self.nested()
        if tag == "__ndarray__":
            self.array(x, v["dtype"], v["shape"])
        elif tag in ("__dtype__", "__tfdtype__"):
            self.dtype(x, resource=tag == "__tfdtype__")
        elif tag == "__slice__":
            if type(x) is not list or len(x) != 3 or any(i is not None and type(i) is not int for i in x):
                self.fail(f"a slice is [start, stop, step] of integers or null, not {x!r}")
        elif tag in ("__array__", "__ellipsis__"):
            if x is not True:
                self.fail(f"{tag} must be true")
        elif tag == "__tuple__":
            for item in self.want(x, (list,), "a tuple"):
                self.value(item, names)
        elif tag == "__tensor__":
            self.tensor_ref(x, names)
        elif tag == "__op__":
            self.op_ref(x, names, "node")
        elif tag == "__region__":
            self.region(x, names)
        else:
            self.dataset(x, names)
        self.depth -= 1

    def array(self, data: Any, dtype: Any, shape: Any) -> None:
        """An array's dtype, shape, and nested lists matching that shape, leaves of that dtype."""
        self.dtype(dtype, resource=False)
        self.shape(shape)
        if shape is None or None in shape or len(shape) > 32:
            self.fail(f"an array's shape must be known, of at most 32 dims, not {shape!r}")
        leaves = _LEAVES[np.dtype(dtype).kind]
        rows = [data]
        for n in shape:         # level by level: each item a list of the dim's length
            for row in rows:
                if type(row) is not list or len(row) != n:
                    self.fail(f"an array's values do not have its shape {shape}")
            rows = [item for row in rows for item in row]
        if any(type(x) not in leaves for x in rows):
            bad = next(x for x in rows if type(x) not in leaves)
            self.fail(f"an array of {np.dtype(dtype).name} holds {_what(bad)} {bad!r}"[:200])

    def region(self, r: Any, outer: _Names) -> None:
        """A loop's or branch's body: its own nodes; what it takes from the outer graph."""
        self.fields(r, _REGION_FIELDS, (), "a body")
        if not _NODE_NAME.fullmatch(self.want(r["name"], (str,), "a body's name")):
            self.fail(f"{r['name']!r} is not a valid body name")
        inner = self.ops(r["ops"])
        self.grad_programs(r["grad_programs"], inner)
        for field in ("args", "outs", "placeholders"):
            for ref in self.strings(r[field], repr(field)):
                self.tensor_ref(ref, inner)
        for ref in self.strings(r["captured"], "'captured'"):
            self.tensor_ref(ref, outer)
        for c in self.strings(r["control_captures"], "'control_captures'"):
            self.op_ref(c, outer)
        if len(r["captured"]) != len(r["placeholders"]):
            self.fail(f"a body captures {len(r['captured'])} tensors into "
                      f"{len(r['placeholders'])} placeholders")

    def dataset(self, d: Any, names: _Names) -> None:
        """A tf.data pipeline: its ops (as ``graph_form.FORMS`` has them: none runs Python),
        parents, tensors, functions and parameters."""
        op = self.want(self.want(d, (dict,), "a dataset").get("op"), (str,), "a dataset's op")
        if op not in FORMS:
            self.fail(f"unknown dataset op {op!r}")
        n, extra, params = FORMS[op]
        parents = self.want(d.get("parents"), (list,), "a dataset's parents")
        if (len(parents) != n) if n is not None else not parents:
            self.fail(f"a {op} has {n if n is not None else 'one or more'} parents, not {len(parents)}")
        self.fields(d, ("op", "parents", *extra), (), f"a {op}")
        for i, p in enumerate(parents):
            self.path.append(f".parents[{i}]")
            self.nested()
            self.dataset(p, names)
            self.depth -= 1
            self.path.pop()
        if "inputs" in d:
            for ref in self.strings(d["inputs"], "a dataset's inputs"):
                self.tensor_ref(ref, names)
        if "fn" in d:
            self.path.append(".fn")
            self.region(d["fn"], names)
            self.path.pop()
        for key in ("structure", "result"):
            if key in d:
                self.structure(d[key])
        if "params" in d:
            p = self.want(d["params"], (dict,), "a dataset's params")
            for key, kind in params.items():
                self.param(p.get(key), kind, f"{op}'s {key!r}")

    def param(self, v: Any, kind: str, what: str) -> None:
        """One dataset parameter of the kind ``graph_form.FORMS`` says."""
        if kind in _PARAMS:
            self.want(v, _PARAMS[kind], what)
        elif kind == "3 integers":
            if type(v) is not list or len(v) != 3 or any(type(a) is not int for a in v):
                self.fail(f"{what} must be 3 integers, not {v!r}"[:200])
        elif kind == "dtype":
            self.dtype(v, resource=False)
        elif kind == "structure":
            self.structure(v)
        elif kind == "shapes":
            for shape in self.want(v, (list,), what):
                self.shape(shape)
        else:
            item, types = _PARAM_LISTS[kind]
            for x in self.want(v, (list,), what):
                self.want(x, types, item)

    def structure(self, s: Any) -> None:
        """An element nesting: int leaves, {"tuple": [...]}, {"dict": [[key, s], ...]}."""
        if type(s) is int:
            return
        self.nested()
        if type(s) is dict and set(s) == {"tuple"} and type(s["tuple"]) is list:
            for item in s["tuple"]:
                self.structure(item)
        elif type(s) is dict and set(s) == {"dict"} and type(s["dict"]) is list:
            for pair in s["dict"]:
                if type(pair) is not list or len(pair) != 2 or type(pair[0]) is not str:
                    self.fail(f"a dataset structure's dict entry must be [key, structure], not {pair!r}"[:200])
                self.structure(pair[1])
        else:
            self.fail(f"a dataset structure is an integer, {{'tuple': [...]}} or {{'dict': [...]}}, "
                      f"not {s!r}"[:200])
        self.depth -= 1

    # --- graph-level tables --------------------------------------------------------------
    def grad_programs(self, table: Any, names: _Names) -> None:
        """What a loop's or branch's gradient reads: one program per body (tensors checked
        when the bodies are built)."""
        self.path.append(".grad_programs")
        for name, progs in self.want(table, (dict,), "grad_programs").items():
            kind = names.get(name, ("", 0))[0]
            if kind not in LOOP_TYPES and kind not in BRANCH_TYPES and kind not in CASE_TYPES:
                self.fail(f"{name!r} is not a while_loop or cond node of this graph")
            progs = self.want(progs, (list,), "a gradient program list")
            n = 1 if kind in LOOP_TYPES else 2 if kind in BRANCH_TYPES else max(len(progs), 1)
            if len(progs) != n:
                self.fail(f"a {kind} node has {n} gradient programs, not {len(progs)}")
            for p in progs:
                self.fields(p, ("dys", "grads", "needed", "wrt"), ("late", "late_inner"),
                            "a gradient program")
                for field in ("dys", "grads", "needed", "wrt", "late", "late_inner"):
                    if field in p:
                        self.strings(p[field], repr(field))
        self.path.pop()

    def variable(self, v: Any, names: _Names) -> str:
        """A Variable: its handle (a VarHandleOp), initializer, initial value and read."""
        self.fields(v, ("op", "init", "initial_value", "read", "trainable"), (), "a variable")
        if names.get(self.op_ref(v["op"], names, "variable"))[0] != "VarHandleOp":
            self.fail(f"{v['op']!r} is not a VarHandleOp")
        self.op_ref(v["init"], names, "initializer")
        self.tensor_ref(v["initial_value"], names)
        self.tensor_ref(v["read"], names)
        self.want(v["trainable"], (bool,), "'trainable'")
        return v["op"]

    def collection_item(self, item: Any, names: _Names, handles: set) -> None:
        if type(item) is not list or len(item) != 2 or item[0] not in ("variable", "tensor", "op"):
            self.fail(f"a collection item is [\"variable\"|\"tensor\"|\"op\", name], not {item!r}"[:200])
        kind, name = item
        if kind == "tensor":
            self.tensor_ref(name, names)
        elif kind == "op":
            self.op_ref(name, names, "node")
        elif name not in handles:
            self.fail(f"{name!r} is not one of the graph's variables")


_ATTRIBUTE_NAMES: dict[str, frozenset | None] = {}


def _attribute_names(op) -> frozenset | None:
    """The keyword parameters of a registry op's kernel (what its attributes may be called;
    None: it takes any)."""
    if op.name not in _ATTRIBUTE_NAMES:
        params = inspect.signature(op.impl).parameters.values()
        _ATTRIBUTE_NAMES[op.name] = (
            None if any(p.kind is p.VAR_KEYWORD for p in params) else
            frozenset(p.name for p in params if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)
                      and p.name not in op.inputs))
    return _ATTRIBUTE_NAMES[op.name]
