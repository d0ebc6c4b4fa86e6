"""The state property test: random stateful programs agree with a sequential reference.

Each program (see :mod:`tests.stateprog`) mixes variables, ``assign``/``assign_add``/
``assign_sub``, five spellings of a read, ``control_dependencies``, ``group``, and loops and
conds whose bodies assign; every statement is ordered after the previous one, so the one
right answer is what executing them one by one gives -- skipping, as TF does, the work
no fetch needs (a loop fetched for its counter only, a cond result never fetched).  The
normal suite runs a modest count; ``python -m tests.stateprog --count 20000`` is the long
run, and ``--tf`` checks the reference itself against the real TensorFlow (2,000 programs:
TF 2.21 and staticgraph both agree with it on every one).
"""
from __future__ import annotations

import collections

import pytest

import staticgraph as tf
from tests.stateprog import check, generate, reference

SEEDS = range(0, 200)


@pytest.mark.parametrize("block", range(4))
def test_random_stateful_programs_agree_with_the_sequential_reference(block):
    problems = [p for seed in SEEDS[block::4] if (p := check(seed, tf))]
    assert not problems, "\n".join(problems)


def _statements(stmts):
    """Every statement, nested ones (bodies, branches, preludes, asides) included."""
    for s in stmts:
        yield s
        asides = [*s.aside[0], *s.aside[1]] if s.aside else []
        yield from _statements([*s.body, *s.other, *s.prelude, *asides])


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


def test_the_generator_fetches_parts_of_loops_and_conds():
    """Loops fetched for each of their outputs, with and without a counter that waits for
    the body, preludes that run and ones that do not, never-fetched cond results with
    writes of their own, and conditions reading a variable in a loop whose body is skipped."""
    seen = collections.Counter()
    for seed in SEEDS:
        for s in _statements(generate(seed).stmts):
            if s.kind == "while":
                skipped = s.out == "i" and s.free_i
                seen[(s.out, s.free_i)] += 1
                seen["prelude skipped" if skipped else "prelude run"] += s.init is not None
                seen["variable read, body skipped"] += skipped and s.var >= 0 and bool(s.body)
            elif s.kind == "cond" and s.aside:
                seen["aside writes"] += any(a.kind == "assign" for a in _statements(s.aside[0] + s.aside[1]))
    assert all(seen[key] >= 10 for key in [("acc", False), ("acc", True), ("i", False), ("i", True),
                                           "prelude skipped", "prelude run",
                                           "variable read, body skipped", "aside writes"]), seen
    first = generate(7, partial=False)
    assert all(s.out == "acc" and not s.free_i and not s.prelude and not s.aside
               for s in _statements(first.stmts))


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
