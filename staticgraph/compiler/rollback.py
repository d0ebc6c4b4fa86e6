"""A run that raises leaves every variable as it was: what a plan that writes variables adds.

A plan that may write variables (its ops' declared effects, :func:`kinds.effects`, loops'
and branches' included) is generated inside a ``try`` (:func:`.codegen.generate`)::

    def plan_3(v0):
        _before = _snapshot()      # the Session's variable store, copied: references, not arrays
        try:
            ...every step...
            return (r1, )
        except BaseException:
            _undo(_before)         # each variable the plan writes gets its array back
            raise

and the interpreter's runs go through :meth:`Rollback.around`, the same in Python.  A plan
that writes no variable has neither: its runs pay nothing.

Why a shallow copy is enough: no write changes an array the copy holds, because holding it
is what keeps writes out -- an update writes in place only into an array nothing else
references (``kinds.IN_PLACE_MIN_SIZE``), so a run's first update of a variable makes a new
array, and only later updates in the same run (a loop's) may write into that one.  A run
that succeeds pays the copy (~15 ns a variable in the Session) and keeps each variable's
previous array alive until it returns.

A large update nothing after it can observe -- a train step's, typically -- is held back
instead (:func:`late_updates`)::

            _p33 = f33.defer(v2, r1)    # AssignSubVariableOp ..., applied at the end
            ...every later step...
            f33.commit(_p33, _before)   # in place: nothing can fail after this any more

so it keeps the in-place write (no new array, no extra memory) without ever having to be
undone: a later failure leaves it unapplied.

Not rolled back, as in TF: other state a failed run consumed -- an iterator's elements, a
random op's draws, a ``Print``'s ``first_n`` count.  A run a ``py_func`` starts is a run of
its own (what it wrote stays); of concurrent runs writing one variable, a failing one puts
back what the variable held when it began.
"""
from __future__ import annotations

from typing import Callable, Iterable

from ..framework.kinds import effects, variable_of

__all__ = ["Rollback", "rollback_for", "late_updates"]

_ABSENT = object()   # what a variable held before a run that gave it its first value


class Rollback:
    """The variables ``names`` of ``store`` that a plan may write, and how to put them back."""

    __slots__ = ("store", "names")

    def __init__(self, store: dict, names: tuple[str, ...]):
        self.store, self.names = store, names

    def undo(self, before: dict) -> None:
        """Give each variable the plan writes the array it held in ``before`` (a copy of the
        store taken when the run began); remove one it did not have then."""
        store = self.store
        for name in self.names:
            old = before.get(name, _ABSENT)
            if old is _ABSENT:
                store.pop(name, None)
            else:
                store[name] = old

    def around(self, fn: Callable) -> Callable:
        """``fn`` (a run of the plan) all or nothing: the generated form, in Python."""
        snapshot, undo = self.store.copy, self.undo

        def run(*args):
            before = snapshot()
            try:
                return fn(*args)
            except BaseException:
                undo(before)
                raise
        return run


def rollback_for(ops: Iterable, store: dict) -> Rollback | None:
    """The :class:`Rollback` of a plan running ``ops`` on ``store``, or None if none writes."""
    names = set()
    for op in ops:
        names |= effects(op).writes
    return Rollback(store, tuple(sorted(names))) if names else None


def late_updates(plan) -> set[int]:
    """The steps of ``plan`` whose variable update may be held back to the end of the run
    (``kernel.defer`` now, ``kernel.commit`` after the last step), where -- nothing else in
    the run being able to fail any more -- it may write into the variable's own array, as an
    update that cannot be undone.  A step qualifies when holding it back changes nothing any
    step can see:

    * nothing after it touches its variable, and every step after it is registry math or a
      read or write of another variable (no loop, ``py_func`` or print: code that could look);
    * its delta is a new array a registry op made (not a view, a feed, a constant or a
      variable's value), which no step after it reads, directly or through a view of it, and
      which is not fetched -- so nothing can write into it before the end.
    """
    steps = plan.steps
    made_by = {s: j for j, step in enumerate(steps) for s in step.outputs if s is not None}
    readers: dict[int, list[tuple[int, int]]] = {}
    for j, step in enumerate(steps):
        for i, s in enumerate(step.inputs):
            readers.setdefault(s, []).append((j, i))
    fetched = {s for s in plan.fetches if s is not None}
    late, touched, plain = set(), set(), True   # what the steps after k touch; all plain?
    for k in range(len(steps) - 1, -1, -1):
        step = steps[k]
        var = variable_of(step.op)
        if getattr(step.kernel, "defer", None) is not None and var not in touched and plain:
            j = made_by.get(step.inputs[1])
            if j is not None and _new_array(steps[j].op) and not any(
                    s in fetched or any(r > k for r, _ in readers.get(s, ()))
                    for s in _views_of(step.inputs[1], steps, readers)):
                late.add(k)
        touched.add(var)
        plain = plain and (step.op.op_def is not None or var is not None)
    return late


def _new_array(op) -> bool:
    """Is ``op``'s result an array of its own (a registry op that returns no view of an input)?"""
    return op.op_def is not None and not any(op.op_def.may_alias(i) for i in range(len(op.inputs)))


def _views_of(slot: int, steps, readers: dict) -> set[int]:
    """``slot`` and every slot that may share its memory: results of steps that may return a
    view of it (a registry op's declared ``aliases``; any other node's result, to be safe)."""
    found, todo = {slot}, [slot]
    while todo:
        for j, i in readers.get(todo.pop(), ()):
            op = steps[j].op
            if op.op_def is None or op.op_def.may_alias(i):
                for s in steps[j].outputs:
                    if s is not None and s not in found:
                        found.add(s)
                        todo.append(s)
    return found
