"""Fixtures shared by the test modules.

``fresh_graph``: the static engine keeps one default graph per thread, as TF1 does, so a test
that builds nodes would otherwise see the nodes (and unique names) of the tests before it.
Modules that build graphs opt in with ``pytestmark = pytest.mark.usefixtures("fresh_graph")``.
"""
import pytest

import staticgraph as tf


@pytest.fixture
def fresh_graph():
    """A new, empty default graph for the test, and another after it."""
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()
