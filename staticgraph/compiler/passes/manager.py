"""The pass manager: which rewrite passes run (their switches) and running them.

::

    pruned, ordered ops --fold--> --simplify--> --cse-->   (repeated while anything changes)
                        --dce--> ops for lower_plan;  liveness + in-place run in codegen
    a loop body's TensorArray writes: carry (in place into the loop's own buffer when safe)

Each pass is a small ``Program -> Program`` function that records what it
changed (see :mod:`.report`).  All of them are on by default; each can be
switched off -- globally with :func:`disable`/:func:`enable` or the
:func:`options` context manager, or per Session with
``Session(config=PassConfig(cse=False))`` (``PassConfig.off()`` turns every
optimisation off: the plan then runs exactly the pruned graph, one step per
node, with no buffer reuse).  Pruning is not a switch: without it a plan
would have to run placeholders nobody fed.
"""
from __future__ import annotations

import contextlib
import dataclasses
from typing import Iterator

from ...framework.graph import Operation, Tensor
from .cse import cse
from .dce import dce
from .fold import fold
from .program import Program
from .report import PassRecord, PassReport
from .simplify import simplify

__all__ = ["PassConfig", "run_passes", "enable", "disable", "options", "current", "REWRITES",
           "MAX_ROUNDS"]

REWRITES = {"fold": fold, "simplify": simplify, "cse": cse}
"""The rewrites repeated until nothing changes (in this order), then ``dce`` once."""

MAX_ROUNDS = 4


@dataclasses.dataclass(frozen=True)
class PassConfig:
    """Which passes run.  ``liveness``: release values after their last use (``del``, reused
    locals); ``inplace``: elementwise ops write into a dead input's buffer."""

    fold: bool = True
    simplify: bool = True
    cse: bool = True
    dce: bool = True
    liveness: bool = True
    inplace: bool = True
    fuse: bool = True        # a hot plan's elementwise chains as fused loops (compiler/fuse.py)
    loops: bool = True       # while_loop plans: hoisted input products, batched weight
    #                          gradients (passes/loops.py; not bit-identical: off = exact bits)
    fast_math: bool = True   # fused loops compute exp/tanh/sigmoid by common.vmath (within a
    #                          few ulps of numpy; off: those ops stay numpy's, exact bits)
    max_fold_elements: int = 1 << 16

    @classmethod
    def off(cls) -> "PassConfig":
        """No optimisation at all (the baseline for comparisons and debugging)."""
        return cls(False, False, False, False, False, False, False, False, False)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(f.name for f in dataclasses.fields(self) if f.type in (bool, "bool"))


_current = [PassConfig()]


def current() -> PassConfig:
    """The configuration new plans are compiled with (unless a Session carries its own)."""
    return _current[-1]


def _check(names) -> None:
    unknown = set(names) - set(current().names) - {"max_fold_elements"}
    if unknown:
        raise ValueError(f"unknown pass(es) {sorted(unknown)}; known: {list(current().names)}")


def _set(value: bool, names: tuple[str, ...]) -> None:
    _check(names)
    _current[-1] = dataclasses.replace(current(), **{n: value for n in names})


def enable(*names: str) -> None:
    """Switch passes on for plans compiled from now on (no names: all of them)."""
    _set(True, names or current().names)


def disable(*names: str) -> None:
    """Switch passes off for plans compiled from now on (no names: all of them)."""
    _set(False, names or current().names)


@contextlib.contextmanager
def options(**switches) -> Iterator[PassConfig]:
    """``with options(cse=False): ...`` -- a temporary configuration."""
    _check(switches)
    _current.append(dataclasses.replace(current(), **switches))
    try:
        yield current()
    finally:
        _current.pop()


def run_passes(ops: list[Operation], fetches: list, fed: set[Tensor], config: PassConfig,
               report: PassReport) -> Program:
    """Rewrite the ordered ``ops`` for ``fetches`` as ``config`` allows; log into ``report``."""
    prog = Program(ops, fetches, fed, config.max_fold_elements)
    rewrites = [(n, p) for n, p in REWRITES.items() if getattr(config, n)]
    live = len(prog.live_ops())
    # The rewrites take turns until each has run once more without changing anything since
    # the last change: then every one has seen the final program and left it alone (a fixed
    # point), and the rest of that round would only repeat them.
    unchanged_in_a_row = 0
    for turn in range(MAX_ROUNDS * len(rewrites)):
        name, rewrite = rewrites[turn % len(rewrites)]
        live, did = _run(name, rewrite, prog, report, live, quiet=turn >= len(rewrites))
        unchanged_in_a_row = 0 if did else unchanged_in_a_row + 1
        if unchanged_in_a_row == len(rewrites):
            break
    if config.dce:   # its row counts every op still listed (live or not) -> what remains
        _run("dce", dce, prog, report, len(prog.ops), quiet=False)
    return prog


def _run(name: str, rewrite, prog: Program, report: PassReport, before: int,
         quiet: bool) -> tuple[int, bool]:
    """One pass; the report counts *live* nodes (what would run), so each pass shows its effect.

    ``quiet``: a later round's pass that changed nothing is not reported.
    Returns the live count after the pass and whether it changed anything.
    """
    prog.changes = []
    rewrite(prog)
    if prog.changes:
        prog.alive = None
    after = len(prog.live_ops())
    if prog.changes or not quiet:
        report.add(name, before, after, prog.changes)
    return after, bool(prog.changes)
