"""The compiler's step order: Kahn's algorithm, ties broken by creation order.

``topological_order`` returns creation order itself when it respects every edge (the
common case, checked in one sweep) and runs Kahn's algorithm otherwise; both must give
the order the plain algorithm below gives, and a cycle must be reported, not looped on.
"""
from __future__ import annotations

import heapq
import random

import pytest

import staticgraph as tf
from staticgraph.compiler import order as order_module
from staticgraph.compiler import topological_order


def kahn(ops: set) -> list:
    """The reference: Kahn's algorithm with a heap keyed by (creation index, name)."""
    deps = {op: {t.op for t in op.inputs if t.op in ops} | {c for c in op.control_inputs if c in ops}
            for op in ops}
    waiting = {op: len(d) for op, d in deps.items()}
    users: dict = {op: [] for op in ops}
    for op, d in deps.items():
        for x in d:
            users[x].append(op)
    ready = [((op.index, op.name), op) for op, n in waiting.items() if n == 0]
    heapq.heapify(ready)
    out = []
    while ready:
        _, op = heapq.heappop(ready)
        out.append(op)
        for u in users[op]:
            waiting[u] -= 1
            if waiting[u] == 0:
                heapq.heappush(ready, ((u.index, u.name), u))
    return out


def random_graph(rng: random.Random) -> tf.Graph:
    g = tf.Graph()
    with g.as_default():
        values = [tf.placeholder(tf.float32, shape=(2,), name="x")]
        for _ in range(25):
            a, b = rng.choice(values), rng.choice(values)
            values.append(a + b if rng.random() < 0.5 else a * b)
    return g


@pytest.mark.parametrize("scrambled", [False, True])
def test_order_is_kahns_with_creation_order_ties(scrambled):
    """Built front to back (the one-sweep answer) and with creation indices scrambled (the
    heap's answer): the same order as the reference algorithm, every time."""
    rng = random.Random(0)
    for _ in range(40):
        g = random_graph(rng)
        if scrambled:
            for op, i in zip(g._ops, rng.sample(range(len(g._ops)), len(g._ops))):
                op.index = i
        ops = set(g._ops)
        assert topological_order(ops) == kahn(ops)


def test_a_cycle_is_reported_by_name():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, shape=(2,), name="x")
        a = tf.add(x, x, name="a")
        b = tf.multiply(a, a, name="b")
    a.op.inputs = (b, x)          # a -> b -> a (only a corrupted graph can do this)
    with pytest.raises(ValueError, match=r"the graph has a cycle through: \['a', 'b'\]"):
        order_module.topological_order(set(g._ops))
