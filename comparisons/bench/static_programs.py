"""The workloads as TensorFlow 1.x programs, written once for any module with TF1's API.

Each ``build(tf, data)`` receives ``staticgraph`` or ``tensorflow.compat.v1``
(in graph mode), builds a fresh graph, opens a Session, initializes the
variables and returns ``run()``: one ``Session.run`` with the feeds.  The
harness times ``build`` (graph + Session), the first ``run`` (where a static
engine compiles) and the steady runs apart.

Programs needing control flow that the module lacks raise
:class:`NotAvailable`; the harness reports that instead of a number.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

__all__ = ["PROGRAMS", "NotAvailable"]

Run = Callable[[], Any]


class NotAvailable(Exception):
    """This engine cannot express the workload (yet); the message says why."""


def _require(tf, name: str) -> None:
    if not hasattr(tf, name):
        raise NotAvailable(f"{name} not yet available")


def _session(tf, graph, fetches, feed: dict) -> Run:
    """Open a Session on ``graph``, initialize variables, return the timed run.

    ``run.graph_ops`` is the number of nodes the program built (the report's per-node costs).
    """
    ops = len(graph.get_operations())
    with graph.as_default():
        init = tf.global_variables_initializer()
    sess = tf.Session(graph=graph)
    sess.run(init)

    def run():
        return sess.run(fetches, feed_dict=feed)
    run.graph_ops = ops
    return run


def counter(tf, data) -> Run:
    _require(tf, "while_loop")
    g = tf.Graph()
    with g.as_default():
        n = tf.placeholder(tf.float32, shape=(), name="n")
        first = tf.constant(0.0)
        c1, c2 = tf.while_loop(lambda a, b: a < b, lambda a, b: (a + 2.0, b + 1.0), [first, n])
    return _session(tf, g, [c1, c2], {n: np.float32(data["n"])})


def gradient(tf, data) -> Run:
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, shape=(1,), name="x")
        w = tf.Variable(data["w"], name="w")
        a = tf.add(w, x)
        b = tf.add(w, 1.0)
        y = tf.multiply(a, b)
        gx, gw = tf.gradients(y, [x, w])
    return _session(tf, g, [y, gx, gw], {x: data["x"]})


def rnn_cell(tf, data) -> Run:
    g = tf.Graph()
    with g.as_default():
        W_h, W_x = tf.Variable(data["W_h"], name="W_h"), tf.Variable(data["W_x"], name="W_x")
        x = tf.placeholder(tf.float32, shape=(1, 10), name="x")
        prev_h = tf.placeholder(tf.float32, shape=(1, 20), name="prev_h")
        next_h = tf.tanh(tf.matmul(W_h, tf.transpose(prev_h)) + tf.matmul(W_x, tf.transpose(x)))
        loss = tf.reduce_sum(next_h)
        grads = tf.gradients(loss, [W_h, W_x])
    return _session(tf, g, [loss] + grads, {x: data["x"], prev_h: data["prev_h"]})


def _rnn_graph(tf, data, step_loop):
    g = tf.Graph()
    with g.as_default():
        W_h, W_x = tf.Variable(data["W_h"], name="W_h"), tf.Variable(data["W_x"], name="W_x")
        xs = tf.placeholder(tf.float32, shape=(None, 10, 1), name="xs")
        h0 = tf.placeholder(tf.float32, shape=(20, 1), name="h0")
        h = step_loop(lambda h, x: tf.tanh(tf.matmul(W_h, h) + tf.matmul(W_x, x)), xs, h0)
        loss = tf.reduce_sum(h)
        grads = tf.gradients(loss, [W_h, W_x])
    return _session(tf, g, [loss] + grads, {xs: data["xs"], h0: data["h0"]})


def rnn_while(tf, data) -> Run:
    """The sequence length comes from the fed ``steps``: one graph serves any length."""
    _require(tf, "while_loop")

    def loop(cell, xs, h0):
        steps = tf.placeholder_with_default(np.int32(len(data["xs"])), shape=(), name="steps")
        _, h = tf.while_loop(lambda t, h: t < steps, lambda t, h: (t + 1, cell(h, xs[t])),
                             [tf.constant(0), h0])
        return h
    return _rnn_graph(tf, data, loop)


def rnn_unrolled(tf, data) -> Run:
    """A Python loop at build time: the graph holds one copy of the cell per step."""
    def loop(cell, xs, h):
        for t in range(len(data["xs"])):
            h = cell(h, xs[t])
        return h
    return _rnn_graph(tf, data, loop)


def mlp(tf, data) -> Run:
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, shape=(None, data["x"].shape[1]), name="x")
        labels = tf.placeholder(tf.int64, shape=(None,), name="labels")
        h = x
        for i, (W, b) in enumerate(data["params"]):
            h = tf.matmul(h, tf.Variable(W, name=f"W{i}")) + tf.Variable(b, name=f"b{i}")
            if i < len(data["params"]) - 1:
                h = tf.nn.relu(h)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=h))
        train = tf.train.GradientDescentOptimizer(data["lr"]).minimize(loss)
    run = _session(tf, g, [train, loss], {x: data["x"], labels: data["labels"]})
    return lambda: run()[1:]


def _chain_graph(tf, data, backward: bool) -> Run:
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, shape=data["x"].shape, name="x")
        c = tf.placeholder(tf.float32, shape=data["c"].shape, name="c")
        y = x
        for _ in range(data["n"]):
            y = y + c
        fetches = [y]
        if backward:
            loss = tf.reduce_sum(y)
            fetches = [loss] + tf.gradients(loss, [x, c])
    return _session(tf, g, fetches, {x: data["x"], c: data["c"]})


def chain_forward(tf, data) -> Run:
    return _chain_graph(tf, data, backward=False)


def chain_forward_backward(tf, data) -> Run:
    return _chain_graph(tf, data, backward=True)


def conv2d(tf, data) -> Run:
    """NHWC, as TF runs convolutions on CPU; the gradients are handed back in the floor's
    NCHW/OIHW layout as views (no copy inside the timed run)."""
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, shape=data["x_nhwc"].shape, name="x")
        w = tf.Variable(data["w_hwio"], name="w")
        loss = tf.reduce_sum(tf.nn.conv2d(x, w, strides=1, padding="SAME"))
        gx, gw = tf.gradients(loss, [x, w])
    run = _session(tf, g, [loss, gx, gw], {x: data["x_nhwc"]})

    def run_nchw():
        value, dx, dw = run()
        return [value, dx.transpose(0, 3, 1, 2), dw.transpose(3, 2, 0, 1)]
    return run_nchw


def cnn(tf, data) -> Run:
    """The same network in TF's layout: NHWC input, HWIO filters, (h, w, c)-ordered dense rows."""
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, shape=(None, 28, 28, 1), name="x")
        labels = tf.placeholder(tf.int64, shape=(None,), name="labels")
        w1, b1, w2, b2, W, b = [tf.Variable(v, name=n) for v, n in
                                zip(data["tf_params"], ("w1", "b1", "w2", "b2", "W", "b"))]
        h = tf.nn.max_pool(tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, w1, 1, "SAME"), b1)), 2, 2, "VALID")
        h = tf.nn.max_pool(tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(h, w2, 1, "SAME"), b2)), 2, 2, "VALID")
        logits = tf.matmul(tf.reshape(h, (-1, 7 * 7 * 64)), W) + b
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
        train = tf.train.GradientDescentOptimizer(data["lr"]).minimize(loss)
    run = _session(tf, g, [train, loss], {x: data["x_nhwc"], labels: data["labels"]})
    return lambda: run()[1:]


PROGRAMS = {"conv2d": conv2d, "cnn": cnn, "counter": counter, "gradient": gradient, "rnn_cell": rnn_cell,
            "rnn_while": rnn_while, "rnn_unrolled": rnn_unrolled, "mlp": mlp,
            "chain_fwd": chain_forward, "chain_fwd_bwd": chain_forward_backward}
