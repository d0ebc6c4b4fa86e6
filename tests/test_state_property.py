"""The state property test: random stateful programs agree with a sequential reference.

Each program (see :mod:`tests.stateprog`) mixes variables, ``assign``/``assign_add``/
``assign_sub``, five spellings of a read, ``control_dependencies``, ``group``, and loops and
conds whose bodies assign; every statement is ordered after the previous one, so the one
right answer is what executing them one by one gives.  The normal suite runs a modest
count; ``python -m tests.stateprog --count 20000`` is the long run, and ``--tf`` checks
the reference itself against the real TensorFlow.
"""
from __future__ import annotations

import pytest

import staticgraph as tf
from tests.stateprog import check, generate, reference

SEEDS = range(0, 200)


@pytest.mark.parametrize("block", range(4))
def test_random_stateful_programs_agree_with_the_sequential_reference(block):
    problems = [p for seed in SEEDS[block::4] if (p := check(seed, tf))]
    assert not problems, "\n".join(problems)


def test_the_generator_covers_every_construct():
    kinds, reads, nested = set(), set(), 0
    for seed in SEEDS:
        for s in generate(seed).stmts:
            kinds.add(s.kind)
            reads.add(s.how)
            nested += bool(s.body or s.other)
    assert kinds == {"assign", "read", "expr", "group", "while", "cond"}
    assert {"identity", "plus_zero", "times", "convert", "read_value",
            "assign", "assign_add", "assign_sub"} <= reads
    assert nested > 50


def test_the_reference_interpreter_itself():
    """A hand-written program: the reference gives what TF gives for it (a=10, b=55 style)."""
    from tests.stateprog import Program, Stmt
    prog = Program([0.0, 0.0, 0.0], [
        Stmt("while", var=-1, n=10, body=[Stmt("assign", 0, "assign_add", ("const", 1.0)),
                                  Stmt("assign", 1, "assign_add", ("var", 0))],
             result=("local", "acc")),
        Stmt("read", 1, "identity")], [0, 1])
    assert reference(prog) == ([0.0, 55.0], [10.0, 55.0, 0.0])
    assert check(0, tf) is None
