"""What TensorFlow's variable, variable-scope and saver tests check, recorded from TF 2.21.

Found by running TF's ``variable_scope_test``, ``variables_test``,
``resource_variable_ops_test`` and ``saver_test`` through ``tools/tf_tests`` (issue #30).
CI has neither TF nor its test files: the values and words below are what
``tf.compat.v1`` (graph mode) printed for the same programs.
"""
from __future__ import annotations

import threading

import numpy as np
import pytest

import staticgraph as tf


# --- variable scopes are per thread (variable_scope_test's multithreaded tests) -----------

def test_a_second_thread_entering_the_same_scope_name_gets_that_scope_not_a_nested_one():
    """TF keeps the scope stack per thread: thread 1 enters ``foo`` (not ``foo/foo``) while
    thread 0 is still inside its ``foo``, and so collides with ``foo/v``."""
    graph = tf.Graph()
    seen: list[str] = []
    paused = [threading.Event(), threading.Event()]
    resume = threading.Event()

    def body(i: int) -> None:
        try:
            with graph.as_default(), tf.variable_scope("foo") as scope:
                seen.append(scope.name)
                try:
                    seen.append(tf.get_variable("v", []).name)
                except ValueError as e:
                    seen.append(str(e).split(",")[0])
                paused[i].set()
                resume.wait(10)
        finally:
            paused[i].set()

    threads = [threading.Thread(target=body, args=(i,)) for i in range(2)]
    threads[0].start()
    paused[0].wait(10)
    threads[1].start()
    paused[1].wait(10)
    resume.set()
    for t in threads:
        t.join(10)
    assert seen == ["foo", "foo/v:0", "foo", "Variable foo/v already exists"]   # TF 2.21


def test_a_new_thread_starts_at_the_root_scope():
    graph = tf.Graph()
    names: list[str] = []

    def body() -> None:
        with graph.as_default():
            names.append(tf.get_variable_scope().name)
            with tf.variable_scope("bar"):
                names.append(tf.get_variable("v", []).name)

    with graph.as_default(), tf.variable_scope("main"):
        t = threading.Thread(target=body)
        t.start()
        t.join(10)
    assert names == ["", "bar/v:0"]   # TF 2.21
