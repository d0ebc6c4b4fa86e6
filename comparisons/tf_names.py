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

import os
import subprocess
import sys

__all__ = ["run", "main"]


def run(tf, only=None) -> list[str]:
    """One line per case: ``case: result type | next ops' names | created ops``."""
    def P(shape=(2, 3), dtype=None, name="x"):
        return tf.placeholder(dtype or tf.float32, shape, name=name)

    cases = {}
    def case(f):
        cases[f.__name__] = f
        return f

    @case
    def l2_normalize(): return tf.nn.l2_normalize(P(), axis=1)
    @case
    def l2_normalize_named(): return tf.nn.l2_normalize(P(), axis=1, name="nrm")
    @case
    def one_hot_plain(): return tf.one_hot(P((3,), tf.int32, "i"), 4)
    @case
    def one_hot_onoff(): return tf.one_hot(P((3,), tf.int32, "i"), 4, on_value=2.0, off_value=-1.0)
    @case
    def sigmoid_xent(): return tf.nn.sigmoid_cross_entropy_with_logits(labels=P(name="l"), logits=P())
    @case
    def softmax_xent_v2(): return tf.nn.softmax_cross_entropy_with_logits_v2(labels=P(name="l"), logits=P())
    @case
    def softmax_xent_v1(): return tf.nn.softmax_cross_entropy_with_logits(labels=P(name="l"), logits=P())
    @case
    def sparse_softmax_xent(): return tf.nn.sparse_softmax_cross_entropy_with_logits(labels=P((2,), tf.int32, "l"), logits=P())
    @case
    def moments_mean(): return tf.nn.moments(P(), axes=[0])[0]
    @case
    def moments_var(): return tf.nn.moments(P(), axes=[0])[1]
    @case
    def reduce_logsumexp(): return tf.reduce_logsumexp(P(), axis=1)
    @case
    def squared_difference(): return tf.squared_difference(P(), P(name="y"))
    @case
    def clip_by_value_t(): return tf.clip_by_value(P(), P((), name="lo"), P((), name="hi"))
    @case
    def clip_by_value_c(): return tf.clip_by_value(P(), 0., 1.)
    @case
    def clip_by_norm(): return tf.clip_by_norm(P(), 1.0)
    @case
    def clip_by_global_norm(): return tf.clip_by_global_norm([P(), P(name="y")], 1.0)[0][0]
    @case
    def clip_by_global_norm_n(): return tf.clip_by_global_norm([P(), P(name="y")], 1.0)[1]
    @case
    def global_norm(): return tf.global_norm([P(), P(name="y")])
    @case
    def norm(): return tf.norm(P())
    @case
    def norm_axis(): return tf.norm(P(), axis=1)
    @case
    def log_softmax(): return tf.nn.log_softmax(P())
    @case
    def softmax(): return tf.nn.softmax(P())
    @case
    def softplus(): return tf.nn.softplus(P())
    @case
    def elu(): return tf.nn.elu(P())
    @case
    def selu(): return tf.nn.selu(P())
    @case
    def relu6(): return tf.nn.relu6(P())
    @case
    def leaky_relu(): return tf.nn.leaky_relu(P())
    @case
    def sigmoid(): return tf.nn.sigmoid(P())
    @case
    def dropout_keep(): return tf.nn.dropout(P(), keep_prob=0.5)
    @case
    def dropout_rate(): return tf.nn.dropout(P(), rate=0.5)
    @case
    def sequence_mask(): return tf.sequence_mask(P((3,), tf.int32, "l"), 5)
    @case
    def sequence_mask_nomax(): return tf.sequence_mask(P((3,), tf.int32, "l"))
    @case
    def cumsum(): return tf.cumsum(P(), axis=1)
    @case
    def cumsum_excl(): return tf.cumsum(P(), axis=1, exclusive=True)
    @case
    def cumsum_rev(): return tf.cumsum(P(), axis=1, reverse=True)
    @case
    def reduce_mean_f(): return tf.reduce_mean(P())
    @case
    def reduce_mean_i(): return tf.reduce_mean(P(dtype=tf.int32))
    @case
    def reduce_sum(): return tf.reduce_sum(P(), axis=1)
    @case
    def argmax(): return tf.argmax(P(), axis=1)
    @case
    def argmin(): return tf.argmin(P(), axis=1)
    @case
    def tensordot(): return tf.tensordot(P(), P((3, 4), name="y"), axes=1)
    @case
    def einsum(): return tf.einsum("ij,jk->ik", P(), P((3, 4), name="y"))
    @case
    def boolean_mask(): return tf.boolean_mask(P(), P((2,), tf.bool, "m"))
    @case
    def losses_mse(): return tf.losses.mean_squared_error(P(name="l"), P())
    @case
    def losses_absdiff(): return tf.losses.absolute_difference(P(name="l"), P())
    @case
    def losses_softmax(): return tf.losses.softmax_cross_entropy(P(name="l"), P())
    @case
    def losses_sparse(): return tf.losses.sparse_softmax_cross_entropy(P((2,), tf.int32, "l"), P())
    @case
    def losses_sigmoid(): return tf.losses.sigmoid_cross_entropy(P(name="l"), P())
    @case
    def losses_huber(): return tf.losses.huber_loss(P(name="l"), P())
    @case
    def losses_log(): return tf.losses.log_loss(P(name="l"), P())
    @case
    def losses_hinge(): return tf.losses.hinge_loss(P(name="l"), P())
    @case
    def losses_cosine(): return tf.losses.cosine_distance(P(name="l"), P(), axis=1)
    @case
    def random_normal(): return tf.random_normal([2, 3])
    @case
    def random_normal_ms(): return tf.random_normal([2, 3], mean=1.0, stddev=2.0)
    @case
    def random_uniform(): return tf.random_uniform([2, 3])
    @case
    def random_uniform_mm(): return tf.random_uniform([2, 3], minval=-1.0, maxval=2.0)
    @case
    def random_uniform_int(): return tf.random_uniform([2, 3], minval=0, maxval=5, dtype=tf.int32)
    @case
    def truncated_normal(): return tf.truncated_normal([2, 3], stddev=0.1)
    @case
    def zeros_const(): return tf.zeros([2, 3])
    @case
    def zeros_tensor(): return tf.zeros(tf.shape(P()))
    @case
    def ones_tensor(): return tf.ones(tf.shape(P()))
    @case
    def zeros_like(): return tf.zeros_like(P())
    @case
    def ones_like(): return tf.ones_like(P())
    @case
    def fill(): return tf.fill([2, 3], 1.0)
    @case
    def eye(): return tf.eye(3)
    @case
    def matmul_t(): return tf.matmul(P(), P(name="y"), transpose_b=True)
    @case
    def bias_add(): return tf.nn.bias_add(P(), P((3,), name="b"))
    @case
    def xw_plus_b(): return tf.nn.xw_plus_b(P(), P((3, 4), name="w"), P((4,), name="b"))
    @case
    def relu_layer(): return tf.nn.relu_layer(P(), P((3, 4), name="w"), P((4,), name="b"))
    @case
    def gather(): return tf.gather(P(), [0, 1])
    @case
    def squared(): return tf.square(P())
    @case
    def rsqrt(): return tf.rsqrt(P())
    @case
    def log1p(): return tf.log1p(P())
    @case
    def reduce_std(): return tf.math.reduce_std(P())
    @case
    def reduce_variance(): return tf.math.reduce_variance(P())
    @case
    def count_nonzero(): return tf.count_nonzero(P())
    @case
    def reduce_all(): return tf.reduce_all(P(dtype=tf.bool))
    @case
    def range_(): return tf.range(5)
    @case
    def linspace(): return tf.linspace(0.0, 1.0, 5)
    @case
    def top_k(): return tf.nn.top_k(P(), 2)[0]
    @case
    def where3(): return tf.where(P(dtype=tf.bool, name="c"), P(), P(name="y"))
    @case
    def where1(): return tf.where(P(dtype=tf.bool, name="c"))
    @case
    def pad(): return tf.pad(P(), [[1, 1], [0, 0]])
    @case
    def split(): return tf.split(P(), 3, axis=1)[0]
    @case
    def unstack(): return tf.unstack(P())[0]
    @case
    def stack(): return tf.stack([P(), P(name="y")])
    @case
    def concat(): return tf.concat([P(), P(name="y")], 0)
    @case
    def tile(): return tf.tile(P(), [2, 1])
    @case
    def expand_dims(): return tf.expand_dims(P(), 0)
    @case
    def squeeze(): return tf.squeeze(P((2, 1)))
    @case
    def transpose(): return tf.transpose(P())
    @case
    def reshape(): return tf.reshape(P(), [-1])
    @case
    def shape(): return tf.shape(P())
    @case
    def size(): return tf.size(P())
    @case
    def rank(): return tf.rank(P())
    @case
    def cast(): return tf.cast(P(), tf.int32)
    @case
    def floordiv(): return tf.floordiv(P(), P(name="y"))
    @case
    def floormod(): return P() % P(name="y")
    @case
    def truediv_int(): return tf.truediv(P(dtype=tf.int32), P(dtype=tf.int32, name="y"))
    @case
    def pow_(): return tf.pow(P(), 2.0)
    @case
    def round_(): return tf.round(P())
    @case
    def sign(): return tf.sign(P())
    @case
    def logical_xor(): return tf.logical_xor(P(dtype=tf.bool), P(dtype=tf.bool, name="y"))
    @case
    def add_n(): return tf.add_n([P(), P(name="y")])
    @case
    def reduce_prod(): return tf.reduce_prod(P())
    @case
    def gather_nd(): return tf.gather_nd(P(), [[0, 1]])
    @case
    def scatter_nd(): return tf.scatter_nd([[0], [1]], P(), [4, 3])
    @case
    def slice_(): return tf.slice(P(), [0, 0], [1, 2])
    @case
    def getitem(): return P()[:, 1]
    @case
    def stop_gradient(): return tf.stop_gradient(P())
    @case
    def identity(): return tf.identity(P())
    @case
    def init_glorot(): return tf.glorot_uniform_initializer()([3, 4])
    @case
    def init_glorot_n(): return tf.glorot_normal_initializer()([3, 4])
    @case
    def init_normal(): return tf.random_normal_initializer(0., 1.)([3, 4])
    @case
    def init_trunc(): return tf.truncated_normal_initializer(0., 1.)([3, 4])
    @case
    def init_uniform(): return tf.random_uniform_initializer(-1., 1.)([3, 4])
    @case
    def init_vs(): return tf.variance_scaling_initializer()([3, 4])
    @case
    def init_orth(): return tf.orthogonal_initializer()([3, 4])
    @case
    def init_zeros(): return tf.zeros_initializer()([3, 4])
    @case
    def init_ones(): return tf.ones_initializer()([3, 4])
    @case
    def init_const(): return tf.constant_initializer(2.0)([3, 4])
    @case
    def assert_equal(): return tf.assert_equal(P(), P(name="y"))
    @case
    def assert_positive(): return tf.assert_positive(P())
    @case
    def assert_rank(): return tf.assert_rank(P(), 2)
    @case
    def dense(): return tf.layers.dense(P(), 4)
    @case
    def dense_relu(): return tf.layers.dense(P(), 4, activation=tf.nn.relu)
    @case
    def layers_dropout(): return tf.layers.dropout(P(), 0.5, training=True)
    @case
    def bn(): return tf.layers.batch_normalization(P(), training=True)
    @case
    def conv2d(): return tf.layers.conv2d(P((1, 5, 5, 2)), 3, 3)
    @case
    def flatten(): return tf.layers.flatten(P((2, 3, 4)))
    @case
    def max_pool(): return tf.layers.max_pooling2d(P((1, 4, 4, 2)), 2, 2)
    @case
    def softmax_xent_dim(): return tf.nn.softmax_cross_entropy_with_logits_v2(labels=P(name="l"), logits=P(), axis=0)
    @case
    def sigmoid_xent_named(): return tf.nn.sigmoid_cross_entropy_with_logits(labels=P(name="l"), logits=P(), name="sx")
    @case
    def log_sigmoid(): return tf.log_sigmoid(P())
    @case
    def swish(): return tf.nn.swish(P())
    @case
    def crelu(): return tf.nn.crelu(P())
    @case
    def weighted_xent(): return tf.nn.weighted_cross_entropy_with_logits(labels=P(name="l"), logits=P(), pos_weight=2.0)
    @case
    def lrn(): return tf.nn.lrn(P((1, 2, 2, 3)))
    @case
    def maximum_int(): return tf.maximum(P(), 0.)
    @case
    def reduce_max(): return tf.reduce_max(P(), axis=1)
    @case
    def math_divide(): return tf.math.divide(P(), P(name="y"))
    @case
    def divide_no_nan(): return tf.math.divide_no_nan(P(), P(name="y"))
    @case
    def is_finite(): return tf.is_finite(P())
    @case
    def reverse(): return tf.reverse(P(), [1])
    @case
    def cumprod(): return tf.cumprod(P(), axis=1)
    @case
    def matrix_diag(): return tf.matrix_diag(P())
    @case
    def random_shuffle(): return tf.random_shuffle(P())
    @case
    def multinomial(): return tf.multinomial(P(), 3)
    @case
    def batch_norm_nn(): return tf.nn.batch_normalization(P(), P((3,), name="m"), P((3,), name="v"), None, None, 1e-3)
    @case
    def sufficient_stats(): return tf.nn.sufficient_statistics(P(), [0])[1]
    @case
    def embedding_lookup(): return tf.nn.embedding_lookup(P((5, 3)), [0, 1])
    @case
    def conv2d_nn(): return tf.nn.conv2d(P((1, 5, 5, 2)), P((3, 3, 2, 4), name="w"), [1, 1, 1, 1], "SAME")
    @case
    def max_pool_nn(): return tf.nn.max_pool(P((1, 4, 4, 2)), [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    @case
    def avg_pool_nn(): return tf.nn.avg_pool(P((1, 4, 4, 2)), [1, 2, 2, 1], [1, 2, 2, 1], "VALID")

    @case
    def floormod_f(): return tf.floormod(P(), P(name="y"))
    @case
    def mod_i(): return tf.mod(P(dtype=tf.int32), P(dtype=tf.int32, name="y"))
    @case
    def truncatemod(): return tf.truncatemod(P(dtype=tf.int32), P(dtype=tf.int32, name="y"))
    @case
    def reduce_any(): return tf.reduce_any(P(dtype=tf.bool))
    @case
    def sort(): return tf.sort(P())
    @case
    def argsort(): return tf.argsort(P())
    @case
    def to_float(): return tf.to_float(P(dtype=tf.int32))
    @case
    def scalar_mul(): return tf.scalar_mul(2.0, P())
    @case
    def div_i(): return tf.div(P(dtype=tf.int32), P(dtype=tf.int32, name="y"))
    @case
    def div_f(): return tf.div(P(), P(name="y"))
    @case
    def reciprocal(): return tf.reciprocal(P())
    @case
    def expm1(): return tf.expm1(P())
    @case
    def erf(): return tf.erf(P())
    @case
    def tan(): return tf.tan(P())
    @case
    def where_v2(): return tf.where_v2(P(dtype=tf.bool, name="c"), P(), P(name="y"))
    @case
    def broadcast_to(): return tf.broadcast_to(P((3,)), [2, 3])
    @case
    def reverse_sequence(): return tf.reverse_sequence(P((2, 3, 4)), [1, 2], seq_axis=1, batch_axis=0)
    @case
    def assert_less(): return tf.assert_less(P(), P(name="y"))
    @case
    def assert_non_negative(): return tf.assert_non_negative(P())
    @case
    def check_numerics(): return tf.check_numerics(P(), "bad")
    @case
    def categorical(): return tf.random.categorical(P(), 3)
    @case
    def conv1d(): return tf.nn.conv1d(P((1, 5, 2)), P((3, 2, 4), name="w"), 1, "SAME")
    @case
    def conv2d_transpose(): return tf.nn.conv2d_transpose(P((1, 4, 4, 2)), P((3, 3, 5, 2), name="w"), [1, 8, 8, 5], [1, 2, 2, 1])
    @case
    def depthwise(): return tf.nn.depthwise_conv2d(P((1, 5, 5, 2)), P((3, 3, 2, 2), name="w"), [1, 1, 1, 1], "SAME")
    @case
    def max_pool1d(): return tf.nn.max_pool1d(P((1, 4, 2)), 2, 2, "VALID")
    @case
    def avg_pool2d(): return tf.nn.avg_pool2d(P((1, 4, 4, 2)), 2, 2, "VALID")
    @case
    def layers_conv1d(): return tf.layers.conv1d(P((1, 5, 2)), 3, 3)
    @case
    def layers_conv2d_t(): return tf.layers.conv2d_transpose(P((1, 4, 4, 2)), 3, 3)
    @case
    def layers_avgpool(): return tf.layers.average_pooling2d(P((1, 4, 4, 2)), 2, 2)
    @case
    def init_he_normal(): return tf.keras.initializers.he_normal()([3, 4]) if hasattr(tf, "keras") else tf.initializers.he_normal()([3, 4])
    @case
    def init_lecun_uniform(): return tf.initializers.lecun_uniform()([3, 4])
    @case
    def init_vs_normal(): return tf.variance_scaling_initializer(2.0, "fan_in", "truncated_normal")([3, 4])
    @case
    def map_fn(): return tf.map_fn(lambda r: r * 2.0, P())
    @case
    def compute_weighted_loss(): return tf.losses.compute_weighted_loss(P())
    @case
    def losses_mse_w(): return tf.losses.mean_squared_error(P(name="l"), P(), weights=2.0)
    @case
    def losses_mse_none(): return tf.losses.mean_squared_error(P(name="l"), P(), reduction=tf.losses.Reduction.NONE)
    @case
    def losses_mse_sum(): return tf.losses.mean_squared_error(P(name="l"), P(), reduction=tf.losses.Reduction.SUM)
    @case
    def losses_mse_mean(): return tf.losses.mean_squared_error(P(name="l"), P(), reduction=tf.losses.Reduction.MEAN)
    @case
    def total_loss(): tf.losses.mean_squared_error(P(name="l"), P()); return tf.losses.get_total_loss()
    @case
    def reg_loss(): return tf.losses.get_regularization_loss()
    @case
    def moments_keep(): return tf.nn.moments(P(), axes=[0], keep_dims=True)[1]
    @case
    def moments_named(): return tf.nn.moments(P(), axes=[0], name="mm")[0]
    @case
    def random_normal_t(): return tf.random_normal(tf.shape(P()))
    @case
    def random_normal_named(): return tf.random_normal([2, 3], name="rn")
    @case
    def dropout_named(): return tf.nn.dropout(P(), rate=0.5, name="dd")
    @case
    def dense_named(): return tf.layers.dense(P(), 4, name="fc")
    @case
    def sigmoid_grad(): return tf.gradients(tf.nn.sigmoid_cross_entropy_with_logits(labels=P(name="l"), logits=P()), [tf.get_default_graph().get_tensor_by_name("x:0")])[0]
    @case
    def getitem_neg(): return P()[::-1, 1:]
    @case
    def pow_t(): return P() ** P(name="y")
    @case
    def rsub(): return 1.0 - P()
    @case
    def rdiv(): return 1.0 / P()
    @case
    def neg(): return -P()
    @case
    def floordiv_op(): return P() // P(name="y")
    @case
    def matmul_op(): return P() @ P((3, 2), name="y")
    @case
    def cumsum_excl_rev(): return tf.cumsum(P(), axis=1, exclusive=True, reverse=True)
    @case
    def one_hot_axis0_t(): return tf.one_hot(P((3,), tf.int32, "i"), 4, axis=0)
    @case
    def sequence_mask_named(): return tf.sequence_mask(P((3,), tf.int32, "l"), 5, name="sm")
    @case
    def boolean_mask_named(): return tf.boolean_mask(P(), P((2,), tf.bool, "m"), name="bm")
    @case
    def tensordot_named(): return tf.tensordot(P(), P((3, 4), name="y"), axes=1, name="td")
    @case
    def argmax_named(): return tf.argmax(P(), axis=1, name="am")

    def describe(obj):
        if hasattr(obj, "name") and hasattr(obj, "op"):
            return f"{obj.name} {obj.op.type}"
        if hasattr(obj, "type") and hasattr(obj, "name"):
            return f"<op {obj.name} {obj.type}>"
        return repr(type(obj).__name__)


    def describe(obj):
        if hasattr(obj, "name") and hasattr(obj, "op"):
            return f"{obj.name} {obj.op.type}"
        if hasattr(obj, "type") and hasattr(obj, "name"):
            return f"<op {obj.name} {obj.type}>"
        return repr(type(obj).__name__)

    given = {"x", "y", "l", "i", "lo", "hi", "m", "b", "w", "c", "v"}
    lines = []
    for n in only or list(cases):
        tf.reset_default_graph()
        g = tf.get_default_graph()
        try:
            before = {o.name for o in g.get_operations()}
            r = cases[n]()
            created = sorted({o.name for o in g.get_operations()} - before - given)
            a = tf.placeholder(tf.float32, name="pa")
            after = [tf.equal(a, a), tf.add(a, a), tf.multiply(a, a), tf.reduce_sum(a),
                     tf.maximum(a, a)]
            lines.append(f"{n}: {describe(r)} | next {' '.join(t.name for t in after)} | "
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
            import tensorflow.compat.v1 as tf  # noqa: PLC0415
            tf.disable_eager_execution()
        else:
            import staticgraph as tf  # noqa: PLC0415
        print("\n".join(run(tf, argv[2:])))
        return 0
    python = "/work/peers/bin/python"
    if argv[:1] == ["--tf"]:
        python, argv = argv[1], argv[2:]
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    tf_lines = subprocess.run([python, "-m", "comparisons.tf_names", "--engine", "tf", *argv],
                              capture_output=True, text=True, cwd=here, check=True).stdout
    import staticgraph  # noqa: PLC0415
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
