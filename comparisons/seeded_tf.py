"""seeded_tf: a seeded TF1 training script prints what TensorFlow 2.21 printed, digit for digit.

Run: ``python -m comparisons.seeded_tf``.

The script sets the graph seed, draws its data with ``tf.random_normal``, initialises two
dense layers (``get_variable``'s glorot-uniform, a truncated-normal initializer) and trains
ten GradientDescent steps through ``tf.nn.dropout`` -- every one of those draws comes from
a random op seeded by ``tf.set_random_seed``.  staticgraph gives each op TF's seeds and TF's
Philox stream, read as TF's kernels read it (the same bits, turned into floats by the same
operations, glibc's ``logf``/``sincosf`` included), so with only the import changed the script
prints TF's data, TF's initial weights and TF's losses.  The right column was printed by TF
2.21 (``compat.v1`` graph mode, x86-64 Linux); what is left to differ is the arithmetic of
training itself (BLAS sums in another order: ~1e-7 in a loss), below the six decimals printed.
"""
from __future__ import annotations

import numpy as np

from . import tf1_programs
from .sidebyside import compare_printed, facts, heading, parse_args, say

__all__ = ["main", "run"]

PROGRAM = "seeded_mlp"
"""The script, ``comparisons/tf1_programs/seeded_mlp.py``; TF's output sits next to it."""


def run() -> tuple[list[str], list[str], list[str]]:
    """What the script prints on staticgraph, what it printed on TF 2.21, and its random ops
    (``type (seed, seed2): values per run``)."""
    draws: list[str] = []

    def random_ops(graph) -> None:
        for op in graph.get_operations():
            if "seed2" in op.attrs:
                n = int(np.prod(op.outputs[0].shape.as_list()))
                draws.append(f"{op.type} {(op.get_attr('seed'), op.get_attr('seed2'))}: {n}")
    return tf1_programs.run(PROGRAM, random_ops), tf1_programs.expected(PROGRAM), draws


def main(argv: list[str] | None = None) -> None:
    parse_args(argv, __doc__)
    print(__doc__.strip().splitlines()[0])
    heading("the script (TF1 compat.v1, unchanged but for the import)")
    print(tf1_programs.source(PROGRAM).rstrip())
    ours, theirs, draws = run()
    heading("what it printed: staticgraph, then TF 2.21 (recorded)")
    facts([compare_printed(ours, theirs, "staticgraph", "TF 2.21", "TF"),
           "The seeded random ops, with TF's (graph seed, op seed) -- the op seed counts the "
           "seeds this graph handed out -- and the values each draws per run: "
           + "; ".join(draws) + ".  The initializers run once; the dropout mask is drawn "
           "anew at every step, the op's stream advancing run by run."])
    say("Any other seeded TF1 program does the same: staticgraph's random ops are TF's CPU "
        "kernels on TF's Philox stream (see common/philox.py and common/ops/random.py).")


if __name__ == "__main__":
    main()
