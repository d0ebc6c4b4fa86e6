"""Control flow as graph nodes: ``while_loop``, ``cond``, ``case``, ``switch_case``.

In a static graph a Python ``while``/``if`` runs once, while the graph is
built.  A loop or branch that depends on data must itself be a node::

    outer graph:   init vars, captured w ──> While(cond: Region, body: Region) ──> results
    cond region:   x ──> Less ──> pred            (a SubGraph, built ONCE from cond(...))
    body region:   x, capture_w ──> ... ──> y     (a SubGraph, built ONCE from body(...))

A :class:`Region` is a SubGraph plus its argument placeholders and outputs;
outer tensors a region uses are captured as placeholders and become extra
inputs of the node (so pruning and ordering see them).  When the outer plan
is compiled, each region is lowered once to a flat plan and the node's kernel
is *generated Python source* in which the regions' steps are inlined into a
tight ``while True:`` / ``if p:`` -- an iteration is a few plain calls, no
graph work.  Gradients live in :mod:`.control_flow_grad`.

**TF1 classic mode** (``tf.compat.v1.disable_control_flow_v2()`` or ``disable_v2_behavior()``,
:mod:`..framework.behavior`) builds the same node and presents its boundary as TF1's
dataflow loop shows it: each loop variable enters through ``while/Enter``, ``while/Enter_1``
..., the results are ``while/Exit:0``, ``while/Exit_1:0`` ... (packed like the body's
result, as TF1 packs them), a cond's predicate passes ``cond/pred_id`` and its results are
``cond/Merge:0``, ``cond/Merge_1:0``.  Those are real ``Identity`` nodes shown with TF1's
types (``Enter``, ``Exit``, ``Merge``), so they run like any Identity (the simplify pass
removes them).  What TF1 puts *between* them -- ``Merge``/``Switch``/``NextIteration``/
``LoopCond`` per variable and the body's ops in the outer graph -- has no counterpart
here: the iteration lives in the one ``While``/``If`` node (``while``, ``cond``), whose
regions hold the body's and branches' ops, so ``get_operations()`` does not list them.
"""
from __future__ import annotations

import itertools
from typing import Any, Callable

import numpy as np

from common import REGISTRY
from common.shapes import most_specific_compatible, refines

from ..framework.build import apply, convert_to_tensor
from ..compiler.prune import pruned_order
from ..compiler.passes.manager import run_passes
from ..compiler.passes.report import PassReport
from ..compiler.passes.carry import CarriedWrites, carried_writes
from ..compiler.passes import loops
from ..compiler import fuse
from ..compiler.plan import Plan, lower_plan
from .control_flow_codegen import Source, as_tuple
from ..framework import behavior
from ..framework.errors import InvalidArgumentError
from ..framework.graph import ATTR_VIEWS, Graph, Operation, SubGraph, Tensor, get_default_graph
from ..framework.indexed_slices import IndexedSlices
from ..framework.kinds import Effects, LowerContext, defkind, effects, is_stateful
from ..ops.core_ops import cast, identity
from ..util.nest import (describe, first_difference, flatten, flatten_up_to, pack_sequence_as,
                         structure_error)
from ..framework.shape import TensorShape, as_shape_tuple
from ..framework.sources import placeholder

__all__ = ["while_loop", "cond", "case", "switch_case", "Region", "lower_while", "lower_cond", "region_effects",
           "keeps_trace", "regions_of", "branch_blocks", "LOOP_TYPES", "BRANCH_TYPES", "CASE_TYPES",
           "CONTROL_FLOW_TYPES", "carried_in_place"]

LOOP_TYPES = ("While", "StatelessWhile")
"""A loop node's type, as TF 2 names it: ``StatelessWhile`` unless a region reads or changes
state (a variable, a random op, a print, an assert...), then ``While``.  Both are one kind."""
BRANCH_TYPES = ("If", "StatelessIf")
"""A ``cond`` node's type, likewise: ``StatelessIf`` or ``If``."""
CASE_TYPES = ("Case", "StatelessCase")
"""A ``switch_case`` node's type: an If with any number of branches, chosen by an index."""
CONTROL_FLOW_TYPES = LOOP_TYPES + BRANCH_TYPES + CASE_TYPES


def _call(fn: Callable, args: Any) -> Any:
    """TF's calling convention: a list/tuple/namedtuple is spread, anything else passed whole."""
    return fn(*args) if isinstance(args, (list, tuple)) else fn(args)


# --- regions: a sub-graph with argument placeholders and outputs ---------------------

class Region:
    """A SubGraph built once from a Python function, as a node attribute.

    ``args``: placeholders standing for the values the node passes in (loop
    variables; none for a cond branch).  ``outs``: the result tensors.
    ``captured``: outer tensors the function used, in capture order, and
    ``placeholders`` their stand-ins inside.
    """

    __slots__ = ("graph", "args", "outs", "captured", "placeholders")

    def __init__(self, graph: SubGraph, args: list[Tensor]):
        self.graph, self.args = graph, args
        self.seal([])

    def seal(self, outs: list[Tensor]) -> None:
        """Record the results (converting them may have captured more outer tensors)."""
        self.outs = outs
        self.captured = list(self.graph.captures)
        self.placeholders = [self.graph.captures[t] for t in self.captured]

    @property
    def name(self) -> str:
        """The name TF gives the function this region is (``cond_true_12``, ``while_body_6``:
        the node's name, the role, a number unique in the process)."""
        return getattr(self.graph, "function_name", self.graph.name)

    def __repr__(self) -> str:
        return (f"<Region {self.graph.name}: {len(self.graph._ops)} ops, {len(self.args)} args, "
                f"{len(self.captured)} captured>")

    def plan(self, ctx: LowerContext, fetches: list[Tensor], feeds: list[Tensor]) -> Plan:
        """Lower this region (what ``fetches`` need, given ``feeds``) to a flat plan, once.

        The outer plan's rewrite passes (``ctx.config``, the Session's) run first, so a
        loop body is folded/simplified/CSE'd like any graph -- or not at all with
        ``PassConfig.off()``.
        """
        fed = set(feeds)
        prog = run_passes(pruned_order(fetches, fed), list(fetches), fed, ctx.config, PassReport())
        return lower_plan(prog.ops, feeds, prog.fetches, ctx.state, ctx.config)

    def fed(self, args: dict[int, str], cap: dict[Tensor, str]) -> tuple[list[Tensor], list[str]]:
        """What a node running this region feeds it, and the kernel's names for those values:
        the arguments at positions ``args`` (position -> name) and the placeholders of the
        captured tensors in ``cap`` (tensor -> name) -- all of them, or a narrowed node's
        part (see :mod:`.control_flow_prune`)."""
        caps = [(p, cap[t]) for t, p in zip(self.captured, self.placeholders) if t in cap]
        return ([*(self.args[k] for k in args), *(p for p, _ in caps)],
                [*args.values(), *(name for _, name in caps)])

    def effects(self) -> Effects:
        """The variables this region's ops read and write when it runs (nested ones included)."""
        reads, writes = set(), set()
        for op in self.graph._ops:
            e = effects(op)
            reads |= e.reads
            writes |= e.writes
        return Effects(frozenset(reads), frozenset(writes))


def _inner(sub: SubGraph, value: Any, dtype=None) -> Tensor:
    """``value`` as a tensor of ``sub``: outer tensors are captured, Python values become Consts."""
    is_tensor = isinstance(value, Tensor) or hasattr(value, "_as_graph_element")
    with sub.as_default():
        t = convert_to_tensor(value) if is_tensor else convert_to_tensor(value, dtype=dtype)
    return t if t.graph is sub else sub.capture(t, "control flow")


# --- composite values: an IndexedSlices crosses a loop or cond as its component tensors ---

class _Parts(tuple):
    """An IndexedSlices' (values, indices[, dense_shape]) while a loop or cond carries it: a
    tuple to the structure helpers (so its tensors are leaves), marked to be rebuilt."""


def _expand(structure: Any) -> Any:
    """``structure`` with each IndexedSlices replaced by its :class:`_Parts` (TF's
    ``expand_composites``: the loop node and the cond node carry plain tensors)."""
    if isinstance(structure, IndexedSlices):
        shape = structure.dense_shape   # (a loop carries it as a tensor)
        if shape is None:
            return _Parts((structure.values, structure.indices))
        return _Parts((structure.values, structure.indices, convert_to_tensor(shape)))
    if isinstance(structure, dict):
        return type(structure)((k, _expand(v)) for k, v in structure.items())
    if isinstance(structure, list):
        return [_expand(v) for v in structure]
    if isinstance(structure, tuple) and not isinstance(structure, _Parts):
        items = [_expand(v) for v in structure]
        return type(structure)(*items) if hasattr(structure, "_fields") else type(structure)(items)
    return structure


def _collapse(structure: Any) -> Any:
    """The inverse of :func:`_expand`: each :class:`_Parts` back to an IndexedSlices."""
    if isinstance(structure, _Parts):
        return IndexedSlices(*structure)
    if isinstance(structure, dict):
        return type(structure)((k, _collapse(v)) for k, v in structure.items())
    if isinstance(structure, list):
        return [_collapse(v) for v in structure]
    if isinstance(structure, tuple):
        items = [_collapse(v) for v in structure]
        return type(structure)(*items) if hasattr(structure, "_fields") else type(structure)(items)
    return structure


def _expand_invariants(loop_vars: Any, shape_invariants: Any) -> Any:
    """Shape invariants for the expanded loop variables: an IndexedSlices' invariant is its
    dense shape (TF's ``IndexedSlicesSpec``): values ``[None] + shape[1:]``, indices
    ``[None]``, dense_shape ``[rank]``.  Mismatched structures are left for the caller's check."""
    try:
        given = flatten_up_to(loop_vars, shape_invariants)
    except (ValueError, TypeError, KeyError):
        return shape_invariants
    flat = []
    for var, inv in zip(flatten(loop_vars), given):
        if isinstance(var, IndexedSlices):
            inv = TensorShape(_invariant_shape(inv))
            dims = inv.as_list() if inv.rank is not None else None
            shapes = [TensorShape(None if dims is None else [None, *dims[1:]]), TensorShape([None]),
                      TensorShape([None if dims is None else len(dims)])]
            flat.extend(shapes[:3 if var.dense_shape is not None else 2])
        else:
            flat.append(inv)
    return pack_sequence_as(_expand(loop_vars), flat)


_FUNCTION_IDS = itertools.count(1)
"""Numbers that make regions' function names unique (TF's ``ops.uid``)."""


def _build_region(outer: Graph, label: str, fn: Callable, structure: Any,
                  specs: list[tuple], wraps: list | None = None,
                  role: str | None = None) -> tuple[Region, Any]:
    """Call ``fn`` once on placeholders shaped ``specs`` arranged like ``structure``.

    ``wraps[i]``, when given, turns argument ``i`` back into the object the user passed
    (a TensorArray travels through the loop as its buffer tensor).  ``role``: the name TF's
    errors give the function (``true_fn``): a branch may not use another branch's tensors.
    """
    sub = SubGraph(outer, label, role)
    sub.function_name = f"{outer._name_stack.replace('/', '_')}_{label}_{next(_FUNCTION_IDS)}"
    with sub.as_default():
        args = [placeholder(dtype, shape, name=f"arg_{i}") for i, (shape, dtype) in enumerate(specs)]
        given = _rewrap(args, wraps)
        result = fn() if structure is None else _call(
            fn, _collapse(pack_sequence_as(structure, given)))
    return Region(sub, args), _expand(result)


def _rewrap(tensors: list, wraps: list | None) -> list:
    if not wraps:
        return list(tensors)
    return [w(t) if w is not None else t for t, w in zip(tensors, wraps)]


def _loop_leaves(loop_vars: Any) -> tuple[list[Tensor], list]:
    """Loop variables as tensors, and for each the function that wraps it back (or None):
    an object with ``_loop_rewrap`` (a TensorArray) travels as its ``_as_graph_element``."""
    leaves = flatten(loop_vars)
    return [convert_to_tensor(v) for v in leaves], [getattr(v, "_loop_rewrap", None) for v in leaves]


def _union(*regions: Region) -> list[Tensor]:
    return list(dict.fromkeys(t for r in regions for t in r.captured))


# --- while_loop ----------------------------------------------------------------------

def _invariant_shape(s: Any) -> Any:
    """A shape invariant as a shape: a TensorShape or list as is, a TensorSpec its ``shape``."""
    return s.shape if type(s).__name__ == "TensorSpec" else s


def _invariants(structure: Any, flat: list[Tensor], shape_invariants: Any) -> list[tuple | None]:
    if shape_invariants is None:
        return [t._shape for t in flat]
    try:
        shapes = [as_shape_tuple(_invariant_shape(s))
                  for s in flatten_up_to(structure, shape_invariants)]
    except (ValueError, TypeError, KeyError) as e:
        raise ValueError(f"shape_invariants must have the same structure as loop_vars "
                         f"({describe(structure)}): {e}") from None
    for t, s in zip(flat, shapes):
        if not refines(t._shape, s):
            raise ValueError(f"The shape invariant specified for {t.name} is not compatible with "
                             f"the initial shape of the loop variable. It enters the loop with "
                             f"shape {t.shape}, but the specified shape invariant is {TensorShape(s)}.")
    return shapes


def _check_body(structure: Any, flat: list[Tensor], result: Any, sub: SubGraph,
                shapes: list) -> list[Tensor]:
    """The body's result as tensors of ``sub``; build errors say what differs from loop_vars."""
    expect = list(structure) if isinstance(structure, (list, tuple)) else [structure]
    got = list(result) if isinstance(result, (list, tuple)) else [result]
    diff = first_difference(expect, got, "loop_vars")
    if diff:   # TF's words (the body's result first), then which part differs
        shown = (result if isinstance(result, (list, tuple)) else got,
                 structure if isinstance(structure, (list, tuple)) else expect)
        raise ValueError(f"{structure_error(*shown, check_types=False)}\n\n"
                         f"tf.while_loop: body must return the same structure as loop_vars; "
                         f"they differ {diff}.")
    outs = []
    for i, (x, y, shape) in enumerate(zip(flat, flatten(got), shapes)):
        y = _inner(sub, y, x.dtype)
        if y.dtype != x.dtype:   # TF 2's words, then ours
            raise TypeError(f"Loop var {x.name} enters the loop with type {x.dtype} but has "
                            f"type {y.dtype} after 1 iteration.\n\n"
                            f"tf.while_loop: loop variable {i} ({x.name}) enters the loop with "
                            f"dtype {x.dtype.name}, but body returns dtype {y.dtype.name} for it.")
        if not refines(y._shape, shape):
            raise ValueError(f"Input tensor `{x.name}` enters the loop with shape "
                             f"{TensorShape(shape)}, but has shape {y.shape} after one iteration. "
                             f"To allow the shape to vary across iterations, use the "
                             f"`shape_invariants` argument of tf.while_loop to specify a "
                             f"less-specific shape.")
        outs.append(y)
    return outs


def _scalar_bool(pred: Tensor, what: str, one_element: bool = False) -> Tensor:
    """``pred`` checked as a boolean scalar; ``one_element``: any shape of one element will
    do (a loop's condition: TF's While reads a ``[[True]]`` as True)."""
    if pred.dtype.name != "bool":
        raise TypeError(f"{what} must be a boolean scalar tensor, got {pred} of dtype {pred.dtype.name}.")
    if one_element and pred._shape is not None and all(d == 1 for d in pred._shape):
        return pred
    if pred.ndim not in (None, 0):
        raise ValueError(f"{what} must be a scalar (shape ()), got {pred} of shape {pred.shape}.")
    return pred


def while_loop(cond: Callable, body: Callable, loop_vars: Any, shape_invariants: Any = None,
               parallel_iterations: int = 10, back_prop: bool = True, swap_memory: bool = False,
               name: str | None = None, maximum_iterations: Any = None,
               return_same_structure: bool = False) -> Any:
    """Repeat ``body`` while ``cond`` holds -- as ONE graph node; cond/body are called once, now.

    Run-time semantics (a test checks the node against exactly this)::

        vars, i = loop_vars, 0
        while (maximum_iterations is None or i < maximum_iterations) and cond(*vars):
            vars, i = body(*vars), i + 1
        return vars

    A list/tuple/namedtuple ``loop_vars`` is spread into ``cond(*vars)``,
    anything else (a Tensor, a dict) is passed whole.  ``body`` returns the same
    structure; each var keeps its dtype and its shape (or ``shape_invariants``'
    less specific one).  Tensors of enclosing graphs used inside are read at
    run time.  A single-element list returns its element (TF 1.x), unless
    ``return_same_structure``.  ``parallel_iterations`` and ``swap_memory``
    are accepted for TF code and have nothing to tune here (iterations run
    in order, values stay in memory).
    """
    if not callable(cond) or not callable(body):
        raise TypeError(f"tf.while_loop: cond and body must be callable, got "
                        f"{type(cond).__name__} and {type(body).__name__}.")
    graph = get_default_graph()
    if shape_invariants is not None:
        shape_invariants = _expand_invariants(loop_vars, shape_invariants)
    loop_vars = _expand(loop_vars)
    with graph.name_scope(name or "while") as scope:
        leaves = flatten(loop_vars)
        flat, wraps = _loop_leaves(loop_vars)
        structure = pack_sequence_as(loop_vars, flat)
        if not flat:
            raise ValueError("tf.while_loop: no loop variables provided (loop_vars is empty).")
        shapes = _invariants(structure, flat, shape_invariants)
        shapes = [getattr(v, "_loop_shape", s) if w is not None else s
                  for v, w, s in zip(leaves, wraps, shapes)]
        specs = [(s, t.np_dtype) for s, t in zip(shapes, flat)]
        cond_r, pred = _build_region(graph, "cond", cond, structure, specs, wraps)
        pred = _scalar_bool(_inner(cond_r.graph, pred), "tf.while_loop: cond's result", True)
        cond_r.seal([pred])
        body_r, result = _build_region(graph, "body", body, structure, specs, wraps)
        body_r.seal(_check_body(structure, flat, result, body_r.graph, shapes))
        captured = _union(cond_r, body_r)
        classic = not behavior.control_flow_v2_enabled()
        if classic:   # TF1's Enter per loop variable (a TensorArray's buffer travels as is)
            if maximum_iterations is not None:   # TF1's counter is a loop variable, named
                maximum_iterations = convert_to_tensor(maximum_iterations, name="maximum_iterations")
                for reserved in ("iteration_counter", "Enter"):   # first: its names stay reserved
                    graph.unique_name(reserved)
            flat = [_shown_as(t, "Enter") if w is None else t for t, w in zip(flat, wraps)]
        inputs = [*flat, *captured]
        if maximum_iterations is not None:
            inputs.append(convert_to_tensor(maximum_iterations, name="maximum_iterations"))
        attrs = {"cond": cond_r, "body": body_r, "n_vars": len(flat), "captured": tuple(captured),
                 "max_iter": maximum_iterations is not None, "back_prop": back_prop}
        op = _control_op(graph, LOOP_TYPES, inputs, attrs, specs, scope, (cond_r, body_r))
        out_wraps = [getattr(r, "_loop_rewrap", None) for r in flatten(result)] if any(wraps) else None
        if classic and maximum_iterations is not None:
            graph.unique_name("Exit")   # the counter's
        if classic:   # TF1 packs the exits like the body's result (a bare one as a list)
            structure = result if isinstance(result, (list, tuple, dict)) else [result]
        return _collapse(_results(op, structure, unwrap_single=not return_same_structure,
                                  wraps=out_wraps, classic=classic))


def _control_op(graph: Graph, types: tuple[str, str], inputs, attrs, specs, scope: str,
                regions: tuple) -> Operation:
    """The While/If node: the user's outputs plus a last one, the gradient trace.

    ``types``: (stateful, stateless) type names; TF's rule picks the stateless one
    when no op of the regions is stateful (a nested stateless loop or cond is not).
    The trace is engine plumbing (per-iteration values for backward), so it is
    never feedable.  Ops inside that wait on ops outside (``control_dependencies``
    in a body) make the node itself wait on them.
    """
    waits = list(dict.fromkeys(d for r in regions for d in r.graph.control_captures))
    stateful = any(is_stateful(o) and o.kind not in _STATELESS
                   for r in regions for o in r.graph._ops)
    op = graph.create_op(types[0] if stateful else types[1], inputs, attrs,
                         [*specs, (None, np.object_)],
                         name=scope[:-1], exact_name=True, control_inputs=waits)
    graph.prevent_feeding(op.outputs[-1])
    return op


_STATELESS = (LOOP_TYPES[1], BRANCH_TYPES[1])


def _results(op: Operation, structure, unwrap_single: bool, wraps: list | None = None,
             classic: bool = False):
    """The node's outputs in the user's structure, each through an ``Identity`` named as TF
    names them; a lone result bare unless asked not to.

    TF 2's loop node has two outputs first (the loop counter and ``maximum_iterations``;
    ``while/Identity`` and ``while/Identity_1``), so a loop's results are
    ``while/Identity_2:0``, ``while/Identity_3:0``, ...; a cond's are ``cond/Identity:0``,
    ``cond/Identity_1:0``.  This node has no such outputs: their names stay reserved so
    the user's tensors carry TF's.  Called inside the node's name scope.  The compiler's
    simplify pass removes the Identity steps (``Identity(x) -> x``): they cost nothing.
    ``classic``: TF1's names and types instead, ``while/Exit:0`` and ``cond/Merge:0``.
    """
    graph = op.graph
    if classic:
        shown = "Exit" if op.kind in LOOP_TYPES else "Merge"
        outs = [_shown_as(t, shown) for t in op.outputs[:len(flatten(structure))]]
        return _packed(structure, _rewrap(outs, wraps), unwrap_single)
    if op.kind in LOOP_TYPES:
        for _ in range(2):
            graph.unique_name("Identity")
    outs = [identity(t, name="Identity") for t in op.outputs[:len(flatten(structure))]]
    return _packed(structure, _rewrap(outs, wraps), unwrap_single)


def _shown_as(t: Tensor, tf_name: str) -> Tensor:
    """An ``Identity`` of ``t`` named and typed as TF1's dataflow node ``tf_name`` (``Enter``,
    ``Exit``, ``Merge``): classic mode's boundary of a loop or cond (module docstring)."""
    return apply(REGISTRY["Identity"], (t,), {}, name=tf_name, tf_type=tf_name)


def _packed(structure, outs: list, unwrap_single: bool):
    """``outs`` arranged like ``structure``; a lone result bare unless asked not to."""
    out = pack_sequence_as(structure, outs)
    if unwrap_single and isinstance(out, (list, tuple)) and len(out) == 1:
        return out[0]
    return out


def region_effects(op: Operation) -> Effects:
    """A While's or If's effects: those of every op in its regions."""
    parts = [r.effects() for r in regions_of(op)]
    return Effects(frozenset().union(*(p.reads for p in parts)),
                   frozenset().union(*(p.writes for p in parts)))


def regions_of(op: Operation) -> tuple:
    """A While's (cond, body) or an If's (false, true) regions."""
    a = op.attrs
    return (a["cond"], a["body"]) if op.kind in LOOP_TYPES else a["branches"]


def keeps_trace(op: Operation, ctx: LowerContext):
    """The gradient program of ``op`` if a gradient node of the plan being compiled reads its
    trace (then the forward run keeps what that program needs), else None."""
    if op.outputs[-1] not in ctx.used:
        return None
    return op.graph.grad_programs.get(op.name)


def kept(names: list[str], grad) -> list[str]:
    """What a trace keeps of each saved value: the array, or only its shape and dtype (a
    ``ShapeRef``) when the gradient reads nothing else -- a TensorArray's whole buffer, say,
    which would otherwise be kept once per iteration."""
    return [f"_shape_ref({n})" if shape_only else n for n, shape_only in zip(names, grad.shape_only())]


def carried_in_place(plan: Plan, n_vars: int, grad, ctx: LowerContext) -> CarriedWrites:
    """Which of a body plan's steps write into the loop's own buffers (none with in-place
    reuse switched off); the first ``n_vars`` fetches are the loop variables' next values,
    the rest what the trace keeps for ``grad`` (some only as shapes)."""
    if not ctx.config.inplace:
        return CarriedWrites.none(plan)
    flags = grad.shape_only() if grad is not None else []
    return carried_writes(plan, {j: j for j in range(n_vars)},
                          {n_vars + k for k, only in enumerate(flags) if only})


def computed(op: Operation, n: int) -> range | tuple[int, ...]:
    """Which of the first ``n`` outputs (loop variables, cond results) ``op`` computes: all,
    unless a plan narrowed it to those something needs (see :mod:`.control_flow_prune`)."""
    return op.attrs.get("computed", range(n))


def hoisted_products(op: Operation, plan: Plan, n_args: int, ctx: LowerContext
                     ) -> loops.LoopRewrite:
    """The loop body ``plan``'s input products hoisted out of the iteration (the ``loops``
    pass, :mod:`..compiler.passes.loops`): the captured values (fed after the ``n_args``
    loop variables) are loop-invariant, and so are variable reads if the loop writes none.
    A product of which one piece is used multiplies by that piece's columns only."""
    if not ctx.config.loops:
        return loops.LoopRewrite.none()
    fixed = {plan.slot_of[t] for t in plan.feeds[n_args:]}
    hoisted = loops.hoisted_products(plan, fixed, not region_effects(op).writes, "b")
    return hoisted.merged(loops.split_products(plan, set(hoisted.steps)))


def lower_while(op, ctx: LowerContext) -> Callable:
    """The loop as one generated function (see its ``.source``); regions inlined.  A loop
    narrowed to some of its variables computes only those (the others' outputs are None)."""
    a = op.attrs
    cond_r, body_r, grad = a["cond"], a["body"], keeps_trace(op, ctx)
    xs = {k: f"x{k}" for k in computed(op, a["n_vars"])}
    cap = {t: f"cap{j}" for j, t in enumerate(a["captured"])}
    saved = grad.needed if grad is not None else []
    feeds, names = body_r.fed(xs, cap)
    body_plan = body_r.plan(ctx, [*(body_r.outs[k] for k in xs), *saved], feeds)
    cond_feeds, cond_names = cond_r.fed(xs, cap)
    cond_plan = cond_r.plan(ctx, cond_r.outs, cond_feeds)

    def build(body_plan: Plan) -> Callable:
        """The kernel running ``body_plan`` (the body's, or it with its chains fused)."""
        src = Source(op)
        src.extend([f"    {x} = {x}[()]" for k, x in xs.items() if op.outputs[k].ndim == 0])
        # a captured 0-d number as its numpy scalar too: `i < n` of two scalars is ~80x faster
        src.extend([f"    if {c}.__class__ is _ndarray: {c} = {c}[()]" for t, c in cap.items()
                    if t.ndim == 0 and t.np_dtype.kind != "O"])
        carried = carried_in_place(body_plan, len(xs), grad, ctx)
        hoisted = hoisted_products(op, body_plan, len(xs), ctx)
        current = list(xs.values())
        src.own([current[j] for j in carried.owned])
        if grad is not None:
            src.extend(["    trace = []", "    push = trace.append"])
        src.extend(f"    {text}" for text in hoisted.before)
        if a["max_iter"]:
            src.extend(["    i, m = 0, int(m)"])
        src.line("    while True:")
        if a["max_iter"]:
            src.line("        if i >= m: break")
        pred, = src.inline(cond_plan, cond_names, "p", 8)
        src.line(f"        if not {pred}: break")
        ys = src.inline(body_plan, names, "b", 8, carried, hoisted)
        if grad is not None:
            src.line(f"        push({as_tuple(kept(ys[len(xs):], grad))})")
        if xs:
            src.line(f"        {', '.join(current)}, = {', '.join(ys[:len(xs)])},")
        if a["max_iter"]:
            src.line("        i += 1")
        outs = ", ".join(src.owned(xs[k]) if k in xs else "None" for k in range(a["n_vars"]))
        src.line(f"    return ({outs}, {'trace' if grad is not None else 'None'})")
        return src.compile("while", current + list(cap.values()) + (["m"] if a["max_iter"] else []))
    return fuse.loop_kernel(body_plan, build, ctx.config)


# --- cond and case -------------------------------------------------------------------

def cond(pred: Any, true_fn: Callable | None = None, false_fn: Callable | None = None,
         strict: bool = False, name: str | None = None, fn1=None, fn2=None) -> Any:
    """``true_fn()`` if ``pred`` else ``false_fn()`` -- both built once, only one runs.

    Run-time semantics (a test checks the node against exactly this)::

        return true_fn() if pred else false_fn()

    Both branches must return the same structure and dtypes; a result's static
    shape is the most specific one compatible with both branches.  The branch
    not taken costs nothing at run time (its ops never execute).  A singleton
    list result is unpacked unless ``strict`` (TF 1.x).
    """
    true_fn, false_fn = true_fn or fn1, false_fn or fn2
    if not callable(true_fn) or not callable(false_fn):
        raise TypeError("tf.cond: true_fn and false_fn must be callable.")
    if isinstance(pred, bool):
        raise TypeError("pred must not be a Python bool (tf.cond decides at run time; "
                        "use a Python `if` for a value known while building).")
    graph = get_default_graph()
    with graph.name_scope(name or "cond") as scope:
        pred = _scalar_bool(convert_to_tensor(pred), "tf.cond: pred")
        classic = not behavior.control_flow_v2_enabled()
        if classic:
            pred = identity(pred, name="pred_id")   # TF1's cond/pred_id
        roles = ("true_fn", "false_fn")
        op, t_res = _branch_node(graph, BRANCH_TYPES, pred, (true_fn, false_fn), ("true", "false"),
                                 roles, roles, "cond", scope, (1, 0), classic)
        # a TensorArray a branch returns travels as its buffer: the result wraps it back
        wraps = [getattr(r, "_loop_rewrap", None) for r in flatten(t_res)]
        return _collapse(_results(op, t_res, unwrap_single=not strict, wraps=wraps,
                                  classic=classic))


def _branch_node(graph: Graph, types: tuple[str, str], selector: Tensor, fns: tuple,
                 labels: tuple, roles: tuple, names: tuple, op_name: str, scope: str,
                 order: tuple, classic: bool = False) -> tuple[Operation, Any]:
    """The ``If`` (``cond``) or ``Case`` (``switch_case``) node and the first function's
    results' structure.  ``fns`` in the order TF builds them (``true_fn`` first); the node's
    ``branches`` hold their regions at positions ``order`` (an If's are (false, true)).

    Every function must return the structure, number and dtypes of values the first one
    returns: else TF's TypeError (a ValueError in classic mode, as TF1's nest words it).
    ``roles``: how a branch is named when another uses its tensors (``true_fn``,
    ``branch 1``); ``names``: how the structure errors name it (``branches[1]``)."""
    built = [_build_region(graph, lbl, fn, None, [], role=role)
             for lbl, fn, role in zip(labels, fns, roles)]
    regions = [r for r, _ in built]
    results = _match_indexed_slices(
        regions, [_ops_as_selector(r, res, selector) for r, res in built], op_name)
    first = results[0]
    for name, res in zip(names[1:], results[1:]):
        words = structure_error(first, res, True)
        if words:   # TF 2 words it as a TypeError about the outputs, TF1 as nest's ValueError
            diff = first_difference(first, res, "result")
            if diff:
                words += (f"\n\ntf.{op_name}: {names[0]} and {name} must return the same "
                          f"structure; they differ {diff}.")
            if classic:
                raise ValueError(words)
            raise TypeError(f"{_same_outputs(names[0], name, op_name)}\n\n{names[0]} output: "
                            f"{_collapse(first)}\n{name} output: {_collapse(res)}\n\n"
                            f"Error details:\n{words}")
    outs = [[_inner(regions[0].graph, v) for v in flatten(first)]]
    if not outs[0]:
        raise ValueError(f"tf.{op_name}: {' and '.join(names)} must return at least one tensor.")
    for name, region, res in zip(names[1:], regions[1:], results[1:]):
        outs.append([_inner(region.graph, v, t.dtype) for v, t in zip(flatten(res), outs[0])])
        for t, f in zip(outs[0], outs[-1]):
            if t.dtype != f.dtype:
                raise TypeError(f"{_same_outputs(names[0], name, op_name)}\n\n"
                                f"{names[0]} output: {t}\n{name} output: {f}\n\n"
                                f"Error details:\n{t} and {f} have different types")
    for region, region_outs in zip(regions, outs):
        region.seal(region_outs)
    specs = []
    for i, t in enumerate(outs[0]):
        shape = t._shape
        for region_outs in outs[1:]:
            shape = most_specific_compatible(shape, region_outs[i]._shape)
        specs.append((shape, t.np_dtype))
    placed = tuple(regions[order.index(k)] for k in range(len(regions)))
    attrs = {"branches": placed, "captured": tuple(_union(*regions))}
    op = _control_op(graph, types, [selector, *attrs["captured"]], attrs, specs, scope, placed)
    return op, first


def _ops_as_selector(region: Region, result: Any, selector: Tensor) -> Any:
    """A branch's result with each Operation in it replaced by the branch's selector (the
    cond's predicate, the case's index) read after that Operation: TF's ``op_return_value``,
    so ``cond(p, lambda: assign(...).op, ...)`` returns a tensor whose fetch runs the op."""
    leaves = flatten(result)
    if not any(isinstance(v, Operation) for v in leaves):
        return result
    out = []
    with region.graph.as_default():
        for v in leaves:
            if isinstance(v, Operation):
                with region.graph.control_dependencies([v]):
                    v = identity(selector)
            out.append(v)
    return pack_sequence_as(result, out)


def _match_indexed_slices(regions: list[Region], results: list, op_name: str) -> list:
    """TF's ``_make_indexed_slices_indices_types_match``: an output that is an IndexedSlices in
    one branch must be one in every branch (else TypeError, TF's words), and indices of
    different integer types become int64 (cast inside the int32 branches).  ``results``: the
    branches' expanded results; returns them so matched."""
    flats = [flatten(_collapse(r)) for r in results]   # an IndexedSlices is one leaf here
    if len({len(f) for f in flats}) != 1:
        return results   # a structure difference: the caller's check words it
    changed = False
    for i, outs in enumerate(zip(*flats)):
        kinds = {isinstance(o, IndexedSlices) for o in outs}
        if len(kinds) != 1:
            raise TypeError(f"Cannot reconcile tf.{op_name} {i}-th outputs:\n"
                            f"  branches returned: {tuple(outs)}")
        if kinds == {True} and len({o.indices.dtype for o in outs}) != 1:
            for region, flat in zip(regions, flats):
                if flat[i].indices.dtype.name == "int32":
                    with region.graph.as_default():
                        flat[i] = IndexedSlices(flat[i].values, cast(flat[i].indices, "int64"),
                                                flat[i].dense_shape)
            changed = True
    if not changed:
        return results
    return [_expand(pack_sequence_as(_collapse(r), f)) for r, f in zip(results, flats)]


def _same_outputs(first: str, other: str, op_name: str) -> str:
    return (f"{first} and {other} arguments to tf.{op_name} must have the same number, type, "
            f"and overall structure of return values.")


def branch_blocks(op: Operation, var: str) -> list[tuple[int, str | None, str, int]]:
    """How a generated kernel picks the branch to run from ``var`` (an If's predicate, a
    Case's index): per branch ``(index, the test line or None, its locals' prefix, its
    indent)``, in the order they are written; each block returns, the last one needs no
    test.  An If is ``if p: <true> <false>`` (locals t..., f...); a Case tests the indices
    in turn, and an index out of range runs the last branch (TF's rule: it is the default)."""
    n = len(op.attrs["branches"])
    if op.kind in BRANCH_TYPES:
        return [(1, f"    if {var}:", "t", 8), (0, None, "f", 4)]
    return [(k, f"    if {var} == {k}:" if k < n - 1 else None, f"c{k}_", 8 if k < n - 1 else 4)
            for k in range(n)]


def lower_cond(op, ctx: LowerContext) -> Callable:
    """``if p: <true steps> else: <false steps>`` as one generated function.  A cond narrowed
    to some of its results computes only those (the others' outputs are None)."""
    a = op.attrs
    grad = keeps_trace(op, ctx)
    cap = {t: f"cap{j}" for j, t in enumerate(a["captured"])}
    n = len(a["branches"][0].outs)
    wanted = computed(op, n)
    src = Source(op)
    for which, test, prefix, indent in branch_blocks(op, "p"):
        region = a["branches"][which]
        saved = grad[which].needed if grad is not None else []
        feeds, names = region.fed({}, cap)
        plan = region.plan(ctx, [*(region.outs[k] for k in wanted), *saved], feeds)
        if test:
            src.line(test)
        outs = src.inline(plan, names, prefix, indent)
        got = dict(zip(wanted, outs))
        trace = ("None" if grad is None else
                 f"({which}, {as_tuple(kept(outs[len(wanted):], grad[which]))})")
        results = ", ".join(src.owned(got[k]) if k in got else "None" for k in range(n))
        src.line(f"{' ' * indent}return ({results}, {trace})")
    return src.compile("cond", ["p", *cap.values()])


def case(pred_fn_pairs: Any, default: Callable | None = None, exclusive: bool = False,
         strict: bool = False, name: str = "case") -> Any:
    """The first ``fn`` whose ``pred`` holds, else ``default()`` -- nested ``cond`` nodes.

    Run-time semantics::

        for pred, fn in pred_fn_pairs:
            if pred: return fn()
        return default()

    Without ``default`` the last pair's fn is the default and it is an error if
    its pred is false too; ``exclusive=True`` makes more than one true pred an
    error (both checked at run time: ``InvalidArgumentError``).
    """
    pairs = list(pred_fn_pairs.items() if isinstance(pred_fn_pairs, dict) else pred_fn_pairs)
    if not pairs:
        raise ValueError("tf.case: pred_fn_pairs must not be empty.")
    for p, fn in pairs:
        if not callable(fn):
            raise TypeError(f"tf.case: fn for pred {p} must be callable.")
    with get_default_graph().name_scope(name):
        preds = [_scalar_bool(convert_to_tensor(p), "tf.case: each pred") for p, _ in pairs]
        fns = [fn for _, fn in pairs]
        checked = _case_check(preds, exclusive, default is None)
        if default is None:
            fns, default = fns[:-1], fns[-1]

        def branch(k: int) -> Callable:
            if k == len(fns):
                return default
            return lambda: cond(checked[k], fns[k], branch(k + 1), strict=strict)
        if not fns:  # one pair, no default: still run the check
            return cond(checked[0], default, default, strict=strict)
        return branch(0)()


def switch_case(branch_index: Any, branch_fns: Any, default: Callable | None = None,
                name: str = "switch_case") -> Any:
    """``branch_fns[branch_index]()`` -- each branch built once, only the chosen one runs.

    Run-time semantics::

        fns = branch_fns + ([default] if default else [])
        return fns[i]() if 0 <= i < len(branch_fns) else fns[-1]()

    ``branch_fns``: callables, ``(int, callable)`` pairs or an ``{int: callable}`` dict whose
    keys are 0..n-1.  One ``Case`` node (``StatelessCase`` when no branch reads or changes
    state), as TF builds it; it differentiates as a cond does.
    """
    fns = _case_branches(branch_fns, default)
    graph = get_default_graph()
    with graph.name_scope(name), graph.name_scope("indexed_case") as scope:
        if isinstance(branch_index, int):
            raise TypeError("branch_index must not be a Python int", branch_index)
        index = convert_to_tensor(branch_index, name="branch_index")
        if not index.dtype.is_integer:
            raise TypeError(f"'branch_index' must be an integer Tensor, got {index.dtype}")
        n = len(fns)
        op, first = _branch_node(graph, CASE_TYPES, index, tuple(fns),
                                 tuple(f"branch{k}" for k in range(n)),
                                 tuple(f"branch {k}" for k in range(n)),
                                 tuple(f"branches[{k}]" for k in range(n)), "switch_case", scope,
                                 tuple(range(n)))
        return _collapse(_results(op, first, unwrap_single=True))


def _case_branches(branch_fns: Any, default: Callable | None) -> list[Callable]:
    """TF's ``_indexed_case_verify_and_canonicalize_args``: the branches in key order, the
    default last; its errors, in its words."""
    if not branch_fns:
        raise ValueError("Must provide at least one item in 'branch_fns'")
    if not isinstance(branch_fns, (list, tuple, dict)):
        raise TypeError("'branch_fns' must be a list, tuple, or dict")
    pairs = list(branch_fns.items()) if isinstance(branch_fns, dict) else list(branch_fns)
    if all(callable(fn) for fn in pairs):
        pairs = list(enumerate(pairs))
    for pair in pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in 'branch_fns' must be a 2-tuple. Received {pair}.")
        key, fn = pair
        if not isinstance(key, int):
            raise TypeError(f"key must be a Python `int`, got {type(key)}")
        if not callable(fn):
            raise TypeError(f"fn for key {key} must be callable.")
    keys = [k for k, _ in pairs]
    if min(keys) < 0 or max(keys) >= len(keys) or len(set(keys)) != len(keys):
        raise ValueError(f"branch indices (keys) must form contiguous range of [0 to {len(keys)}) "
                         f"but found {{{','.join(map(str, sorted(keys)))}}}")
    fns = [fn for _, fn in sorted(pairs, key=lambda p: p[0])]
    return fns + ([default] if default is not None else [])


def _case_check(preds: list[Tensor], exclusive: bool, last_is_default: bool) -> list[Tensor]:
    """The preds, passed through a node that enforces ``case``'s run-time conditions."""
    if not exclusive and not last_is_default:
        return preds
    op = get_default_graph().create_op(
        "CaseCheck", preds, {"exclusive": exclusive, "last_is_default": last_is_default},
        [((), np.bool_)] * len(preds), name="CaseCheck")
    return list(op.outputs)


def _lower_case_check(op, ctx: LowerContext) -> Callable:
    exclusive, last_default = op.attrs["exclusive"], op.attrs["last_is_default"]
    names = [t.name for t in op.inputs]

    def check(*preds):
        true = [n for n, p in zip(names, preds) if p]
        if exclusive and len(true) > 1:
            raise InvalidArgumentError(None, op, f"Input error: exclusive=True: more than 1 "
                                                 f"conditions ({', '.join(names)}) evaluated as "
                                                 f"True: {true}")
        if last_default and not true:
            raise InvalidArgumentError(None, op, f"tf.case: no default was given and none of the "
                                                 f"predicates ({', '.join(names)}) is True.")
        return preds if len(preds) > 1 else preds[0]
    return check


defkind("CaseCheck", _lower_case_check, stateful=True, attrs=("exclusive", "last_is_default"))

for _type in BRANCH_TYPES:   # TF's If names its branches' functions in these attributes
    ATTR_VIEWS[_type] = {"then_branch": lambda op: op.attrs["branches"][1],
                         "else_branch": lambda op: op.attrs["branches"][0]}
