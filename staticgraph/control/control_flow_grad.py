"""Gradients through ``While`` and ``If`` (``cond``): the regions' own gradient graphs, run in reverse.

No per-op rule is written here.  For a region (a loop body or a cond branch)
the ordinary :func:`gradients` builds the region's gradient nodes *inside its
own sub-graph*::

    body region:  x, capture_w --> ... --> y          (forward, as built)
                  dy, [needed forward values] --> ... --> dx, dw      (added once)

A :class:`GradProgram` records which forward values those gradient nodes
read (``needed``).  It is kept in the graph's ``grad_programs`` table, never in
the forward node's attributes: differentiating does not change the forward
graph, and plans compiled before stay valid.  A plan that runs a gradient
node makes its forward node keep those values: a ``While`` pushes one tuple
per iteration onto a trace (memory linear in the iteration count), an ``If``
records which branch ran and its values; a plan that fetches only forward
values keeps nothing.  Values that do not depend on the loop variables
(``transpose(w)`` of a captured weight) are not kept: the gradient plan
recomputes them from the captures -- unless they read state (a variable read
in the body may change between iterations), which is always kept.

Both node kinds are declared here, once, with their lowering (from
:mod:`.control_flow`), their narrowing to the outputs a plan needs (from
:mod:`.control_flow_prune`), gradient and effects.

``WhileGrad`` walks the trace backwards, running the body's gradient plan
once per iteration (``dx`` feeds the next step's ``dy``; captured tensors'
gradients are summed over iterations).  ``CondGrad`` runs the gradient plan
of the branch the forward pass took -- a cond (or switch_case) on the same predicate.

**Second order.**  A gradient node's own gradient is that of an equivalent graph of
ordinary nodes built from the gradient node's inputs: for a CondGrad, a cond on the same
predicate whose branches recompute the forward branch and its gradient (copies of the
region's ops); for a WhileGrad, a loop rerunning the forward loop from its initial values
(the WhileGrad's last inputs) that stacks the loop variables, then a loop walking the stack
backwards through copies of the body and its gradient.  Those are loops and conds again,
so the gradient of the gradient of the gradient... follows from the registry's rules.  A
region that changes state or draws random numbers cannot be recomputed: refused.
"""
from __future__ import annotations

from typing import Callable

from ..framework import dtypes as _dtypes
from .control_flow import (BRANCH_TYPES, CASE_TYPES, LOOP_TYPES, Region, branch_blocks, cond,
                           lower_cond, lower_while, region_effects, switch_case, while_loop)
from ..compiler.passes.carry import CarriedWrites, carried_writes
from ..compiler.passes import loops
from ..compiler import fuse
from .control_flow_codegen import Source, as_tuple
from .control_flow_prune import narrow_cond, narrow_while
from .gradients import differentiable, gradients
from ..framework.graph import Operation, Tensor, get_default_graph
from ..framework.shape import TensorShape
from ..ops import array_ops
from ..framework.kinds import LowerContext, defkind, handle_op, is_stateful
from ..ops.core_ops import concat, expand_dims, zeros, zeros_like
from ..util.nest import flatten
from ..framework.sources import placeholder
from ..training.variables import read_handle

__all__ = ["GradProgram"]


class GradProgram:
    """A region's gradient nodes: d(outs[k] for k in ``outs``)/d ``wrt``, given ``dys``.

    ``needed``: forward values of the region the gradient reads and that must
    be kept per run/iteration (fed to the gradient plan together with ``dys``
    and the region's capture placeholders).  ``late``: outer tensors the gradient nodes
    captured themselves (a ``custom_gradient``'s grad_fn using a tensor the forward did
    not): the gradient node takes them as extra inputs; ``late_inner`` their placeholders.
    """

    __slots__ = ("dys", "grads", "needed", "wrt", "late", "late_inner")

    def __init__(self, region: Region, outs: list[int], wrt: list[Tensor], roots: list[Tensor]):
        sub = region.graph
        self.wrt = list(wrt)
        forward = list(sub._ops)
        with sub.as_default():
            self.dys = [placeholder(region.outs[k].dtype, region.outs[k]._shape, name=f"dy_{k}")
                        for k in outs]
            grads = gradients([region.outs[k] for k in outs], wrt, grad_ys=self.dys)
            self.grads = [_zeros_for(w) if g is None else g for g, w in zip(grads, wrt)]
        variant = _dependents(forward, roots)
        fwd = set(forward)
        reads = [t for op in sub._ops[len(forward):] for t in op.inputs] + self.grads
        self.needed = list(dict.fromkeys(t for t in reads if t.op in fwd and t.op in variant
                                         and t not in region.placeholders))
        sealed = set(region.captured)
        self.late = [t for t in sub.captures if t not in sealed]
        self.late_inner = [sub.captures[t] for t in self.late]

    def shape_only(self) -> list[bool]:
        """Per ``needed`` value: do the gradient's nodes read only its shape and dtype (inputs
        declared ``shape_only``)?  A loop then keeps a ShapeRef of it, not the array."""
        start = min(d.op.index for d in self.dys) if self.dys else 0
        grads = set(self.grads)
        flags = []
        for t in self.needed:
            ops = t.graph._ops[start:]
            flags.append(t not in grads and all(
                op.op_def is not None and op.op_def.reads_shape_only(i)
                for op in ops for i, x in enumerate(op.inputs) if x is t))
        return flags

    def plan(self, region: Region, ctx: LowerContext, wrt: list[Tensor] | None = None):
        """The gradient plan for ``wrt`` (default: all), pruned to what those need."""
        grads = self.grads if wrt is None else [self.grads[self.wrt.index(w)] for w in wrt]
        return region.plan(ctx, grads, [*self.needed, *self.dys, *region.placeholders,
                                        *self.late_inner])


def _zeros_for(w: Tensor) -> Tensor:
    """A zero gradient shaped like ``w`` -- for a variable handle, like the variable's value."""
    return zeros_like(read_handle(w) if w.dtype == _dtypes.resource else w)


def _grad_spec(t: Tensor) -> tuple:
    """Shape and dtype of the gradient for input ``t`` (a handle's is its variable's)."""
    if t.dtype == _dtypes.resource:
        a = handle_op(t).attrs
        return a["shape"], a["dtype"]._np
    return t._shape, t.np_dtype


def _dependents(ops: list[Operation], roots: list[Tensor]) -> set[Operation]:
    """Ops (in creation order, so topological) whose value depends on ``roots`` -- or on
    state: a read may see a different value in each iteration, so it is never recomputed."""
    root_ops, out = {t.op for t in roots}, set()
    for op in ops:
        if op in root_ops or is_stateful(op) or any(t.op in out for t in op.inputs):
            out.add(op)
    return out


def _result(names: list[str]) -> str:
    """A kernel returns its one output bare, several as a tuple (the plan's convention)."""
    names = [Source.owned(n) for n in names]
    return names[0] if len(names) == 1 else as_tuple(names)


def _floating(ts) -> list[int]:
    return [i for i, t in enumerate(ts) if differentiable(t)]


def _out_grads(op: Operation, out_grads: list, idx: list[int]) -> list[Tensor]:
    """The incoming gradients of outputs ``idx``, zeros where none came.  Zeros of a known
    shape are a constant: reading the output for its shape would make the forward node
    compute it -- and the state changes it waits for, which TF (whose gradient leaves
    such an output out) never runs."""
    return [out_grads[i] if out_grads[i] is not None else _zeros_of(op.outputs[i]) for i in idx]


def _zeros_of(t: Tensor) -> Tensor:
    shape = t._shape
    if shape is not None and None not in shape:
        return zeros(shape, t.dtype)
    return zeros_like(t)


# --- While --------------------------------------------------------------------------

def _while_grad(op: Operation, out_grads: list, wanted: list[bool]) -> list:
    a = op.attrs
    n, body = a["n_vars"], a["body"]
    result: list = [None] * len(op.inputs)
    floats = _floating(op.outputs[:n])
    if not a["back_prop"] or not floats:
        return result
    caps = list(a["captured"])
    fcaps = [j for j, t in enumerate(caps)
             if t in body.graph.captures and differentiable(t) and wanted[n + j]]
    wrt = [body.args[i] for i in floats] + [body.graph.captures[caps[j]] for j in fcaps]
    known = op.graph.grad_programs.get(op.name)
    if known is None or not set(wrt) <= set(known.wrt):
        # One program per loop, grown to every capture some gradients() call asked for; a plan
        # running a gradient node makes the forward loop keep what that program reads.
        wrt = list(dict.fromkeys(([] if known is None else known.wrt) + wrt))
        op.graph.grad_programs[op.name] = GradProgram(body, floats, wrt, body.args)
    specs = [(op.inputs[i]._shape, op.inputs[i].np_dtype) for i in floats]
    specs += [_grad_spec(caps[j]) for j in fcaps]
    late = op.graph.grad_programs[op.name].late
    # the loop's initial values come last: the kernel does not read them (the trace holds
    # what it needs), but a second-order gradient flows to them (see _while_grad_grad)
    node = op.graph.create_op("WhileGrad", [op.outputs[n], *_out_grads(op, out_grads, floats),
                                            *body.captured, *late, *op.inputs[:n]],
                              {"forward": op, "n_grads": len(floats), "fcaps": tuple(fcaps)}, specs,
                              tf_type=op.type)   # TF's gradient of a loop is a loop
    for k, i in enumerate(floats):
        result[i] = node.outputs[k]
    for k, j in enumerate(fcaps):
        result[n + j] = node.outputs[len(floats) + k]
    return result


def _lower_while_grad(op: Operation, ctx: LowerContext) -> Callable:
    """``for saved in reversed(trace): dy = body_grad(saved, dy); dcap += ...``, generated."""
    forward = op.attrs["forward"]
    fwd, prog, nd = forward.attrs, forward.graph.grad_programs[forward.name], op.attrs["n_grads"]
    body = fwd["body"]
    caps = [f"cap{j}" for j in range(len(body.captured))]
    lates = [f"late{j}" for j in range(len(prog.late))]
    fcap_names = [f"cap{body.captured.index(fwd['captured'][j])}" for j in op.attrs["fcaps"]]
    ds, acc = [f"d{k}" for k in range(nd)], [f"a{k}" for k in range(len(fcap_names))]
    saved = [f"s{k}" for k in range(len(prog.needed))]
    wrt = [body.args[i] for i in _floating(body.args)]
    wrt += [body.graph.captures[fwd["captured"][j]] for j in op.attrs["fcaps"]]
    sums = [prog.grads[prog.wrt.index(w)] for w in wrt[nd:]]
    same = [_same_spec(t, out) for t, out in zip(sums, op.outputs[nd:])]

    def build(plan) -> Callable:
        """The kernel running ``plan`` (the body's gradient, or it with its chains fused)."""
        carried = (carried_writes(plan, {len(saved) + k: k for k in range(nd)})
                   if ctx.config.inplace else CarriedWrites.none(plan))
        batched, batched_lines = _batched_sums(plan, prog, {nd + j: a for j, a in enumerate(acc)
                                                            if same[j]}, ctx)
        if ctx.config.loops:    # a captured sequence's row gradients added in place
            scattered, taken = loops.scattered_sums(
                plan, {nd + j: a for j, a in enumerate(acc) if nd + j not in batched_lines},
                {nd + j: plan.slot_of.get(w) for j, w in enumerate(wrt[nd:])})
            batched, batched_lines = batched.merged(scattered), {**batched_lines, **taken}
        src = Source(op)
        src.own([ds[k - len(saved)] for k in carried.owned])
        src.extend([f"    {a} = _zeros_like({c})" for a, c in zip(acc, fcap_names)])
        src.extend(f"    {text}" for text in batched.before)
        src.line("    for saved in reversed(trace):")
        if saved:
            src.line(f"        {', '.join(saved)}, = saved")
        gs = src.inline(plan, saved + ds + caps + lates, "g", 8, carried, batched)
        src.line(f"        {', '.join(ds)}, = {', '.join(gs[:nd])},")
        src.extend([f"        {batched_lines[nd + j]}" if nd + j in batched_lines else
                    f"        {a} += {g}" if same[j] else f"        {a} = {a} + {g}"
                    for j, (a, g) in enumerate(zip(acc, gs[nd:]))
                    if batched_lines.get(nd + j, "") is not None])
        src.extend(f"    {text}" for text in batched.after)
        src.line(f"    return {_result(ds + acc)}")
        # no parameters for the node's last inputs, the loop's initial values: they are there
        # for a second-order gradient only (_while_grad), and the plan does not pass them
        # (unread_inputs)
        return src.compile("while_grad", ["trace", *ds, *caps, *lates])
    return fuse.loop_kernel(prog.plan(body, ctx, wrt), build, ctx.config)


def _batched_sums(plan, prog: GradProgram, sums: dict[int, str], ctx: LowerContext
                  ) -> tuple[loops.LoopRewrite, dict[int, str | None]]:
    """The gradient loop's weight gradients ``sums`` (fetch position -> accumulator) taken a
    chunk of steps at a time, and its products of which one piece is used (``d concat([x_t,
    h]) @ W`` when only ``h``'s piece flows on) by that piece's columns only (the ``loops``
    pass, :mod:`..compiler.passes.loops`).  Every fed value but the incoming gradients
    (buffers the loop writes in place) is stable."""
    if not ctx.config.loops:
        return loops.LoopRewrite.none(), {}
    written = {plan.slot_of[t] for t in prog.dys if t in plan.slot_of}
    stable = {plan.slot_of[t] for t in plan.feeds} - written
    batched, lines = loops.batched_sums(plan, sums, stable, "g")
    return batched.merged(loops.split_products(plan, set(batched.steps))), lines


def _same_spec(t: Tensor, out: Tensor) -> bool:
    """Is ``t`` known to have exactly ``out``'s shape (rank >= 1) and dtype?  Then a sum over
    iterations of ``t`` adds into its own buffer (``a += g``: the same bits as ``a = a + g``)."""
    return (t._shape is not None and len(t._shape) >= 1 and None not in t._shape
            and t._shape == out._shape and t.np_dtype == out.np_dtype)


# --- If (cond) ------------------------------------------------------------------------

def _cond_grad(op: Operation, out_grads: list, wanted: list[bool]) -> list:
    a = op.attrs
    branches, caps = a["branches"], list(a["captured"])
    n = len(branches[0].outs)
    result: list = [None] * len(op.inputs)
    floats, fcaps = _floating(op.outputs[:n]), _floating(caps)
    if not floats or not fcaps:
        return result
    if op.name not in op.graph.grad_programs:
        op.graph.grad_programs[op.name] = tuple(
            GradProgram(r, floats, [r.graph.captures[caps[j]] for j in fcaps if caps[j] in r.graph.captures],
                        r.placeholders) for r in branches)
    specs = [_grad_spec(caps[j]) for j in fcaps]
    late = _late(op.graph.grad_programs[op.name])
    node = op.graph.create_op("CondGrad", [op.outputs[n], *_out_grads(op, out_grads, floats), *caps,
                                           *late],
                              {"forward": op, "n_dys": len(floats), "fcaps": tuple(fcaps)}, specs,
                              tf_type=op.type)   # TF's gradient of a cond is a cond
    for k, j in enumerate(fcaps):
        result[1 + j] = node.outputs[k]
    return result


def _lower_cond_grad(op: Operation, ctx: LowerContext) -> Callable:
    """``if <forward took true>: <true branch grads> else: <false branch grads>``, generated."""
    forward = op.attrs["forward"]
    fwd, progs = forward.attrs, forward.graph.grad_programs[forward.name]
    caps = list(fwd["captured"])
    cap = {t: f"cap{j}" for j, t in enumerate(caps)}
    late = {t: f"late{j}" for j, t in enumerate(_late(progs))}
    ds = [f"d{k}" for k in range(op.attrs["n_dys"])]
    src = Source(op)
    src.line("    which, saved = trace")
    for which, test, prefix, indent in branch_blocks(forward, "which"):
        region, prog = fwd["branches"][which], progs[which]
        pad = " " * indent
        if test:
            src.line(test)
        saved = [f"s{which}_{k}" for k in range(len(prog.needed))]
        if saved:
            src.line(f"{pad}{', '.join(saved)}, = saved")
        gs = iter(src.inline(prog.plan(region, ctx), saved + ds + [cap[t] for t in region.captured]
                             + [late[t] for t in prog.late], prefix, len(pad)))
        outs = [next(gs) if caps[j] in region.graph.captures else f"_zeros_like(cap{j})"
                for j in op.attrs["fcaps"]]
        src.line(f"{pad}return {_result(outs)}")
    return src.compile("cond_grad", ["trace", *ds, *cap.values(), *late.values()])


def _late(progs: tuple) -> list[Tensor]:
    """The outer tensors both branches' gradients captured themselves (see GradProgram)."""
    return list(dict.fromkeys(t for p in progs for t in p.late))


# --- second order: the gradient node's gradient, through an equivalent loop or cond -------

def _replay(region: Region, targets: list[Tensor], mapping: dict[Tensor, Tensor]) -> list[Tensor]:
    """Copies, in the default graph, of the ops of ``region`` that ``targets`` need; a region
    tensor in ``mapping`` (its placeholders) is read as the tensor it maps to.  Returns the
    copies of ``targets``.

    A gradient node reads values its forward node kept while it ran; its own gradient needs
    the graph of how those values came about, so it recomputes them: the forward ops and
    the gradient ops of the region, copied.  Recomputing an op that changes state (or
    draws random numbers) would repeat its effect, so such regions are refused, and so are
    nested loops and conds (their regions would need copying too)."""
    needed: set[Operation] = set()
    stack = [t.op for t in targets if t not in mapping]
    while stack:
        o = stack.pop()
        if o in needed:
            continue
        needed.add(o)
        stack.extend(t.op for t in o.inputs if t not in mapping)
        stack.extend(o.control_inputs)
    graph, overrides = get_default_graph(), region.graph.gradient_overrides
    copies: dict[Operation, Operation] = {}
    for o in region.graph._ops:
        if o not in needed:
            continue
        if any(isinstance(v, (Region, tuple)) and _has_region(v) for v in o.attrs.values()) \
                or (is_stateful(o) and o.kind != "ReadVariableOp") or o.kind == "Placeholder":
            raise LookupError(f"No second-order gradient through {region.name}: it would "
                              f"recompute operation '{o.name}' (op type: {o.type}), which a "
                              f"second-order gradient of a while_loop/cond cannot recompute "
                              f"(it changes state, draws random numbers, or holds a loop or "
                              f"cond of its own).")
        new = graph.create_op(o.kind, [mapping.get(t, t) for t in o.inputs], dict(o.attrs),
                              [(t._shape, t.np_dtype) for t in o.outputs],
                              name=o.name.rsplit("/", 1)[-1], op_def=o.op_def, tf_type=o.type,
                              control_inputs=[copies[c] for c in o.control_inputs if c in copies])
        copies[o] = new
        mapping.update(zip(o.outputs, new.outputs))
        if o in overrides:
            graph.gradient_overrides[new] = overrides[o]
    return [mapping[t] for t in targets]


def _has_region(value) -> bool:
    if isinstance(value, Region):
        return True
    return isinstance(value, tuple) and any(isinstance(v, Region) for v in value)


def _region_inputs(region: Region, prog: GradProgram, dys: list[Tensor]) -> dict[Tensor, Tensor]:
    """What a replay of ``region``'s gradient reads for its placeholders: the outer
    tensors it captured (the gradient's late captures too), and ``dys``."""
    mapping = dict(zip(region.placeholders, region.captured))
    mapping.update(zip(prog.late_inner, prog.late))
    mapping.update(zip(prog.dys, dys))
    return mapping


def _differentiate_again(op: Operation, results: list[Tensor], out_grads: list,
                         wanted: list[bool]) -> list:
    """``op``'s input gradients, ``results`` being tensors equal to ``op``'s outputs computed
    from ``op``'s inputs by ordinary nodes: the gradients of those, with the incoming ones."""
    ys = [(r, g) for r, g in zip(results, out_grads) if g is not None]
    xs = [i for i, w in enumerate(wanted) if w]
    if not ys or not xs:
        return [None] * len(op.inputs)
    # partial derivatives: a path from one input of ``op`` to another is the caller's to follow
    found = iter(gradients([r for r, _ in ys], [op.inputs[i] for i in xs],
                           grad_ys=[g for _, g in ys], name="recomputed",
                           stop_gradients=list(op.inputs)))
    result: list = [None] * len(op.inputs)
    for i in xs:
        result[i] = next(found)
    return result


def _cond_grad_grad(op: Operation, out_grads: list, wanted: list[bool]) -> list:
    """A CondGrad's gradient: the same gradient as a new cond (or switch_case) on the same
    predicate whose branches recompute the forward branch and its gradient from the
    CondGrad's inputs (dys, captures); that node differentiates as any cond does."""
    forward = op.attrs["forward"]
    fwd, progs = forward.attrs, forward.graph.grad_programs[forward.name]
    caps, fcaps, nd = list(fwd["captured"]), op.attrs["fcaps"], op.attrs["n_dys"]
    dys = list(op.inputs[1:1 + nd])

    def branch(which: int) -> Callable:
        region, prog = fwd["branches"][which], progs[which]

        def fn() -> list[Tensor]:
            inner = [region.graph.captures.get(caps[j]) for j in fcaps]
            grads = _replay(region, [prog.grads[prog.wrt.index(w)] for w in inner if w is not None],
                            _region_inputs(region, prog, dys))
            found = iter(grads)
            return [next(found) if w is not None else _zeros_for(caps[j])
                    for w, j in zip(inner, fcaps)]
        return fn
    fns = [branch(k) for k in range(len(fwd["branches"]))]
    selector = forward.inputs[0]
    if forward.kind in CASE_TYPES:
        results = flatten(switch_case(selector, fns, name="recomputed_case"))
    else:
        results = flatten(cond(selector, fns[1], fns[0], strict=True, name="recomputed_cond"))
    return _differentiate_again(op, results, out_grads, wanted)


def _while_grad_grad(op: Operation, out_grads: list, wanted: list[bool]) -> list:
    """A WhileGrad's gradient: the same gradient as two ordinary loops, differentiated.

    The first loop reruns the forward loop from its initial values (the WhileGrad's last
    inputs) and stacks each iteration's loop variables; the second walks the stack
    backwards, recomputing the body and its gradient there (the WhileGrad's kernel reads
    the same values from its trace).  Both are while_loops of copied ops, so their own
    gradients -- the second order -- are the registry's rules, through the loops' gradient.
    """
    forward = op.attrs["forward"]
    fwd, prog = forward.attrs, forward.graph.grad_programs[forward.name]
    n, nd, fcaps = fwd["n_vars"], op.attrs["n_grads"], op.attrs["fcaps"]
    body, cond_r, caps = fwd["body"], fwd["cond"], list(fwd["captured"])
    inits, ds = list(op.inputs[-n:]), list(op.inputs[1:1 + nd])
    shapes = [forward.outputs[k]._shape for k in range(n)]
    for t, shape in zip(inits, shapes):
        if t.np_dtype.kind not in "biufc" or shape is None or None in shape:
            raise LookupError(f"No second-order gradient through {body.name}: its loop variable "
                              f"{t.name} ({t.dtype.name}, shape {TensorShape(shape)} in the loop) "
                              f"cannot be stacked to recompute the loop (a number array whose "
                              f"shape stays the same can).")
    floats = _floating(body.args)

    def run_cond(*xs):
        return _replay(cond_r, cond_r.outs, {**dict(zip(cond_r.args, xs[:n])),
                                             **dict(zip(cond_r.placeholders, cond_r.captured))})[0]

    def run_body(*xs):
        outs = _replay(body, body.outs, {**dict(zip(body.args, xs[:n])),
                                         **dict(zip(body.placeholders, body.captured))})
        return [*outs, *(concat([s, expand_dims(x, 0)], 0) for s, x in zip(xs[n:], xs[:n]))]

    with get_default_graph().name_scope("recomputed"):
        starts = [zeros((0, *shape), x.dtype) for x, shape in zip(inits, shapes)]
        ran = while_loop(run_cond, run_body, [*inits, *starts],
                         shape_invariants=[*shapes, *(TensorShape([None, *s]) for s in shapes)],
                         maximum_iterations=forward.inputs[-1] if fwd["max_iter"] else None,
                         return_same_structure=True)
        stacks = list(ran[n:])
        wrt = [body.args[i] for i in floats] + [body.graph.captures[caps[j]] for j in fcaps]
        targets = [prog.grads[prog.wrt.index(w)] for w in wrt]

        def back(k, *carried):
            k = k - 1
            xs = [s[k] for s in stacks]
            mapping = _region_inputs(body, prog, list(carried[:nd]))
            mapping.update(zip(body.args, xs))
            grads = _replay(body, targets, mapping)
            return [k, *grads[:nd], *(a + g for a, g in zip(carried[nd:], grads[nd:]))]

        count = array_ops.shape(stacks[0], out_type=_dtypes.int32)[0]
        sums = [_zeros_for(caps[j]) for j in fcaps]
        done = while_loop(lambda k, *_: k > 0, back, [count, *ds, *sums],
                          return_same_structure=True)
    return _differentiate_again(op, list(done[1:]), out_grads, wanted)


# --- the kinds, each declared once (a loop's and a cond's two TF type names share one) --------

for _type in LOOP_TYPES:
    defkind(_type, lower_while, gradient=_while_grad, effects=region_effects, narrow=narrow_while,
            attrs=("cond", "body", "n_vars", "captured", "max_iter", "back_prop"),
            optional_attrs=("computed",))   # a narrowed clone's (see control_flow_prune)
for _type in BRANCH_TYPES + CASE_TYPES:
    defkind(_type, lower_cond, gradient=_cond_grad, effects=region_effects, narrow=narrow_cond,
            attrs=("branches", "captured"), optional_attrs=("computed",))
defkind("WhileGrad", _lower_while_grad, gradient=_while_grad_grad, stateful=True,
        attrs=("forward", "n_grads", "fcaps"),
        unread_inputs=lambda op: op.attrs["forward"].attrs["n_vars"])   # the initial values
defkind("CondGrad", _lower_cond_grad, gradient=_cond_grad_grad, stateful=True,
        attrs=("forward", "n_dys", "fcaps"))
