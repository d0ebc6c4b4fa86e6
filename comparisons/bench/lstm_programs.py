"""The LSTM workloads: one program per API, as in ``eager_programs`` / ``static_programs``.

The data holds PyTorch's layout (``W_x`` = ``weight_ih.T``, gates i, f, g, o, one bias);
the TF1 programs put the same numbers into a ``BasicLSTMCell`` (``forget_bias=0``,
gates i, j, f, o) and report gradients back in the data's layout, so every engine is
checked against the numpy floor value by value.  Loss: the sum of every step's output.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .static_programs import NotAvailable

__all__ = ["EAGER", "STATIC", "to_tf_kernel", "from_tf_columns"]

Run = Callable[[], Any]


def to_tf_kernel(W_x: np.ndarray, W_h: np.ndarray, b: np.ndarray) -> tuple:
    """Columns (i, f, g, o) -> TF's (i, j=g, f, o); rows: input then hidden."""
    k = np.concatenate([W_x, W_h])
    return from_tf_columns(k), from_tf_columns(b)


def from_tf_columns(a: np.ndarray) -> np.ndarray:
    """Swap the 2nd and 3rd gate blocks of the last axis (its own inverse)."""
    i, x, y, o = np.split(a, 4, axis=-1)
    return np.concatenate([i, y, x, o], axis=-1)


# --- PyTorch API (dyngraph or torch) ----------------------------------------------------------

def _lstm_module(torch, data):
    steps, batch, inp = data["xs"].shape
    hidden = data["W_h"].shape[0]
    lstm = torch.nn.LSTM(inp, hidden)
    with torch.no_grad():
        lstm.weight_ih_l0.copy_(torch.tensor(data["W_x"].T.copy()))
        lstm.weight_hh_l0.copy_(torch.tensor(data["W_h"].T.copy()))
        lstm.bias_ih_l0.copy_(torch.tensor(data["b"]))
        lstm.bias_hh_l0.zero_()
    return lstm, torch.tensor(data["xs"])


def lstm(torch, data) -> Run:
    module, xs = _lstm_module(torch, data)
    ps = [module.weight_ih_l0, module.weight_hh_l0, module.bias_ih_l0]

    def run():
        out, _ = module(xs)
        loss = out.sum()
        loss.backward()
        grads = [np.array(p.grad.numpy()) for p in ps]
        module.zero_grad()
        return [loss.item(), grads[0].T, grads[1].T, grads[2]]
    return run


def lstm_train(torch, data) -> Run:
    module, xs = _lstm_module(torch, data)
    opt = torch.optim.SGD(module.parameters(), lr=data["lr"])

    def run():
        out, _ = module(xs)
        loss = out.sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        return [loss.item()]
    return run


# --- TF1 API (staticgraph or tensorflow.compat.v1) ---------------------------------------------

def _lstm_graph(tf, data, how: str, train: bool) -> Run:
    try:
        cell_cls = tf.nn.rnn_cell.BasicLSTMCell
    except (AttributeError, ImportError, ValueError) as e:
        raise NotAvailable(f"tf.nn.rnn_cell not available: {e}") from None
    steps, batch, inp = data["xs"].shape
    hidden = data["W_h"].shape[0]
    g = tf.Graph()
    with g.as_default():
        cell = cell_cls(hidden, forget_bias=0.0)
        if how == "dynamic":
            xs = tf.placeholder(tf.float32, (None, batch, inp), name="xs")
            try:
                out, _ = tf.nn.dynamic_rnn(cell, xs, dtype=tf.float32, time_major=True)
            except ImportError as e:
                raise NotAvailable(f"dynamic_rnn: {e}") from None
        else:
            xs = tf.placeholder(tf.float32, (steps, batch, inp), name="xs")
            out = tf.stack(tf.nn.static_rnn(cell, tf.unstack(xs), dtype=tf.float32)[0])
        loss = tf.reduce_sum(out)
        kernel, bias = tf.global_variables()
        if train:
            fetches = [tf.train.GradientDescentOptimizer(data["lr"]).minimize(loss), loss]
        else:
            fetches = [loss] + tf.gradients(loss, [kernel, bias])
        init = tf.global_variables_initializer()
    sess = tf.Session(graph=g)
    sess.run(init)
    k, b = to_tf_kernel(data["W_x"], data["W_h"], data["b"])
    kernel.load(k, sess)
    bias.load(b, sess)
    feed = {xs: data["xs"]}
    if train:
        return lambda: sess.run(fetches, feed)[1:]

    def run():
        loss_v, dk, db = sess.run(fetches, feed)
        dk = from_tf_columns(dk)
        return [loss_v, dk[:inp], dk[inp:], from_tf_columns(db)]
    return run


EAGER = {"lstm": lstm, "lstm_train": lstm_train}
STATIC = {"lstm_dynamic": lambda tf, d: _lstm_graph(tf, d, "dynamic", False),
          "lstm_static": lambda tf, d: _lstm_graph(tf, d, "static", False),
          "lstm_dynamic_train": lambda tf, d: _lstm_graph(tf, d, "dynamic", True)}
