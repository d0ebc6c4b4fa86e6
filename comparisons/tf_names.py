"""Names as TF prints them: for each graph-building function (composites above all), the result's
name and op type, the ops the call created, and the names of the ops a program builds right
after it (``tf.equal``, ``tf.add``...), under TF 2.21's ``tf.compat.v1`` and under staticgraph,
side by side; the lines that differ are printed.

    python -m comparisons.tf_names [--tf /work/peers/bin/python] [case ...]

TF runs in that interpreter (a scratch venv with ``tensorflow-cpu``; never a dependency here).
The result's name and the names of the ops built next are what programs see; the ops inside a
function's own scope are its business (staticgraph's differ where one registry op stands for
several of TF's, or several for one).
"""
from __future__ import annotations

import functools
import os
import subprocess
import sys
from typing import Any, Callable

__all__ = ["CASES", "run", "main"]

Builder = Callable[[Any, Callable[..., Any]], Any]
"""A case's graph building: ``builder(tf, P)`` returns the result to name, where ``tf`` is either
engine's module and ``P(shape=(2, 3), dtype=float32, name="x")`` makes a placeholder in it."""


def _placeholder(tf: Any, shape: tuple[int, ...] = (2, 3), dtype: Any = None, name: str = "x") -> Any:
    """The inputs of every case: placeholders, whose names (:data:`_GIVEN`) are not the case's."""
    return tf.placeholder(dtype or tf.float32, shape, name=name)


def _total_loss(tf: Any, P: Callable[..., Any]) -> Any:
    """``get_total_loss`` after one loss was added to the LOSSES collection."""
    tf.losses.mean_squared_error(P(name="l"), P())
    return tf.losses.get_total_loss()


CASES: dict[str, Builder] = {
    "l2_normalize": lambda tf, P: tf.nn.l2_normalize(P(), axis=1),
    "l2_normalize_named": lambda tf, P: tf.nn.l2_normalize(P(), axis=1, name="nrm"),
    "one_hot_plain": lambda tf, P: tf.one_hot(P((3,), tf.int32, "i"), 4),
    "one_hot_onoff": lambda tf, P: tf.one_hot(P((3,), tf.int32, "i"), 4, on_value=2.0, off_value=-1.0),
    "sigmoid_xent": lambda tf, P: tf.nn.sigmoid_cross_entropy_with_logits(labels=P(name="l"), logits=P()),
    "softmax_xent_v2": lambda tf, P: tf.nn.softmax_cross_entropy_with_logits_v2(labels=P(name="l"), logits=P()),
    "softmax_xent_v1": lambda tf, P: tf.nn.softmax_cross_entropy_with_logits(labels=P(name="l"), logits=P()),
    "sparse_softmax_xent": lambda tf, P: tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=P((2,), tf.int32, "l"), logits=P()),
    "moments_mean": lambda tf, P: tf.nn.moments(P(), axes=[0])[0],
    "moments_var": lambda tf, P: tf.nn.moments(P(), axes=[0])[1],
    "reduce_logsumexp": lambda tf, P: tf.reduce_logsumexp(P(), axis=1),
    "squared_difference": lambda tf, P: tf.squared_difference(P(), P(name="y")),
    "clip_by_value_t": lambda tf, P: tf.clip_by_value(P(), P((), name="lo"), P((), name="hi")),
    "clip_by_value_c": lambda tf, P: tf.clip_by_value(P(), 0., 1.),
    "clip_by_norm": lambda tf, P: tf.clip_by_norm(P(), 1.0),
    "clip_by_global_norm": lambda tf, P: tf.clip_by_global_norm([P(), P(name="y")], 1.0)[0][0],
    "clip_by_global_norm_n": lambda tf, P: tf.clip_by_global_norm([P(), P(name="y")], 1.0)[1],
    "global_norm": lambda tf, P: tf.global_norm([P(), P(name="y")]),
    "norm": lambda tf, P: tf.norm(P()),
    "norm_axis": lambda tf, P: tf.norm(P(), axis=1),
    "log_softmax": lambda tf, P: tf.nn.log_softmax(P()),
    "softmax": lambda tf, P: tf.nn.softmax(P()),
    "softplus": lambda tf, P: tf.nn.softplus(P()),
    "elu": lambda tf, P: tf.nn.elu(P()),
    "selu": lambda tf, P: tf.nn.selu(P()),
    "relu6": lambda tf, P: tf.nn.relu6(P()),
    "leaky_relu": lambda tf, P: tf.nn.leaky_relu(P()),
    "sigmoid": lambda tf, P: tf.nn.sigmoid(P()),
    "dropout_keep": lambda tf, P: tf.nn.dropout(P(), keep_prob=0.5),
    "dropout_rate": lambda tf, P: tf.nn.dropout(P(), rate=0.5),
    "sequence_mask": lambda tf, P: tf.sequence_mask(P((3,), tf.int32, "l"), 5),
    "sequence_mask_nomax": lambda tf, P: tf.sequence_mask(P((3,), tf.int32, "l")),
    "cumsum": lambda tf, P: tf.cumsum(P(), axis=1),
    "cumsum_excl": lambda tf, P: tf.cumsum(P(), axis=1, exclusive=True),
    "cumsum_rev": lambda tf, P: tf.cumsum(P(), axis=1, reverse=True),
    "reduce_mean_f": lambda tf, P: tf.reduce_mean(P()),
    "reduce_mean_i": lambda tf, P: tf.reduce_mean(P(dtype=tf.int32)),
    "reduce_sum": lambda tf, P: tf.reduce_sum(P(), axis=1),
    "argmax": lambda tf, P: tf.argmax(P(), axis=1),
    "argmin": lambda tf, P: tf.argmin(P(), axis=1),
    "tensordot": lambda tf, P: tf.tensordot(P(), P((3, 4), name="y"), axes=1),
    "einsum": lambda tf, P: tf.einsum("ij,jk->ik", P(), P((3, 4), name="y")),
    "boolean_mask": lambda tf, P: tf.boolean_mask(P(), P((2,), tf.bool, "m")),
    "losses_mse": lambda tf, P: tf.losses.mean_squared_error(P(name="l"), P()),
    "losses_absdiff": lambda tf, P: tf.losses.absolute_difference(P(name="l"), P()),
    "losses_softmax": lambda tf, P: tf.losses.softmax_cross_entropy(P(name="l"), P()),
    "losses_sparse": lambda tf, P: tf.losses.sparse_softmax_cross_entropy(P((2,), tf.int32, "l"), P()),
    "losses_sigmoid": lambda tf, P: tf.losses.sigmoid_cross_entropy(P(name="l"), P()),
    "losses_huber": lambda tf, P: tf.losses.huber_loss(P(name="l"), P()),
    "losses_log": lambda tf, P: tf.losses.log_loss(P(name="l"), P()),
    "losses_hinge": lambda tf, P: tf.losses.hinge_loss(P(name="l"), P()),
    "losses_cosine": lambda tf, P: tf.losses.cosine_distance(P(name="l"), P(), axis=1),
    "random_normal": lambda tf, P: tf.random_normal([2, 3]),
    "random_normal_ms": lambda tf, P: tf.random_normal([2, 3], mean=1.0, stddev=2.0),
    "random_uniform": lambda tf, P: tf.random_uniform([2, 3]),
    "random_uniform_mm": lambda tf, P: tf.random_uniform([2, 3], minval=-1.0, maxval=2.0),
    "random_uniform_int": lambda tf, P: tf.random_uniform([2, 3], minval=0, maxval=5, dtype=tf.int32),
    "truncated_normal": lambda tf, P: tf.truncated_normal([2, 3], stddev=0.1),
    "zeros_const": lambda tf, P: tf.zeros([2, 3]),
    "zeros_tensor": lambda tf, P: tf.zeros(tf.shape(P())),
    "ones_tensor": lambda tf, P: tf.ones(tf.shape(P())),
    "zeros_like": lambda tf, P: tf.zeros_like(P()),
    "ones_like": lambda tf, P: tf.ones_like(P()),
    "fill": lambda tf, P: tf.fill([2, 3], 1.0),
    "eye": lambda tf, P: tf.eye(3),
    "matmul_t": lambda tf, P: tf.matmul(P(), P(name="y"), transpose_b=True),
    "bias_add": lambda tf, P: tf.nn.bias_add(P(), P((3,), name="b")),
    "xw_plus_b": lambda tf, P: tf.nn.xw_plus_b(P(), P((3, 4), name="w"), P((4,), name="b")),
    "relu_layer": lambda tf, P: tf.nn.relu_layer(P(), P((3, 4), name="w"), P((4,), name="b")),
    "gather": lambda tf, P: tf.gather(P(), [0, 1]),
    "squared": lambda tf, P: tf.square(P()),
    "rsqrt": lambda tf, P: tf.rsqrt(P()),
    "log1p": lambda tf, P: tf.log1p(P()),
    "reduce_std": lambda tf, P: tf.math.reduce_std(P()),
    "reduce_variance": lambda tf, P: tf.math.reduce_variance(P()),
    "count_nonzero": lambda tf, P: tf.count_nonzero(P()),
    "reduce_all": lambda tf, P: tf.reduce_all(P(dtype=tf.bool)),
    "range_": lambda tf, P: tf.range(5),
    "linspace": lambda tf, P: tf.linspace(0.0, 1.0, 5),
    "top_k": lambda tf, P: tf.nn.top_k(P(), 2)[0],
    "where3": lambda tf, P: tf.where(P(dtype=tf.bool, name="c"), P(), P(name="y")),
    "where1": lambda tf, P: tf.where(P(dtype=tf.bool, name="c")),
    "pad": lambda tf, P: tf.pad(P(), [[1, 1], [0, 0]]),
    "split": lambda tf, P: tf.split(P(), 3, axis=1)[0],
    "unstack": lambda tf, P: tf.unstack(P())[0],
    "stack": lambda tf, P: tf.stack([P(), P(name="y")]),
    "concat": lambda tf, P: tf.concat([P(), P(name="y")], 0),
    "tile": lambda tf, P: tf.tile(P(), [2, 1]),
    "expand_dims": lambda tf, P: tf.expand_dims(P(), 0),
    "squeeze": lambda tf, P: tf.squeeze(P((2, 1))),
    "transpose": lambda tf, P: tf.transpose(P()),
    "reshape": lambda tf, P: tf.reshape(P(), [-1]),
    "shape": lambda tf, P: tf.shape(P()),
    "size": lambda tf, P: tf.size(P()),
    "rank": lambda tf, P: tf.rank(P()),
    "cast": lambda tf, P: tf.cast(P(), tf.int32),
    "floordiv": lambda tf, P: tf.floordiv(P(), P(name="y")),
    "floormod": lambda tf, P: P() % P(name="y"),
    "truediv_int": lambda tf, P: tf.truediv(P(dtype=tf.int32), P(dtype=tf.int32, name="y")),
    "pow_": lambda tf, P: tf.pow(P(), 2.0),
    "round_": lambda tf, P: tf.round(P()),
    "sign": lambda tf, P: tf.sign(P()),
    "logical_xor": lambda tf, P: tf.logical_xor(P(dtype=tf.bool), P(dtype=tf.bool, name="y")),
    "add_n": lambda tf, P: tf.add_n([P(), P(name="y")]),
    "reduce_prod": lambda tf, P: tf.reduce_prod(P()),
    "gather_nd": lambda tf, P: tf.gather_nd(P(), [[0, 1]]),
    "scatter_nd": lambda tf, P: tf.scatter_nd([[0], [1]], P(), [4, 3]),
    "slice_": lambda tf, P: tf.slice(P(), [0, 0], [1, 2]),
    "getitem": lambda tf, P: P()[:, 1],
    "stop_gradient": lambda tf, P: tf.stop_gradient(P()),
    "identity": lambda tf, P: tf.identity(P()),
    "init_glorot": lambda tf, P: tf.glorot_uniform_initializer()([3, 4]),
    "init_glorot_n": lambda tf, P: tf.glorot_normal_initializer()([3, 4]),
    "init_normal": lambda tf, P: tf.random_normal_initializer(0., 1.)([3, 4]),
    "init_trunc": lambda tf, P: tf.truncated_normal_initializer(0., 1.)([3, 4]),
    "init_uniform": lambda tf, P: tf.random_uniform_initializer(-1., 1.)([3, 4]),
    "init_vs": lambda tf, P: tf.variance_scaling_initializer()([3, 4]),
    "init_orth": lambda tf, P: tf.orthogonal_initializer()([3, 4]),
    "init_zeros": lambda tf, P: tf.zeros_initializer()([3, 4]),
    "init_ones": lambda tf, P: tf.ones_initializer()([3, 4]),
    "init_const": lambda tf, P: tf.constant_initializer(2.0)([3, 4]),
    "assert_equal": lambda tf, P: tf.assert_equal(P(), P(name="y")),
    "assert_positive": lambda tf, P: tf.assert_positive(P()),
    "assert_rank": lambda tf, P: tf.assert_rank(P(), 2),
    "dense": lambda tf, P: tf.layers.dense(P(), 4),
    "dense_relu": lambda tf, P: tf.layers.dense(P(), 4, activation=tf.nn.relu),
    "layers_dropout": lambda tf, P: tf.layers.dropout(P(), 0.5, training=True),
    "bn": lambda tf, P: tf.layers.batch_normalization(P(), training=True),
    "conv2d": lambda tf, P: tf.layers.conv2d(P((1, 5, 5, 2)), 3, 3),
    "flatten": lambda tf, P: tf.layers.flatten(P((2, 3, 4))),
    "max_pool": lambda tf, P: tf.layers.max_pooling2d(P((1, 4, 4, 2)), 2, 2),
    "softmax_xent_dim": lambda tf, P: tf.nn.softmax_cross_entropy_with_logits_v2(
        labels=P(name="l"), logits=P(), axis=0),
    "sigmoid_xent_named": lambda tf, P: tf.nn.sigmoid_cross_entropy_with_logits(
        labels=P(name="l"), logits=P(), name="sx"),
    "log_sigmoid": lambda tf, P: tf.log_sigmoid(P()),
    "swish": lambda tf, P: tf.nn.swish(P()),
    "crelu": lambda tf, P: tf.nn.crelu(P()),
    "weighted_xent": lambda tf, P: tf.nn.weighted_cross_entropy_with_logits(
        labels=P(name="l"), logits=P(), pos_weight=2.0),
    "lrn": lambda tf, P: tf.nn.lrn(P((1, 2, 2, 3))),
    "maximum_int": lambda tf, P: tf.maximum(P(), 0.),
    "reduce_max": lambda tf, P: tf.reduce_max(P(), axis=1),
    "math_divide": lambda tf, P: tf.math.divide(P(), P(name="y")),
    "divide_no_nan": lambda tf, P: tf.math.divide_no_nan(P(), P(name="y")),
    "is_finite": lambda tf, P: tf.is_finite(P()),
    "reverse": lambda tf, P: tf.reverse(P(), [1]),
    "cumprod": lambda tf, P: tf.cumprod(P(), axis=1),
    "matrix_diag": lambda tf, P: tf.matrix_diag(P()),
    "random_shuffle": lambda tf, P: tf.random_shuffle(P()),
    "multinomial": lambda tf, P: tf.multinomial(P(), 3),
    "batch_norm_nn": lambda tf, P: tf.nn.batch_normalization(
        P(), P((3,), name="m"), P((3,), name="v"), None, None, 1e-3),
    "sufficient_stats": lambda tf, P: tf.nn.sufficient_statistics(P(), [0])[1],
    "embedding_lookup": lambda tf, P: tf.nn.embedding_lookup(P((5, 3)), [0, 1]),
    "conv2d_nn": lambda tf, P: tf.nn.conv2d(P((1, 5, 5, 2)), P((3, 3, 2, 4), name="w"), [1, 1, 1, 1], "SAME"),
    "max_pool_nn": lambda tf, P: tf.nn.max_pool(P((1, 4, 4, 2)), [1, 2, 2, 1], [1, 2, 2, 1], "VALID"),
    "avg_pool_nn": lambda tf, P: tf.nn.avg_pool(P((1, 4, 4, 2)), [1, 2, 2, 1], [1, 2, 2, 1], "VALID"),
    "floormod_f": lambda tf, P: tf.floormod(P(), P(name="y")),
    "mod_i": lambda tf, P: tf.mod(P(dtype=tf.int32), P(dtype=tf.int32, name="y")),
    "truncatemod": lambda tf, P: tf.truncatemod(P(dtype=tf.int32), P(dtype=tf.int32, name="y")),
    "reduce_any": lambda tf, P: tf.reduce_any(P(dtype=tf.bool)),
    "sort": lambda tf, P: tf.sort(P()),
    "argsort": lambda tf, P: tf.argsort(P()),
    "to_float": lambda tf, P: tf.to_float(P(dtype=tf.int32)),
    "scalar_mul": lambda tf, P: tf.scalar_mul(2.0, P()),
    "div_i": lambda tf, P: tf.div(P(dtype=tf.int32), P(dtype=tf.int32, name="y")),
    "div_f": lambda tf, P: tf.div(P(), P(name="y")),
    "reciprocal": lambda tf, P: tf.reciprocal(P()),
    "expm1": lambda tf, P: tf.expm1(P()),
    "erf": lambda tf, P: tf.erf(P()),
    "tan": lambda tf, P: tf.tan(P()),
    "where_v2": lambda tf, P: tf.where_v2(P(dtype=tf.bool, name="c"), P(), P(name="y")),
    "broadcast_to": lambda tf, P: tf.broadcast_to(P((3,)), [2, 3]),
    "reverse_sequence": lambda tf, P: tf.reverse_sequence(P((2, 3, 4)), [1, 2], seq_axis=1, batch_axis=0),
    "assert_less": lambda tf, P: tf.assert_less(P(), P(name="y")),
    "assert_non_negative": lambda tf, P: tf.assert_non_negative(P()),
    "check_numerics": lambda tf, P: tf.check_numerics(P(), "bad"),
    "categorical": lambda tf, P: tf.random.categorical(P(), 3),
    "conv1d": lambda tf, P: tf.nn.conv1d(P((1, 5, 2)), P((3, 2, 4), name="w"), 1, "SAME"),
    "conv2d_transpose": lambda tf, P: tf.nn.conv2d_transpose(
        P((1, 4, 4, 2)), P((3, 3, 5, 2), name="w"), [1, 8, 8, 5], [1, 2, 2, 1]),
    "depthwise": lambda tf, P: tf.nn.depthwise_conv2d(
        P((1, 5, 5, 2)), P((3, 3, 2, 2), name="w"), [1, 1, 1, 1], "SAME"),
    "max_pool1d": lambda tf, P: tf.nn.max_pool1d(P((1, 4, 2)), 2, 2, "VALID"),
    "avg_pool2d": lambda tf, P: tf.nn.avg_pool2d(P((1, 4, 4, 2)), 2, 2, "VALID"),
    "layers_conv1d": lambda tf, P: tf.layers.conv1d(P((1, 5, 2)), 3, 3),
    "layers_conv2d_t": lambda tf, P: tf.layers.conv2d_transpose(P((1, 4, 4, 2)), 3, 3),
    "layers_avgpool": lambda tf, P: tf.layers.average_pooling2d(P((1, 4, 4, 2)), 2, 2),
    "init_he_normal": lambda tf, P: (tf.keras.initializers.he_normal()([3, 4]) if hasattr(tf, "keras")
                                     else tf.initializers.he_normal()([3, 4])),
    "init_lecun_uniform": lambda tf, P: tf.initializers.lecun_uniform()([3, 4]),
    "init_vs_normal": lambda tf, P: tf.variance_scaling_initializer(2.0, "fan_in", "truncated_normal")([3, 4]),
    "map_fn": lambda tf, P: tf.map_fn(lambda r: r * 2.0, P()),
    "compute_weighted_loss": lambda tf, P: tf.losses.compute_weighted_loss(P()),
    "losses_mse_w": lambda tf, P: tf.losses.mean_squared_error(P(name="l"), P(), weights=2.0),
    "losses_mse_none": lambda tf, P: tf.losses.mean_squared_error(
        P(name="l"), P(), reduction=tf.losses.Reduction.NONE),
    "losses_mse_sum": lambda tf, P: tf.losses.mean_squared_error(
        P(name="l"), P(), reduction=tf.losses.Reduction.SUM),
    "losses_mse_mean": lambda tf, P: tf.losses.mean_squared_error(
        P(name="l"), P(), reduction=tf.losses.Reduction.MEAN),
    "total_loss": _total_loss,
    "reg_loss": lambda tf, P: tf.losses.get_regularization_loss(),
    "moments_keep": lambda tf, P: tf.nn.moments(P(), axes=[0], keep_dims=True)[1],
    "moments_named": lambda tf, P: tf.nn.moments(P(), axes=[0], name="mm")[0],
    "random_normal_t": lambda tf, P: tf.random_normal(tf.shape(P())),
    "random_normal_named": lambda tf, P: tf.random_normal([2, 3], name="rn"),
    "dropout_named": lambda tf, P: tf.nn.dropout(P(), rate=0.5, name="dd"),
    "dense_named": lambda tf, P: tf.layers.dense(P(), 4, name="fc"),
    "sigmoid_grad": lambda tf, P: tf.gradients(
        tf.nn.sigmoid_cross_entropy_with_logits(labels=P(name="l"), logits=P()),
        [tf.get_default_graph().get_tensor_by_name("x:0")])[0],
    "getitem_neg": lambda tf, P: P()[::-1, 1:],
    "pow_t": lambda tf, P: P() ** P(name="y"),
    "rsub": lambda tf, P: 1.0 - P(),
    "rdiv": lambda tf, P: 1.0 / P(),
    "neg": lambda tf, P: -P(),
    "floordiv_op": lambda tf, P: P() // P(name="y"),
    "matmul_op": lambda tf, P: P() @ P((3, 2), name="y"),
    "cumsum_excl_rev": lambda tf, P: tf.cumsum(P(), axis=1, exclusive=True, reverse=True),
    "one_hot_axis0_t": lambda tf, P: tf.one_hot(P((3,), tf.int32, "i"), 4, axis=0),
    "sequence_mask_named": lambda tf, P: tf.sequence_mask(P((3,), tf.int32, "l"), 5, name="sm"),
    "boolean_mask_named": lambda tf, P: tf.boolean_mask(P(), P((2,), tf.bool, "m"), name="bm"),
    "tensordot_named": lambda tf, P: tf.tensordot(P(), P((3, 4), name="y"), axes=1, name="td"),
    "argmax_named": lambda tf, P: tf.argmax(P(), axis=1, name="am"),
}
"""The cases, in the order their lines print: name -> how to build the result under either engine.
Only the code differs from row to row, so a new case is one row here (the names come out of the
run, never written down: TF's side is read off the peer interpreter each time)."""

_GIVEN = frozenset({"x", "y", "l", "i", "lo", "hi", "m", "b", "w", "c", "v"})
"""The placeholder names the cases pass to ``P``: inputs, not ops the call created."""


def _describe(obj: Any) -> str:
    """A result as a line shows it: a tensor's name and op type, an op's, or its Python type."""
    if hasattr(obj, "name") and hasattr(obj, "op"):
        return f"{obj.name} {obj.op.type}"
    if hasattr(obj, "type") and hasattr(obj, "name"):
        return f"<op {obj.name} {obj.type}>"
    return repr(type(obj).__name__)


def run(tf: Any, only: list[str] | None = None) -> list[str]:
    """One line per case: ``case: result type | next ops' names | created ops``.

    Each case builds in a fresh default graph; then the ops a program would build next (equal,
    add, multiply, reduce_sum, maximum) show which names the call has taken.  A case that raises
    (a function one side lacks) is a line too, so both engines print the same case list.
    """
    P = functools.partial(_placeholder, tf)
    lines = []
    for n in only or list(CASES):
        tf.reset_default_graph()
        g = tf.get_default_graph()
        try:
            before = {o.name for o in g.get_operations()}
            r = CASES[n](tf, P)
            created = sorted({o.name for o in g.get_operations()} - before - _GIVEN)
            a = tf.placeholder(tf.float32, name="pa")
            after = [tf.equal(a, a), tf.add(a, a), tf.multiply(a, a), tf.reduce_sum(a),
                     tf.maximum(a, a)]
            lines.append(f"{n}: {_describe(r)} | next {' '.join(t.name for t in after)} | "
                         f"{' '.join(created)}")
        except Exception as ex:  # noqa: BLE001  (a function one side lacks is a line too)
            lines.append(f"{n}: ERROR {type(ex).__name__}: {str(ex).splitlines()[0][:120]}")
    return lines


def _table(lines):
    return {k: v for k, _, v in (line.partition(": ") for line in lines)}


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--engine"]:           # the child: print this engine's lines
        if argv[1] == "tf":
            os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
            os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
            import tensorflow.compat.v1 as tf  # the peer engine: only in the peers' Python
            tf.disable_eager_execution()
        else:
            import staticgraph as tf  # the engine the command line asked for
        print("\n".join(run(tf, argv[2:])))
        return 0
    python = "/work/peers/bin/python"
    if argv[:1] == ["--tf"]:
        python, argv = argv[1], argv[2:]
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    tf_lines = subprocess.run([python, "-m", "comparisons.tf_names", "--engine", "tf", *argv],
                              capture_output=True, text=True, cwd=here, check=True).stdout
    import staticgraph  # after TF's subprocess: only this side needs it
    theirs, ours = _table(tf_lines.splitlines()), _table(run(staticgraph, argv))
    differ = types = 0
    for case, want in theirs.items():
        got = ours.get(case, "MISSING")
        w, o = want.split(" | "), got.split(" | ")
        if w[0].split()[:1] != o[0].split()[:1] or w[1:2] != o[1:2]:
            differ += 1
            print(f"{case}\n  tf: {' | '.join(w[:2])}\n  us: {' | '.join(o[:2])}")
        elif w[0] != o[0]:
            types += 1                           # same names; TF's op type is another one
    print(f"{len(theirs)} cases: {differ} differ in the result's name or the names that follow; "
          f"{types} more in the result's op type only")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
