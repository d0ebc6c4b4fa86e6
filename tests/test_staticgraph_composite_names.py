"""Functions built from several registry ops name their result as TF 2.21's ``tf.compat.v1``
does and keep their parts inside their own name scope, so the user's next ops keep TF's names
(``tf.equal`` after ``tf.nn.l2_normalize`` is ``Equal``, not ``Equal_1``).  Every expected
name here was read off the real TF."""
from __future__ import annotations

import pytest

import staticgraph as tf


def _x(shape=(2, 3), dtype=None, name="x"):
    return tf.placeholder(dtype or tf.float32, shape, name=name)


# (what to build, the result's name in TF)
CASES = {
    "l2_normalize": (lambda: tf.nn.l2_normalize(_x(), axis=1), "l2_normalize:0"),
    "l2_normalize_named": (lambda: tf.nn.l2_normalize(_x(), axis=1, name="nrm"), "nrm:0"),
    "one_hot_on_off": (lambda: tf.one_hot(_x((3,), tf.int32), 4, on_value=2.0, off_value=-1.0),
                       "one_hot:0"),
    "one_hot_on_off_named": (lambda: tf.one_hot(_x((3,), tf.int32), 3, on_value=2.0,
                                                off_value=0.0, name="oh"), "oh:0"),
    "sigmoid_xent": (lambda: tf.nn.sigmoid_cross_entropy_with_logits(labels=_x(name="l"),
                                                                     logits=_x()),
                     "logistic_loss:0"),
    "sigmoid_xent_named": (lambda: tf.nn.sigmoid_cross_entropy_with_logits(
        labels=_x(name="l"), logits=_x(), name="sx"), "sx:0"),
    "weighted_xent": (lambda: tf.nn.weighted_cross_entropy_with_logits(
        labels=_x(name="l"), logits=_x(), pos_weight=2.0), "logistic_loss:0"),
    "softmax_xent_v2": (lambda: tf.nn.softmax_cross_entropy_with_logits_v2(
        labels=_x(name="l"), logits=_x()), "softmax_cross_entropy_with_logits/Reshape_2:0"),
    "softmax_xent_v2_named": (lambda: tf.nn.softmax_cross_entropy_with_logits_v2(
        labels=_x(name="l"), logits=_x(), name="foo"), "foo/Reshape_2:0"),
    "softmax_xent_v1": (lambda: tf.nn.softmax_cross_entropy_with_logits(
        labels=_x(name="l"), logits=_x()), "softmax_cross_entropy_with_logits_sg/Reshape_2:0"),
    "softmax_xent_v1_named": (lambda: tf.nn.softmax_cross_entropy_with_logits(
        labels=_x(name="l"), logits=_x(), name="bar"), "bar/Reshape_2:0"),
    "sparse_softmax_xent": (lambda: tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=_x((2,), tf.int32, "l"), logits=_x()),
        "SparseSoftmaxCrossEntropyWithLogits/SparseSoftmaxCrossEntropyWithLogits:0"),
    "sparse_softmax_xent_named": (lambda: tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=_x((2,), tf.int32, "l"), logits=_x(), name="baz"), "baz/baz:0"),
    "clip_by_value_tensors": (lambda: tf.clip_by_value(_x(), _x((), name="lo"), _x((), name="hi")),
                              "clip_by_value:0"),
    "clip_by_value_numbers": (lambda: tf.clip_by_value(_x(), 0.0, 1.0), "clip_by_value:0"),
    "clip_by_value_named": (lambda: tf.clip_by_value(_x(), 0.0, 1.0, name="cv"), "cv:0"),
    "softplus": (lambda: tf.nn.softplus(_x()), "Softplus:0"),
    "elu": (lambda: tf.nn.elu(_x()), "Elu:0"),
    "selu": (lambda: tf.nn.selu(_x()), "Selu:0"),
    "relu6": (lambda: tf.nn.relu6(_x()), "Relu6:0"),
    "relu6_named": (lambda: tf.nn.relu6(_x(), name="r6"), "r6:0"),
    "leaky_relu": (lambda: tf.nn.leaky_relu(_x()), "LeakyRelu:0"),
    "softsign": (lambda: tf.nn.softsign(_x()), "Softsign:0"),
    "log_sigmoid": (lambda: tf.log_sigmoid(_x()), "LogSigmoid:0"),
    "log_sigmoid_named": (lambda: tf.log_sigmoid(_x(), name="ls"), "ls:0"),
    "l2_loss": (lambda: tf.nn.l2_loss(_x()), "L2Loss:0"),
    "is_finite": (lambda: tf.is_finite(_x()), "IsFinite:0"),
    "reduce_mean_int": (lambda: tf.reduce_mean(_x(dtype=tf.int32)), "Mean:0"),
    "reduce_mean_int_named": (lambda: tf.reduce_mean(_x(dtype=tf.int32), name="rm"), "rm:0"),
    "count_nonzero": (lambda: tf.count_nonzero(_x()), "count_nonzero/Sum:0"),
    "count_nonzero_named": (lambda: tf.count_nonzero(_x(), name="cn"), "cn/Sum:0"),
    "einsum": (lambda: tf.einsum("ij,jk->ik", _x(), _x((3, 4), name="y")), "einsum/Einsum:0"),
    "einsum_named": (lambda: tf.einsum("ij->ji", _x(), name="es"), "es/Einsum:0"),
    "zeros_like": (lambda: tf.zeros_like(_x()), "zeros_like:0"),
    "ones_like": (lambda: tf.ones_like(_x()), "ones_like:0"),
    "ones_like_named": (lambda: tf.ones_like(_x(), name="ol"), "ol:0"),
    "div_no_nan": (lambda: tf.div_no_nan(_x(), _x(name="y")), "div_no_nan:0"),
    "is_nan": (lambda: tf.math.is_nan(_x()), "IsNan:0"),
    "is_inf": (lambda: tf.math.is_inf(_x()), "IsInf:0"),
    "truncatediv": (lambda: tf.truncatediv(_x(dtype=tf.int32), 2), "TruncateDiv:0"),
    "saturate_cast": (lambda: tf.saturate_cast(_x(), tf.int32), "saturate_cast:0"),
    "in_top_k": (lambda: tf.nn.in_top_k(_x(), [0, 1], 1), "in_top_k/InTopKV2:0"),
    "one_hot_axis0": (lambda: tf.one_hot([0, 1], 3, axis=0), "one_hot:0"),
    "zeros_like_dtype": (lambda: tf.zeros_like(_x(), dtype=tf.int32), "zeros_like:0"),
    "sort": (lambda: tf.sort(_x()), "sort/Neg_1:0"),
    "sort_descending": (lambda: tf.sort(_x(), direction="DESCENDING"), "sort/TopKV2:0"),
    "argsort": (lambda: tf.argsort(_x()), "argsort/Cast:0"),    # TF: argsort/TopKV2:1
    "gather_list": (lambda: tf.gather(_x(), [0, 1]), "GatherV2:0"),
    "gather_nd_list": (lambda: tf.gather_nd(_x(), [[0, 1]]), "GatherNd:0"),
    "scatter_nd_list": (lambda: tf.scatter_nd([[0], [1]], _x(), [4, 3]), "ScatterNd:0"),
    "tensordot_2d": (lambda: tf.tensordot(_x(), _x((3, 4), name="y"), axes=1), "Tensordot/MatMul:0"),
    "tensordot_named": (lambda: tf.tensordot(_x(), _x((3, 4), name="y"), axes=1, name="td"),
                        "td/MatMul:0"),
    "reverse_sequence": (lambda: tf.reverse_sequence(_x((2, 3, 4)), [1, 2], seq_axis=1,
                                                     batch_axis=0), "ReverseSequence:0"),
    "depthwise_conv2d": (lambda: tf.nn.depthwise_conv2d(_x((1, 5, 5, 2)), _x((3, 3, 2, 2), name="w"),
                                                        [1, 1, 1, 1], "SAME"), "depthwise:0"),
    "squared_difference": (lambda: tf.squared_difference(_x(), _x(name="y")), "SquaredDifference:0"),
    "moments_mean": (lambda: tf.nn.moments(_x(), axes=[0])[0], "moments/Squeeze:0"),
    "moments_variance": (lambda: tf.nn.moments(_x(), axes=[0])[1], "moments/Squeeze_1:0"),
    "reduce_logsumexp": (lambda: tf.reduce_logsumexp(_x(), axis=1), "ReduceLogSumExp:0"),
    "clip_by_norm": (lambda: tf.clip_by_norm(_x(), 1.0), "clip_by_norm:0"),
    "global_norm": (lambda: tf.global_norm([_x(), _x(name="y")]), "global_norm/global_norm:0"),
    "dropout": (lambda: tf.nn.dropout(_x(), rate=0.5), "dropout/SelectV2:0"),
    "sequence_mask": (lambda: tf.sequence_mask(_x((3,), tf.int32, "l"), 5), "SequenceMask/Less:0"),
    "losses_mse": (lambda: tf.losses.mean_squared_error(_x(name="l"), _x()),
                   "mean_squared_error/value:0"),
    "losses_sigmoid": (lambda: tf.losses.sigmoid_cross_entropy(_x(name="l"), _x()),
                       "sigmoid_cross_entropy_loss/value:0"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_result_name_and_the_users_next_ops_names_are_TFs(case):
    build, expected = CASES[case]
    tf.reset_default_graph()
    out = build()
    assert out.name == expected
    a = tf.placeholder(tf.float32, name="pa")
    after = [tf.equal(a, a), tf.add(a, a), tf.multiply(a, a), tf.reduce_sum(a), tf.maximum(a, a),
             tf.exp(a), tf.nn.relu(a), tf.cast(a, tf.int32), tf.subtract(a, a), tf.abs(a)]
    assert [t.name for t in after] == ["Equal:0", "Add:0", "Mul:0", "Sum:0", "Maximum:0",
                                       "Exp:0", "Relu:0", "Cast:0", "Sub:0", "Abs:0"]


@pytest.mark.parametrize("case", ["l2_normalize", "sigmoid_xent", "softplus", "elu", "selu",
                                  "leaky_relu", "clip_by_value_tensors", "one_hot_on_off",
                                  "count_nonzero", "reduce_mean_int", "softmax_xent_v2",
                                  "log_sigmoid", "weighted_xent", "is_finite",
                                  "squared_difference", "div_no_nan", "is_nan", "is_inf",
                                  "truncatediv", "saturate_cast", "in_top_k", "one_hot_axis0",
                                  "zeros_like_dtype", "sort", "argsort", "gather_list",
                                  "gather_nd_list", "scatter_nd_list", "tensordot_2d",
                                  "reverse_sequence", "depthwise_conv2d"])
def test_a_composites_parts_live_inside_its_scope(case):
    build, expected = CASES[case]
    tf.reset_default_graph()
    out = build()
    scope = expected.split("/")[0].split(":")[0]
    placeholders = {"x", "y", "l", "lo", "hi", "w"}
    loose = [op.name for op in tf.get_default_graph().get_operations()
             if op.name not in placeholders and op.name != scope
             and not op.name.startswith(scope + "/")]
    assert loose == [] and out.op.name.split("/")[0] == scope


def test_an_integer_sum_is_one_Sum_to_the_user():
    tf.reset_default_graph()
    x = _x(dtype=tf.int32)
    assert [tf.reduce_sum(x).name, tf.reduce_sum(x).name, tf.cast(x, tf.float32).name] == \
        ["Sum:0", "Sum_1:0", "Cast:0"]


def test_a_second_call_numbers_its_scope_as_TF():
    x = _x()
    tf.reset_default_graph()
    x = _x()
    assert [tf.nn.softplus(x).name, tf.nn.softplus(x).name] == ["Softplus:0", "Softplus_1:0"]
    assert [tf.clip_by_value(x, 0., 1.).name, tf.clip_by_value(x, 0., 1.).name] == \
        ["clip_by_value:0", "clip_by_value_1:0"]
    assert tf.nn.sigmoid_cross_entropy_with_logits(labels=x, logits=x).name == "logistic_loss:0"
    assert tf.nn.sigmoid_cross_entropy_with_logits(labels=x, logits=x).name == "logistic_loss_1:0"


def test_renamed_composites_compute_what_they_did():
    import numpy as np
    tf.reset_default_graph()
    x = _x()
    v = np.array([[-2.0, 0.5, 3.0], [7.0, -0.1, 0.0]], np.float32)
    got = tf.Session().run([tf.clip_by_value(x, -1.0, 2.0),
                            tf.clip_by_value(x, tf.constant(-1.0), tf.constant(2.0)),
                            tf.reduce_mean(tf.constant([[1, 2], [4, 4]])),
                            tf.one_hot([0, 2], 3, on_value=5, off_value=-1),
                            tf.count_nonzero(x, dtype=tf.int32),
                            tf.zeros_like(x, dtype=tf.int32)], {x: v})
    assert np.array_equal(got[0], np.clip(v, -1, 2)) and np.array_equal(got[1], np.clip(v, -1, 2))
    assert got[2] == 2 and got[2].dtype == np.int32
    assert got[3].tolist() == [[5, -1, -1], [-1, -1, 5]]
    assert got[4] == 5 and got[4].dtype == np.int32
    assert got[5].dtype == np.int32 and not got[5].any()


def test_norms_are_named_as_TFs_squeezed_or_kept_result():
    tf.reset_default_graph()
    x = _x()
    assert [tf.norm(x, keepdims=True).name, tf.norm(x, ord=1).name,
            tf.norm(x, axis=1, keepdims=True).name, tf.norm(x, ord=1, axis=1).name,
            tf.norm(x, name="nn").name] == \
        ["norm/Sqrt:0", "norm_1/Squeeze:0", "norm_2/Sqrt:0", "norm_3/Squeeze:0", "nn/Squeeze:0"]


def test_transposed_matmuls_keep_their_transposes_inside_the_MatMul_scope():
    tf.reset_default_graph()
    x = _x()
    assert [tf.matmul(x, x, transpose_b=True).name, tf.matmul(x, x, transpose_a=True, name="mm").name,
            tf.transpose(x).name] == ["MatMul:0", "mm:0", "transpose:0"]
    b = tf.reshape(x, [1, 2, 3])
    assert tf.matmul(b, b, transpose_b=True).name == "MatMul_1:0"
    assert sorted(o.name for o in tf.get_default_graph().get_operations()
                  if "/" not in o.name) == ["MatMul", "MatMul_1", "Reshape", "mm", "transpose", "x"]


def test_orthogonal_initializer_names_its_steps_as_TF():
    tf.reset_default_graph()
    out = tf.orthogonal_initializer()([3, 4])
    assert out.name == "mul_1:0"
    top = sorted(o.name for o in tf.get_default_graph().get_operations() if "/" not in o.name)
    assert top == ["Reshape", "mul", "mul_1", "random_normal"]
    assert tf.multiply(out, out).name == "Mul_2:0" and tf.transpose(out).name == "transpose:0"


def test_scalar_mul_is_a_plain_Mul():
    tf.reset_default_graph()
    x = _x()
    assert [tf.scalar_mul(2.0, x).name, tf.scalar_mul(2.0, x, name="sm").name,
            tf.multiply(x, x).name] == ["Mul:0", "sm:0", "Mul_1:0"]


def test_a_cast_to_the_same_dtype_is_the_tensor_itself_as_in_TF():
    tf.reset_default_graph()
    x = _x()
    assert tf.cast(x, tf.float32) is x and tf.cast(x, tf.float32, name="cc") is x
    assert tf.to_float(x) is x
    assert tf.cast(x, tf.int32).name == "Cast:0"      # the first Cast node
    assert tf.sequence_mask(tf.constant([1, 2]), 3, dtype=tf.float32).name == "SequenceMask/Cast_1:0"


def test_floor_div_is_the_raw_FloorDiv_op():
    tf.reset_default_graph()
    x = _x()
    assert [tf.floor_div(x, x).name, tf.floor_div(x, x, name="fd").name, tf.floordiv(x, x).name] \
        == ["FloorDiv:0", "fd:0", "floordiv_1:0"]     # names are unique ignoring case


def test_clip_by_global_norm_names_its_outputs_with_its_full_scope_as_TF():
    tf.reset_default_graph()
    x = _x()
    assert tf.clip_by_global_norm([x], 1.0)[0][0].name == "clip_by_global_norm/clip_by_global_norm/_0:0"
    with tf.name_scope("u"):
        assert tf.clip_by_global_norm([x, x], 1.0)[0][1].name == \
            "u/clip_by_global_norm/u/clip_by_global_norm/_1:0"
