"""tf.pad's REFLECT / SYMMETRIC and F.pad's reflect / replicate / circular: one MirrorPad op.

Expected values and messages were read from TF 2.21 (compat.v1 graph mode) and torch 2.13."""
import numpy as np
import pytest

import dyngraph as torch
import dyngraph.nn.functional as F
import staticgraph as tf

X = np.arange(6.0).reshape(2, 3)


pytestmark = pytest.mark.usefixtures("fresh_graph")


def test_tf_pad_modes_values_names_and_static_shapes():
    x = tf.constant(X)
    r = tf.pad(x, [[1, 1], [2, 2]], mode="REFLECT")
    s = tf.pad(x, [[1, 1], [2, 2]], mode="symmetric")    # the mode's case does not matter
    c = tf.pad(x, [[1, 1], [2, 2]], mode="Constant", constant_values=3)
    p = tf.pad(tf.placeholder(tf.float32, [None, 3]), [[1, 0], [2, 1]], mode="reflect")
    assert [(t.op.name, t.op.type) for t in (r, s)] == [("MirrorPad", "MirrorPad"), ("MirrorPad_1", "MirrorPad")]
    assert r.shape.as_list() == [4, 7] and p.shape.as_list() == [None, 6] and p.dtype == tf.float32
    with tf.Session() as sess:
        rv, sv, cv = sess.run([r, s, c])
    np.testing.assert_array_equal(rv, [[5, 4, 3, 4, 5, 4, 3], [2, 1, 0, 1, 2, 1, 0],
                                       [5, 4, 3, 4, 5, 4, 3], [2, 1, 0, 1, 2, 1, 0]])
    np.testing.assert_array_equal(sv, [[1, 0, 0, 1, 2, 2, 1], [1, 0, 0, 1, 2, 2, 1],
                                       [4, 3, 3, 4, 5, 5, 4], [4, 3, 3, 4, 5, 5, 4]])
    assert cv[0, 0] == 3 and cv[1, 2] == 0


def test_tf_pad_gradient_folds_the_copies_back():
    p = tf.placeholder(tf.float32, [None, 3])
    a = tf.pad(p, [[1, 0], [2, 1]], mode="reflect")
    (g,) = tf.gradients(tf.reduce_sum(a * tf.constant(np.arange(24.0).reshape(4, 6), tf.float32)), p)
    assert g.op.type == "MirrorPadGrad" and g.shape.as_list() == [None, 3]
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(g, {p: np.ones((3, 3))}),
                                      [[8, 27, 16], [16, 54, 32], [20, 63, 40]])


def test_tf_pad_errors_use_tf_wording():
    x = tf.constant(X)
    with pytest.raises(ValueError, match='Value of argument `mode` expected to be one of "CONSTANT", '
                                         '"REFLECT", or "SYMMETRIC". Received `mode` = FOO'):
        tf.pad(x, [[1, 0], [0, 0]], mode="FOO")
    with pytest.raises(ValueError, match=r"Paddings must be non-negative for '\{\{node MirrorPad"):
        tf.pad(x, [[-1, 0], [0, 0]], mode="REFLECT")
    with tf.Session() as sess:   # too far for the mode: TF finds out when the op runs
        for mode, pads, msg in (
                ("REFLECT", [[2, 0], [0, 0]], "paddings must be less than the dimension size: 2, 0 not less than 2"),
                ("SYMMETRIC", [[3, 0], [0, 0]], "paddings must be no greater than the dimension size: 3, 0 greater than 2"),
                ("REFLECT", [[0, 0], [1, 3]], "paddings must be less than the dimension size: 1, 3 not less than 3")):
            with pytest.raises(tf.errors.InvalidArgumentError, match=msg):
                sess.run(tf.pad(x, pads, mode=mode))
        assert sess.run(tf.pad(x, [[0, 0], [0, 3]], mode="SYMMETRIC")).tolist() == [
            [0, 1, 2, 2, 1, 0], [3, 4, 5, 5, 4, 3]]


def test_torch_pad_modes_values_and_gradient():
    x = torch.arange(6.0).reshape(1, 2, 3)
    assert F.pad(x, (2, 1), mode="reflect").tolist() == [[[2, 1, 0, 1, 2, 1], [5, 4, 3, 4, 5, 4]]]
    assert F.pad(x, (2, 1), mode="replicate").tolist() == [[[0, 0, 0, 1, 2, 2], [3, 3, 3, 4, 5, 5]]]
    assert F.pad(x, (2, 1), mode="circular").tolist() == [[[1, 2, 0, 1, 2, 0], [4, 5, 3, 4, 5, 3]]]
    assert F.pad(x.reshape(1, 1, 2, 3), (1, 1, 1, 0), mode="circular").tolist() == [
        [[[5, 3, 4, 5, 3], [2, 0, 1, 2, 0], [5, 3, 4, 5, 3]]]]
    assert F.pad(x, (3, 0), mode="circular").shape == (1, 2, 6)
    xr = x.clone().requires_grad_()
    F.pad(xr, (2, 1), mode="reflect").backward(torch.arange(12.0).reshape(1, 2, 6))
    assert xr.grad.tolist() == [[[2, 9, 4], [8, 27, 16]]]


def test_torch_pad_errors_use_torch_wording():
    x = torch.arange(6.0).reshape(1, 2, 3)
    cases = [((3, 0), "reflect", x, RuntimeError, r"Argument #4: Padding size should be less than the "
              r"corresponding input dimension, but got: padding \(3, 0\) at dimension 2 of input \[1, 2, 3\]"),
             ((4, 0), "circular", x, RuntimeError, "Padding value causes wrapping around more than once."),
             ((1, 1), "reflect", torch.arange(3.0), NotImplementedError,
              "Padding size 2 is not supported for 1D input tensor.\nSupported combinations"),
             ((1,) * 8, "reflect", x, RuntimeError, "Padding length should be less than or equal to two "
              "times the input dimension but got padding length 8 and input of dimension 3"),
             ((1, 1), "foo", x, NotImplementedError, "Unrecognised padding mode foo"),
             ((1,), "reflect", x, RuntimeError, "Padding length must be divisible by 2")]
    for pad, mode, inp, exc, msg in cases:
        with pytest.raises(exc, match=msg):
            F.pad(inp, pad, mode=mode)
    with pytest.raises(RuntimeError, match="Padding mode \"reflect\" doesn't take in value argument"):
        F.pad(x, (1, 1), mode="reflect", value=2.0)
