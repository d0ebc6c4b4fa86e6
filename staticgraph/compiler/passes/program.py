"""The rewrite passes' view of a plan-to-be: ordered operations, fetches, fed tensors.

A pass never mutates the user's graph (that would bump its version and make
every cached plan stale).  It rewrites a :class:`Program` instead:

* an op whose *inputs* change is replaced by a detached **clone** that keeps
  the original output Tensors, so every consumer of those outputs stays valid;
* a new op (a folded constant, a merged reshape) is a detached Operation that
  is never added to ``graph._ops``;
* a replaced tensor is recorded in ``pending`` (old -> new); ``substitute()``
  then redirects every use -- inputs of later ops and fetches -- to the new one.

``ops`` stays in a valid execution order throughout: a replacement is inserted
where the op it replaces was, and a tensor is only ever redirected to one that
is computed earlier.
"""
from __future__ import annotations

from typing import Any, Iterable

import numpy as np

from ...framework.graph import Operation, Tensor
from ...framework.kinds import kind_of
from common import REGISTRY

__all__ = ["Program", "clone", "new_op", "is_pure", "live_indices"]


def clone(op: Operation, inputs: Iterable[Tensor] | None = None, attrs: dict | None = None,
          ) -> Operation:
    """A detached copy of ``op`` with new ``inputs``/``attrs`` and the SAME output Tensors."""
    c = object.__new__(Operation)
    for name in Operation.__slots__:
        if name != "__weakref__":
            setattr(c, name, getattr(op, name))
    if inputs is not None:
        c.inputs = tuple(inputs)
    if attrs is not None:
        c.attrs = attrs
    return c


def new_op(like: Operation, type_: str, inputs: tuple, attrs: dict, spec: tuple,
           suffix: str) -> Operation:
    """A detached op standing in for ``like`` (same graph, site; name ``like.name/suffix``)."""
    return Operation(like.graph, f"{like.name}/{suffix}", type_, REGISTRY.get(type_), inputs,
                     attrs, [spec], (), like.site, like.index)


def is_pure(op: Operation) -> bool:
    """May a pass merge, fold or drop ``op``?  Stateless registry ops and constants, without
    control deps (a ``stateful`` op -- random draws, effects -- is never touched)."""
    d = op.op_def
    if d is None:
        kind = kind_of(op)
        return kind is not None and kind.pure and not op.control_inputs
    return not d.stateful and not op.control_inputs


class Program:
    """What the passes rewrite: ``ops`` in execution order, ``fetches``, ``fed`` tensors."""

    __slots__ = ("ops", "fetches", "fed", "changes", "max_fold_elements", "pending", "alive")

    def __init__(self, ops: list[Operation], fetches: list[Tensor | Operation], fed: set[Tensor],
                 max_fold_elements: int = 1 << 16):
        self.ops = list(ops)
        self.fetches = list(fetches)
        self.fed = fed
        self.changes: list[str] = []
        self.max_fold_elements = max_fold_elements
        self.pending: dict[Tensor, Tensor] = {}   # replacements a pass has decided, not yet applied
        self.alive: list[tuple[int, Operation]] | None = None  # live (index, op), cached

    def live_ops(self) -> list[Operation]:
        """The ops a fetch or an effect still needs (cached; see :func:`live_indices`)."""
        return [op for _, op in self.live()]

    def live(self) -> list[tuple[int, Operation]]:
        """``(index, op)`` for the ops still needed (a pass leaves dead ones to ``dce``);
        cached until a pass changes something."""
        if self.alive is None:
            ops = self.ops
            self.alive = [(i, ops[i]) for i in live_indices(self)]
        return self.alive

    def producers(self) -> dict[Tensor, Operation]:
        """Tensor -> the op in ``ops`` computing it (fed tensors have none: their value is given)."""
        return {t: op for op in self.ops for t in op.outputs if t not in self.fed}

    def uses(self) -> dict[Tensor, int]:
        """How many times each tensor is read (op inputs and fetches)."""
        n: dict[Tensor, int] = {}
        for op in self.ops:
            for t in op.inputs:
                n[t] = n.get(t, 0) + 1
        for f in self.fetches:
            if isinstance(f, Tensor):
                n[f] = n.get(f, 0) + 1
        return n

    def resolve(self, t: Tensor) -> Tensor:
        """``t`` after the replacements recorded so far in this pass (chains followed)."""
        while t in self.pending:
            t = self.pending[t]
        return t

    def resolved(self, op: Operation) -> Operation:
        """``op`` reading the replacements of its inputs (a clone if any input changed)."""
        pending = self.pending
        if pending:
            for t in op.inputs:
                if t in pending:
                    return clone(op, [self.resolve(t) for t in op.inputs])
        return op

    def substitute(self) -> None:
        """Apply the pending replacements to every op and fetch; start a fresh mapping."""
        if self.pending:
            self.ops = [self.resolved(op) for op in self.ops]
            self.fetches = [self.resolve(f) if isinstance(f, Tensor) else f for f in self.fetches]
            self.pending = {}

    def note(self, message: str) -> None:
        self.changes.append(message)

    def __len__(self) -> int:
        return len(self.ops)


def live_indices(prog: Program) -> list[int]:
    """Positions in ``prog.ops`` of the ops a fetch or an effect needs, in order (``prog`` is
    not changed): what :meth:`Program.live` caches and ``dce`` keeps.  One backward sweep; the
    cheap test (is an output needed?) comes first."""
    needed: set[Tensor] = {f for f in prog.fetches if isinstance(f, Tensor)}
    named: set[str] = {f.name for f in prog.fetches if isinstance(f, Operation)}
    keep: list[int] = []
    ops = prog.ops
    for i in range(len(ops) - 1, -1, -1):
        op = ops[i]
        outs = op.outputs
        used = outs[0] in needed if len(outs) == 1 else any(t in needed for t in outs)
        if not used and op.name not in named and is_pure(op):
            continue
        keep.append(i)
        needed.update(op.inputs)
        if op.control_inputs:
            named.update(c.name for c in op.control_inputs)
    keep.reverse()
    return keep


def static_value(op: Operation | None) -> Any:
    """The value of a Const op (else None)."""
    if op is not None and op.type == "Const" and not op.control_inputs:
        return op.attrs["value"]
    return None


def frozen(value: Any) -> np.ndarray:
    """A read-only ndarray: folded values are shared by every run, nobody may write them."""
    arr = np.array(value)  # a private copy
    arr.setflags(write=False)
    return arr
