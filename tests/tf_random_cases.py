"""Seeded random programs written once against the TF1 surface, run on TF 2.21 and on staticgraph.

Each case is a function of the ``tf`` module -- ``tensorflow.compat.v1`` (eager disabled) when
``tests/fixtures/record_tf_random.py`` records what TF draws, ``staticgraph`` when
``tests/test_tf_random_streams.py`` checks that we draw the same -- building a graph and
returning a :class:`Program`: the fetch lists to run, in order, in one Session.  So a case is
also a tiny ported program: the same text, two engines, the same numbers.
"""
from __future__ import annotations

import hashlib
from typing import Any, Callable, NamedTuple

import numpy as np

__all__ = ["Program", "CASES", "summarize", "LONG", "DOUBLE_LIBM", "APPROXIMATE"]

LONG = 512
"""Outputs with more values than this are recorded as a digest plus their first values."""


class Program(NamedTuple):
    runs: list           # each entry: a list of fetches for one ``Session.run``
    config: dict = {}    # ConfigProto fields for the Session


CASES: dict[str, Callable[[Any], Program]] = {}

DOUBLE_LIBM = {"normal", "truncated", "gamma", "poisson"}
"""Cases whose draws go through libm's double ``log``/``sin``/``cos`` (float64 Box-Muller,
Gamma, Poisson): equal to TF's only where numpy calls the same libm (see the test)."""

APPROXIMATE = {"orthogonal": "TF's Qr kernel is Eigen's Householder QR, ours numpy's LAPACK: "
                             "the same Q from the same (bit-exact) normal sample, rounded apart"}
"""Cases whose last values are not TF's bits, and why; the test checks them to a tolerance."""


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def summarize(value, long: int = LONG) -> np.ndarray:
    """What the fixture keeps of one fetched value: all of it, or (long ones) its bytes' digest
    and first values, as an array either way."""
    a = np.asarray(value)
    if a.size <= long:
        return a
    digest = hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()
    return np.array([f"sha256:{digest}:{a.dtype}:{a.shape}"] + [repr(v) for v in a.reshape(-1)[:8].tolist()])


@case
def uniform(tf):
    tf.set_random_seed(11)
    a = tf.random_uniform([4097])
    b = tf.random_uniform([33, 61], -2.0, 5.0, dtype=tf.float64)
    c = tf.random_uniform([3], maxval=7.5)
    d = tf.random_uniform([1001], dtype=tf.float16)
    e = tf.random_uniform([5], seed=4)
    return Program([[a, b, c, d, e], [a], [b, c, e], [a, b, c, d, e]])


@case
def normal(tf):
    tf.set_random_seed(12)
    a = tf.random_normal([4099])
    b = tf.random_normal([2001], mean=1.5, stddev=0.25, dtype=tf.float64)
    c = tf.random_normal([7, 9], seed=3)
    d = tf.random_normal([999], dtype=tf.float16)
    return Program([[a, b, c, d], [c], [a, b, c, d]])


@case
def truncated(tf):
    tf.set_random_seed(13)
    a = tf.truncated_normal([4101])
    b = tf.truncated_normal([2003], stddev=3.0, dtype=tf.float64)
    c = tf.truncated_normal([3, 5], mean=-1.0, seed=9)
    d = tf.truncated_normal([1003], dtype=tf.float16)
    return Program([[a, b, c, d], [a, c], [a, b, c, d]])


@case
def uniform_int(tf):
    tf.set_random_seed(14)
    a = tf.random_uniform([4003], minval=-5, maxval=100, dtype=tf.int32)
    b = tf.random_uniform([2001], minval=-(2**40), maxval=2**41 + 3, dtype=tf.int64)
    c = tf.random_uniform([17], maxval=2**31 - 1, dtype=tf.int32)
    d = tf.random_uniform([9], minval=-(2**62), maxval=2**62, dtype=tf.int64, seed=5)
    return Program([[a, b, c, d], [a, b, c, d], [d]])


@case
def shuffle(tf):
    tf.set_random_seed(15)
    a = tf.random_shuffle(tf.range(3001))
    b = tf.random_shuffle(np.arange(50 * 3, dtype=np.float32).reshape(50, 3))
    c = tf.random_shuffle([7.0])
    d = tf.random_shuffle(tf.range(5), seed=2)
    return Program([[a, b, c, d], [a, d], [a, b, c, d]])


@case
def multinomial(tf):
    """A few rows: one shard on any machine.  Logits with -inf columns get no samples."""
    tf.set_random_seed(16)
    logits = np.log(np.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]], np.float32))
    a = tf.multinomial(logits, 501)
    b = tf.random.categorical(np.array([[1.0, -np.inf, 2.0, 0.5]], np.float64), 300, dtype=tf.int32)
    return Program([[a, b], [a], [a, b]])


def _sharded_multinomial(tf, threads):
    tf.set_random_seed(17)
    logits = np.log(np.linspace(1.0, 3.0, 2000 * 20, dtype=np.float32)).reshape(2000, 20)
    a = tf.multinomial(logits, 10)
    return Program([[a], [a]], {"intra_op_parallelism_threads": threads})


@case
def multinomial_1_thread(tf):
    """2000 rows, cost enough to split: TF's shards depend on the thread count of the
    process's pool, which the first Session's ``intra_op_parallelism_threads`` fixes."""
    return _sharded_multinomial(tf, 1)


@case
def multinomial_2_threads(tf):
    return _sharded_multinomial(tf, 2)


@case
def multinomial_3_threads(tf):
    return _sharded_multinomial(tf, 3)


@case
def gamma(tf):
    tf.set_random_seed(18)
    a = tf.random.gamma([400], [0.3, 1.0, 2.5, 40.0])
    b = tf.random.gamma([3, 100], np.array([[0.9], [7.0]]), dtype=tf.float64)
    c = tf.random.gamma([250], 3.0, beta=[1.0, 4.0], seed=1)
    return Program([[a, b, c], [a, b, c]])


@case
def poisson(tf):
    tf.set_random_seed(19)
    a = tf.random.poisson([0.5, 3.0, 9.5, 10.0, 37.0, 1200.0], [300])
    b = tf.random.poisson(np.array([2.0, 15.0, 250.0]), [200], dtype=tf.float64)
    c = tf.random.poisson([4.0, 30.0], [150], dtype=tf.int64, seed=3)
    return Program([[a, b, c], [a, b, c]])


@case
def initializers(tf):
    """Variables made by ``get_variable``: every initializer draws when the initializer runs,
    and running it again draws the next values."""
    tf.set_random_seed(20)
    shapes = {"glorot": [31, 17], "conv": [3, 3, 4, 8], "vector": [65]}
    inits = [
        ("glorot_uniform", tf.glorot_uniform_initializer()),
        ("glorot_normal", tf.glorot_normal_initializer()),
        ("trunc", tf.truncated_normal_initializer(stddev=0.1)),
        ("normal", tf.random_normal_initializer(mean=1.0, stddev=0.5)),
        ("uniform", tf.random_uniform_initializer(-0.2, 0.3)),
        ("vs_fan_out", tf.variance_scaling_initializer(2.0, mode="fan_out")),
        ("vs_untruncated", tf.variance_scaling_initializer(distribution="untruncated_normal")),
        ("vs_uniform", tf.variance_scaling_initializer(3.0, mode="fan_avg", distribution="uniform")),
        ("he_normal", tf.initializers.he_normal()),
        ("lecun_uniform", tf.initializers.lecun_uniform()),
        ("seeded", tf.truncated_normal_initializer(seed=77)),
    ]
    variables = [tf.get_variable(f"{name}_{kind}", shape, initializer=init)
                 for name, init in inits for kind, shape in shapes.items()]
    default = tf.get_variable("default", [12, 5])              # get_variable's glorot_uniform
    plain = tf.Variable(tf.random_normal([6, 4], stddev=0.1), name="plain")
    init = tf.global_variables_initializer()
    values = [*variables, default, plain]
    return Program([[init], values, [init], values])


@case
def orthogonal(tf):
    tf.set_random_seed(25)
    w = tf.get_variable("w", [20, 12], initializer=tf.orthogonal_initializer(gain=2.0))
    sample = tf.get_default_graph().get_tensor_by_name("w/Initializer/random_normal/RandomStandardNormal:0")
    return Program([[w.initializer, sample], [w]])


@case
def dropout(tf):
    tf.set_random_seed(21)
    x = np.linspace(-1.0, 1.0, 64 * 130, dtype=np.float32).reshape(64, 130)
    a = tf.nn.dropout(x, rate=0.3)
    skipped = tf.nn.dropout(x, rate=0.0)            # draws nothing, but takes an op seed
    b = tf.nn.dropout(x, keep_prob=0.8)
    c = tf.nn.dropout(x, rate=0.5, noise_shape=[64, 1])
    keep = tf.placeholder_with_default(np.float32(0.6), [])
    d = tf.nn.dropout(x.astype(np.float64), keep_prob=tf.cast(keep, tf.float64), seed=8)
    e = tf.nn.dropout(x, rate=0.25)
    return Program([[a, skipped, b, c, d, e], [a, e], [a, b, c, d, e]])


@case
def dataset(tf):
    tf.set_random_seed(22)
    x = np.arange(300, dtype=np.float32).reshape(100, 3)
    a = tf.data.Dataset.from_tensor_slices(x).shuffle(32).batch(10).repeat(2)
    b = tf.data.Dataset.range(50).shuffle(50, seed=4, reshuffle_each_iteration=False).repeat(2)
    c = tf.data.Dataset.range(40).repeat(3).shuffle(17, seed=5).batch(20)
    xa, xb, xc = (d.make_one_shot_iterator().get_next() for d in (a, b, c))
    return Program([[xa, xb, xc]] * 6 + [[xa, xb]] * 14 + [[xb]] * 80)


@case
def interleaved(tf):
    """Ops run in different combinations: each op's stream advances only when it runs, and a
    loop body's random op continues its stream from iteration to iteration and run to run."""
    tf.set_random_seed(23)
    a = tf.random_normal([5])
    b = tf.random_uniform([3, 3])
    c = a * 2.0 + b[1, 2]
    _, loop = tf.while_loop(lambda i, s: i < 4, lambda i, s: (i + 1, s + tf.random_uniform([2])),
                            [tf.constant(0), tf.zeros([2])])
    p = tf.placeholder_with_default(True, [])
    branch = tf.cond(p, lambda: tf.random_normal([3]), lambda: tf.zeros([3]))
    d = tf.random_normal([4])
    return Program([[a], [b], [c], [a, c], [loop], [loop, branch], [d, branch], [a, b, c, d, loop]])


@case
def long_streams(tf):
    """The sizes the speed is measured on: a million normals, a 2048x2048 glorot matrix,
    dropout of a 512x2048 batch (digests: the values are not kept)."""
    tf.set_random_seed(24)
    n = tf.random_normal([1000000])
    w = tf.get_variable("w", [2048, 2048])
    drop = tf.nn.dropout(np.ones((512, 2048), np.float32), rate=0.5)
    init = tf.global_variables_initializer()
    return Program([[init], [n, w, drop], [n, drop]])
