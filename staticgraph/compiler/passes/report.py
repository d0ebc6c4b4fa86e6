"""The pass report: nodes before and after every pass, and what each one changed.

::

    pass report (nodes before -> after):
      prune       21 -> 17
      fold        17 -> 16
          fold: OnesLike 'gradients/grad_ys_0' -> constant float32[]
      ...

Rewrites count *live* nodes (the ones a run would execute: a replaced op is
dead at once, even before ``dce`` deletes it); ``prune`` counts the graph's
nodes and the needed ones; ``dce`` counts the listed nodes it deleted from.
"""
from __future__ import annotations

from typing import NamedTuple

__all__ = ["PassRecord", "PassReport"]


class PassRecord(NamedTuple):
    name: str
    before: int
    after: int
    changes: tuple[str, ...]


class PassReport:
    """Rows of :class:`PassRecord`, in the order the passes ran."""

    __slots__ = ("records",)

    def __init__(self):
        self.records: list[PassRecord] = []

    def add(self, name: str, before: int, after: int, changes=()) -> None:
        self.records.append(PassRecord(name, before, after, tuple(changes)))

    def changed(self, name: str) -> list[str]:
        """Every change a pass (by name) made, over all its rounds."""
        return [c for r in self.records if r.name == name for c in r.changes]

    def __str__(self) -> str:
        lines = ["pass report (nodes before -> after):"]
        for r in self.records:
            lines.append(f"  {r.name:<9}{r.before:>5} -> {r.after:<5}")
            lines += [f"      {c}" for c in r.changes]
        return "\n".join(lines)
