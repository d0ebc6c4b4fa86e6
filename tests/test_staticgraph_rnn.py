"""tf.nn.rnn_cell, static_rnn, dynamic_rnn: TF's names, TF's equations (written here in numpy),
sequence_length semantics, finite differences and the eager engine on the same weights."""
from __future__ import annotations

import numpy as np
import pytest

import dyngraph as torch
import staticgraph as tf
from comparisons.rnn_layouts import tf_lstm_to_torch
from tests.gradcheck import numeric_grad

pytestmark = pytest.mark.usefixtures("fresh_graph")

rc = tf.nn.rnn_cell
RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 5, 2)).astype(np.float32)       # batch 3, time 5, depth 2
LENGTHS = np.array([5, 2, 3], np.int32)


def _sig(x):
    return 1 / (1 + np.exp(-x))


def _ref_step(kind, v, x, state):
    """TF 1.x's cell equations (rnn_cell_impl / legacy_cells), gates i, j, f, o and r, u."""
    if kind == "basic_lstm":
        c, h = state
        i, j, f, o = np.split(np.concatenate([x, h], 1) @ v["kernel"] + v["bias"], 4, 1)
        c = c * _sig(f + 1.0) + _sig(i) * np.tanh(j)
        return np.tanh(c) * _sig(o), (c, np.tanh(c) * _sig(o))
    if kind == "gru":
        h = state
        r, u = np.split(_sig(np.concatenate([x, h], 1) @ v["gates/kernel"] + v["gates/bias"]), 2, 1)
        cand = np.tanh(np.concatenate([x, r * h], 1) @ v["candidate/kernel"] + v["candidate/bias"])
        h = u * h + (1 - u) * cand
        return h, h
    h = np.tanh(np.concatenate([x, state], 1) @ v["kernel"] + v["bias"])
    return h, h


CELLS = {"basic_lstm": (lambda: rc.BasicLSTMCell(4), "basic_lstm_cell"),
         "gru": (lambda: rc.GRUCell(4), "gru_cell"),
         "basic_rnn": (lambda: rc.BasicRNNCell(4), "basic_rnn_cell")}


def _ref_rnn(kind, v, x, lengths=None):
    b = x.shape[0]
    state = (np.zeros((b, 4)), np.zeros((b, 4))) if kind == "basic_lstm" else np.zeros((b, 4))
    outs = []
    for t in range(x.shape[1]):
        out, new = _ref_step(kind, v, x[:, t], state)
        if lengths is not None:
            done = (t >= lengths)[:, None]
            out = np.where(done, 0, out)
            new = (tuple(np.where(done, s, n) for s, n in zip(state, new)) if kind == "basic_lstm"
                   else np.where(done, state, new))
        outs.append(out)
        state = new
    return np.stack(outs, 1), state


def _run(fetches, feed):
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        values = {v.name.split("_cell/")[1][:-2]: s.run(v) for v in tf.global_variables()}
        return s.run(fetches, feed), values


@pytest.mark.parametrize("kind", sorted(CELLS))
@pytest.mark.parametrize("how", ["static", "dynamic"])
@pytest.mark.parametrize("with_lengths", [False, True])
def test_cells_follow_tfs_equations_and_sequence_length(kind, how, with_lengths):
    make, _ = CELLS[kind]
    x = tf.placeholder(tf.float32, (None, 5, 2))
    sl = tf.placeholder(tf.int32, (None,)) if with_lengths else None
    if how == "static":
        out, state = tf.nn.static_rnn(make(), tf.unstack(x, axis=1), dtype=tf.float32,
                                      sequence_length=sl)
        out = tf.stack(out, 1)
    else:
        out, state = tf.nn.dynamic_rnn(make(), x, dtype=tf.float32, sequence_length=sl)
    feed = {x: X, **({sl: LENGTHS} if with_lengths else {})}
    (o, s), v = _run([out, state], feed)
    ref_o, ref_s = _ref_rnn(kind, v, X.astype(np.float64), LENGTHS if with_lengths else None)
    np.testing.assert_allclose(o, ref_o, atol=1e-5)
    np.testing.assert_allclose(np.asarray(s), np.asarray(ref_s), atol=1e-5)
    if with_lengths:
        assert np.all(o[1, 2:] == 0) and np.all(o[2, 3:] == 0)


def test_variable_names_are_tfs():
    x = tf.placeholder(tf.float32, (2, 5, 3))
    xs = tf.unstack(x, axis=1)
    tf.nn.static_rnn(rc.BasicLSTMCell(4), xs, dtype=tf.float32)
    tf.nn.static_rnn(rc.LSTMCell(4, num_proj=2), xs, dtype=tf.float32, scope="p")
    tf.nn.static_rnn(rc.GRUCell(4), xs, dtype=tf.float32, scope="g")
    tf.nn.static_rnn(rc.MultiRNNCell([rc.BasicLSTMCell(4), rc.GRUCell(5)]), xs, dtype=tf.float32,
                     scope="m")
    got = [(v.name, v.shape.as_list()) for v in tf.global_variables()]
    assert got == [
        ("rnn/basic_lstm_cell/kernel:0", [7, 16]), ("rnn/basic_lstm_cell/bias:0", [16]),
        ("p/lstm_cell/kernel:0", [5, 16]), ("p/lstm_cell/bias:0", [16]),
        ("p/lstm_cell/projection/kernel:0", [4, 2]),
        ("g/gru_cell/gates/kernel:0", [7, 8]), ("g/gru_cell/gates/bias:0", [8]),
        ("g/gru_cell/candidate/kernel:0", [7, 4]), ("g/gru_cell/candidate/bias:0", [4]),
        ("m/multi_rnn_cell/cell_0/basic_lstm_cell/kernel:0", [7, 16]),
        ("m/multi_rnn_cell/cell_0/basic_lstm_cell/bias:0", [16]),
        ("m/multi_rnn_cell/cell_1/gru_cell/gates/kernel:0", [9, 10]),
        ("m/multi_rnn_cell/cell_1/gru_cell/gates/bias:0", [10]),
        ("m/multi_rnn_cell/cell_1/gru_cell/candidate/kernel:0", [9, 5]),
        ("m/multi_rnn_cell/cell_1/gru_cell/candidate/bias:0", [5])]
    names = [o.name for o in tf.get_default_graph().get_operations()]
    assert "rnn/basic_lstm_cell/kernel/Initializer/random_uniform/RandomUniform" in names
    assert "rnn/basic_lstm_cell/Mul_14" in names            # one name scope for every step (TF)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        gates_bias = [v for v in tf.global_variables() if v.name == "g/gru_cell/gates/bias:0"][0]
        assert np.all(s.run(gates_bias) == 1)                  # TF starts the gates open


def test_state_shapes_and_sizes():
    lstm = rc.LSTMCell(4, num_proj=2)
    assert lstm.state_size == rc.LSTMStateTuple(4, 2) and lstm.output_size == 2
    multi = rc.MultiRNNCell([rc.BasicLSTMCell(4), rc.GRUCell(5)])
    assert multi.state_size == (rc.LSTMStateTuple(4, 4), 5) and multi.output_size == 5
    x = tf.placeholder(tf.float32, (None, 5, 3))
    out, state = tf.nn.static_rnn(multi, tf.unstack(x, axis=1), dtype=tf.float32)
    assert isinstance(state[0], rc.LSTMStateTuple)
    assert out[0].shape.as_list() == [None, 5] and state[1].shape.as_list() == [None, 5]
    zs = lstm.zero_state(tf.shape(x)[0], tf.float32)
    with tf.Session() as s:
        c, h = s.run(zs, {x: np.zeros((7, 5, 3))})
    assert c.shape == (7, 4) and h.shape == (7, 2) and not c.any()


@pytest.mark.parametrize("how", ["static", "dynamic"])
def test_static_and_dynamic_rnn_match_the_eager_lstm_on_the_same_weights(how):
    """BasicLSTMCell (gates i, j, f, o, forget_bias 1) vs nn.LSTM (i, f, g, o): same numbers.

    Seeded: the kernel's initial values decide how the two float32 summation orders round (an
    unseeded run differed by 1.006e-5 relative in one CI run, over ``rtol=1e-5`` alone)."""
    tf.set_random_seed(0)
    x = tf.placeholder(tf.float32, (3, 5, 2))
    if how == "static":
        out, state = tf.nn.static_rnn(rc.BasicLSTMCell(4), tf.unstack(x, axis=1), dtype=tf.float32)
        out = tf.stack(out)
    else:
        out, state = tf.nn.dynamic_rnn(rc.BasicLSTMCell(4), x, dtype=tf.float32)
    loss = tf.reduce_sum(out ** 2) + tf.reduce_sum(state.c)
    kernel, bias = tf.global_variables()
    grads = tf.gradients(loss, [kernel, x])
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        s.run(bias.assign(RNG.standard_normal(16).astype(np.float32)))
        k, b = s.run(kernel), s.run(bias)
        sl, (gk, gx) = s.run([loss, grads], {x: X})
    lstm = torch.nn.LSTM(2, 4, batch_first=True)
    lstm.load_state_dict({n: torch.tensor(a) for n, a in tf_lstm_to_torch(k, b, 2).items()})
    xt = torch.tensor(X, requires_grad=True)
    eo, (h, c) = lstm(xt)
    eloss = (eo * eo).sum() + c.sum()
    eloss.backward()
    np.testing.assert_allclose(eloss.item(), sl, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(xt.grad.numpy(), gx, atol=1e-5)
    gih = lstm.weight_ih_l0.grad.numpy()          # TF's kernel rows for x, gate f is PyTorch's 2nd
    np.testing.assert_allclose(gih[4:8].T, gk[:2, 8:12], atol=1e-5)


def test_gradients_match_finite_differences():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float64, (2, 3, 2))
        sl = tf.constant([3, 1])
        out, state = tf.nn.static_rnn(rc.GRUCell(3), tf.unstack(x, axis=1), dtype=tf.float64,
                                      sequence_length=sl)
        loss = tf.reduce_sum(tf.stack(out) ** 2) + tf.reduce_sum(state ** 3)
        kernel = tf.global_variables()[0]
        gk, gx = tf.gradients(loss, [kernel, x])
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            xv = RNG.standard_normal((2, 3, 2))
            kv = s.run(kernel)
            a_gk, a_gx = s.run([gk, gx], {x: xv})

            def f():
                kernel.load(kv, s)
                return s.run(loss, {x: xv})
            np.testing.assert_allclose(a_gx, numeric_grad(f, xv), atol=1e-6)
            np.testing.assert_allclose(a_gk, numeric_grad(f, kv), atol=1e-6)


def test_dropout_wrapper():
    x = tf.placeholder(tf.float32, (64, 3, 2))
    cell = rc.DropoutWrapper(rc.BasicLSTMCell(8), output_keep_prob=0.5, seed=1)
    out, _ = tf.nn.static_rnn(cell, tf.unstack(x, axis=1), dtype=tf.float32)
    same = rc.DropoutWrapper(rc.BasicLSTMCell(8), input_keep_prob=1.0)
    assert same.state_size == rc.LSTMStateTuple(8, 8)
    tf.set_random_seed(0)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        o = s.run(out[0], {x: np.ones((64, 3, 2))})
    zero = np.mean(o == 0)
    assert 0.35 < zero < 0.65
    with pytest.raises(ValueError, match="Parameter output_keep_prob must be between 0 and 1. Received 1.5"):
        rc.DropoutWrapper(rc.GRUCell(2), output_keep_prob=1.5)


def test_errors_are_tfs():
    x = tf.placeholder(tf.float32, (2, 3))
    with pytest.raises(TypeError, match="Argument `inputs` must be a sequence. Received: "):
        tf.nn.static_rnn(rc.GRUCell(2), x, dtype=tf.float32)
    with pytest.raises(ValueError, match="Argument `inputs` must not be empty."):
        tf.nn.static_rnn(rc.GRUCell(2), [], dtype=tf.float32)
    with pytest.raises(ValueError, match="If no initial_state is provided, argument `dtype` must "
                                         "be specified"):
        tf.nn.static_rnn(rc.GRUCell(2), [x])
    tf.nn.static_rnn(rc.GRUCell(2), [x], dtype=tf.float32)
    with pytest.raises(ValueError, match="Variable rnn/gru_cell/gates/kernel already exists"):
        tf.nn.static_rnn(rc.GRUCell(2), [x], dtype=tf.float32)
    with pytest.raises(ValueError, match="Expected inputs.shape\\[-1\\] to be known"):
        rc.GRUCell(2)(tf.placeholder(tf.float32, (2, None)), tf.zeros((2, 2)))
    with pytest.raises(TypeError, match="is not an RNNCell: 'output_size' property is missing, "
                                        "'state_size' property is missing, either 'zero_state' "
                                        "or 'get_initial_state' method is required."):
        tf.nn.static_rnn(lambda a, b: a, [x], dtype=tf.float32)


def test_reverse_and_reverse_sequence():
    x = tf.constant([[1, 2, 3, 0], [4, 5, 0, 0]])
    with tf.Session() as s:
        r, rs = s.run([tf.reverse(x, [1]), tf.reverse_sequence(x, [3, 2], seq_axis=1, batch_axis=0)])
    assert r.tolist() == [[0, 3, 2, 1], [0, 0, 5, 4]] and rs.tolist() == [[3, 2, 1, 0], [5, 4, 0, 0]]
    with pytest.raises(ValueError, match="out of valid range"):
        tf.reverse(x, [2])


def test_static_bidirectional_rnn_reads_each_row_backwards_within_its_length():
    x = tf.placeholder(tf.float32, (3, 5, 2))
    outs, st_fw, st_bw = tf.nn.static_bidirectional_rnn(
        rc.GRUCell(4), rc.BasicLSTMCell(3), tf.unstack(x, axis=1), dtype=tf.float32,
        sequence_length=LENGTHS)
    assert [v.name for v in tf.global_variables()][::4] == [
        "bidirectional_rnn/fw/gru_cell/gates/kernel:0", "bidirectional_rnn/bw/basic_lstm_cell/kernel:0"]
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        o, f, b = s.run([tf.stack(outs, 1), st_fw, st_bw], {x: X})
    assert o.shape == (3, 5, 7)
    for row, n in enumerate(LENGTHS):
        np.testing.assert_allclose(o[row, n - 1, :4], f[row], atol=1e-6)   # forward ends at n - 1
        np.testing.assert_allclose(o[row, 0, 4:], b.h[row], atol=1e-6)     # backward ends at 0
        assert not o[row, n:].any()


def test_dynamic_rnn_is_one_graph_for_every_length():
    x = tf.placeholder(tf.float32, (None, None, 2))
    cell = rc.GRUCell(4)
    out, state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    assert out.shape.as_list() == [None, None, 4] and state.shape.as_list() == [None, 4]
    assert [v.name for v in tf.global_variables()][0] == "rnn/gru_cell/gates/kernel:0"
    assert [op.type for op in tf.get_default_graph().get_operations()].count("While") == 1
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        v = {w.name.split("_cell/")[1][:-2]: s.run(w) for w in tf.global_variables()}
        for steps, batch in ((3, 2), (7, 5)):
            xv = RNG.standard_normal((batch, steps, 2)).astype(np.float32)
            o, h = s.run([out, state], {x: xv})
            ref_o, ref_h = _ref_rnn("gru", v, xv.astype(np.float64))
            np.testing.assert_allclose(o, ref_o, atol=1e-5)
            np.testing.assert_allclose(h, ref_h, atol=1e-5)


def test_dynamic_rnn_time_major_and_static_time():
    x = tf.placeholder(tf.float32, (5, 3, 2))
    out, state = tf.nn.dynamic_rnn(rc.BasicLSTMCell(4), x, dtype=tf.float32, time_major=True)
    assert out.shape.as_list() == [5, 3, 4] and isinstance(state, rc.LSTMStateTuple)
    x2 = tf.placeholder(tf.float32, (3, 5, 2))
    out2, _ = tf.nn.dynamic_rnn(rc.BasicLSTMCell(4), x2, dtype=tf.float32, scope="b")
    assert out2.shape.as_list() == [3, 5, 4]
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        k, b = tf.global_variables()[:2]
        s.run([tf.global_variables()[2].assign(k), tf.global_variables()[3].assign(b)])
        o1, o2 = s.run([out, out2], {x: X.transpose(1, 0, 2), x2: X})
    np.testing.assert_allclose(o1.transpose(1, 0, 2), o2, atol=1e-6)


def test_dynamic_and_static_rnn_agree_with_gradients():
    x = tf.placeholder(tf.float64, (3, 5, 2))
    sl = tf.constant(LENGTHS)
    cell = rc.LSTMCell(3, num_proj=2)
    d_out, d_state = tf.nn.dynamic_rnn(cell, x, sequence_length=sl, dtype=tf.float64)
    s_out, s_state = tf.nn.static_rnn(cell, tf.unstack(x, axis=1), sequence_length=sl,
                                      dtype=tf.float64, scope="rnn")   # the same variables
    losses = [tf.reduce_sum(o ** 2) + tf.reduce_sum(st.c) for o, st in
              ((d_out, d_state), (tf.stack(s_out, 1), s_state))]
    kernel = tf.global_variables()[0]
    grads = [tf.gradients(loss, [kernel, x]) for loss in losses]
    xv = RNG.standard_normal((3, 5, 2))
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        kv = s.run(kernel)
        (dk, dx), (sk, sx) = s.run(grads, {x: xv})

        def f():
            kernel.load(kv, s)
            return s.run(losses[0], {x: xv})
        np.testing.assert_allclose(dk, sk, atol=1e-10)
        np.testing.assert_allclose(dx, sx, atol=1e-10)
        np.testing.assert_allclose(dx, numeric_grad(f, xv), atol=1e-6)
        np.testing.assert_allclose(dk, numeric_grad(f, kv), atol=1e-6)


def test_bidirectional_dynamic_rnn():
    x = tf.placeholder(tf.float32, (3, None, 2))
    (o_fw, o_bw), (st_fw, st_bw) = tf.nn.bidirectional_dynamic_rnn(
        rc.BasicLSTMCell(4), rc.GRUCell(3), x, sequence_length=LENGTHS, dtype=tf.float32)
    assert [v.name for v in tf.global_variables()][::2][:2] == [
        "bidirectional_rnn/fw/basic_lstm_cell/kernel:0", "bidirectional_rnn/bw/gru_cell/gates/kernel:0"]
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        f, b, sf, sb = s.run([o_fw, o_bw, st_fw, st_bw], {x: X})
    for row, n in enumerate(LENGTHS):
        np.testing.assert_allclose(f[row, n - 1], sf.h[row], atol=1e-6)
        np.testing.assert_allclose(b[row, 0], sb[row], atol=1e-6)
        assert not f[row, n:].any() and not b[row, n:].any()


def test_dynamic_rnn_errors():
    with pytest.raises(ValueError, match="If no initial_state is provided, argument `dtype` must "
                                         "be specified"):
        tf.nn.dynamic_rnn(rc.GRUCell(2), tf.zeros((2, 3, 1)))
    with pytest.raises(ValueError, match=r"Argument sequence_length must be a vector of length "
                                         r"batch_size. Received sequence_length=.* of shape: \(1, 2\)"):
        tf.nn.dynamic_rnn(rc.GRUCell(2), tf.zeros((2, 3, 1)), sequence_length=[[1, 2]],
                          dtype=tf.float32)


def test_initial_state_continues_a_sequence():
    x = tf.placeholder(tf.float32, (3, 5, 2))
    cell = rc.BasicLSTMCell(4)
    whole, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    _, mid = tf.nn.dynamic_rnn(cell, x[:, :2], dtype=tf.float32)
    rest, _ = tf.nn.dynamic_rnn(cell, x[:, 2:], initial_state=mid)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        w, r = s.run([whole, rest], {x: X})
    np.testing.assert_allclose(w[:, 2:], r, atol=1e-6)
