"""TF's error layout comes from one formatter (``staticgraph.framework.error_text``).

The literals below were recorded from TF 2.21 (``tf.compat.v1``, graph mode) running the
same programs; the build-time ones are TF's whole message, the run-time ones the part after
TF's ``Node: '<name>'`` line (this engine then adds the exception, input shapes and line).
"""
from __future__ import annotations

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.framework import error_text
from tests.tf_errors import op_message

pytestmark = pytest.mark.usefixtures("fresh_graph")


def test_node_summary_sorts_attrs_as_tf_and_spells_dtypes_bools_strings():
    # TF 2.21: "{{node MatMul}} = MatMul[T=DT_DOUBLE, grad_a=false, grad_b=false,
    # transpose_a=true, transpose_b=false](Placeholder, Placeholder_1)"; ConcatV2[N=2, T=DT_FLOAT,
    # Tidx=DT_INT32]; StringJoin[N=2, separator="x"].
    assert error_text.node_summary(
        "MatMul", "MatMul", {"transpose_b": False, "transpose_a": True, "grad_b": False,
                             "grad_a": False, "T": tf.float64},
        ["Placeholder", "Placeholder_1"]) == (
        "{{node MatMul}} = MatMul[T=DT_DOUBLE, grad_a=false, grad_b=false, transpose_a=true, "
        "transpose_b=false](Placeholder, Placeholder_1)")
    assert error_text.node_summary("concat", "ConcatV2", {"Tidx": tf.int32, "T": tf.float32, "N": 2},
                                   ["a", "b", "concat/axis"]) == (
        "{{node concat}} = ConcatV2[N=2, T=DT_FLOAT, Tidx=DT_INT32](a, b, concat/axis)")
    assert error_text.node_summary("StringJoin", "StringJoin", {"separator": "x", "N": 2}, ["a", "b"]) \
        == '{{node StringJoin}} = StringJoin[N=2, separator="x"](a, b)'
    assert error_text.node_summary("n", "NoOp", {}, []) == "{{node n}} = NoOp()"


def test_shapes_print_as_tf_prints_them_in_errors():
    # TF 2.21 BatchMatMulV2 on an unknown-rank input: "... with input shapes: ?, [4]."
    assert [error_text.tf_shape(s) for s in (None, (), (2, 3), (None, 3))] == ["?", "[]", "[2,3]", "[?,3]"]


def test_build_time_add_mismatch_is_tfs_whole_sentence():
    a, b = tf.placeholder(tf.float32, [2, 3]), tf.placeholder(tf.float32, [4])
    with pytest.raises(ValueError) as info:
        a + b
    assert str(info.value).startswith(
        "Dimensions must be equal, but are 3 and 4 for '{{node add}} = AddV2[T=DT_FLOAT]"
        "(Placeholder, Placeholder_1)' with input shapes: [2,3], [4].\n")


def test_build_time_splitv_bad_sizes_is_tfs_whole_message():
    a = tf.placeholder(tf.float32, [5, 3])
    with pytest.raises(ValueError) as info:
        tf.split(a, [2, 2], axis=0)
    assert str(info.value) == (
        "can't split axis of size 5 into pieces of size [2,2] for '{{node split}} = SplitV[T=DT_FLOAT, "
        "Tlen=DT_INT32, num_split=2](Placeholder, Const, split/split_dim)' with input shapes: [5,3], "
        "[2], [] and with computed input tensors: input[1] = <2 2>, input[2] = <0>.")


def test_build_time_split_and_range_are_tfs_whole_messages():
    with pytest.raises(ValueError) as info:
        tf.split(tf.placeholder(tf.int32, [5, 3]), 2, axis=0)
    assert str(info.value) == (
        "Dimension size must be evenly divisible by 2 but is 5\n\tNumber of ways to split should "
        "evenly divide the split dimension for '{{node split}} = Split[T=DT_INT32, num_split=2]"
        "(split/split_dim, Placeholder)' with input shapes: [], [5,3] and with computed input "
        "tensors: input[0] = <0>.")
    with pytest.raises(ValueError) as info:
        tf.range(5, 1, 1)
    assert str(info.value) == (
        "Requires start <= limit when delta > 0: 5/1 for '{{node range}} = Range[Tidx=DT_INT32]"
        "(range/start, range/limit, range/delta)' with input shapes: [], [], [] and with computed "
        "input tensors: input[0] = <5>, input[1] = <1>, input[2] = <1>.")


def _run_error(build, *feeds) -> str:
    phs = [tf.placeholder(tf.float32, shape) for shape, _ in feeds]
    out = build(*phs)
    with tf.Session() as s:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            s.run(out, {p: v for p, (_, v) in zip(phs, feeds)})
    return op_message(info.value)


@pytest.mark.parametrize("shapes,words", [
    # tf.matmul with unknown rank builds BatchMatMulV2, with rank 2 MatMul: same sentence.
    ((None, None), "Matrix size-incompatible: In[0]: [2,3], In[1]: [4,5]\n\t [[{{node MatMul}}]]\n"),
    (([None, None], [None, None]),
     "Matrix size-incompatible: In[0]: [2,3], In[1]: [4,5]\n\t [[{{node MatMul}}]]\n"),
])
def test_run_time_matmul_mismatch_reads_like_tf(tier, shapes, words):
    text = _run_error(tf.matmul, (shapes[0], np.ones((2, 3))), (shapes[1], np.ones((4, 5))))
    assert text.startswith(words)


def test_run_time_batch_matmul_mismatches_read_like_tf(tier):
    inner = _run_error(tf.matmul, (None, np.ones((2, 2, 3))), (None, np.ones((2, 4, 5))))
    assert inner.startswith("Matrix size-incompatible: In[0]: [2,2,3], In[1]: [2,4,5]\n"
                            "\t [[{{node MatMul}}]]\n")
    tf.reset_default_graph()
    batch = _run_error(tf.matmul, (None, np.ones((2, 2, 3))), (None, np.ones((3, 3, 5))))
    assert batch.startswith("In[0] and In[1] must have compatible batch dimensions: [2,2,3] vs. "
                            "[3,3,5]\n\t [[{{node MatMul}}]]\n")


def test_run_time_add_and_reshape_read_like_tf(tier):
    # TF 2.21: "Incompatible shapes: [2,3] vs. [4]\n\t [[{{node Add}}]]" (tf.add names it Add).
    assert _run_error(tf.add, (None, np.ones((2, 3))), (None, np.ones(4))).startswith(
        "Incompatible shapes: [2,3] vs. [4]\n\t [[{{node Add}}]]\n")
    tf.reset_default_graph()
    assert _run_error(lambda x: tf.reshape(x, [2, 2]), ([None], np.ones(3))).startswith(
        "Input to reshape is a tensor with 3 values, but the requested shape has 4\n"
        "\t [[{{node Reshape}}]]\n")


def test_build_time_scatter_and_parallel_stack_use_tfs_node_summary():
    # TF 2.21: "Dimension 1 in both shapes must be equal, but are 2 and 3. Shapes are [2,2] and
    # [2,3]. for '{{node ResourceScatterAdd}} = ResourceScatterAdd[Tindices=DT_INT32,
    # dtype=DT_FLOAT](Variable, ResourceScatterAdd/indices, Const)' with input shapes: [], [2],
    # [2,2]." (this engine names the converted constants Const, Const_1).
    v = tf.Variable(np.zeros((4, 3), np.float32))
    with pytest.raises(ValueError) as info:
        tf.scatter_add(v, [0, 1], np.ones((2, 2), np.float32))
    assert str(info.value) == (
        "Dimension 1 in both shapes must be equal, but are 2 and 3. Shapes are [2,2] and [2,3]. "
        "for '{{node ResourceScatterAdd}} = ResourceScatterAdd[Tindices=DT_INT32, dtype=DT_FLOAT]"
        "(Variable, Const, Const_1)' with input shapes: [], [2], [2,2].")
    # TF 2.21: "shape attr must be fully defined. for '{{node parallel_stack/ParallelConcat}} =
    # ParallelConcat[N=2, T=DT_FLOAT, shape=[2,?]](parallel_stack/ExpandDims,
    # parallel_stack/ExpandDims_1)' with input shapes: [1,?], [1,?]." (TF's inputs are its
    # ExpandDims nodes; this engine's are the values themselves).
    a, b = tf.placeholder(tf.float32, [None]), tf.placeholder(tf.float32, [None])
    with pytest.raises(ValueError) as info:
        tf.parallel_stack([a, b])
    assert str(info.value) == (
        "shape attr must be fully defined. for '{{node parallel_stack/ParallelConcat}} = "
        "ParallelConcat[N=2, T=DT_FLOAT, shape=[2,?]](Placeholder, Placeholder_1)' with input "
        "shapes: [?], [?].")
