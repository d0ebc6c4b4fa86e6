"""Fixtures shared by the test modules.

``fresh_graph``: the static engine keeps one default graph per thread, as TF1 does, so a test
that builds nodes would otherwise see the nodes (and unique names) of the tests before it.
Modules that build graphs opt in with ``pytestmark = pytest.mark.usefixtures("fresh_graph")``.

``tier``: a Session can interpret a signature's first runs and compile it after
``staticgraph.compiler.pipeline.COMPILE_AFTER`` of them (see ``staticgraph/compiler/interpret.py``).
The suite compiles at once, as the engine does by default, so every test sees the optimised,
generated code it was written for; a test using ``tier`` runs in both tiers, and the whole
suite can run in either one with ``STATICGRAPH_COMPILE_AFTER=0`` (compiled) or
``=1000000000`` (interpreted).

``random_kernels``: the random streams have compiled kernels (numba) and numpy code with the
same bits; a test using it runs once with each for every draw (compiled: skipped where numba
is not installed).
"""
import os

import pytest

import staticgraph as tf
import staticgraph.compiler
from common import fastpath

staticgraph.compiler.pipeline.COMPILE_AFTER = int(os.environ.get("STATICGRAPH_COMPILE_AFTER", "0"))

INTERPRETED = 10 ** 9
"""A ``COMPILE_AFTER`` no test reaches: every run interpreted."""


@pytest.fixture
def fresh_graph():
    """A new, empty default graph for the test, and another after it."""
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()


@pytest.fixture(params=["compiled", "interpreted"])
def tier(request, monkeypatch):
    """Run the test with every plan compiled at once, then with every run interpreted."""
    monkeypatch.setattr(staticgraph.compiler.pipeline, "COMPILE_AFTER",
                        0 if request.param == "compiled" else INTERPRETED)
    return request.param


@pytest.fixture(params=["numpy", "compiled"])
def random_kernels(request):
    """Draw with the numpy code, then with the compiled kernels, whatever the draw's size."""
    with fastpath.forced(request.param == "compiled") as compiled:
        if request.param == "compiled" and not compiled:
            pytest.skip("numba is not installed: no compiled kernels")
        yield request.param
