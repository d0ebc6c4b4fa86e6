"""The showcase: one LSTM sequence classifier, three strategies, measured by sequence length.

    (1) dyngraph ``nn.LSTM``      as PyTorch's CPU LSTM, one node per layer whose op loops over
                                  the steps (``LSTMLayer``): the tape no longer grows with the
                                  sequence, but it is recorded again on every pass (a packed
                                  batch steps the cell in Python: nodes per step)
    (2) staticgraph dynamic_rnn   ONE while_loop: built and compiled once, fed any length
    (3) staticgraph static_rnn    the loop unrolled at build time: one graph per length

The same weights run in all three (TF's ``BasicLSTMCell`` kernel converted to
PyTorch's layout by :mod:`comparisons.rnn_layouts`), so losses and gradients
must agree.  For each length we report graph size, build time, compile time
(the first ``Session.run``) and steady run time; then a batch of
variable-length sequences: ``sequence_length`` (static: every row runs to the
longest, finished rows are masked) vs a packed batch (eager: finished rows
simply stop).
"""
from __future__ import annotations

import os

import dyngraph as torch
import numpy as np
import staticgraph as tf

from .bench.timing import best_of
from .rnn_layouts import tf_lstm_to_torch
from .sidebyside import agree, fmt_s, heading, recorded_nodes, static_ops, timed

__all__ = ["run_showcase", "DEFAULT_LENGTHS"]

DEFAULT_LENGTHS = (10, 50, 200)
BATCH, INPUT, HIDDEN, CLASSES = 8, 16, 32, 3


def _data(steps: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed + steps)
    return (rng.standard_normal((BATCH, steps, INPUT)).astype(np.float32),
            rng.integers(0, CLASSES, BATCH).astype(np.int64))


def _weights(seed: int = 1) -> dict:
    rng = np.random.default_rng(seed)
    scale = 1 / np.sqrt(HIDDEN)
    return {"kernel": (rng.uniform(-scale, scale, (INPUT + HIDDEN, 4 * HIDDEN))).astype(np.float32),
            "bias": np.zeros(4 * HIDDEN, np.float32),
            "dense": (rng.standard_normal((HIDDEN, CLASSES)) * scale).astype(np.float32)}


# --- (1) eager ----------------------------------------------------------------------------------

class EagerClassifier(torch.nn.Module):
    """``nn.LSTM`` over the sequence, a linear layer on the last hidden state."""

    def __init__(self, w: dict):
        super().__init__()
        self.lstm = torch.nn.LSTM(INPUT, HIDDEN, batch_first=True)
        self.head = torch.nn.Linear(HIDDEN, CLASSES)
        sd = {k: torch.tensor(v) for k, v in tf_lstm_to_torch(w["kernel"], w["bias"], INPUT).items()}
        self.lstm.load_state_dict(sd)
        self.head.load_state_dict({"weight": torch.tensor(w["dense"].T.copy()),
                                   "bias": torch.zeros(CLASSES)})

    def forward(self, x, lengths=None):
        if lengths is not None:
            x = torch.nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=True,
                                                        enforce_sorted=False)
        _, (h, _) = self.lstm(x)
        return self.head(h[-1])


def eager_step(model: EagerClassifier, x: np.ndarray, y: np.ndarray, lengths=None):
    loss = torch.nn.functional.cross_entropy(model(torch.tensor(x), lengths), torch.tensor(y))
    model.zero_grad()
    loss.backward()
    return loss, model.lstm.weight_hh_l0.grad


# --- (2) and (3) static ---------------------------------------------------------------------------

def static_classifier(w: dict, steps: int | None, with_lengths: bool = False):
    """``steps=None``: dynamic_rnn (any length); an int: static_rnn unrolled ``steps`` times."""
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, (BATCH, steps, INPUT), name="x")
        y = tf.placeholder(tf.int64, (BATCH,), name="y")
        lengths = tf.placeholder(tf.int32, (BATCH,), name="lengths") if with_lengths else None
        cell = tf.nn.rnn_cell.BasicLSTMCell(HIDDEN)
        if steps is None:
            _, state = tf.nn.dynamic_rnn(cell, x, sequence_length=lengths, dtype=tf.float32)
        else:
            _, state = tf.nn.static_rnn(cell, tf.unstack(x, axis=1), sequence_length=lengths,
                                        dtype=tf.float32)
        dense = tf.Variable(w["dense"], name="dense")
        logits = tf.matmul(state.h, dense)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y,
                                                                             logits=logits))
        kernel, bias = cell.variables
        grad = tf.gradients(loss, [kernel])[0]
        init = tf.global_variables_initializer()
    sess = tf.Session(graph=g)
    sess.run(init)
    kernel.load(w["kernel"], sess)
    bias.load(w["bias"], sess)
    return g, sess, (x, y, lengths), [loss, grad]


def _kernel_grad_as_torch_hh(gk: np.ndarray) -> np.ndarray:
    """The hidden rows of TF's kernel gradient, as PyTorch's ``weight_hh`` gradient."""
    return tf_lstm_to_torch(gk, np.zeros(gk.shape[1], gk.dtype), INPUT, 0.0)["weight_hh_l0"]


# --- measuring ----------------------------------------------------------------------------------

def _measure(lengths, w) -> tuple[list[dict], list[str]]:
    rows, checks = [], []
    dynamic, dyn_build = timed(lambda: static_classifier(w, None))
    model = EagerClassifier(w)
    for steps in lengths:
        x, y = _data(steps)
        eloss, egrad = eager_step(model, x, y)
        row = {"steps": steps, "eager_nodes": recorded_nodes(eloss),
               "eager_run": best_of(lambda: eager_step(model, x, y), repeat=3)}
        (g, sess, (px, py, _), fetches), row["unrolled_build"] = timed(
            lambda: static_classifier(w, steps))
        feed = {px: x, py: y}
        (sl, sg), row["unrolled_compile"] = timed(lambda: sess.run(fetches, feed))
        row["unrolled_run"] = best_of(lambda: sess.run(fetches, feed), repeat=3)
        row["unrolled_ops"] = static_ops(g)
        pairs = [(eloss.item(), sl), (egrad.numpy(), _kernel_grad_as_torch_hh(sg))]
        dg, dsess, (dx, dy, _), dfetch = dynamic
        dfeed = {dx: x, dy: y}
        (dl, dgk), row["dynamic_compile"] = timed(lambda: dsess.run(dfetch, dfeed))
        row["dynamic_run"] = best_of(lambda: dsess.run(dfetch, dfeed), repeat=3)
        row["dynamic_ops"], row["dynamic_build"] = static_ops(dg), dyn_build
        pairs += [(eloss.item(), dl), (egrad.numpy(), _kernel_grad_as_torch_hh(dgk))]
        checks.append(f"{steps} steps: losses and dloss/dweight_hh of the three strategies "
                      f"{agree(pairs)}")
        rows.append(row)
    return rows, checks


def _table(rows: list[dict]) -> None:
    head = (f"{'steps':>5}  {'eager nodes':>11}  {'eager run':>9}  {'unrolled ops':>12}  "
            f"{'build':>8}  {'compile':>8}  {'run':>8}  {'while ops':>9}  {'build':>8}  "
            f"{'1st run':>8}  {'run':>8}")
    print(head)
    for r in rows:
        dyn = (f"{r['dynamic_ops']:>9}  {fmt_s(r['dynamic_build']):>8}  "
               f"{fmt_s(r['dynamic_compile']):>8}  {fmt_s(r['dynamic_run']):>8}"
               if "dynamic_run" in r else f"{'n/a':>9}")
        print(f"{r['steps']:>5}  {r['eager_nodes']:>11}  {fmt_s(r['eager_run']):>9}  "
              f"{r['unrolled_ops']:>12}  {fmt_s(r['unrolled_build']):>8}  "
              f"{fmt_s(r['unrolled_compile']):>8}  {fmt_s(r['unrolled_run']):>8}  {dyn}")


def _plot(rows: list[dict], out: str) -> str | None:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    steps = [r["steps"] for r in rows]
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
    a.plot(steps, [r["eager_nodes"] for r in rows], "o-", label="dyngraph: nodes recorded per pass")
    a.plot(steps, [r["unrolled_ops"] for r in rows], "s-", label="static_rnn: ops (one graph per length)")
    if "dynamic_ops" in rows[0]:
        a.plot(steps, [r["dynamic_ops"] for r in rows], "^-", label="dynamic_rnn: ops (one graph)")
    a.set(xlabel="sequence length", ylabel="graph size", title="graph size")
    b.plot(steps, [r["eager_run"] * 1e3 for r in rows], "o-", label="dyngraph fwd+bwd")
    b.plot(steps, [(r["unrolled_build"] + r["unrolled_compile"]) * 1e3 for r in rows], "s--",
           label="static_rnn build + compile")
    b.plot(steps, [r["unrolled_run"] * 1e3 for r in rows], "s-", label="static_rnn run")
    if "dynamic_run" in rows[0]:
        b.plot(steps, [r["dynamic_run"] * 1e3 for r in rows], "^-", label="dynamic_rnn run")
    b.set(xlabel="sequence length", ylabel="ms (log scale)", yscale="log",
          title="time (steady run, and one-off costs)")
    for ax in (a, b):
        ax.legend(fontsize=7)
    fig.tight_layout()
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "rnn_strategies.png")
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def _variable_lengths(w, steps: int) -> str:
    """A batch of lengths 1..steps: masked (static, sequence_length) vs packed (eager)."""
    x, y = _data(steps, seed=7)
    lengths = np.linspace(1, steps, BATCH).astype(np.int32)
    model = EagerClassifier(w)
    eloss, egrad = eager_step(model, x, y, lengths)
    _, sess, (px, py, pl), fetches = static_classifier(w, None, with_lengths=True)
    sl, sg = sess.run(fetches, {px: x, py: y, pl: lengths})
    pairs = [(eloss.item(), sl), (egrad.numpy(), _kernel_grad_as_torch_hh(sg))]
    how = "dynamic_rnn with sequence_length"
    rows_run = int(lengths.sum())
    return (f"Variable lengths {lengths.tolist()}: the packed eager batch ran {rows_run} "
            f"row-steps; {how} ran {BATCH * steps} (every row to the longest, finished rows "
            f"masked: zero output, state copied through). Loss and gradient {agree(pairs)}.")


def run_showcase(lengths=DEFAULT_LENGTHS, out: str | None = None) -> list[str]:
    heading("the showcase: an LSTM classifier eagerly, as one while_loop, and unrolled")
    print(__doc__.split("\n\n")[1].rstrip())
    w = _weights()
    rows, checks = _measure(lengths, w)
    print()
    print("             dyngraph (eager)        | static_rnn (one graph per length)      "
          "| dynamic_rnn (one graph; compiled by its first run at the first length)")
    _table(rows)
    facts = checks + [_variable_lengths(w, max(lengths))]
    if out:
        path = _plot(rows, out)
        if path:
            print(f"wrote {path}")
    return facts
