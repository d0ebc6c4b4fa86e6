"""What ``Session.run`` hands back and takes in, as TF 2.21's ``compat.v1`` Session does (issue #30).

Recorded from TF 2.21 (graph mode): every fetched array is fresh, writable and C-contiguous --
a constant, a view of a fed array (``reshape(placeholder)``), a ``broadcast_to`` -- so changing
it changes nothing else, and changing the fed array after the run changes no result; a
placeholder fetched as itself is the fed array (TF shares it too).  ``feed_dict`` keys may be
nested structures of placeholders (an ``LSTMStateTuple``), fed from the matching parts of the
value, with TF's words when they do not match.  Losses: TF casts labels to the logits' dtype
and computes the weighted loss in float32.
"""
import collections

import numpy as np
import pytest

import staticgraph as tf


def _fetches():
    p = tf.placeholder(tf.float32, [3])
    c = tf.constant(np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3)))
    fetches = {"reshape": tf.reshape(p, [3, 1]), "const": c, "broadcast": tf.broadcast_to(p, [2, 3]),
               "transpose": tf.transpose(c * 2), "identity_const": tf.identity(c),
               "slice": c[:, 1], "sum": tf.reduce_sum(p)}
    return p, fetches


@pytest.mark.parametrize("runs", [1, 6])   # the interpreted tier, then the compiled one
def test_fetched_arrays_are_fresh_writable_and_c_contiguous(runs):
    with tf.Graph().as_default():
        p, fetches = _fetches()
        with tf.Session() as sess:
            for _ in range(runs):
                buf = np.ones(3, np.float32)
                out = sess.run(fetches, {p: buf})
            buf[0] = 7.0                                      # the user changes the fed array
            for name, a in out.items():
                if name == "sum":
                    assert isinstance(a, np.float32)
                    continue
                assert a.flags.writeable and a.flags.c_contiguous, name
                assert not np.shares_memory(a, buf), name
            assert out["reshape"][0, 0] == 1.0 and out["broadcast"][0, 0] == 1.0
            out["const"][0, 0] = 99.0                          # no "read-only" error ...
            again = sess.run(fetches["const"])                 # ... and the constant is intact
            assert again[0, 0] == 0.0 and again.flags.c_contiguous


def test_fetching_a_placeholder_returns_the_fed_array_as_tf_does():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [3])
        with tf.Session() as sess:
            buf = np.ones(3, np.float32)
            assert sess.run(p, {p: buf}) is buf


def test_a_fresh_result_is_not_copied():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [3])
        y = p * 2.0
        with tf.Session() as sess:
            src = sess.compiled([y], {p: np.ones(3, np.float32)}).source
            assert ".copy()" not in src and "_own(" not in src


def test_state_fetch_is_still_copied():
    with tf.Graph().as_default():
        v = tf.Variable(np.ones((2, 3), np.float32))
        with tf.Session() as sess:
            sess.run(v.initializer)
            a = sess.run(tf.transpose(v))
            a[0, 0] = 5.0
            assert sess.run(v)[0, 0] == 1.0


St = collections.namedtuple("St", "c h")


def test_feed_dict_keyed_by_nested_structures():
    with tf.Graph().as_default():
        a, b, c = (tf.placeholder(tf.float32, [2]) for _ in range(3))
        s = a + b + c
        with tf.Session() as sess:
            np.testing.assert_array_equal(
                sess.run(s, {(a, (b, c)): (np.ones(2), (np.ones(2), np.ones(2)))}), [3.0, 3.0])
            np.testing.assert_array_equal(
                sess.run(s, {(a, b): [np.ones(2), np.ones(2)], c: [5.0, 5.0]}), [7.0, 7.0])
            np.testing.assert_array_equal(
                sess.run(s, {St(a, b): St(np.ones(2), 2 * np.ones(2)), c: np.zeros(2)}), [3.0, 3.0])
            for _ in range(5):   # the compiled tier too
                out = sess.run([s], {St(a, b): St(np.ones(2), np.ones(2)), c: np.ones(2)})
            np.testing.assert_array_equal(out[0], [3.0, 3.0])


def test_feed_dict_structure_mismatch_has_tf_words():
    with tf.Graph().as_default():
        a, b = tf.placeholder(tf.float32, [2]), tf.placeholder(tf.float32, [2])
        with tf.Session() as sess:
            with pytest.raises(ValueError, match=r"^Could not flatten dictionary\. Key had 2 "
                               r"elements, but value had 1 elements\. Key: \[<tf\.Tensor "
                               r"'Placeholder:0' shape=\(2,\) dtype=float32>, <tf\.Tensor "
                               r"'Placeholder_1:0' shape=\(2,\) dtype=float32>\], value: "
                               r"\[array\(\[1\., 1\.\]\)\]\.$"):
                sess.run(a + b, {(a, b): (np.ones(2),)})
            with pytest.raises(ValueError, match=r"^Cannot flatten dict because this key is not "
                               r"unique: Tensor\(\"Placeholder:0\", shape=\(2,\), dtype=float32\)$"):
                sess.run(a + b, {(a, b): (np.ones(2), np.ones(2)), a: np.zeros(2)})
            assert sess.run(a + b, {a: np.ones(2), b: np.ones(2)}).tolist() == [2.0, 2.0]


def test_softmax_xent_casts_labels_to_logits_dtype():
    with tf.Graph().as_default():
        labels = tf.placeholder(tf.float64, [2, 3])
        logits = tf.placeholder(tf.float32, [2, 3])
        for fn in (tf.nn.softmax_cross_entropy_with_logits, tf.nn.softmax_cross_entropy_with_logits_v2):
            x = fn(labels=labels, logits=logits)
            assert x.dtype == tf.float32
        with tf.Session() as sess:
            got = sess.run(x, {labels: np.eye(2, 3), logits: np.zeros((2, 3))})
        np.testing.assert_allclose(got, [1.0986123, 1.0986123], rtol=1e-6)


# TF 2.21: tf.compat.v1.losses.* on float64 labels/predictions (logits for the two xents)
TF_FLOAT64_LOSSES = {
    "absolute_difference": ("float32", 0.23333333), "cosine_distance": ("float32", 0.35),
    "hinge_loss": ("float32", 0.90000004), "huber_loss": ("float32", 0.033333335),
    "log_loss": ("float32", 0.27633986), "mean_squared_error": ("float32", 0.06666667),
    "sigmoid_cross_entropy": ("float64", 0.6636602878570557),
    "softmax_cross_entropy": ("float64", 0.8106180429458618),
}


@pytest.mark.parametrize("fn", sorted(TF_FLOAT64_LOSSES))
def test_losses_compute_in_float32_as_tf(fn):
    dtype, value = TF_FLOAT64_LOSSES[fn]
    with tf.Graph().as_default():
        labels = tf.constant(np.array([[0.0, 1, 0], [1, 0, 0]]))
        predictions = tf.constant(np.array([[0.2, 0.7, 0.1], [0.6, 0.3, 0.1]]))
        loss = getattr(tf.losses, fn)(labels, predictions,
                                      **({"axis": 1} if fn == "cosine_distance" else {}))
        assert loss.dtype.name == dtype
        with tf.Session() as sess:
            got = sess.run(loss)
        assert got.dtype == np.dtype(dtype)
        assert got == np.array(value, dtype)   # float32 arithmetic: TF's very bits


def test_slice_with_a_begin_known_at_run_time():
    """TF 2.21: shapes (2, 3) and (None, 2), values, gradient and the kernel's words."""
    with tf.Graph().as_default():
        x = tf.constant(np.arange(24.0).reshape(4, 6))
        b = tf.placeholder(tf.int32, [2])
        s, s2 = tf.slice(x, b, [2, 3]), tf.slice(x, b, [-1, 2])
        assert (s.shape.as_list(), s2.shape.as_list(), s.op.type) == ([2, 3], [None, 2], "Slice")
        g = tf.gradients(tf.reduce_sum(s * s), x)[0]
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(s2, {b: [1, 2]}), [[8, 9], [14, 15], [20, 21]])
            want = np.zeros((4, 6))
            want[1:3, 2:5] = 2 * np.arange(24.0).reshape(4, 6)[1:3, 2:5]
            np.testing.assert_array_equal(sess.run(g, {b: [1, 2]}), want)
            for begin, words in (([3, 2], r"Expected size\[0\] in \[0, 1\], but got 2"),
                                 ([5, 0], r"Expected begin\[0\] in \[0, 4\], but got 5"),
                                 ([-1, 0], r"Expected begin\[0\] in \[0, 4\], but got -1")):
                with pytest.raises(tf.errors.InvalidArgumentError, match=words):
                    sess.run(s, {b: begin})
            np.testing.assert_array_equal(sess.run(s, {b: [0, 0]}), [[0, 1, 2], [6, 7, 8]])


def test_gather_axis_as_a_constant_tensor():
    with tf.Graph().as_default():
        x = tf.constant(np.arange(24.0).reshape(4, 6))
        g = tf.gather(x, [0, 2], axis=tf.constant(1))
        assert g.shape.as_list() == [4, 2]
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(g)[:, 1], [2, 8, 14, 20])


def test_a_one_piece_split_is_an_array():
    """``tf.split(x, 1)[0]`` (found by TF's split_op_test): the op declares several outputs and
    returns a tuple; a node with one output must hand the plan the array, not the tuple."""
    with tf.Graph().as_default():
        x = tf.constant(np.arange(6.0).reshape(2, 3))
        piece = tf.split(x, 1)[0]
        row = tf.unstack(tf.constant([[1.0, 2.0]]))[0]
        with tf.Session() as sess:
            for _ in range(3):   # both tiers
                got = sess.run([piece, piece * 2.0, row])
                np.testing.assert_array_equal(got[0], np.arange(6.0).reshape(2, 3))
                np.testing.assert_array_equal(got[1], 2 * np.arange(6.0).reshape(2, 3))
                np.testing.assert_array_equal(got[2], [1.0, 2.0])
