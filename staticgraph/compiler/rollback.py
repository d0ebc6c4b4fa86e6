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

Not rolled back, as in TF: other state a failed run consumed -- an iterator's elements, a
random op's draws, a ``Print``'s ``first_n`` count.  A run a ``py_func`` starts is a run of
its own (what it wrote stays); of concurrent runs writing one variable, a failing one puts
back what the variable held when it began.
"""
from __future__ import annotations

from typing import Callable, Iterable

from ..kinds import effects

__all__ = ["Rollback", "rollback_for"]

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
