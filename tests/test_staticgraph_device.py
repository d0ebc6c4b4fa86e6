"""``tf.device``: each op records the device TF would report (values checked against TF 2.21's
``tf.compat.v1`` graph mode), and the JSON export keeps it."""
import pytest

import staticgraph as tf


@pytest.fixture
def g():
    with tf.Graph().as_default() as graph:
        yield graph


def _mul(a):
    return (a * 2.0).op.device


def test_no_scope_no_device(g):
    a = tf.placeholder(tf.float32, name="a")
    assert a.op.device == "" and a.device == ""


def test_nested_scopes_merge_as_tf(g):
    a = tf.placeholder(tf.float32, name="a")
    with tf.device("/job:worker/task:1"):
        b = a + 1.0
        assert b.op.device == "/job:worker/task:1" and b.device == "/job:worker/task:1"
        assert b.op.inputs[1].op.device == "/job:worker/task:1"     # the constant too
        with tf.device("/device:CPU:0"):
            assert _mul(b) == "/job:worker/task:1/device:CPU:0"
        with tf.device("/job:ps"):
            assert _mul(b) == "/job:ps/task:1"
        with tf.device("/task:3"):
            assert _mul(b) == "/job:worker/task:3"
        with tf.device(None):
            assert _mul(b) == ""
            with tf.device("/cpu:0"):
                assert _mul(b) == "/device:CPU:0"
        with tf.device(""):
            assert _mul(b) == "/job:worker/task:1"
        with tf.device("/gpu:0"):
            assert _mul(b) == "/job:worker/task:1/device:GPU:0"
        with tf.device("/cpu:*"):
            assert _mul(b) == "/job:worker/task:1/device:CPU:*"
        with tf.device("/job:worker/task:0"):
            assert _mul(b) == "/job:worker/task:0"
        with tf.device("/job:worker/replica:0/task:0/device:GPU:1"):
            assert _mul(b) == "/job:worker/replica:0/task:0/device:GPU:1"
    with tf.device("/device:gpu:1/job:w"):
        assert _mul(a) == "/job:w/device:GPU:1"
    with tf.device("cpu:0"):
        assert _mul(a) == "/device:CPU:0"
    with tf.device(tf.DeviceSpec(job="ps", task=2)):
        assert _mul(a) == "/job:ps/task:2"


def test_device_functions(g):
    a = tf.placeholder(tf.float32, name="a")
    with tf.device(lambda op: "/job:worker/task:%d" % (1 if op.type == "Mul" else 0)):
        assert (a * 3.0).op.device == "/job:worker/task:1"
        assert (a + 3.0).op.device == "/job:worker/task:0"
    with tf.device(lambda op: "cpu:0"):
        assert _mul(a) == "cpu:0"                      # a function's result is kept as given
    with tf.device("/job:worker/task:1"):
        with tf.device(lambda op: "/task:0"):
            assert _mul(a) == "/job:worker/task:0"
            with tf.device("/cpu:0"):                  # TF: the function replaces inner scopes
                assert _mul(a) == "/job:worker/task:0"


def test_variables_and_graph_method(g):
    with g.device("/job:ps/task:0"):
        v = tf.Variable(1.0, name="v")
    assert v.device == "/job:ps/task:0" and v.op.device == "/job:ps/task:0"
    assert tf.compat.v1.device is tf.device


@pytest.mark.parametrize("spec, message", [
    ("/job:worker/task:x", "invalid literal for int() with base 10: 'x'"),
    ("garbage", "Unknown attribute 'garbage' is encountered while parsing the device spec: 'garbage'."),
    ("/foo:1", "Unknown attribute 'foo' is encountered while parsing the device spec: '/foo:1'."),
    ("/cpu:0/gpu:0", "Multiple device types are not allowed while parsing the device spec: /cpu:0/gpu:0."),
])
def test_bad_specs_fail_at_the_with(g, spec, message):
    with pytest.raises(ValueError) as e:
        with tf.device(spec):
            pass
    assert str(e.value) == message
    a = tf.placeholder(tf.float32)
    assert _mul(a) == ""                              # the failed scope left nothing behind


def test_json_export_keeps_devices(g):
    a = tf.placeholder(tf.float32, name="a")
    with tf.device("/job:worker/task:1"):
        b = a * 2.0
    text = tf.to_json(g)
    g2 = tf.from_json(text)
    assert g2.get_operation_by_name(b.op.name).device == "/job:worker/task:1"
    assert g2.get_operation_by_name("a").device == ""
    assert tf.to_networkx(g).nodes[b.op.name]["device"] == "/job:worker/task:1"


def test_device_spec_surface():
    spec = tf.DeviceSpec.from_string("/job:worker/task:1")
    assert repr(spec) == ("<DeviceSpec(job=worker, replica=None, task=1, device_type=None, "
                          "device_index=None)>")
    assert spec.to_string() == "/job:worker/task:1"
    assert spec.make_merged_spec(tf.DeviceSpec(device_type="GPU")).to_string() == \
        "/job:worker/task:1/device:GPU:*"


def test_colocate_gradients_with_ops(g):
    """TF: each gradient op asks for exactly its forward op's device; without it, scopes apply."""
    x = tf.placeholder(tf.float32, [2], name="x")
    with tf.device("/job:worker/task:1"):
        y = tf.exp(x, name="y")
    z = tf.reduce_sum(y * 2.0)
    with tf.device("/job:ps/task:0"):
        tf.gradients(z, x, colocate_gradients_with_ops=True)
        tf.gradients(z, x, name="plain")
    devices = {op.name: op.device for op in g.get_operations()}
    assert devices["gradients/y_grad/Mul"] == "/job:worker/task:1"
    assert devices["gradients/grad_ys_0"] == "" and devices["gradients/Sum_grad/BroadcastLike"] == ""
    assert {d for n, d in devices.items() if n.startswith("plain/")} == {"/job:ps/task:0"}


def test_optimizer_updates_and_slots_sit_with_their_variable(g):
    x = tf.placeholder(tf.float32, [2], name="x")
    with tf.device("/job:ps/task:0"):
        w = tf.Variable([1.0, 2.0], name="w")
    loss = tf.reduce_sum(w * x)
    with tf.device("/job:worker/task:1"):
        opt = tf.train.MomentumOptimizer(0.1, 0.9)
        opt.minimize(loss)
    assert opt.get_slot(w, "momentum").device == "/job:ps/task:0"        # as TF
    updates = [op for op in g.get_operations() if op.type == "AssignSubVariableOp"]
    assert updates and all(op.device == "/job:ps/task:0" for op in updates)
    with tf.colocate_with(w):
        assert (x * 2.0).op.device == "/job:ps/task:0"


@pytest.mark.parametrize("clear", [False, True])
def test_import_meta_graph_clear_devices(tmp_path, clear):
    with tf.Graph().as_default():
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(1.0, name="v")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = tf.train.Saver().save(sess, str(tmp_path / "model"))
    with tf.Graph().as_default() as g2:
        tf.train.import_meta_graph(path + ".meta", clear_devices=clear)
        assert g2.get_operation_by_name("v").device == ("" if clear else "/job:ps/task:0")


def test_loop_and_branch_bodies_inherit_the_device(g):
    x = tf.placeholder(tf.float32, [], name="x")
    seen = []
    with tf.device("/job:worker/task:1"):
        def body(i, a):
            seen.append((a * x).op.device)
            return i + 1, a * x
        r = tf.while_loop(lambda i, a: i < 3, body, [0, 1.0])
        c = tf.cond(x > 1.0, lambda: seen.append((x * 2.0).op.device) or x * 2.0, lambda: x)
    assert set(seen) == {"/job:worker/task:1"}
    assert r[0].op.device == c.op.device == "/job:worker/task:1"
