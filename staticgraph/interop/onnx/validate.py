"""What ``import_graph`` accepts: every field of a model it reads, checked before anything is built.

A model file comes from anyone; the importer must not trust it.  So before a
single node is built, :func:`check_model` walks the model once and refuses,
with :class:`ModelImportError` naming the file and the problem:

- a model without a graph (an empty file parses as one), an IR version or a
  default-domain opset outside what this importer reads (``export``'s range);
- a node whose op type is not an ONNX op at that opset (``onnx.defs``, the
  checker's own schemas), or not one ``import_graph`` can build; a node of
  another domain; a deprecated op;
- a node's input or output count outside its schema's, an omitted ("") input
  the schema does not mark optional, an unnamed output;
- an attribute the schema does not know, of another type than it says, a
  required one missing, a reference to a function's attribute (``ref_attr_name``);
- an element type outside the closed list :data:`DTYPES` (tensors, graph
  inputs and outputs, ``Cast``'s ``to``), a dimension below zero;
- a tensor whose data does not match its declared shape: ``raw_data`` of
  exactly elements x item size bytes, or a typed field (``float_data``...)
  with exactly one entry per element; external data (it would read other
  files), segments, sparse tensors;
- a name that is not valid UTF-8, a name defined twice (a graph must be in
  single static assignment form, sub-graphs included: no shadowing), an input
  no earlier node, graph input or initializer computes -- dangling, or a
  cycle, or nodes out of order;
- a graph without outputs, an output listed twice or computed nowhere;
- a ``Loop`` body or ``If`` branch that does not fit its node, sub-graphs
  nested deeper than :data:`MAX_DEPTH`.

What is left for building (in a scratch graph, see ``importer``): values the
shape rules refuse (an ``Add`` of ``[2]`` and ``[3]``), which the importer
reports as the same error, naming the node.

Messages start with the wording of ``onnx.checker`` or onnxruntime where they
have one for the problem, so a search for it finds their answers.
"""
from __future__ import annotations

import functools
import math
from typing import Any, Iterable, NamedTuple, NoReturn

import numpy as np
import onnx
from onnx import AttributeProto, TensorProto, defs

__all__ = ["ModelImportError", "DTYPES", "MAX_DEPTH", "check_model", "tensor_array",
           "attribute_value"]


class ModelImportError(ValueError):
    """An ONNX model ``import_graph`` refuses: damaged, invalid, or using what staticgraph cannot
    build.  The message starts with the file's name, then says what is wrong and where."""


class _DType:
    """An element type of the closed list: its numpy dtype and where a TensorProto keeps it."""

    def __init__(self, np_dtype: Any, field: str, low: int | None = None, high: int | None = None):
        self.np = np.dtype(np_dtype)
        self.field = field                 # the typed field holding the values when no raw_data
        self.range = (low, high)           # int32_data: the values a well-formed file can hold


DTYPES: dict[int, _DType] = {
    TensorProto.FLOAT: _DType(np.float32, "float_data"),
    TensorProto.DOUBLE: _DType(np.float64, "double_data"),
    TensorProto.FLOAT16: _DType(np.float16, "int32_data", 0, 0xFFFF),   # the bit patterns
    TensorProto.INT8: _DType(np.int8, "int32_data", -2 ** 7, 2 ** 7 - 1),
    TensorProto.INT16: _DType(np.int16, "int32_data", -2 ** 15, 2 ** 15 - 1),
    TensorProto.INT32: _DType(np.int32, "int32_data"),
    TensorProto.INT64: _DType(np.int64, "int64_data"),
    TensorProto.UINT8: _DType(np.uint8, "int32_data", 0, 2 ** 8 - 1),
    TensorProto.BOOL: _DType(np.bool_, "int32_data", 0, 1),
}
"""The ONNX element types staticgraph has (its dtypes: float16/32/64, int8/16/32/64, uint8, bool)."""

_TYPED_FIELDS = ("float_data", "int32_data", "string_data", "int64_data", "double_data", "uint64_data")

MAX_DEPTH = 16
"""Loop/If sub-graphs nested deeper are refused (protobuf's own parser stops near 33 levels)."""

MIN_IR_VERSION = 3   # the first IR version with opset_import


def _type_name(elem_type: int) -> str:
    try:
        return TensorProto.DataType.Name(elem_type)
    except ValueError:
        return str(elem_type)


def _attr_type_name(kind: int) -> str:
    try:
        return AttributeProto.AttributeType.Name(kind)
    except ValueError:
        return str(kind)


def _count(dims: Iterable[int]) -> int:
    """The number of elements of a shape, stopping at :data:`_TOO_MANY` (a file's dims could
    multiply into a number of millions of digits)."""
    dims = list(dims)
    if 0 in dims:
        return 0
    count = 1
    for d in dims:
        count *= d
        if count >= _TOO_MANY:
            return _TOO_MANY
    return count


_TOO_MANY = 2 ** 63   # more elements than any file or memory holds

MAX_RANK = 32
"""Dimensions a shape may have (numpy holds 64; 32 was its limit before numpy 2)."""


def _amount(n: int) -> str:
    return str(n) if n < _TOO_MANY else "2**63 or more"


def _shape_text(dims: Iterable[int]) -> str:
    return "[" + ", ".join(str(d) for d in dims) + "]"


def tensor_array(t: TensorProto) -> np.ndarray:
    """The values of ``t``, a tensor :func:`check_model` accepted.

    Allocates the declared size only, which the check has matched with the data
    the file holds (a typed field holding 1-byte varints makes it at most 8 x
    what they take in the file)."""
    dt = DTYPES[t.data_type]
    dims = tuple(t.dims)
    count = math.prod(dims)
    if t.HasField("raw_data"):
        raw = t.raw_data
        if dt.np == np.bool_:
            return (np.frombuffer(raw, np.uint8) != 0).reshape(dims)
        return np.frombuffer(raw, dt.np.newbyteorder("<")).astype(dt.np, copy=False).reshape(dims)
    if count == 0:
        return np.zeros(dims, dt.np)
    field = getattr(t, dt.field)
    if dt.field != "int32_data" or dt.np == np.int32:
        return np.fromiter(field, dt.np, count=count).reshape(dims)
    values = np.fromiter(field, np.int32, count=count)
    if dt.np == np.float16:
        return values.astype(np.uint16).view(np.float16).reshape(dims)
    return values.astype(dt.np).reshape(dims)


def attribute_value(a: AttributeProto) -> Any:
    """The value of an attribute :func:`check_model` accepted (its type matches its schema's)."""
    kind = a.type
    if kind == AttributeProto.INT:
        return int(a.i)
    if kind == AttributeProto.FLOAT:
        return float(a.f)
    if kind == AttributeProto.INTS:
        return [int(v) for v in a.ints]
    if kind == AttributeProto.FLOATS:
        return [float(v) for v in a.floats]
    if kind == AttributeProto.TENSOR:
        return a.t
    if kind == AttributeProto.GRAPH:
        return a.g
    raise ValueError(f"attribute '{a.name}' of type {AttributeProto.AttributeType.Name(kind)} "
                     f"is not read by the importer")


class _Schema(NamedTuple):
    """What the checks read of an ONNX op's schema, as plain Python values."""
    since: int                                   # the opset that defined this version
    inputs: tuple[int, int]                      # (min, max) count
    outputs: tuple[int, int]
    params: tuple[tuple[str, bool], ...]         # formal inputs: (name, optional)
    attributes: dict[str, tuple[int, str, bool]]  # name -> (AttributeProto type, its name, required)
    deprecated: bool


@functools.lru_cache(maxsize=None)
def _schema(op_type: str, opset: int) -> _Schema | None:
    """The ONNX schema of an importable op at ``opset`` (None before the op existed).  Cached,
    and read once into Python values: ``get_schema`` can take milliseconds (MatMul's: 9 ms) and
    each of its properties builds new objects.  The keys are bounded: importable op types
    times opsets."""
    try:
        s = defs.get_schema(op_type, opset, "")
    except defs.SchemaError:
        return None
    optional = defs.OpSchema.FormalParameterOption.Optional
    return _Schema(s.since_version, (s.min_input, s.max_input), (s.min_output, s.max_output),
                   tuple((p.name, p.option == optional) for p in s.inputs),
                   {n: (a.type.value, a.type.name, a.required) for n, a in s.attributes.items()},
                   s.deprecated)


# Attributes whose INT value names an element type (checked against DTYPES).
_DTYPE_ATTRS = {("Cast", "to")}
# Constant's forms the importer builds (the others hold strings or sparse tensors).
_CONSTANT_FORMS = {"value", "value_float", "value_floats", "value_int", "value_ints"}


class _Checker:
    """One walk over a model; ``fail`` raises the error naming the file."""

    def __init__(self, source: str, importable: frozenset, opset: int = 0):
        self.source, self.importable, self.opset = source, importable, opset
        self.short = ""      # the node being checked, for naming its sub-graphs

    def fail(self, problem: str) -> NoReturn:
        raise ModelImportError(f"{self.source}: {problem}")

    # --- the model ------------------------------------------------------------------------
    def model(self, m: onnx.ModelProto, opsets: tuple[int, int]) -> None:
        if not m.HasField("graph"):
            self.fail("No graph was found in the protobuf (an empty or truncated file, or not "
                      "an ONNX model)")
        if not MIN_IR_VERSION <= m.ir_version <= onnx.IR_VERSION:
            self.fail(f"The model does not have an ir_version set properly: {m.ir_version} (this "
                      f"importer reads {MIN_IR_VERSION} to {onnx.IR_VERSION})")
        versions = {}
        for o in m.opset_import:
            domain = self.name(o.domain, "an opset domain", empty=True)
            if domain in versions:
                self.fail(f"opset_import lists the domain '{domain}' twice")
            versions[domain] = o.version
        if "" in versions and "ai.onnx" in versions:
            self.fail("opset_import lists the default domain twice ('' and 'ai.onnx')")
        opset = versions.get("", versions.get("ai.onnx"))
        low, high = opsets
        if opset is None or not low <= opset <= high:
            self.fail(f"the default ONNX domain's opset is {opset}: this importer reads opsets "
                      f"{low} to {high}")
        self.opset = opset
        g = m.graph
        if len(g.sparse_initializer):
            self.fail(f"sparse initializers are not imported ('{g.sparse_initializer[0].values.name}')")
        inputs = [self.value_info(vi, "graph input", typed=True) for vi in g.input]
        self.graph(g, set(), 0, "the graph", inputs)

    # --- names ----------------------------------------------------------------------------
    def name(self, s: Any, what: str, empty: bool = False) -> str:
        """A name from the file: text (proto2 hands back bytes that are not UTF-8), non-empty."""
        if not isinstance(s, str):
            self.fail(f"{what} {bytes(s)!r} is not valid UTF-8 text")
        if not s and not empty:
            self.fail(f"{what} has an empty name")
        return s

    # --- types ----------------------------------------------------------------------------
    def elem_type(self, elem_type: int, where: str) -> None:
        if elem_type not in DTYPES:
            names = ", ".join(_type_name(k) for k in DTYPES)
            self.fail(f"{where} has element type {_type_name(elem_type)}: staticgraph's are {names}")

    def value_info(self, vi, what: str, typed: bool) -> str:
        """A graph input or output: its name, and its tensor type and shape when given."""
        name = self.name(vi.name, what)
        where = f"{what} '{name}'"
        if not vi.HasField("type"):
            if typed:
                self.fail(f"{where} has no type (the importer makes a placeholder of it)")
            return name
        kind = vi.type.WhichOneof("value")
        if kind != "tensor_type":
            self.fail(f"{where} is a {kind or 'value of no type'}, not a tensor")
        t = vi.type.tensor_type
        self.elem_type(t.elem_type, where)
        if t.HasField("shape"):
            for k, d in enumerate(t.shape.dim):
                if d.WhichOneof("value") == "dim_value" and d.dim_value < 0:
                    self.fail(f"{where} has dimension {k} of size {d.dim_value}: sizes are "
                              f"at least 0")
                if d.WhichOneof("value") == "dim_param":
                    self.name(d.dim_param, f"{where}: a symbolic dimension", empty=True)
            self.shape([d.dim_value for d in t.shape.dim], DTYPES[t.elem_type], where)
        return name

    def shape(self, dims: list[int], dt: _DType, where: str) -> None:
        """A shape numpy can hold: at most :data:`MAX_RANK` dims, fewer than 2**63 bytes even
        when a 0 makes it empty (an empty array of such a shape is refused too)."""
        if len(dims) > MAX_RANK:
            self.fail(f"{where} has {len(dims)} dimensions: the importer reads {MAX_RANK} at most")
        if _count([d for d in dims if d]) * dt.np.itemsize >= _TOO_MANY:
            self.fail(f"{where} declares the shape {_shape_text(dims)}: more elements than an "
                      f"array can hold")

    def tensor(self, t: TensorProto, where: str) -> None:
        """A tensor's data must be what its type and shape declare, in this file."""
        name = self.name(t.name, f"a tensor in {where}", empty=True)
        where = f"tensor '{name}' ({where})"
        self.elem_type(t.data_type, where)
        if t.HasField("segment"):
            self.fail(f"{where} is a segment of a tensor: segments are not imported")
        if t.data_location == TensorProto.EXTERNAL or len(t.external_data):
            self.fail(f"{where} keeps its data in another file (external data is not imported: "
                      f"it would read files the model names)")
        if any(d < 0 for d in t.dims):
            self.fail(f"{where} declares the shape {_shape_text(t.dims)}: sizes are at least 0")
        dt = DTYPES[t.data_type]
        self.shape(list(t.dims), dt, where)
        count = _count(t.dims)
        type_name = _type_name(t.data_type)
        wrong = [f for f in _TYPED_FIELDS if f != dt.field and len(getattr(t, f))]
        if wrong:
            self.fail(f"{where} is {type_name} but holds {wrong[0]}")
        typed = len(getattr(t, dt.field))
        if t.HasField("raw_data"):
            if typed:
                self.fail(f"{where} holds both raw_data and {dt.field}")
            size, need = len(t.raw_data), count * dt.np.itemsize
            if size != need:
                self.fail(f"TensorProto (tensor name: {name}) raw_data size ({size} bytes) does "
                          f"not match the declared shape {_shape_text(t.dims)} and type "
                          f"{type_name} ({_amount(need)} bytes required)")
        elif typed != count:
            self.fail(f"TensorProto (tensor name: {name}) {dt.field} size ({typed}) does not "
                      f"match the declared shape {_shape_text(t.dims)} ({_amount(count)} "
                      f"{type_name} values required)")
        elif dt.range[0] is not None and count:
            values = np.fromiter(getattr(t, dt.field), np.int32, count=count)
            low, high = dt.range
            bad = values[(values < low) | (values > high)]
            if bad.size:
                self.fail(f"{where} holds {bad[0]} in {dt.field}, outside {type_name}'s range "
                          f"{low}..{high}")

    # --- graphs ---------------------------------------------------------------------------
    def graph(self, g: onnx.GraphProto, defined: set[str], depth: int, where: str,
              inputs: list[str]) -> list[str]:
        """``g``'s inputs (already named), initializers, nodes in order, outputs.  ``defined``:
        the names visible here (the enclosing graphs', not to be defined again), to which ``g``'s
        own are added; returns those (a sub-graph's are taken out again after it: one set for
        all, no copy per sub-graph)."""
        own: list[str] = []

        def define(name: str, what: str) -> None:
            if name in defined:
                self.fail(f"Graph must be in single static assignment (SSA) form, however "
                          f"'{name}' has been used as output names multiple times ({what} in "
                          f"{where})")
            defined.add(name)
            own.append(name)

        initializers = set()
        for t in g.initializer:
            self.name(t.name, f"an initializer of {where}")
            self.tensor(t, f"an initializer of {where}")
            define(t.name, "an initializer")
            initializers.add(t.name)
        for name in inputs:
            if name not in initializers:   # an input may name an initializer: its default value
                define(name, "a graph input")
        later = {o for n in g.node for o in n.output}
        for k, node in enumerate(g.node):
            self.node(node, k, defined, later, depth, where)
            for o in node.output:
                define(o, f"an output of node '{node.name or node.output[0]}'")
        if not len(g.output):
            self.fail(f"{where} has no outputs")
        listed = set()
        for vi in g.output:
            name = self.value_info(vi, f"output of {where}", typed=False)
            if name in listed:
                self.fail(f"output '{name}' of {where} is listed twice")
            listed.add(name)
            if name not in defined:
                self.fail(f"Graph output '{name}' is not an output of any node in {where} (nor an "
                          f"input or initializer)")
        return own

    def node(self, node: onnx.NodeProto, k: int, defined: set[str], later: set[str], depth: int,
             where: str) -> None:
        op_type = self.name(node.op_type, f"node {k} of {where}: its op type")
        outs = list(node.output)
        for o in outs:
            if type(o) is not str or not o:     # (the message is made only when needed)
                self.name(o, f"output of a {op_type} node in {where}")
        label = self.name(node.name, "a node name", empty=True) or (outs[0] if outs else f"#{k}")
        node_at = f"node '{label}' in {where}"
        at = f"node '{label}' ({op_type}) in {where}"
        self.short = f"node '{label}' ({op_type})"    # sub-graphs are named by their node alone
        domain = self.name(node.domain, f"{at}: its domain", empty=True)
        if domain not in ("", "ai.onnx"):
            self.fail(f"ONNX op {op_type} of domain '{domain}' ({node_at}) has no staticgraph "
                      f"counterpart to import")
        if op_type not in self.importable:
            if not defs.has(op_type):
                self.fail(f"No Op registered for {op_type} with domain_version of {self.opset} "
                          f"({node_at})")
            self.fail(f"ONNX op {op_type} ({node_at}) has no staticgraph counterpart to import")
        schema = _schema(op_type, self.opset)
        if schema is None:
            self.fail(f"No Op registered for {op_type} with domain_version of {self.opset} "
                      f"({node_at})")
        if schema.deprecated:
            self.fail(f"ONNX op {op_type} is deprecated at opset {self.opset} ({node_at})")
        ins = list(node.input)
        for what, have, (low, high) in (("input", len(ins), schema.inputs),
                                        ("output", len(outs), schema.outputs)):
            if not low <= have <= high:
                self.fail(f"Node({label}) with schema(::{op_type}:{schema.since}) has {what} "
                          f"size {have} not in range [min={low}, max={high}] ({where})")
        formal = schema.params
        for i, name in enumerate(ins):
            if type(name) is not str:
                self.name(name, f"input {i} of {at}")
            if not name:
                param, optional = formal[min(i, len(formal) - 1)]
                if not optional:
                    self.fail(f"input {i} ('{param}') of {at} is required but left empty")
            elif name not in defined:
                if name in later:
                    self.fail(f"Nodes in a graph must be topologically sorted, however input "
                              f"'{name}' of {at} is not output of any previous nodes (nodes out "
                              f"of order, or a cycle)")
                self.fail(f"Node input '{name}' is not a graph input, initializer, or output of "
                          f"a previous node ({at})")
        self.attributes(node, schema, label, at, defined, depth)

    def attributes(self, node, schema, label: str, at: str, defined: set[str], depth: int) -> None:
        op_type, seen = node.op_type, set()
        for a in node.attribute:
            name = self.name(a.name, f"an attribute of {at}")
            if name in seen:
                self.fail(f"attribute '{name}' of {at} is given twice")
            seen.add(name)
            spec = schema.attributes.get(name)
            if spec is None:
                self.fail(f"Unrecognized attribute: {name} for operator {op_type} ({at})")
            if a.ref_attr_name:
                self.fail(f"attribute '{name}' of {at} refers to a function's attribute "
                          f"('{a.ref_attr_name}'): only functions may")
            if a.type != spec[0]:
                self.fail(f"Mismatched attribute type in '{label} : {name}'. Expected: "
                          f"'{spec[1]}', actual: '{_attr_type_name(a.type)}' ({at})")
            if (op_type, name) in _DTYPE_ATTRS:
                self.elem_type(a.i, f"attribute '{name}' of {at}")
            if op_type == "Constant" and name not in _CONSTANT_FORMS:
                self.fail(f"{at}: a Constant's {name} is not imported (no string or sparse "
                          f"tensors in staticgraph)")
            if a.type == AttributeProto.TENSOR:
                self.tensor(a.t, f"attribute '{name}' of {at}")
        missing = [n for n, spec in schema.attributes.items() if spec[2] and n not in seen]
        if missing:
            self.fail(f"Required attribute '{missing[0]}' is missing ({at})")
        if op_type == "Constant" and len(seen) != 1:
            self.fail(f"{at}: Only one of the attributes 'value', 'value_*' or 'sparse_value' "
                      f"must be specified for a Constant node")
        if op_type == "Loop":
            self.loop(node, at, defined, depth)
        elif op_type == "If":
            self.branches(node, at, defined, depth)

    # --- sub-graphs -------------------------------------------------------------------------
    def subgraph(self, g: onnx.GraphProto, defined: set[str], depth: int, where: str) -> int:
        """Check a Loop body or If branch seeing ``defined``; the number of its outputs."""
        if depth + 1 > MAX_DEPTH:
            self.fail(f"{where} is nested {depth + 1} sub-graphs deep: the importer reads "
                      f"{MAX_DEPTH} at most")
        inputs = [self.value_info(vi, f"input of {where}", typed=False) for vi in g.input]
        defined.difference_update(self.graph(g, defined, depth + 1, where, inputs))
        return len(g.output)

    def loop(self, node, at: str, defined: set[str], depth: int) -> None:
        body = next(a.g for a in node.attribute if a.name == "body")
        n_vars = len(node.input) - 2
        if len(body.input) != n_vars + 2:
            self.fail(f"{at}: its body takes {len(body.input)} inputs; a Loop with {n_vars} "
                      f"loop-carried values needs {n_vars + 2} (iteration, condition, values)")
        n_out = self.subgraph(body, defined, depth, f"the body of {self.short}")
        if n_out != n_vars + 1 or len(node.output) != n_vars:
            self.fail(f"{at}: scan outputs are not imported (its body returns {n_out} values, "
                      f"the node has {len(node.output)} outputs, for {n_vars} loop-carried "
                      f"values)")

    def branches(self, node, at: str, defined: set[str], depth: int) -> None:
        short = self.short
        for a in node.attribute:
            where = f"the {a.name} of {short}"
            if len(a.g.input):
                self.fail(f"{where} takes inputs: an If branch takes none")
            if self.subgraph(a.g, defined, depth, where) != len(node.output):
                self.fail(f"{where} returns {len(a.g.output)} values for the node's "
                          f"{len(node.output)} outputs")


def check_model(model: onnx.ModelProto, source: str, importable: frozenset,
                opsets: tuple[int, int]) -> None:
    """Raise :class:`ModelImportError` (naming ``source``) unless every field ``import_graph``
    reads of ``model`` is well-formed and importable: op types in ``importable``, the default
    domain's opset within ``opsets``."""
    _Checker(source, importable).model(model, opsets)
