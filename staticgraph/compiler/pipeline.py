"""The compile pipeline: small stages, each a plain function, run once per signature.

::

    fetches, feeds --prune--> needed ops --order--> op list --narrow (control flow)--> op list
                   --fold/simplify/cse/dce (compiler.passes)--> op list --(passes)--> op list
                   --lower_plan--> Plan (slots, steps) --liveness--> --generate--> Python function

With :data:`COMPILE_AFTER` above 0 the first runs skip the passes, liveness and the code
generator: the pruned, ordered, lowered plan is interpreted (:mod:`.interpret`), and only
compiled after that many runs (tiers, as in a JIT: a signature run once or twice never pays
for compilation).  By default a plan is compiled on its first run.

``compile_plan`` is what a Session calls on a cache miss (and ``defun``/datasets for their
functions): its result maps fed values to fetched values and knows nothing about Sessions.  Which
rewrites run is ``optimize`` (a :class:`passes.PassConfig`; default: the
global one, see :mod:`.passes`); ``passes`` is an extra hook (each
``pass(ops) -> ops``).  ``Executable.report`` lists nodes before/after per pass.
"""
from __future__ import annotations

import contextlib
import gc
import math
import os
import threading
import weakref
from typing import Callable, Iterable, Sequence

from common.notebook import Sections

from ..framework import dtypes as _dtypes
from ..framework.errors import OpError, graph_execution_error
from ..framework.graph import Operation, Tensor
from ..framework.kinds import SessionState, kind_of
from .codegen import Generated, generate
from . import fuse
from .emit import failure
from .interpret import Interpreted
from .interpret import failure as interpreted_failure
from .interpret import prepare as prepare_interpreted
from .interpret import run as run_interpreted
from .order import topological_order
from .passes.manager import PassConfig, current, run_passes
from .passes.report import PassReport
from .passes.liveness import Allocation, allocate
from .plan import Plan, Step, lower_plan
from .prune import prune, pruned_order
from .rollback import Rollback, rollback_for

__all__ = ["compile_plan", "Executable", "COMPILE_AFTER", "format_kernels"]


COMPILE_AFTER = int(os.environ.get("STATICGRAPH_COMPILE_AFTER", "0"))
"""How many runs of a signature the interpreter (:mod:`.interpret`) does before the plan is
optimised and compiled to Python (0, the default: compile at once, on the first run, as TF1
does).  Read when a plan is made and at each interpreted run; the environment variable
``STATICGRAPH_COMPILE_AFTER`` sets it for a whole process (the test suite passes with 0 and
with 1000000000: both tiers give the same results).  Why 0 by default, and when to raise it:
see "Two tiers" in ``compiler/README.md``."""


class Executable:
    """A plan in one of two tiers: ``fn(*fed_values)`` runs it; ``reraise`` explains a failure.

    Tier 0 interprets the pruned, ordered, lowered plan (:mod:`.interpret`: no passes, no
    generated code); after :data:`COMPILE_AFTER` runs :meth:`compile` optimises it (the
    passes), allocates its locals and generates its Python function, which replaces the
    interpreter as ``fn``.  ``plan``, ``source``, ``report``, ``allocation`` and ``generated``
    describe the compiled tier (reading one compiles the plan first).  Either tier of a plan
    that writes variables runs all or nothing for them (:mod:`.rollback`).
    """

    __slots__ = ("fn", "compiled", "_tier0", "_interpreted", "_plan", "_generated", "_report",
                 "_allocation", "__weakref__")

    def __init__(self, plan: Plan, generated: Generated | None = None,
                 report: PassReport | None = None, allocation: Allocation | None = None,
                 tier0: "_Tier0 | None" = None):
        self._plan = plan
        self._generated = generated
        self._report = report or PassReport()
        self._allocation = allocation   # locals, in-place steps and releases (None: no liveness)
        self._tier0 = tier0
        self._interpreted = tier0.interpreted if tier0 is not None else None
        self.compiled = generated is not None   # reached the compiled tier (generated Python)?
        self.fn = generated.fn if generated is not None else tier0
        if tier0 is not None:
            tier0.owner = weakref.ref(self)     # (weak: no cycle keeps a dropped plan alive)
        if isinstance(self.fn, _FuseWhenHot):
            self.fn.owner = weakref.ref(self)

    @property
    def runs(self) -> int:
        """Runs interpreted so far (tier 0)."""
        return self._tier0.runs if self._tier0 is not None else 0

    def compile(self) -> Callable:
        """Optimise and generate the plan now (once); returns the compiled function."""
        if self._generated is None:
            self._adopt(self._tier0.compile())
        return self._generated.fn

    def _adopt(self, compiled: tuple) -> None:
        """Take the compiled tier (plan, generated code, report, allocation) as ``fn``."""
        if self._generated is None:
            self._plan, self._generated, self._report, self._allocation = compiled
            self.fn = self._generated.fn
            self.compiled = True
            if isinstance(self.fn, _FuseWhenHot):
                self.fn.owner = weakref.ref(self)

    def _fused(self, compiled: tuple) -> None:
        """Take the fused tier (:class:`_FuseWhenHot`): its plan, code and allocation."""
        self._plan, self._generated, self._allocation = compiled
        self.fn = compiled[1].fn

    @property
    def plan(self) -> Plan:
        """The compiled tier's plan (steps after the passes)."""
        self.compile()
        return self._plan

    @property
    def generated(self) -> Generated:
        self.compile()
        return self._generated

    @property
    def report(self) -> PassReport:
        """What each pass did (nodes before/after)."""
        self.compile()
        return self._report

    @property
    def allocation(self) -> Allocation | None:
        self.compile()
        return self._allocation

    @property
    def source(self) -> str:
        """The generated Python function (one line per step)."""
        return self.generated.source

    def explain(self) -> str:
        """The pass report, what liveness did, the generated source (a teaching view), and
        under it the generated source of each control-flow kernel it calls (loop bodies).

        A plain ``str`` to print or compare; a notebook shows its parts as collapsible
        sections (:class:`common.display.Sections`)."""
        kernels = format_kernels((f"f{k}", step.kernel) for k, step in enumerate(self.plan.steps))
        text = f"{self.report}\n{self._liveness()}\n{self.source}" + (
            f"\n{kernels}" if kernels else "")
        return Sections(text, [("pass report", f"{self.report}\n{self._liveness()}"),
                               ("generated code", self.source),
                               ("loop and branch kernels", kernels)])

    def _liveness(self) -> str:
        a = self.allocation
        if a is None:
            return ""
        values = sum(s is not None for step in self.plan.steps for s in step.outputs)
        return (f"  liveness: {values} step results in {a.n_registers} reused locals, "
                f"{len(a.out)} steps written in place (out=), "
                f"{sum(map(len, a.dels.values()))} released early (del)\n")

    def reraise(self, err: BaseException):
        """Re-raise ``err`` naming the node, its op type, input shapes and creation site
        (the same message whichever tier ran the failing step)."""
        if isinstance(err, OpError):
            laid_out = graph_execution_error(err)
            if laid_out is not err:   # the same failure, TF's layout: keep what caused it
                laid_out.__cause__, laid_out.__suppress_context__ = err.__cause__, True
            raise laid_out
        explained = None
        if self._interpreted is not None:
            explained = interpreted_failure(err, self._interpreted)
        g = self._generated
        if explained is None and g is not None:
            explained = failure(err, g.filename, g.line_step, g.env)
        if explained is None:
            raise err
        raise graph_execution_error(explained) from err


def format_kernels(kernels: Iterable[tuple[str, Callable]], depth: int = 0) -> str:
    """The generated source of each kernel that has one (control flow), nested kernels
    under their caller: ``kernels`` are ``(name in the caller, function)`` pairs."""
    parts = []
    for name, fn in kernels:
        source = getattr(fn, "source", None)
        if source is None:
            continue
        pad = "    " * depth
        owner = getattr(fn, "owner", None)
        what = f"{owner.type} '{owner.name}'" if owner is not None else "kernel"
        parts.append(f"{pad}# {name}: {what}, generated:\n"
                     + "".join(pad + line + "\n" for line in source.rstrip().splitlines()))
        inner = [(k, v) for k, v in getattr(fn, "__globals__", {}).items() if v is not fn]
        nested = format_kernels(inner, depth + 1)
        if nested:
            parts.append(nested)
    return "\n".join(parts)


class _Job:
    """What compiling a signature needs, kept from its first (interpreted) tier: the pruned,
    ordered ops and the structural kernels already lowered (reused, see ``plan._lowered``)."""

    __slots__ = ("fetches", "feeds", "state", "container", "guards", "passes", "config",
                 "order", "kernels", "n_graph_ops", "rollback")

    def __init__(self, fetches, feeds, state, container, guards, passes, config, order,
                 kernels, n_graph_ops):
        self.fetches, self.feeds, self.state, self.container = fetches, feeds, state, container
        self.guards, self.passes, self.config = guards, passes, config
        self.order, self.kernels, self.n_graph_ops = order, kernels, n_graph_ops
        self.rollback: Rollback | None = rollback_for(order, state.variables)

    def ranks(self) -> list[int | None]:
        """Each fetch's rank, None where unknown -- and for a string scalar, which may come as
        the bare ``bytes`` an object array's element is (a TensorArray's read), not 0-d."""
        return [f.ndim if isinstance(f, Tensor) and not (f.ndim == 0 and f.dtype == _dtypes.string)
                else None for f in self.fetches]

    def interpreted(self) -> tuple[Plan, Interpreted]:
        """Tier 0: the unoptimised plan, laid out for the interpreter."""
        fetches, fed = self.fetches, set(self.feeds)
        plan = lower_plan(self.order, self.feeds, fetches, self.state, self.config, self.kernels)
        copies = [_fetch_mode(f, f, fed) for f in fetches]
        return plan, prepare_interpreted(plan, self.ranks(), self.container, copies, self.guards)

    def compile(self) -> tuple[Plan, Generated, PassReport, Allocation | None]:
        """Tier 1: rewrite (the passes), lower, allocate locals, generate."""
        fetches, feeds, config, report = self.fetches, self.feeds, self.config, PassReport()
        fed = set(feeds)
        report.add("prune", self.n_graph_ops, len(self.order))
        prog = run_passes(self.order, fetches, fed, config, report)
        order = prog.ops
        for p in self.passes:
            order = p(order)
        plan = lower_plan(order, feeds, prog.fetches, self.state, config, self.kernels)
        copies = [_fetch_mode(f, r, fed) or ("copy" if _merged(k, f, r, fetches, prog.fetches)
                                               else None)
                  for k, (f, r) in enumerate(zip(fetches, prog.fetches))]
        alloc = allocate(plan, config.liveness, config.inplace) if config.liveness or config.inplace else None
        ranks, container, guards, rollback = self.ranks(), self.container, self.guards, self.rollback
        gen = generate(plan, ranks, container, copies, guards, alloc, rollback)
        chains = fuse.find_chains(plan) if config.fuse and fuse.FUSE_AFTER_S < math.inf else ()
        if not chains:
            return plan, gen, report, alloc

        def fused() -> tuple[Plan, Generated, Allocation | None] | None:
            """The plan with its chains fused (None where numba is missing)."""
            if not fuse.available():
                return None
            plan2, done = fuse.fuse_plan(plan, chains)
            report.add("fuse", len(plan.steps), len(plan2.steps), [
                f"fuse: {len(c.members)} steps -> FusedElementwise "
                f"{plan.steps[c.members[-1]].op.name!r}" for c in done])
            alloc2 = allocate(plan2, config.liveness, config.inplace) if alloc is not None else None
            return plan2, generate(plan2, ranks, container, copies, guards, alloc2, rollback), alloc2
        if fuse.FUSE_AFTER_S <= 0:
            now = fused()
            if now is not None:
                return now[0], now[1], report, now[2]
            return plan, gen, report, alloc
        hot = _FuseWhenHot(gen.fn, fused)
        return plan, Generated(hot, gen.source, gen.filename, gen.line_step, gen.names,
                               gen.env), report, alloc


class _FuseWhenHot(fuse.HotKernel):
    """A compiled plan's ``fn`` until the plan is hot (:class:`fuse.HotKernel`): then it makes
    the fused plan (numba compiles its kernels) and from then on runs that -- and its
    :class:`Executable`, if still alive, takes the fused plan as its own (``source``,
    ``plan``, error reports)."""

    __slots__ = ("owner",)

    def __init__(self, fn: Callable, make: Callable):
        super().__init__(fn, make)
        self.owner = None

    def _make(self):
        with _collector_paused():
            return self.make()

    def _install(self, compiled) -> None:
        self.fn = compiled[1].fn
        exe = self.owner() if self.owner is not None else None
        if exe is not None:
            exe._fused(compiled)


class _Tier0:
    """Tier 0's ``fn``: interprets the plan, and compiles it once :data:`COMPILE_AFTER` runs
    have been interpreted -- then its :class:`Executable` (if still alive) takes the generated
    function as ``fn``, and a caller still holding this object runs that function through it."""

    __slots__ = ("interpreted", "job", "runs", "done", "owner", "lock", "run")

    def __init__(self, interpreted: Interpreted, job: _Job):
        self.interpreted, self.job, self.runs = interpreted, job, 0
        self.run = run_interpreted if job.rollback is None else job.rollback.around(run_interpreted)
        self.done: tuple | None = None          # the compiled tier, once made
        self.owner = None                       # weakref to the Executable
        self.lock = threading.Lock()

    def __call__(self, *fed):
        done = self.done
        if done is not None:
            return done[1].fn(*fed)
        if self.runs >= COMPILE_AFTER:
            return self.compile()[1].fn(*fed)
        self.runs += 1
        return self.run(self.interpreted, fed)

    def compile(self) -> tuple:
        """The compiled tier (made once, under a lock: racing runs compile it once)."""
        with self.lock:
            if self.done is None:
                with _collector_paused():
                    self.done, self.job = self.job.compile(), None
                exe = self.owner() if self.owner is not None else None
                if exe is not None:
                    exe._adopt(self.done)
        return self.done


def compile_plan(fetches: Sequence[Tensor | Operation], feeds: Sequence[Tensor],
                 state: SessionState, container: str = "tuple", guards: Sequence | None = None,
                 passes: Sequence[Callable[[list[Operation]], list[Operation]]] = (),
                 optimize: PassConfig | None = None) -> Executable:
    """Prune, order and lower: the plan's first tier, ready to run; with ``COMPILE_AFTER`` 0
    (or extra ``passes``) also rewrite and generate it at once.

    The result's ``fn(*fed_values)`` returns the fetched values in ``container``
    (see :func:`codegen.generate`); ``guards`` validate fed values (inline, once compiled).
    """
    fetches, feeds = list(fetches), list(feeds)
    with _collector_paused():
        job = _Job(fetches, feeds, state, container, guards and list(guards), tuple(passes),
                   optimize or current(), pruned_order(fetches, set(feeds)), {},
                   len(fetches[0].graph._ops) if fetches else 0)
        if COMPILE_AFTER <= 0 or job.passes:
            return Executable(*job.compile())
        plan, interpreted = job.interpreted()
        return Executable(plan, tier0=_Tier0(interpreted, job))


@contextlib.contextmanager
def _collector_paused():
    """Python's cyclic garbage collector paused while a plan is made (if it was running).

    Making a plan allocates several objects per graph op, nearly all of which die by reference
    counting; those allocations would trigger full collections that traverse the whole heap,
    the user's graph included (on the 1,000-layer chain: 10-15 ms of a ~45 ms compile)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _merged(k: int, fetch, resolved, fetches: Sequence, resolved_all: list) -> bool:
    """Did a pass make fetch ``k`` the same value as an earlier, *different* fetch?  Then it is
    copied: two results the user asked for separately must not be one array.  (The same
    tensor fetched twice is one array, as without passes.)"""
    earlier = fetches[:k]
    return isinstance(fetch, Tensor) and not any(f is fetch for f in earlier) and any(
        r is resolved for r in resolved_all[:k])


def _fetch_mode(fetch, resolved, fed: set) -> str | None:
    """How the caller gets fetch's value.  TF hands every ``run`` a fresh, writable,
    C-contiguous array, so no fetched value may be the graph's or the feeder's memory:

    * ``"copy"``: a variable's array, or a value that may be a constant's (read-only, and the
      same array every run) or a fed array (the user's buffer) -- itself after a pass
      substituted it for a computed fetch, or through ops that may return a view of their
      input (``reshape(placeholder)``, ``broadcast_to(const)``): copied, in C order.
    * ``"own"``: a value that may be a view of this run's own intermediate (a transpose, a
      ``broadcast_to``, a loop's or branch's output): kept when already writable and
      C-contiguous, else copied -- a flags check, no copy for what is fresh.
    * ``None``: an op's freshly computed array.  A placeholder fetched as itself is the fed
      array, as in TF."""
    if not isinstance(fetch, Tensor) or fetch in fed:
        return None
    stack, seen, own = [resolved], set(), False
    while stack:   # back along the ops that may return a view of their input (``aliases``)
        t = stack.pop()
        if t in seen:
            continue
        seen.add(t)
        if t in fed or t.op.type == "Const":
            return "copy"
        op_def = t.op.op_def
        if op_def is None:   # a kind: a variable's stored array, or a loop's/branch's output
            kind = kind_of(t.op)
            if kind is not None and kind.returns_state:
                return "copy"
            own = True
            continue
        for i, x in enumerate(t.op.inputs):
            if op_def.may_alias(i):
                own = True
                stack.append(x)
    return "own" if own else None
