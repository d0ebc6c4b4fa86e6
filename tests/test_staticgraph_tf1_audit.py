"""Differences found by running everyday TF1 programs under real TF (tf.compat.v1, graph mode)
and under staticgraph; every expectation here is what TF 2.21 printed for the same program."""
import os

import numpy as np
import pytest

import staticgraph as tf
from tests.tf_errors import RUN, op_message


pytestmark = pytest.mark.usefixtures("fresh_graph")


def _run(*fetches, feed=None):
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        return s.run(list(fetches), feed)


# --- names, reprs, collections ------------------------------------------------------------

def test_tensor_repr_is_tfs_and_str_stays():
    x = tf.placeholder(tf.float32, [None, 2])
    u = tf.placeholder(tf.float32)
    assert repr(x) == "<tf.Tensor 'Placeholder:0' shape=(None, 2) dtype=float32>"
    assert str(x) == 'Tensor("Placeholder:0", shape=(None, 2), dtype=float32)'
    assert repr(u) == "<tf.Tensor 'Placeholder_1:0' shape=<unknown> dtype=float32>"
    assert str((x,)) == "(<tf.Tensor 'Placeholder:0' shape=(None, 2) dtype=float32>,)"


def test_collection_keys_hide_the_variable_scope_store():
    with tf.variable_scope("vs"):
        tf.get_variable("w", [1])
    tf.add_to_collection("mine", 3)
    assert tf.get_default_graph().get_all_collection_keys() == [
        "variables", "trainable_variables", "mine"]


# --- variables --------------------------------------------------------------------------------

def test_module_level_assign_functions_and_uninitialized_report():
    v = tf.Variable([1.0, 2.0], name="v")
    late = tf.Variable(0.0, name="late")
    with tf.Session() as s:
        s.run(v.initializer)
        assert s.run(tf.report_uninitialized_variables()).tolist() == [b"late"]
        assert s.run(tf.is_variable_initialized(v)) and not s.run(tf.is_variable_initialized(late))
        assert s.run(tf.assign(v, [5.0, 6.0])).tolist() == [5.0, 6.0]
        assert s.run(tf.assign_add(v, [1.0, 1.0])).tolist() == [6.0, 7.0]
        assert s.run(tf.assign_sub(v, [1.0, 1.0])).tolist() == [5.0, 6.0]
        s.run(late.initializer)
        assert s.run(tf.report_uninitialized_variables()).tolist() == []
    assert tf.assign(v, [1.0, 1.0]).op.type == "AssignVariableOp"


def test_assign_of_wrong_shape_uses_tfs_words():
    v = tf.Variable([1.0, 2.0], name="vi")
    with pytest.raises(ValueError, match=r"^Cannot assign value to variable ' vi:0': Shape mismatch."
                                         r"The variable shape \(2,\), and the assigned value shape "
                                         r"\(3,\) are incompatible"):
        v.assign([1.0, 2.0, 3.0])


# --- ops --------------------------------------------------------------------------------------

def test_tf1_div_is_floor_division_for_integers():
    a, b = tf.constant([7, -7, 7, -7]), tf.constant([2, 2, -2, -2])
    d, f = tf.div(a, b), tf.div(tf.cast(a, tf.float32), 2.0)
    assert (d.dtype, d.name, d.op.type) == (tf.int32, "div:0", "FloorDiv")
    assert f.dtype == tf.float32 and f.op.type == "RealDiv"
    assert [x.tolist() for x in _run(d, f)] == [[3, -4, -4, 3], [3.5, -3.5, 3.5, -3.5]]


def test_tf1_math_conveniences():
    a, b = tf.constant([7, -7, 7, -7]), tf.constant([2, 2, -2, -2])
    x = tf.constant([np.nan, np.inf, -np.inf, 1.0])
    ts = [tf.truncatediv(a, b), tf.to_float(a), tf.to_int32(tf.constant([1.7, -1.7])),
          tf.to_int64(a), tf.is_nan(x), tf.is_inf(x), tf.is_finite(x),
          tf.div_no_nan(1.0, tf.constant([0.0, 2.0])), tf.saturate_cast(tf.constant([300.0, -5.0]), tf.uint8),
          tf.log_sigmoid(tf.constant([-7.0, 7.0])), tf.count_nonzero(tf.constant([[0, 1], [2, 3]])),
          tf.eye(2, 3), tf.math.argmax(tf.constant([[1, 3], [4, 0]]), 1), tf.math.add_n([a, b]),
          tf.nn.in_top_k(tf.constant([[0.1, 0.9, 0.9], [0.5, 0.2, 0.3]]), tf.constant([2, 1]), 1)]
    assert [t.dtype for t in ts] == [tf.int32, tf.float32, tf.int32, tf.int64, tf.bool, tf.bool,
                                     tf.bool, tf.float32, tf.uint8, tf.float32, tf.int64, tf.float32,
                                     tf.int64, tf.int32, tf.bool]
    out = _run(*ts)
    assert out[0].tolist() == [3, -3, -3, 3]
    assert out[2].tolist() == [1, -1]
    assert out[4].tolist() == [True, False, False, False]
    assert out[5].tolist() == [False, True, True, False]
    assert out[6].tolist() == [False, False, False, True]
    assert out[7].tolist() == [0.0, 0.5] and out[8].tolist() == [255, 0]
    np.testing.assert_allclose(out[9], [-7.000911, -0.000911416], rtol=1e-5)
    assert out[10] == 3 and out[11].tolist() == [[1, 0, 0], [0, 1, 0]]
    assert out[12].tolist() == [1, 0] and out[13].tolist() == [9, -5, 5, -9]
    assert out[14].tolist() == [True, False]     # a tie with the top value counts as in the top k


def test_xor_and_or_operators_on_bools_as_tf():
    a, b = tf.constant([True, True, False]), tf.constant([True, False, False])
    x, n, o = a ^ b, a & b, a | b
    assert (x.name, n.name, o.name) == ("xor:0", "and:0", "or:0")
    assert [v.tolist() for v in _run(x, n, o)] == [[False, True, False], [True, False, False],
                                                   [True, True, False]]


def test_one_hot_takes_the_dtype_of_on_off_values_and_any_axis():
    oh2 = tf.one_hot([0, 2], 3, on_value=5, off_value=-1)
    oh3 = tf.one_hot([[0, 2], [1, 1]], 3, axis=0)
    oh5 = tf.one_hot([0, 1], 3, on_value=1.0)
    assert (oh2.dtype, oh2.name, oh3.shape.as_list(), oh5.dtype) == (tf.int32, "one_hot:0", [3, 2, 2],
                                                                     tf.float32)
    a, b, c = _run(oh2, oh3, oh5)
    assert a.tolist() == [[5, -1, -1], [-1, -1, 5]]
    assert b.tolist() == [[[1, 0], [0, 0]], [[0, 0], [1, 1]], [[0, 1], [0, 0]]]
    assert c.tolist() == [[1, 0, 0], [0, 1, 0]]


# --- checkpoints ------------------------------------------------------------------------------

def test_checkpoint_files_state_and_reader_as_tf(tmp_path):
    d = str(tmp_path)
    with tf.variable_scope("net"):
        w = tf.get_variable("w", initializer=tf.constant([[1.0, 2.0], [3.0, 4.0]]))
        tf.get_variable("b", initializer=tf.constant([5, 6]))
    saver = tf.train.Saver()
    assert tf.train.get_checkpoint_state(d) is None
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        p = saver.save(s, d + "/m", global_step=3)
        with pytest.raises(ValueError, match="^Can't load save_path when it is None."):
            saver.restore(s, None)
    assert sorted(os.listdir(d)) == ["checkpoint", "m-3.data-00000-of-00001", "m-3.index", "m-3.meta"]
    assert open(d + "/checkpoint").read() == (f'model_checkpoint_path: "{d}/m-3"\n'
                                               f'all_model_checkpoint_paths: "{d}/m-3"\n')
    cs = tf.train.get_checkpoint_state(d)
    assert cs.model_checkpoint_path == p and cs.all_model_checkpoint_paths == [p]
    assert tf.train.checkpoint_exists(p) and not tf.train.checkpoint_exists(d + "/nope")
    r = tf.train.NewCheckpointReader(p)
    assert r.get_variable_to_shape_map() == {"net/w": [2, 2], "net/b": [2]}
    assert r.get_variable_to_dtype_map() == {"net/w": tf.float32, "net/b": tf.int32}
    assert r.has_tensor("net/w") and r.get_tensor("net/b").tolist() == [5, 6]
    assert r.debug_string() == b"net/b (DT_INT32) [2]\nnet/w (DT_FLOAT) [2, 2]\n"
    with pytest.raises(tf.errors.NotFoundError, match="^Key zz not found in checkpoint"):
        r.get_tensor("zz")
    with pytest.raises(tf.errors.NotFoundError, match="^Unsuccessful TensorSliceReader constructor"):
        tf.train.load_checkpoint(d + "/nope")
    tf.reset_default_graph()
    tf.Variable(1.0, name="zzz")
    with tf.Session() as s, pytest.raises(tf.errors.NotFoundError,
                                          match="^Restoring from checkpoint failed. This is most likely"):
        tf.train.Saver().restore(s, p)
    del w


def test_relative_checkpoint_paths_stay_relative(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    tf.Variable(1.0, name="v")
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        assert tf.train.Saver().save(s, "rel") == "rel"
    assert open("checkpoint").read() == 'model_checkpoint_path: "rel"\nall_model_checkpoint_paths: "rel"\n'
    assert tf.train.latest_checkpoint(".") == "./rel"


# --- gradients and fetches ------------------------------------------------------------------

def test_a_stop_tensor_listed_in_xs_still_gets_its_gradient():
    x = tf.Variable(2.0, name="xv")
    y = x * x
    gx, gy = tf.gradients(y * 3, [x, y], stop_gradients=[y])
    z = tf.stop_gradient(y) + x
    u = tf.Variable(1.0, name="u")
    g_sum = tf.gradients(y + y * 2, [x, u])
    assert gx is None and gy.name == "gradients/mul_1_grad/Mul:0"
    assert g_sum[0].name == "gradients_1/AddN_1:0" and g_sum[1] is None
    assert _run(gy, tf.gradients(z, x)[0], g_sum[0]) == [3.0, 1.0, 12.0]


def test_fetching_none_or_a_number_uses_tf2s_words():
    tf.constant(1)
    with tf.Session() as s:
        with pytest.raises(TypeError, match='^Argument `fetch` = None has invalid type "NoneType". '
                                            'Cannot be None$'):
            s.run([None])
        with pytest.raises(TypeError, match='^Argument `fetch` = 2.5 has invalid type "float" must be '
                                            r'a string or Tensor. \(Can not convert a float into a '
                                            r'Tensor or Operation.\)$'):
            s.run(2.5)


# --- optimizers -------------------------------------------------------------------------------

def test_optimizer_ops_slots_and_names_as_tf():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    w = tf.get_variable("w", initializer=tf.constant([[0.1], [0.2]]))
    b = tf.Variable(0.0, name="b")
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - tf.constant([[1.0], [0.0]])))
    gs = tf.train.get_or_create_global_step()
    seen = {}
    for key, opt in [("sgd", tf.train.GradientDescentOptimizer(0.1)),
                     ("mom", tf.train.MomentumOptimizer(0.1, 0.9)),
                     ("adam", tf.train.AdamOptimizer(0.01)),
                     ("rms", tf.train.RMSPropOptimizer(0.01)),
                     ("rmsc", tf.train.RMSPropOptimizer(0.01, momentum=0.9, centered=True)),
                     ("adag", tf.train.AdagradOptimizer(0.1)),
                     ("adad", tf.train.AdadeltaOptimizer(1.0))]:
        with tf.name_scope(key):
            op = opt.minimize(loss, global_step=gs if key == "adam" else None)
        seen[key] = (op.name, op.type, opt.get_name(), opt.get_slot_names(),
                     [opt.get_slot(w, n).name for n in opt.get_slot_names()])
    assert seen == {
        "sgd": ("sgd/GradientDescent", "NoOp", "GradientDescent", [], []),
        "mom": ("mom/Momentum", "NoOp", "Momentum", ["momentum"], ["w/Momentum:0"]),
        "adam": ("adam/Adam", "AssignAddVariableOp", "Adam", ["m", "v"], ["w/Adam:0", "w/Adam_1:0"]),
        "rms": ("rms/RMSProp", "NoOp", "RMSProp", ["momentum", "rms"], ["w/RMSProp_1:0", "w/RMSProp:0"]),
        "rmsc": ("rmsc/RMSProp", "NoOp", "RMSProp", ["mg", "momentum", "rms"],
                 ["w/RMSProp_3:0", "w/RMSProp_4:0", "w/RMSProp_2:0"]),
        "adag": ("adag/Adagrad", "NoOp", "Adagrad", ["accumulator"], ["w/Adagrad:0"]),
        "adad": ("adad/Adadelta", "NoOp", "Adadelta", ["accum", "accum_update"],
                 ["w/Adadelta:0", "w/Adadelta_1:0"]),
    }
    assert [v.name for v in tf.global_variables() if "power" in v.name] == [
        "adam/beta1_power:0", "adam/beta2_power:0"]
    pairs = tf.train.GradientDescentOptimizer(0.1).compute_gradients(loss)
    applied = tf.train.GradientDescentOptimizer(0.1).apply_gradients(pairs, global_step=gs,
                                                                      name="myapply")
    assert (applied.name, applied.type) == ("myapply", "AssignAddVariableOp")


def test_adadelta_follows_tf1():
    w = tf.Variable([[0.1], [0.2]], name="w")
    loss = tf.reduce_mean(tf.square(tf.matmul(tf.constant([[1.0, 2.0], [3.0, 4.0]]), w) - 1.0))
    step = tf.train.AdadeltaOptimizer(1.0).minimize(loss)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        for _ in range(3):
            s.run(step)
        np.testing.assert_allclose(s.run(w), [[0.10131511], [0.20133774]], rtol=1e-5)


# --- printing ---------------------------------------------------------------------------------

def test_tf_print_formats_values_structures_and_strings_as_tf(capsys):
    import sys
    x = tf.constant([[1.0, 2.5], [3.0, 4.0]])
    i = tf.constant([1, 2, 3])
    ops = [tf.print(x, i, "lit", tf.constant("hello"), output_stream=sys.stdout),
           tf.print(tf.range(30), output_stream=sys.stdout),
           tf.print({"a": i, "b": [x, 2]}, output_stream=sys.stdout, sep="|", end="!\n"),
           tf.print(tf.constant(True), tf.constant(3.0), tf.constant([[[1, 2]]]), output_stream=sys.stdout),
           tf.print(tf.constant([1e-8, 1e8, 0.1234567]), tf.constant(np.float64(0.1)), output_stream=sys.stdout),
           tf.print("a", i, [1, "z"], sep="|", output_stream=sys.stdout),
           tf.print(tf.ones([2, 2, 2]), tf.ones([7, 7]), tf.constant(['a"b', "c"]), output_stream=sys.stdout),
           tf.print(tf.range(10), summarize=2, output_stream=sys.stdout)]
    with tf.Session() as s:
        for op in ops:
            s.run(op)
    assert capsys.readouterr().out == (
        '[[1 2.5]\n [3 4]] [1 2 3] lit "hello"\n'
        "[0 1 2 ... 27 28 29]\n"
        "{'a': [1 2 3], 'b': [[[1 2.5]\n [3 4]], 2]}!\n"
        "1 3 [[[1 2]]]\n"
        "[1e-08 1e+08 0.123456702] 0.1\n"
        "a|[1 2 3]|[1, 'z']\n"
        "[[[1 1]\n  [1 1]]\n\n [[1 1]\n  [1 1]]] [[1 1 1 ... 1 1 1]\n [1 1 1 ... 1 1 1]\n"
        " [1 1 1 ... 1 1 1]\n ...\n [1 1 1 ... 1 1 1]\n [1 1 1 ... 1 1 1]\n [1 1 1 ... 1 1 1]]"
        ' ["a\\"b" "c"]\n'
        "[0 1 ... 8 9]\n")


def test_tf1_Print_shows_strings_unquoted(capsys):
    x = tf.constant([[1.0, 2.5], [3.0, 4.0]])
    p = tf.Print(x, [x, tf.constant([1, 2, 3]), tf.constant("hello")], message="dbg: ")
    with tf.Session() as s:
        s.run(p)
    assert capsys.readouterr().err == "dbg: [[1 2.5][3...]...][1 2 3][hello]\n"


# --- losses -----------------------------------------------------------------------------------

def test_more_tf1_losses_and_positional_v2_cross_entropy():
    lab = tf.constant([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    pred = tf.constant([[0.8, 0.1], [0.3, 0.6], [0.5, 0.5]])
    logits = tf.constant([[2.0, -1.0], [0.5, 1.5], [-0.3, 0.2]])
    ts = [tf.losses.hinge_loss(lab, logits),
          tf.losses.cosine_distance(tf.nn.l2_normalize(lab, 1), tf.nn.l2_normalize(pred, 1), axis=1),
          tf.nn.weighted_cross_entropy_with_logits(labels=lab, logits=logits, pos_weight=2.0),
          tf.nn.softmax_cross_entropy_with_logits_v2(lab, logits)]
    assert [t.name for t in ts[:3]] == ["hinge_loss/value:0", "cosine_distance_loss/value:0",
                                        "logistic_loss:0"]
    out = _run(*ts)
    np.testing.assert_allclose(out[0], 0.6, rtol=1e-6)
    np.testing.assert_allclose(out[1], 0.0378, atol=1e-4)
    np.testing.assert_allclose(out[2], [[0.2539, 0.3133], [0.9741, 0.4028], [1.7087, 1.1963]], atol=1e-4)
    np.testing.assert_allclose(out[3], [0.0486, 0.3133, 1.4482], atol=1e-4)
    with pytest.raises(ValueError, match=r"^Shapes \(3, 1\) and \(3, 2\) are incompatible"):
        tf.losses.softmax_cross_entropy(lab, logits[:, :1])
    with pytest.raises(ValueError, match="^Only call `softmax_cross_entropy_with_logits` with named"):
        tf.nn.softmax_cross_entropy_with_logits(lab, logits)


# --- indexing ops -----------------------------------------------------------------------------

def test_gather_and_gather_nd_with_batch_dims():
    x = tf.constant(np.arange(24).reshape(2, 3, 4).astype(np.float32))
    a = tf.gather(tf.constant([[1, 2, 3], [4, 5, 6]]), tf.constant([[2, 0], [1, 1]]), batch_dims=1)
    b = tf.gather(x, tf.constant([[0], [1]]), axis=2, batch_dims=1)
    c = tf.gather_nd(x, [[1], [0]], batch_dims=1)
    assert (a.shape.as_list(), b.shape.as_list(), c.shape.as_list()) == ([2, 2], [2, 3, 1], [2, 4])
    ra, rb, rc = _run(a, b, c)
    assert ra.tolist() == [[3, 1], [5, 5]]
    assert rb.tolist() == [[[0.0], [4.0], [8.0]], [[13.0], [17.0], [21.0]]]
    assert rc.tolist() == [[4.0, 5.0, 6.0, 7.0], [12.0, 13.0, 14.0, 15.0]]


def test_tensordot_with_an_unknown_batch_and_matmul_adjoint_flags():
    p = tf.placeholder(tf.float32, [None, 3, 4])
    t = tf.tensordot(p, tf.ones([4, 5]), axes=[[2], [0]])
    m = tf.matmul(tf.ones([3, 2]), tf.ones([3, 2]), adjoint_a=True)
    assert t.shape.as_list() == [None, 3, 5] and t.name == "Tensordot:0"
    rt, rm = _run(t, m, feed={p: np.ones([2, 3, 4])})
    assert rt.shape == (2, 3, 5) and (rt == 4).all() and rm.tolist() == [[3, 3], [3, 3]]
    with pytest.raises(ValueError, match="^Only one of transpose_a and adjoint_a can be True."):
        tf.matmul(tf.ones([2, 2]), tf.ones([2, 2]), transpose_a=True, adjoint_a=True)


def test_run_time_index_and_reshape_errors_start_with_tfs_words():
    i = tf.placeholder(tf.int32, [None])
    f = tf.placeholder(tf.float32, [None])
    g, r = tf.gather([1, 2, 3], i), tf.reshape(f, [2, 2])
    with tf.Session() as s:
        with pytest.raises(tf.errors.InvalidArgumentError, match=RUN + r"indices\[1\] = 7 is not in \[0, 3\)"):
            s.run(g, {i: [1, 7]})
        with pytest.raises(tf.errors.InvalidArgumentError, match=RUN + "Input to reshape is a tensor with 3 "
                                                                 "values, but the requested shape has 4"):
            s.run(r, {f: [1, 2, 3]})


# --- session options and logging --------------------------------------------------------------

def test_config_proto_gpu_options_and_run_options_are_accepted(caplog):
    c = tf.ConfigProto(allow_soft_placement=True, log_device_placement=False)
    c.gpu_options.allow_growth = True
    assert str(c) == "allow_soft_placement: true\ngpu_options {\n  allow_growth: true\n}\n"
    assert str(tf.GPUOptions(per_process_gpu_memory_fraction=0.5)) == "per_process_gpu_memory_fraction: 0.5\n"
    with tf.Session(config=c) as s:
        assert s.run(tf.constant(1), options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                     run_metadata=tf.RunMetadata()) == 1
    assert (tf.logging.DEBUG, tf.logging.INFO, tf.logging.WARN, tf.logging.ERROR, tf.logging.FATAL) == \
        (10, 20, 30, 40, 50)
    old = tf.logging.get_verbosity()
    try:
        tf.logging.set_verbosity(tf.logging.INFO)
        with caplog.at_level(tf.logging.INFO, logger="tensorflow"):
            tf.logging.info("step %d", 3)
        assert "step 3" in caplog.text and tf.compat.v1.logging.get_verbosity() == 20
    finally:
        tf.logging.set_verbosity(old)


# --- assertions -------------------------------------------------------------------------------

def test_assertion_messages_format_values_and_messages_as_tf():
    p = tf.placeholder(tf.float32, [None])
    checks = [tf.assert_less(p, 0.0, message="m1"), tf.assert_non_negative(p, message="m3"),
              tf.debugging.assert_greater(p, 5.0, message="m4", summarize=1),
              tf.Assert(p[0] > 5, [p, "x", 2.5], summarize=1)]
    expected = [
        "assertion failed: [m1] [Condition x < y did not hold element-wise:] [x (Placeholder:0) = ] "
        "[1.5 -2 3...] [y (assert_less/y:0) = ] [0]",
        "assertion failed: [m3.  ] [Condition x >= 0 did not hold element-wise:] [x (Placeholder:0) = ] "
        "[1.5 -2 3...]",
        "assertion failed: [m4] [Condition x > y did not hold element-wise:] [x (Placeholder:0) = ] "
        "[1.5...] [y (assert_greater/y:0) = ] [5]",
        "assertion failed: [1.5...] [x] [2.5]"]
    with tf.Session() as s:
        for check, text in zip(checks, expected):
            with pytest.raises(tf.errors.InvalidArgumentError) as e:
                s.run(check, {p: [1.5, -2, 3, 4]})
            assert op_message(e.value).startswith(text + "\n")


def test_assert_rank_type_scalar_and_check_numerics():
    p = tf.placeholder(tf.float32, [None])
    with pytest.raises(ValueError, match=r"^Tensor Placeholder:0 must have rank 2.  Received rank 1, "
                                         r"shape \(None,\)$"):
        tf.assert_rank(p, 2)
    assert tf.assert_rank(p, 1).type == "NoOp"
    with pytest.raises(TypeError, match="^Placeholder:0 must be of type tf.int32; got tf.float32$"):
        tf.assert_type(p, tf.int32)
    with pytest.raises(ValueError, match="^Expected scalar shape for Placeholder:0"):
        tf.assert_scalar(p)
    u = tf.placeholder(tf.float32)
    r = tf.assert_rank(u, 2)
    c = tf.check_numerics(p, "bad")
    g = tf.gradients(tf.reduce_sum(c * 2.0), p)[0]
    with tf.Session() as s:
        with pytest.raises(tf.errors.InvalidArgumentError, match="must have rank"):
            s.run(r, {u: [1.0]})
        s.run(r, {u: [[1.0]]})
        assert s.run(g, {p: [1.0, 2.0]}).tolist() == [2.0, 2.0]
        with pytest.raises(tf.errors.InvalidArgumentError, match=RUN + "bad : Tensor had NaN values"):
            s.run(c, {p: [np.nan, 1.0]})
        with pytest.raises(tf.errors.InvalidArgumentError, match=RUN + "fin : Tensor had Inf values"):
            s.run(tf.debugging.assert_all_finite(p, "fin"), {p: [np.inf]})


# --- a classic TF1 program's restore path -------------------------------------------------------

def test_collections_survive_import_meta_graph_and_train_op_is_collected(tmp_path):
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    with tf.variable_scope("fc"):
        w = tf.get_variable("w", [3, 2])
        b = tf.get_variable("b", [2], initializer=tf.zeros_initializer())
        logits = tf.nn.xw_plus_b(x, w, b)
    tf.add_to_collection("logits", logits)
    loss = tf.reduce_mean(tf.square(logits))
    gs = tf.train.get_or_create_global_step()
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=gs)
    assert logits.name == "fc/xw_plus_b:0"
    assert tf.get_collection(tf.GraphKeys.TRAIN_OP) == [train]
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        path = tf.train.Saver().save(s, str(tmp_path / "m"))
    tf.reset_default_graph()
    saver = tf.train.import_meta_graph(path + ".meta")
    with tf.Session() as s:
        saver.restore(s, path)
        (restored,) = tf.get_collection("logits")
        assert restored.name == "fc/xw_plus_b:0"
        assert [op.name for op in tf.get_collection(tf.GraphKeys.TRAIN_OP)] == ["GradientDescent"]
        assert [v.name for v in tf.get_collection(tf.GraphKeys.GLOBAL_STEP)] == ["global_step:0"]
        s.run(tf.get_collection(tf.GraphKeys.TRAIN_OP)[0], {"x:0": np.ones([2, 3])})
        assert s.run(tf.train.get_global_step()) == 1


# --- tf.data and schedules -----------------------------------------------------------------------

def _drain(t, n=20):
    out = []
    with tf.Session() as s:
        try:
            for _ in range(n):
                out.append(s.run(t))
        except tf.errors.OutOfRangeError:
            out.append("END")
    return out


def test_dataset_concatenate_unbatch_and_tf1_accessors():
    d9 = tf.data.Dataset.range(3).concatenate(tf.data.Dataset.range(7, 9))
    assert _drain(d9.make_one_shot_iterator().get_next()) == [0, 1, 2, 7, 8, "END"]
    u = tf.data.Dataset.range(8).batch(3).unbatch()
    assert u.output_shapes == tf.TensorShape([])
    assert _drain(u.make_one_shot_iterator().get_next()) == [0, 1, 2, 3, 4, 5, 6, 7, "END"]
    c = tf.data.Dataset.from_tensor_slices(np.zeros([4, 2])).batch(3, drop_remainder=True).concatenate(
        tf.data.Dataset.from_tensor_slices(np.zeros([4, 2])).batch(3))
    assert c.output_shapes.as_list() == [None, 2]
    ds = tf.data.Dataset.from_tensor_slices(([1], [2.0]))
    assert tf.data.get_output_types(ds) == (tf.int32, tf.float32)
    assert tf.data.get_output_shapes(ds) == (tf.TensorShape([]), tf.TensorShape([]))
    assert tf.data.get_output_classes(ds) == (tf.Tensor, tf.Tensor)
    with pytest.raises(TypeError, match="^Incompatible dataset element types"):
        tf.data.Dataset.range(3).concatenate(tf.data.Dataset.from_tensor_slices([1.0]))


def test_natural_exp_and_cosine_decay():
    gs = tf.train.get_or_create_global_step()
    nat = tf.train.natural_exp_decay(0.1, gs, 10, 0.5)
    cd = tf.train.cosine_decay(0.1, gs, 100)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        s.run(gs.assign(12))
        np.testing.assert_allclose(s.run([nat, cd]), [0.054881163, 0.096488826], rtol=1e-6)


# --- TF1 spellings ------------------------------------------------------------------------------

def test_tf1_where_picks_rows_with_a_vector_condition_and_where_v2_broadcasts():
    c = tf.constant([True, False])
    a = tf.where(c, tf.ones([2, 2]), tf.zeros([2, 2]))
    b = tf.where_v2(c, tf.ones([2, 2]), tf.zeros([2, 2]))
    assert [v.tolist() for v in _run(a, b)] == [[[1, 1], [0, 0]], [[1, 0], [1, 0]]]


def test_reduction_indices_selu_swish_and_constant_conversion_words():
    x = tf.constant(np.arange(24).reshape(2, 3, 4).astype(np.float32))
    r = tf.reduce_sum(x, reduction_indices=[1])
    m = tf.reduce_max(x, reduction_indices=1, keep_dims=True)
    v = tf.constant([-1.0, 1.0])
    out = _run(r, m, tf.nn.selu(v), tf.nn.swish(v), tf.gradients(tf.reduce_sum(tf.nn.selu(v * 100.0)), v)[0])
    assert out[0].tolist() == [[12, 15, 18, 21], [48, 51, 54, 57]] and out[1].shape == (2, 1, 4)
    np.testing.assert_allclose(out[2], [-1.1113, 1.0507], atol=1e-4)
    np.testing.assert_allclose(out[3], [-0.2689, 0.7311], atol=1e-4)
    assert np.isfinite(out[4]).all()
    with pytest.raises(ValueError, match="^Can not specify both 'axis' and 'reduction_indices'."):
        tf.reduce_sum(x, axis=1, reduction_indices=1)
    with pytest.raises(TypeError, match=r"^Expected int32, but got 1.5 of type 'float'.$"):
        tf.constant([1, 1.5], dtype=tf.int32)


def test_graph_lookups_and_mixed_graph_errors_in_tfs_words():
    g = tf.Graph()
    with g.as_default():
        tf.constant(1)
    with tf.name_scope("a"):
        with tf.name_scope("b"):
            assert tf.get_default_graph().get_name_scope() == "a/b"
    a = tf.constant(2, name="two")
    with pytest.raises(ValueError, match=r'^Tensor\("Const:0", shape=\(\), dtype=int32\) must be from '
                                         r'the same graph as Tensor\("two:0", shape=\(\), dtype=int32\) '
                                         r'\(graphs are '):
        tf.add(a, g.get_tensor_by_name("Const:0"))
    graph = tf.get_default_graph()
    with pytest.raises(KeyError, match="The name 'nope:0' refers to a Tensor which does not exist. "
                                      "The operation, 'nope', does not exist in the graph."):
        graph.get_tensor_by_name("nope:0")
    with pytest.raises(KeyError, match="The operation, 'two', exists but only has 1 outputs."):
        graph.get_tensor_by_name("two:3")
    with pytest.raises(ValueError, match="^The name 'two' refers to an Operation, not a Tensor."):
        graph.get_tensor_by_name("two")


def test_batch_normalization_result_named_as_tf():
    x = tf.ones([2, 3])
    m, v = tf.nn.moments(x, [0])
    y = tf.nn.batch_normalization(x, m, v, tf.zeros([3]), tf.ones([3]), 1e-3)
    d = tf.placeholder(tf.float32, [None, 10])
    bn = tf.layers.batch_normalization(d, training=True, name="bnd")
    assert (y.name, bn.name) == ("batchnorm/add_1:0", "bnd/batchnorm/add_1:0")


def test_tf_layers_conv1d_and_conv2d_transpose():
    x1 = tf.constant(np.arange(60).reshape(2, 10, 3).astype(np.float32) / 60)
    x2 = tf.constant(np.arange(96).reshape(2, 4, 4, 3).astype(np.float32) / 96)
    c1 = tf.layers.conv1d(x1, 4, 3, kernel_initializer=tf.ones_initializer())
    ct = tf.layers.conv2d_transpose(x2, 2, 3, strides=2, padding="same",
                                    kernel_initializer=tf.ones_initializer())
    ctv = tf.layers.conv2d_transpose(x2, 2, 3, strides=2, kernel_initializer=tf.ones_initializer())
    assert [(t.name, t.shape.as_list()) for t in (c1, ct, ctv)] == [
        ("conv1d/BiasAdd:0", [2, 8, 4]), ("conv2d_transpose/BiasAdd:0", [2, 8, 8, 2]),
        ("conv2d_transpose_1/BiasAdd:0", [2, 9, 9, 2])]
    assert [v.name for v in tf.trainable_variables()][:2] == ["conv1d/kernel:0", "conv1d/bias:0"]
    r1, rt, rv = _run(c1, ct, ctv)
    np.testing.assert_allclose([r1.sum(), rt.sum(), rv.sum()], [283.2, 687.5, 855.0], rtol=1e-5)


def test_a_fractional_float_beside_an_integer_tensor_is_refused_as_tf2_does():
    with pytest.raises(TypeError, match=r"^Input 'y' of '\w+' Op has type float32 that does not match "
                                        r"type int32 of argument 'x'.$"):
        tf.constant([1, 2]) + 1.5
    assert (tf.constant([1, 2]) + 2.0).dtype == tf.int32
