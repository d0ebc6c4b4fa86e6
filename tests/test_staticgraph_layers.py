"""staticgraph's tf.nn layers: TF's names, shapes with unknown batch, values (against naive numpy
and against dyngraph on the same weights), gradients, dropout's fresh draws, TF's errors."""
from __future__ import annotations

import numpy as np
import pytest

import dyngraph as torch
import staticgraph as tf
from tests.gradcheck import numeric_grad

pytestmark = pytest.mark.usefixtures("fresh_graph")

RNG = np.random.default_rng(0)


def run(fetches, feed=None):
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        return s.run(fetches, feed)


def test_names_types_and_shapes_as_tf():
    x = tf.placeholder(tf.float32, (None, 28, 28, 1), name="x")
    w = tf.Variable(np.zeros((3, 3, 1, 4), np.float32), name="w")
    y = tf.nn.conv2d(x, w, strides=[1, 1, 1, 1], padding="SAME")
    y2 = tf.nn.conv2d(x, w, strides=2, padding=[[0, 0], [1, 1], [2, 0], [0, 0]])
    b = tf.nn.bias_add(y, tf.zeros(4))
    p = tf.nn.max_pool(b, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID")
    a = tf.nn.avg_pool(b, ksize=2, strides=2, padding="SAME")
    d = tf.nn.dropout(p, rate=0.5)
    m, v = tf.nn.moments(p, axes=[0, 1, 2])
    bn = tf.nn.batch_normalization(p, m, v, None, None, 1e-3)
    c1 = tf.nn.conv1d(tf.zeros((2, 10, 3)), tf.zeros((3, 3, 5)), stride=1, padding="SAME")
    ct = tf.nn.conv2d_transpose(b, tf.zeros((3, 3, 2, 4)), output_shape=[2, 28, 28, 2], strides=1)
    got = [(t.name, t.shape.as_list()) for t in (y, y2, b, p, a, d, m, v, c1, ct)]
    assert got == [("Conv2D:0", [None, 28, 28, 4]), ("Conv2D_1:0", [None, 14, 14, 4]),
                   ("BiasAdd:0", [None, 28, 28, 4]), ("MaxPool:0", [None, 14, 14, 4]),
                   ("AvgPool:0", [None, 14, 14, 4]), ("dropout/SelectV2:0", [None, 14, 14, 4]),
                   ("moments/Squeeze:0", [4]), ("moments/Squeeze_1:0", [4]),
                   ("conv1d/Squeeze:0", [2, 10, 5]), ("conv2d_transpose:0", [None, 28, 28, 2])]  # TF: batch from the input
    assert bn.name.startswith("batchnorm/")
    assert [y.op.type, b.op.type, p.op.type, a.op.type, ct.op.type] == \
        ["Conv2D", "BiasAdd", "MaxPool", "AvgPool", "Conv2DBackpropInput"]


def test_conv_pool_values_match_dyngraph_on_the_same_weights():
    """The same network in both layouts: TF's NHWC/HWIO, PyTorch's NCHW/OIHW."""
    x = RNG.standard_normal((3, 9, 8, 2))
    w = RNG.standard_normal((3, 3, 2, 5))
    xs = tf.placeholder(tf.float64, (None, 9, 8, 2))
    y = tf.nn.avg_pool(tf.nn.max_pool(tf.nn.relu(tf.nn.conv2d(xs, w, 1, "SAME")), 2, 2, "VALID"),
                       3, 2, "SAME")
    static = run(y, {xs: x})
    F = torch.nn.functional
    e = F.conv2d(torch.tensor(x.transpose(0, 3, 1, 2)), torch.tensor(w.transpose(3, 2, 0, 1)), padding=1)
    e = F.max_pool2d(F.relu(e), 2)
    # TF's SAME average pooling on the 4x4 map (3x3 window, stride 2): pads (0, 1), counts real cells
    e = F.avg_pool2d(F.pad(e, (0, 1, 0, 1)), 3, 2).numpy() * 9
    counts = np.array([[9, 6], [6, 4]], np.float64)
    np.testing.assert_allclose(static, (e / counts).transpose(0, 2, 3, 1), rtol=1e-12)


def test_gradients_with_unknown_batch_match_finite_differences():
    x = RNG.standard_normal((2, 4, 3, 1))
    w0 = RNG.standard_normal((2, 2, 1, 2))
    xs = tf.placeholder(tf.float64, (None, 4, 3, 1))
    w = tf.placeholder(tf.float64, (2, 2, 1, 2))
    loss = tf.reduce_sum(tf.square(tf.nn.max_pool(tf.nn.conv2d(xs, w, 2, "SAME"), 2, 1, "SAME")))
    gx, gw = tf.gradients(loss, [xs, w])
    vx, vw = run([gx, gw], {xs: x, w: w0})

    def f():
        return run(loss, {xs: x, w: w0})
    np.testing.assert_allclose(vw, numeric_grad(f, w0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(vx, numeric_grad(f, x), rtol=1e-5, atol=1e-6)


def test_dropout_draws_fresh_masks_and_scales():
    x = tf.ones((100, 100))
    d = tf.nn.dropout(x, keep_prob=0.8, seed=1)
    with tf.Session() as s:
        a, b = s.run(d), s.run(d)
    assert not np.array_equal(a, b)
    assert 0.75 < (a != 0).mean() < 0.85                   # 10000 draws: far inside these bounds
    np.testing.assert_allclose(a[a != 0], 1 / 0.8, rtol=1e-6)
    g = tf.gradients(tf.reduce_sum(tf.nn.dropout(x, rate=0.5, seed=3)), [x])[0]
    with tf.Session() as s:
        m = s.run(g)
    assert set(np.unique(m)) <= {0.0, 2.0}


@pytest.mark.parametrize("call,msg", [
    (lambda x: tf.nn.dropout(x, keep_prob=1.5),
     r"`rate` must be a scalar tensor or a float in the range \[0, 1\). Received: rate=-0.5"),
    (lambda x: tf.nn.dropout(x, rate=1.0), r"Received: rate=1.0"),
    (lambda x: tf.nn.dropout(x), r"`rate` must be provided. Received: rate=None"),
    (lambda x: tf.nn.max_pool(x, ksize=2, strides=2, padding="VALD"),
     "Attr 'padding' of 'MaxPool' Op passed string 'VALD' not in: \"SAME\", \"VALID\", \"EXPLICIT\"."),
    (lambda x: tf.nn.conv2d(x, tf.zeros((3, 3, 2, 4)), strides=1, padding="SAME"),
     r"^Depth of input \(1\) is not a multiple of input depth of filter \(2\) for "
     r"'\{\{node Conv2D\}\} = Conv2D\[T=DT_FLOAT\]\(Placeholder, zeros\)' with input shapes: "
     r"\[\?,28,28,1\], \[3,3,2,4\]\."),
    (lambda x: tf.nn.conv2d(x, tf.zeros((3, 3, 1, 4)), strides=1, padding="same"),
     "Attr 'padding' of 'Conv2D' Op passed string 'same'"),
    (lambda x: tf.nn.bias_add(x, tf.zeros(3)), "Dimensions must be equal, but are 1 and 3"),
])
def test_errors_use_tf_wording(call, msg):
    x = tf.placeholder(tf.float32, (None, 28, 28, 1))
    with pytest.raises(ValueError, match=msg):
        call(x)


def test_conv2d_takes_the_dtypes_tf_takes():
    """TF 2.21 (graph mode) builds and runs an int32 conv2d, its sums wrapping in int32 (these
    six numbers are what it printed); int64 and bool it refuses while building, in these words."""
    x = tf.constant(np.arange(32).reshape(1, 4, 4, 2), tf.int32)
    w = tf.constant(np.arange(54).reshape(3, 3, 2, 3) * 1000000, tf.int32)
    y = tf.nn.conv2d(x, w, strides=1, padding="VALID")
    assert y.dtype == tf.int32
    assert run(y).ravel()[:6].tolist() == [-1884934592, -1695934592, -1506934592, -966934592,
                                           -741934592, -516934592]
    for dtype in (tf.int64, tf.bool):
        with pytest.raises(TypeError, match=f"^Value passed to parameter 'input' has DataType "
                                            f"{dtype.name} not in list of allowed values: float16, "
                                            f"bfloat16, float32, float64, int32$"):
            tf.nn.conv2d(tf.zeros((1, 4, 4, 2), dtype), tf.zeros((3, 3, 2, 3), dtype), strides=1,
                         padding="VALID")


@pytest.mark.parametrize("op,dtype", [(lambda x: tf.nn.max_pool(x, 2, 2, "VALID"), tf.bool),
                                      (lambda x: tf.nn.avg_pool(x, 2, 2, "VALID"), tf.int32),
                                      (tf.nn.log_softmax, tf.bool), (tf.negative, tf.bool),
                                      (tf.sign, tf.bool)])
def test_dtypes_the_forward_refuses_are_refused_while_building(op, dtype):
    """TF 2.21 refuses these at build time with a TypeError; so does the op's shape rule here
    (before, the graph built and failed when it ran)."""
    with pytest.raises(TypeError, match="is not implemented for"):
        op(tf.zeros((1, 4, 4, 2), dtype))


def test_moments_and_batch_normalization():
    x = RNG.standard_normal((4, 3, 2)) * 3 + 1
    xs = tf.constant(x)
    m, v = tf.nn.moments(xs, axes=[0, 1])
    mk, _ = tf.nn.moments(xs, axes=[0, 1], keep_dims=True)
    scale, offset = np.array([1.0, 2.0]), np.array([0.5, -0.5])
    y = tf.nn.batch_normalization(xs, m, v, offset, scale, 1e-3)
    vm, vv, vmk, vy = run([m, v, mk, y])
    np.testing.assert_allclose(vm, x.mean(axis=(0, 1)))
    np.testing.assert_allclose(vv, x.var(axis=(0, 1)))
    assert vmk.shape == (1, 1, 2)
    np.testing.assert_allclose(vy, (x - vm) / np.sqrt(vv + 1e-3) * scale + offset, rtol=1e-12)
    g = tf.gradients(tf.reduce_sum(tf.square(y)), [xs])[0]
    numeric = numeric_grad(lambda: float(np.sum(((x - x.mean((0, 1))) / np.sqrt(x.var((0, 1)) + 1e-3)
                                                   * scale + offset) ** 2)), x)
    np.testing.assert_allclose(run(g), numeric, rtol=1e-5, atol=1e-6)


def test_embedding_lookup_accumulates_repeated_ids():
    params = tf.Variable(np.arange(12.0).reshape(4, 3))
    ids = tf.constant([[1, 1], [3, 1]])
    e = tf.nn.embedding_lookup(params, ids)
    g = tf.gradients(tf.reduce_sum(e), [params])[0]
    ve, vg = run([e, g])
    np.testing.assert_array_equal(ve, np.arange(12.0).reshape(4, 3)[[[1, 1], [3, 1]]])
    np.testing.assert_array_equal(vg[:, 0], [0, 3, 0, 1])
    with pytest.raises(TypeError, match="DataType float32 not in list of allowed values"):
        tf.nn.embedding_lookup(params, tf.constant([1.0]))


def test_conv2d_transpose_is_the_gradient_of_conv2d():
    x = RNG.standard_normal((2, 7, 6, 3))
    w = RNG.standard_normal((3, 3, 3, 4))
    xs = tf.constant(x)
    y = tf.nn.conv2d(xs, w, strides=2, padding="SAME")
    gy = RNG.standard_normal((2, 4, 3, 4))
    gx = tf.gradients(y, [xs], grad_ys=[tf.constant(gy)])[0]
    t = tf.nn.conv2d_transpose(tf.constant(gy), w, output_shape=[2, 7, 6, 3], strides=2, padding="SAME")
    a, b = run([gx, t])
    np.testing.assert_allclose(a, b, rtol=1e-12)


def test_one_d_pooling_as_tf_builds_it():
    x = RNG.standard_normal((2, 9, 3)).astype(np.float32)
    a = tf.nn.max_pool1d(tf.constant(x), 3, 2, "SAME")
    b = tf.nn.avg_pool1d(tf.constant(x), [1, 2, 1], [1, 2, 1], "VALID")
    assert (a.name, b.name) == ("MaxPool1d/Squeeze:0", "AvgPool1D/Squeeze:0")
    va, vb = run([a, b])
    padded = np.pad(x, ((0, 0), (1, 1), (0, 0)), constant_values=-np.inf)   # SAME: 5 windows
    np.testing.assert_array_equal(va, np.stack([padded[:, 2 * i:2 * i + 3].max(1) for i in range(5)], 1))
    np.testing.assert_allclose(vb, x[:, :8].reshape(2, 4, 2, 3).mean(2), rtol=1e-6)


def test_dropout_with_a_fed_keep_prob_as_tf1_tutorials_write_it():
    keep_prob = tf.placeholder(tf.float32)
    x = tf.ones((40, 50))
    d = tf.nn.dropout(x, keep_prob, seed=2)
    with tf.Session() as s:
        np.testing.assert_array_equal(s.run(d, {keep_prob: 1.0}), 1.0)   # evaluation: nothing dropped
        half = s.run(d, {keep_prob: 0.5})
    assert set(np.unique(half)) == {0.0, 2.0} and 0.4 < (half == 0).mean() < 0.6


def test_conv2d_transpose_batch_may_be_unknown():
    x = tf.placeholder(tf.float64, (None, 4, 3, 2))
    w = RNG.standard_normal((3, 3, 5, 2))
    y = tf.nn.conv2d_transpose(x, w, output_shape=[tf.reduce_sum(tf.zeros(1, tf.int32)), 8, 6, 5],
                               strides=2, padding="SAME")
    assert y.shape.as_list() == [None, 8, 6, 5]
    data = RNG.standard_normal((3, 4, 3, 2))
    out = run(y, {x: data})
    ref = run(tf.nn.conv2d_transpose(tf.constant(data), w, output_shape=[3, 8, 6, 5], strides=2))
    np.testing.assert_allclose(out, ref, rtol=1e-12)
    with pytest.raises(ValueError, match="height and width are ints"):
        tf.nn.conv2d_transpose(x, w, output_shape=tf.constant([3, 8, 6, 5]), strides=2)


def test_dropout_noise_shape_drops_whole_slices():
    x = tf.placeholder(tf.float32, (None, 4, 4, 6))
    d = tf.nn.dropout(x, rate=0.5, noise_shape=[8, 1, 1, 6], seed=4)
    out = run(d, {x: np.ones((8, 4, 4, 6), np.float32)})
    per_map = out.reshape(8, 16, 6)
    assert np.all(per_map == per_map[:, :1])               # one decision per (example, channel)
    assert set(np.unique(out)) == {0.0, 2.0}
    with pytest.raises(ValueError, match="noise_shape"):
        tf.nn.dropout(x, rate=0.5, noise_shape=[8, 2, 1, 6])


def test_depthwise_conv2d_is_one_group_per_channel():
    """Checked against TF 2.x when written (values and the input gradient)."""
    x = RNG.standard_normal((2, 5, 4, 3))
    w = RNG.standard_normal((3, 2, 3, 2))
    y = tf.nn.depthwise_conv2d(tf.constant(x), w, strides=[1, 1, 1, 1], padding="VALID")
    assert y.name == "depthwise:0" and y.shape.as_list() == [2, 3, 3, 6]
    got = run(y)
    for c in range(3):
        for m in range(2):
            ref = run(tf.nn.conv2d(tf.constant(x[..., c:c + 1]), w[:, :, c:c + 1, m:m + 1], 1, "VALID"))
            np.testing.assert_allclose(got[..., c * 2 + m], ref[..., 0], rtol=1e-12)
