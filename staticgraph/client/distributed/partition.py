"""Cut one ``Session.run`` into partitions by device, each a small graph of its own.

::

    ops needed by the fetches (pruned at the feeds), in topological order
      place(op)  = job/task of op.device (None: Dask chooses the worker); ops that touch a
                   variable sit where the variable sits (TF colocates them too)
      level(op)  = max over inputs and control inputs of level(src) + (place(src) != place(op))
      partition  = the ops of one (place, level)  -> every edge between partitions goes to a
                   higher level, so the partitions form a DAG (Dask runs DAGs, TF uses Send/Recv)

A partition's graph copies its ops with their names; a tensor coming from a
feed or from another partition becomes a Placeholder ``_recv/<op>/<index>``
(TF forbids user names starting with ``_``: no clash).  Pure sources (a
constant, a variable's handle) are not sent: each partition that uses one gets
its own copy -- a handle names a variable of the process it runs in.  The graph
travels as the project's JSON export, identified by its SHA-256 digest.
"""
from __future__ import annotations

import copy
import hashlib
from dataclasses import dataclass, field
from typing import Hashable

from ...compiler.order import topological_order
from ...compiler.prune import prune
from ...control.control_flow import Region
from ...framework.device import DeviceSpec
from ...framework.graph import Graph, Operation, Tensor
from ...framework.kinds import effects, kind_of
from ...interop.serialize import to_json

__all__ = ["Partition", "Layout", "partition_run", "place_of_device", "variable_of"]

Source = tuple
"""Where a value comes from: ``("feed", k)`` (the k-th fed value) or ``("part", p, j)``
(output j of partition p)."""


@dataclass
class Partition:
    """The ops of one (place, level), as a graph a worker can load, and its wiring."""

    index: int
    place: Hashable | None
    level: int
    ops: list[Operation]
    text: str = ""
    digest: str = ""
    inputs: list[tuple[str, Source]] = field(default_factory=list)   # recv placeholder <- source
    outputs: list[Tensor] = field(default_factory=list)               # values other parts/user need
    targets: list[str] = field(default_factory=list)                  # ops run for their effect
    variables: dict[str, int | None] = field(default_factory=dict)    # var -> earlier part or None
    after: list[int] = field(default_factory=list)                    # control-only predecessors
    writes: bool = False                                              # may assign a variable

    @property
    def fetch_names(self) -> list[str]:
        return [t.name for t in self.outputs] + self.targets


@dataclass
class Layout:
    """A run cut into partitions (in dependency order) and where each user fetch comes from."""

    partitions: list[Partition]
    fetches: list[Source | None]          # None: an Operation (no value)


def place_of_device(device: str) -> tuple[str, int] | None:
    """``"/job:worker/task:1/device:CPU:0"`` -> ``("worker", 1)``; no job and no task -> None."""
    spec = DeviceSpec.from_string(device)
    if spec.job is None and spec.task is None:
        return None
    return (spec.job or "worker", spec.task or 0)


def variable_of(op: Operation) -> str | None:
    """The variable ``op`` reads or writes, by its declared effects (None: it touches none;
    the first by name when it touches several, e.g. a loop whose body assigns)."""
    e = effects(op)
    touched = e.reads | e.writes
    return min(touched) if touched else None


def _replicated(op: Operation) -> bool:
    """A pure source (Const, VarHandleOp): copied into each partition using it, never sent."""
    kind = kind_of(op)
    return kind is not None and kind.pure and not op.inputs and not op.control_inputs


def _places(graph: Graph, order: list[Operation]) -> dict[Operation, Hashable | None]:
    places = {}
    for op in order:
        var = variable_of(op)
        owner = graph._by_name.get(var, op) if var is not None else op
        places[op] = place_of_device(owner.device)
    return places


def partition_run(graph: Graph, fetches: list, fed: list[Tensor], placed: bool = True) -> Layout:
    """Partition what ``run(fetches, feed_dict)`` executes (``fed``: the fed tensors, in order).

    ``placed=False`` ignores devices: one partition, run wherever Dask chooses.
    """
    fed_index = {t: k for k, t in enumerate(fed)}
    fetched = {f.op for f in fetches if isinstance(f, Tensor)} | {f for f in fetches if isinstance(f, Operation)}
    order = [op for op in topological_order(prune(fetches, set(fed)))
             if not _replicated(op) or op in fetched]
    places = _places(graph, order) if placed else dict.fromkeys(order)
    level: dict[Operation, int] = {}
    for op in order:
        srcs = [t.op for t in op.inputs if t not in fed_index] + list(op.control_inputs)
        level[op] = max((level[s] + (places[s] != places[op]) for s in srcs if s in level), default=0)
    groups: dict[tuple, list[Operation]] = {}
    for op in order:
        groups.setdefault((level[op], places[op] is not None, str(places[op])), []).append(op)
    parts = [Partition(i, places[ops[0]], lvl, ops)
             for i, ((lvl, _, _), ops) in enumerate(sorted(groups.items(), key=lambda kv: (kv[0][0], kv[1][0].index)))]
    part_of = {op: p for p in parts for op in p.ops}
    wanted = _wanted_outputs(parts, part_of, fetches, fed_index)
    for p in parts:
        _build(p, part_of, fed_index, wanted.get(p.index, []))
        _wire_variables(p, parts)
    _resolve_inputs(parts)
    sources = []
    for f in fetches:
        if isinstance(f, Operation):
            sources.append(None)
        elif f in fed_index:
            sources.append(("feed", fed_index[f]))
        else:
            p = part_of[f.op]
            sources.append(("part", p.index, p.outputs.index(f)))
    return Layout(parts, sources)


def _wanted_outputs(parts, part_of, fetches, fed_index) -> dict[int, list[Tensor]]:
    """Per partition, the tensors read by other partitions or fetched (first-use order)."""
    wanted: dict[int, dict[Tensor, None]] = {}
    for p in parts:
        for op in p.ops:
            for t in op.inputs:
                if t not in fed_index and t.op in part_of and part_of[t.op] is not p:
                    wanted.setdefault(part_of[t.op].index, {})[t] = None
    for f in fetches:
        if isinstance(f, Tensor) and f not in fed_index:
            wanted.setdefault(part_of[f.op].index, {})[f] = None
    return {k: list(v) for k, v in wanted.items()}


def _build(p: Partition, part_of, fed_index, outputs: list[Tensor]) -> None:
    """Copy ``p``'s ops into a new Graph with recv placeholders; fill text, digest, wiring."""
    g = Graph()
    mapped: dict[Tensor, Tensor] = {}
    after: dict[int, None] = {}
    consumed: set[Operation] = set()
    for op in p.ops:
        inputs = []
        for t in op.inputs:
            if t not in mapped and t not in fed_index and _replicated(t.op):
                _copy(g, t.op, [], [])
                mapped.update(zip(t.op.outputs, g.get_operation_by_name(t.op.name).outputs))
            if t not in mapped:
                name = f"_recv/{t.op.name}/{t.value_index}"
                recv = g.create_op("Placeholder", (), {"dtype": t.dtype, "shape": t._shape},
                                   [(t._shape, t.np_dtype)], name=name, exact_name=True)
                mapped[t] = recv.outputs[0]
                src = part_of[t.op] if t not in fed_index else None
                p.inputs.append((recv.outputs[0].name, ("feed", fed_index[t]) if src is None
                                 else ("part", src.index, None, t)))
            inputs.append(mapped[t])
            consumed.add(t.op)
        control = []
        for c in op.control_inputs:
            if part_of.get(c) is p:
                control.append(g.get_operation_by_name(c.name))
                consumed.add(c)
            elif c in part_of:
                after[part_of[c].index] = None
        new = _copy(g, op, inputs, control)
        mapped.update(zip(op.outputs, new.outputs))
    p.outputs = outputs
    out_ops = {t.op for t in outputs}
    p.targets = [op.name for op in p.ops if op not in consumed and op not in out_ops]
    p.after = [i for i in after if i != p.index]
    p.text = to_json(g)
    p.digest = hashlib.sha256(p.text.encode()).hexdigest()


def _copy(g: Graph, op: Operation, inputs: list, control: list) -> Operation:
    attrs = op.attrs
    if any(isinstance(v, (Region, tuple, Operation, Tensor)) for v in attrs.values()):
        mapped = dict(zip(op.inputs, inputs))
        attrs = {k: _localize(v, mapped, g) for k, v in attrs.items()}
    new = g.create_op(op.kind, inputs, attrs, [(o._shape, o.np_dtype) for o in op.outputs],
                      name=op.name, op_def=op.op_def, control_inputs=control, site=op.site,
                      exact_name=True, tf_type=op.type)
    new._device = op.device
    if op.name in op.graph.grad_programs:            # a loop's or branch's gradient program
        g.grad_programs[op.name] = op.graph.grad_programs[op.name]
    return new


def _shadow(g: Graph, op: Operation) -> None:
    """A copy of ``op`` that a node of ``g`` names in an attribute (a loop gradient names its
    forward loop, for its regions and gradient program) but that runs elsewhere: its inputs
    are unfed placeholders, and nothing in ``g`` fetches it, so it never runs here."""
    if op.name in g._by_name:
        return
    inputs = []
    for t in op.inputs:
        name = f"_shadow/{t.op.name}/{t.value_index}"
        if name not in g._by_name:
            g.create_op("Placeholder", (), {"dtype": t.dtype, "shape": t._shape},
                        [(t._shape, t.np_dtype)], name=name, exact_name=True)
        inputs.append(g.get_operation_by_name(name).outputs[0])
    _copy(g, op, inputs, [])


def _localize(v, mapped: dict, g: Graph):
    """A control-flow region as seen from partition graph ``g``: its captured outer tensors are
    the partition's (the node's inputs: copies or recv placeholders) and it waits only for
    ops of ``g`` (waits on other partitions are kept by the task order)."""
    if isinstance(v, tuple):
        return tuple(_localize(i, mapped, g) for i in v)
    if isinstance(v, Operation):
        _shadow(g, v)
        return v
    if isinstance(v, Tensor):
        return mapped.get(v, v)
    if not isinstance(v, Region):
        return v
    local = Region.__new__(Region)
    local.graph = copy.copy(v.graph)                  # shallow: same ops, its own waits
    local.graph.control_captures = [op for op in v.graph.control_captures if op.name in g._by_name]
    local.args, local.outs, local.placeholders = v.args, v.outs, v.placeholders
    local.captured = [mapped.get(t, t) for t in v.captured]
    return local


def _wire_variables(p: Partition, parts: list[Partition]) -> None:
    """Each variable ``p`` touches comes from the latest earlier partition touching it, or the driver."""
    for op in p.ops:
        e = effects(op)
        p.writes = p.writes or bool(e.writes)
        for var in sorted(e.reads | e.writes):
            if var not in p.variables:
                p.variables[var] = next((q.index for q in reversed(parts[:p.index]) if q.place == p.place
                                         and any(var in _touched(o) for o in q.ops)), None)


def _touched(op: Operation) -> frozenset:
    e = effects(op)
    return e.reads | e.writes


def _resolve_inputs(parts: list[Partition]) -> None:
    """Turn ``("part", p, None, tensor)`` sources into ``("part", p, j)`` (j: output position)."""
    for p in parts:
        p.inputs = [(name, src if src[0] == "feed" else ("part", src[1], parts[src[1]].outputs.index(src[3])))
                    for name, src in p.inputs]
