"""Classic TF1 programs as people port them, run unchanged but for the import line.

Each ``<name>.py`` here is written against ``tensorflow.compat.v1`` (graph mode);
``expected/<name>.txt`` is what TF 2.21 printed for it (stdout).  :func:`run` executes a
program with ``import staticgraph as tf`` instead and returns what it printed, so a test can
compare the two line by line.  The few lines that still differ are listed in
:data:`KNOWN_DIFFERENCES` with the reason, so a new difference fails the test.

    cnn.py      tf.data + tf.layers CNN + Adam + Saver/import_meta_graph (MNIST-shaped data)
    charrnn.py  char-RNN: embedding_lookup + LSTMCell + dynamic_rnn + sequence_mask + clipping
    linreg.py   variable_scope reuse + collections + exponential_decay + clip_by_global_norm
    evaluate.py tf.layers with keras l2 regularizers + get_total_loss + Momentum, an
                ExponentialMovingAverage after each step, tf.metrics (accuracy, precision,
                recall, auc, mean) in an eval loop, restoring the averages with a Saver
    seeded_mlp.py  tf.set_random_seed, random data and initial weights, dropout, GradientDescent:
                TF's random numbers, so TF's losses (``python -m comparisons.seeded_tf``)
    word2vec.py word2vec_basic's skip-gram on a small synthetic corpus: embeddings,
                tf.nn.nce_loss (TF's log-uniform negative samples from the same seeds),
                GradientDescent, cosine similarity of the normalized embeddings
"""
from __future__ import annotations

import contextlib
import io
import pathlib

__all__ = ["PROGRAMS", "KNOWN_DIFFERENCES", "REQUIRES", "run", "expected"]

HERE = pathlib.Path(__file__).parent
PROGRAMS = ("cnn", "charrnn", "linreg", "evaluate", "seeded_mlp", "word2vec")

KNOWN_DIFFERENCES: dict[str, dict[int, str]] = {
    "charrnn": {8: "TF's sparse softmax cross-entropy of rank-3 logits reshapes to 2-D and back "
                   "(…/Reshape_2); here one op of any rank"},
    "linreg": {11: "gradient tensor names: TF ends with a tuple/control_dependency identity"},
}
"""Per program: line index (0-based) of ``expected`` -> why staticgraph prints it differently."""

REQUIRES: dict[str, str] = {"linreg": "tensorboard"}
"""Per program: the optional package it needs (``tf.summary`` writes with tensorboard's own
protos, the ``[tensorboard]`` extra); without it the program cannot run, so a test skips it."""


def source(name: str) -> str:
    """The program with its import switched to staticgraph (the only change)."""
    text = (HERE / f"{name}.py").read_text()
    text = text.replace("import tensorflow.compat.v1 as tf\n", "import staticgraph as tf\n")
    return text.replace("tf.disable_eager_execution()\n", "")


def run(name: str, inspect=None) -> list[str]:
    """The lines the program prints on staticgraph (in a fresh default graph); ``inspect``,
    if given, is called with that graph once the program has run."""
    import staticgraph as tf  # the programs themselves run on either engine
    tf.reset_default_graph()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source(name), str(HERE / f"{name}.py"), "exec"), {"__name__": "__main__"})  # noqa: S102
    if inspect is not None:
        inspect(tf.get_default_graph())
    tf.reset_default_graph()
    return out.getvalue().splitlines()


def expected(name: str) -> list[str]:
    return (HERE / "expected" / f"{name}.txt").read_text().splitlines()
