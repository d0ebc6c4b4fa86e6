"""The suite's progress report: done/total, elapsed time and time left (rich).

On a terminal it is one bar redrawn in place. Piped (CI, ``tee``, a test) it
prints one line per measurement, so a log shows how far the run is and how
long it still needs while it runs, not only at the end::

    staticgraph  mlp ━━━━━━━━━━━╸━━━━━━━━  17/48  0:01:02 elapsed  0:02:13 left

The time left is rich's estimate from the measurements' recent pace.
"""
from __future__ import annotations

import sys
from time import perf_counter
from typing import TextIO

from rich.console import Console
from rich.progress import (BarColumn, MofNCompleteColumn, Progress as _Bar, TextColumn,
                           TimeElapsedColumn, TimeRemainingColumn)

__all__ = ["Progress"]


class Progress:
    """Announce each measurement with :meth:`step`; :meth:`done` prints the total time.

    >>> p = Progress(2, stream=sys.stdout)    # doctest: +SKIP
    >>> p.step("numpy  gradient"); p.step("numpy  mlp"); p.done()    # doctest: +SKIP
    """

    def __init__(self, total: int, stream: TextIO | None = None, width: int = 30):
        self.console = Console(file=stream or sys.stderr, width=110, highlight=False)
        self.live = self.console.is_terminal
        self.count, self.t0 = 0, perf_counter()
        self.bar = _Bar(TextColumn("{task.description:<32}"), BarColumn(bar_width=width),
                        MofNCompleteColumn(), TimeElapsedColumn(), TextColumn("elapsed"),
                        TimeRemainingColumn(), TextColumn("left"),
                        console=self.console, transient=True, auto_refresh=self.live)
        self.task = self.bar.add_task("", total=max(total, 1))
        if self.live:
            self.bar.start()

    def step(self, label: str) -> None:
        """Announce the item about to run (the previous one is complete)."""
        if self.count:
            self.bar.advance(self.task)
        self.count += 1
        self.bar.update(self.task, description=label)
        if not self.live:
            self.console.print(self.bar.get_renderable())

    def done(self) -> None:
        """Close the bar and say how many measurements took how long."""
        self.bar.update(self.task, completed=self.count)
        if self.live:
            self.bar.stop()
        self.console.print(f"ran {self.count} measurements in {perf_counter() - self.t0:.1f} s")
