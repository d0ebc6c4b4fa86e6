"""errors: a shape mismatch, caught at build time by staticgraph and at the call by dyngraph.

Run: ``python -m comparisons.errors``.

A static graph infers every shape while it is built, so ``matmul`` of
``[2, 3]`` and ``[4, 5]`` fails on the line that builds it, before any
Session or data exists.  An eager model is plain Python: defining it checks
nothing, and the mismatch surfaces when data first flows through ``forward``.
"""
from __future__ import annotations

import sys
import traceback

import dyngraph as torch
import numpy as np
import staticgraph as tf

from .sidebyside import columns, facts, heading, parse_args, show_programs

__all__ = ["main"]


class EagerModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.ones(4, 5))

    def forward(self, a):
        return a @ self.w       # the mismatch


def eager_program():
    model = EagerModel()        # fine: no shapes checked
    out = model(torch.ones(2, 3))
    return out


def static_program():
    g = tf.Graph()
    with g.as_default():
        a = tf.placeholder(tf.float32, (2, 3), name="a")
        w = tf.Variable(np.ones((4, 5), np.float32))
        out = tf.matmul(a, w)   # the mismatch
    return g, out


def _catch(program):
    """Run ``program``; return (exception, innermost frame in this file, the frames here)."""
    try:
        program()
    except Exception as e:
        frames = [f for f in traceback.extract_tb(sys.exc_info()[2])
                  if f.filename == __file__ and f.name != "_catch"]
        return e, frames[-1], frames
    raise AssertionError(f"{program.__name__} raised nothing")


def _where(frame) -> str:
    return f"{frame.name}(), line {frame.lineno}: {frame.line}"


def main(argv: list[str] | None = None) -> None:
    parse_args(argv, __doc__)
    print(__doc__.strip().splitlines()[0])
    heading("the same mistake in both engines")
    show_programs((EagerModel, eager_program), static_program)
    e_err, e_frame, e_frames = _catch(eager_program)
    s_err, s_frame, _ = _catch(static_program)
    print()
    columns([("exception", type(e_err).__name__, type(s_err).__name__),
             ("message", str(e_err), str(s_err)),
             ("points at", _where(e_frame), _where(s_frame)),
             ("raised during", " -> ".join(f.name + "()" for f in e_frames),
              "graph construction (no Session, no data)")])
    facts([f"staticgraph raised {type(s_err).__name__} while building, at "
           f"line {s_frame.lineno} (`{s_frame.line}`), from shapes alone: no Session had been "
           f"created and nothing was fed.",
           f"dyngraph built the model without complaint; {type(e_err).__name__} came at the "
           f"first forward call, from line {e_frame.lineno} (`{e_frame.line}`) inside "
           f"forward().",
           f"Both messages name the op and the two shapes; the line they cite: dyngraph "
           f"{_cites(e_err)}, staticgraph {_cites(s_err)}."])


def _cites(err) -> str:
    name = __file__.rsplit("/", 1)[-1]
    text = str(err)
    if name not in text:
        return "none"
    return name + text.split(name, 1)[1].split(")")[0].split()[0]


if __name__ == "__main__":
    main()
