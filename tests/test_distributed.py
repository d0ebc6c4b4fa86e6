"""staticgraph on a Dask LocalCluster (2 worker processes, loopback only): placement by
tf.device, data-parallel training, dask.array feeds computed chunk by chunk, and a worker
killed in the middle of a step."""
import concurrent.futures

import numpy as np
import pytest

dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")

import staticgraph as tf  # noqa: E402
from staticgraph.client import distributed as sd  # noqa: E402
from staticgraph.client.distributed import worker as sd_worker  # noqa: E402
from staticgraph.errors import FailedPreconditionError, UnavailableError  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with dask.config.set({"distributed.scheduler.allowed-failures": 1}):
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                           host="127.0.0.1", dashboard_address=None,
                                           worker_dashboard_address=None)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def _addresses(client):
    return {w["name"]: a for a, w in client.scheduler_info()["workers"].items()}


def _placed_graph():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        with tf.device("/job:worker/task:0"):
            w = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2), name="w")
            h = tf.matmul(x, w, name="h")
        with tf.device("/job:worker/task:1"):
            y = tf.reduce_sum(tf.tanh(h), name="y")
        z = tf.add(y, 1.0, name="z")                      # no device: any worker
        bump = w.assign_add(tf.ones_like(w))
        init = tf.global_variables_initializer()
    return g, x, w, h, y, z, bump, init


def test_placement_same_results_as_in_process(client):
    g, x, w, h, y, z, bump, init = _placed_graph()
    X = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
    with tf.Session(graph=g) as local:
        local.run(init)
        ref = local.run([h, y, z], {x: X})
        local.run(bump)
        ref_after = local.run({"z": z, "w": w}, {x: X})
    sess = tf.Session(target=client, graph=g)
    assert isinstance(sess, sd.DistributedSession)
    sess.run(init)
    out = sess.run([h, y, z], {x: X})
    for a, b in zip(out, ref):
        np.testing.assert_allclose(a, b, rtol=1e-6)
        assert np.asarray(a).dtype == np.asarray(b).dtype
    assert sess.run(bump.op) is None
    after = sess.run({"z": z, "w": w}, {x: X})
    np.testing.assert_allclose(after["z"], ref_after["z"], rtol=1e-6)
    np.testing.assert_array_equal(after["w"], ref_after["w"])
    np.testing.assert_array_equal(sess.state.variables["w"], ref_after["w"])   # on the driver
    sess.close()


def test_partitions_run_on_their_workers_and_compile_once(client):
    g, x, w, h, y, z, bump, init = _placed_graph()
    sess = tf.Session(target=client, graph=g)
    sess.run(init)
    X = np.ones((2, 3), np.float32)
    for _ in range(3):
        sess.run(y, {x: X})
    assert sess.compile_count == 2                       # init + y: one compile per signature
    places = {p.place: p.digest for p in sess.partitions(y, {x: X})}
    assert set(places) == {("worker", 0), ("worker", 1)}
    counts = client.run(sd_worker.compile_counts)
    addr = _addresses(client)
    assert counts[addr[0]].get(places[("worker", 0)]) == 1      # loaded once, one plan, 3 runs
    assert counts[addr[1]].get(places[("worker", 1)]) == 1
    assert places[("worker", 1)] not in counts[addr[0]]
    parts = sess.partitions(y, {x: X})               # task 0 only reads w: its h stays on the workers
    assert [parts[i].place for i in sess._placed_for(y, {x: X}).gathered] == [("worker", 1)]
    assert sd_worker._LOADED == {}                       # nothing ran in the client process
    shipped = sess.transfer_count
    sess.run(y, {x: X})
    assert sess.transfer_count == shipped                # unchanged variables are not re-sent
    sess.close()


def test_control_flow_and_its_gradient_placed(client):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [], name="x")
        v = tf.Variable(0.0, name="v")
        with tf.device("/job:worker/task:1"):
            r = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * x), [0, 1.0])
            c = tf.cond(x > 1.0, lambda: r[1] * 2.0, lambda: r[1])
            dx = tf.gradients(c, x)[0]                  # the loop's gradient: by its forward loop
        z = dx * 1.5                                    # elsewhere: the gradient crosses workers

        def body(i):
            with tf.control_dependencies([v.assign_add(1.0)]):
                return i + 1
        counted = tf.while_loop(lambda i: i < 4, body, [0])
        init = tf.global_variables_initializer()
    with tf.Session(graph=g) as local:
        local.run(init)
        ref = local.run([r, c, dx, z, counted], {x: 2.0})
        ref_v = local.run(v)
    sess = tf.Session(target=client, graph=g)
    sess.run(init)
    out = sess.run([r, c, dx, z, counted], {x: 2.0})
    assert out == ref and ref[2] == 24.0
    assert sess.run(v) == ref_v == 4.0                  # the loop's assignments reached the driver
    sess.close()


def test_unknown_device_and_uninitialized_variable(client):
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            a = tf.constant(1.0) * 2.0
        v = tf.Variable(1.0, name="v")
        r = v * 3.0
    sess = tf.Session(target=client, graph=g)
    with pytest.raises(FailedPreconditionError, match=r"No Dask worker for device /job:ps/task:0"):
        sess.run(a)
    with pytest.raises(FailedPreconditionError, match=r"Could not find variable v\. .*\n.*\n  variable created at .*test_distributed.py:"):
        sess.run(r)
    assert sess.state.variables == {}
    sess.close()


def _regression(aggregation="mean", n_shards=3, optimizer=None):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float64, [None, 3], name="x")
        t = tf.placeholder(tf.float64, [None, 1], name="t")
        w = tf.Variable(np.full((3, 1), 0.5), name="w")
        b = tf.Variable(np.zeros(1), name="b")
        y = tf.matmul(x, w) + b
        err = tf.square(y - t)
        loss = tf.reduce_mean(err) if aggregation == "mean" else tf.reduce_sum(err)
        sd.reduces_batch(loss, aggregation)
        opt = optimizer or tf.train.AdamOptimizer(0.05)
        train = sd.data_parallel(opt, n_shards, aggregation).minimize(loss)
        init = tf.global_variables_initializer()
    return g, x, t, w, b, y, loss, train, init


@pytest.mark.parametrize("aggregation", ["mean", "sum"])
def test_data_parallel_matches_single_process(client, aggregation):
    g, x, t, w, b, y, loss, train, init = _regression(aggregation)
    rng = np.random.default_rng(0)
    X, T = rng.normal(size=(10, 3)), rng.normal(size=(10, 1))     # 10 rows in 3 uneven shards
    with tf.Session(graph=g) as local:
        local.run(init)
        ref_losses = [local.run([train, loss], {x: X, t: T})[1] for _ in range(3)]
        ref = local.run([w, b])
    sess = tf.Session(target=client, graph=g)
    sess.run(init)
    losses = [sess.run([train, loss], {x: X, t: T})[1] for _ in range(3)]
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-12)
    np.testing.assert_allclose(sess.run(w), ref[0], rtol=1e-12)
    np.testing.assert_allclose(sess.run(b), ref[1], rtol=1e-12)
    sess.close()


def test_data_parallel_batch_smaller_than_shards(client):
    g, x, t, w, b, y, loss, train, init = _regression(n_shards=3,
                                                      optimizer=tf.train.GradientDescentOptimizer(0.1))
    X, T = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]]), np.array([[1.0], [-1.0]])
    with tf.Session(graph=g) as local:
        local.run(init)
        local.run(train, {x: X, t: T})
        ref = local.run(w)
    sess = tf.Session(target=client, graph=g)
    sess.run(init)
    sess.run(train, {x: X, t: T})                        # 2 rows, 3 shards: 2 shards of one row
    np.testing.assert_allclose(sess.run(w), ref, rtol=1e-12)
    sess.close()


def test_dask_array_feed_chunk_by_chunk(client):
    g, x, t, w, b, y, loss, train, init = _regression()
    with g.as_default():
        grad = sd.reduces_batch(tf.gradients(loss, w)[0], "mean")
        top = tf.reduce_max(y)
    rng = np.random.default_rng(1)
    X, T = rng.normal(size=(23, 3)), rng.normal(size=(23, 1))
    with tf.Session(graph=g) as local:
        local.run(init)
        ref = local.run([loss, grad, y], {x: X, t: T})
    sess = tf.Session(target=client, graph=g)
    sess.run(init)
    XD, TD = da.from_array(X, chunks=(5, 3)), da.from_array(T, chunks=(5, 1))
    out = sess.run([loss, grad, y], {x: XD, t: TD})
    np.testing.assert_allclose(out[0], ref[0], rtol=1e-12)
    np.testing.assert_allclose(out[1], ref[1], rtol=1e-12)
    np.testing.assert_array_equal(out[2], ref[2])                 # per example: concatenated
    with pytest.raises(ValueError, match=r"does not say how its per-chunk values combine"):
        sess.run(top, {x: XD, t: TD})
    with pytest.raises(ValueError, match="must share their chunks along the batch"):
        sess.run(loss, {x: XD, t: da.from_array(T, chunks=(7, 1))})
    sess.close()


def test_feeds_are_checked_as_in_process(client):
    g, x, *_ = _placed_graph()
    sess = tf.Session(target=client, graph=g)
    with pytest.raises(ValueError, match=r"Cannot feed value of shape \(2, 4\) for Tensor x:0, "
                                         r"which has shape \(None, 3\)"):
        sess.run(_[2], {x: np.ones((2, 4), np.float32)})
    sess.close()


def test_batched_runs_refuse_what_cannot_be_split(client):
    g, x, t, w, b, y, loss, train, init = _regression(n_shards=2)
    with g.as_default():
        train2 = sd.data_parallel(tf.train.GradientDescentOptimizer(0.1), 2).minimize(loss)
        bump = w.assign_add(tf.ones_like(w), read_value=False)
        w_after = sd.reduces_batch(tf.reduce_sum(w.assign_add(tf.ones_like(w))) * tf.reduce_mean(y), "sum")
    sess = tf.Session(target=client, graph=g)
    sess.run(init)
    X, T = np.ones((4, 3)), np.ones((4, 1))
    XD, TD = da.from_array(X, chunks=(2, 3)), da.from_array(T, chunks=(2, 1))
    with pytest.raises(ValueError, match="A run can execute one data_parallel train op at a time."):
        sess.run([train, train2], {x: X, t: T})
    with pytest.raises(ValueError, match="must have the same first dimension \\(got \\[4, 3\\]\\)"):
        sess.run(train, {x: X, t: T[:3]})
    with pytest.raises(ValueError, match=r"Operation .* cannot run once per batch chunk"):
        sess.run([loss, bump], {x: XD, t: TD})
    with pytest.raises(ValueError, match="a fetch that is fed, or an Operation, cannot be split"):
        sess.run([loss, x], {x: XD, t: TD})
    before = sess.state.variables["w"]
    with pytest.raises(ValueError, match=r"cannot assign variables \(it assigned \['w'\]\)"):
        sess.run(w_after, {x: XD, t: TD})
    assert sess.state.variables["w"] is before
    sess.close()


def test_session_target_address_string(client):
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(np.arange(3.0)) * 2.0
    with tf.Session(target=client.scheduler.address, graph=g) as sess:
        assert isinstance(sess, sd.DistributedSession)
        np.testing.assert_array_equal(sess.run(a), [0.0, 2.0, 4.0])


# --- partitioning and declarations (no cluster needed) ----------------------------------

def test_partitions_form_a_dag_when_devices_alternate():
    from staticgraph.client.distributed.partition import partition_run
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2], name="x")
        with tf.device("/job:worker/task:0"):
            a = tf.exp(x, name="a")
        with tf.device("/task:1"):
            b = tf.negative(a, name="b")
        with tf.device("/job:worker/task:0"):
            c = tf.add(a, b, name="c")                  # back on task 0: a later partition
            v = tf.Variable(1.0, name="v")
        with tf.device("/job:worker/task:1"):
            up = v.assign(2.0, read_value=False)        # colocated with its variable (task 0)
    layout = partition_run(g, [c, up], [x])
    parts = [(p.place, p.level, [op.name for op in p.ops]) for p in layout.partitions]
    assert parts == [(("worker", 0), 0, ["a", "AssignVariableOp"]),   # the assign: with its variable
                     (("worker", 1), 1, ["b"]),
                     (("worker", 0), 2, ["c"])]                       # back on task 0: a later level
    first, second, third = layout.partitions
    assert second.inputs == [("_recv/a/0:0", ("part", 0, 0))]
    assert third.inputs == [("_recv/a/0:0", ("part", 0, 0)), ("_recv/b/0:0", ("part", 1, 0))]
    assert first.variables == {"v": None} and second.variables == {}
    loaded = tf.from_json(first.text)                  # a partition ships as the JSON export
    assert loaded.get_operation_by_name("AssignVariableOp").device == "/job:worker/task:1"  # as asked
    assert {op.type for op in loaded.get_operations()} >= {"VarHandleOp", "Const"}   # copied, not sent
    assert layout.fetches == [("part", 2, 0), None]


def test_declarations_refuse_bad_arguments():
    g = tf.Graph()
    with g.as_default():
        loss = tf.reduce_sum(tf.placeholder(tf.float32, [None]))
        with pytest.raises(ValueError, match=r"how must be one of \('mean', 'sum'\), got 'max'"):
            sd.reduces_batch(loss, "max")
        opt = tf.train.GradientDescentOptimizer(0.1)
        with pytest.raises(ValueError, match="aggregation must be one of"):
            sd.data_parallel(opt, 2, aggregation="median")
        with pytest.raises(ValueError, match="n_shards must be at least 1, got 0"):
            sd.data_parallel(opt, 0)


def test_data_parallel_needs_a_batch_feed(client):
    g = tf.Graph()
    with g.as_default():
        w = tf.Variable(np.ones(3), name="w")
        loss = tf.reduce_sum(tf.square(w))
        train = sd.data_parallel(tf.train.GradientDescentOptimizer(0.1), 2).minimize(loss)
        init = tf.global_variables_initializer()
    sess = tf.Session(target=client, graph=g)
    sess.run(init)
    with pytest.raises(ValueError, match="needs a batch to split"):
        sess.run(train)
    with tf.Session(graph=g) as local:                  # in-process: the ordinary step
        local.run(init)
        local.run(train)
        np.testing.assert_allclose(local.run(w), 0.8 * np.ones(3))
    sess.close()


def test_comparison_script_pieces(client, capsys):
    from comparisons import distributed as script
    script.same_step(client, None, quick=True)
    out = capsys.readouterr().out
    diffs = [float(line.rsplit("=", 1)[1]) for line in out.splitlines() if "max |param" in line]
    assert len(diffs) == 2 and max(diffs) < 1e-6
    assert "partitions (Dask tasks) on /job:worker/task:0, /job:worker/task:1, any worker" in out
    m = script.mlp([4, 8, 2], shards=2)
    sess = tf.Session(target=client, graph=m["graph"])
    sess.run(m["init"])
    split = script.step_split(client, sess, m["train"], {m["x"]: np.ones((6, 4), np.float32),
                                                          m["t"]: np.ones((6, 2), np.float32)}, 2)
    assert split["wall"] > 0 and split["compute"] > 0 and split["tasks"] >= 3
    sess.close()


def test_picture_coloured_by_device():
    from comparisons.pictures import by_device, static_graph, to_dot
    g = _placed_graph()[0]
    pic = static_graph(g)
    legend = by_device(pic, g)
    assert list(legend) == ["(any worker)", "/job:worker/task:0", "/job:worker/task:1"]
    assert pic.nodes["h"]["fill"] == legend["/job:worker/task:0"] != legend["/job:worker/task:1"]
    assert pic.nodes["y"]["label"].endswith("\n/job:worker/task:1")
    assert f'fillcolor="{legend["/job:worker/task:1"]}"' in to_dot(pic)


# --- faults: last, they kill the workers ---------------------------------------------------

def _bounded(fn, *args, seconds: float = 60.0):
    """``fn(*args)`` in a thread, failing the test if Dask has not answered in ``seconds``."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(fn, *args).result(timeout=seconds)


def test_worker_killed_mid_step_is_retried_without_double_update(client, tmp_path):
    g, x, t, w, b, y, loss, train, init = _regression(
        optimizer=tf.train.GradientDescentOptimizer(0.1), n_shards=4)
    rng = np.random.default_rng(2)
    X, T = rng.normal(size=(16, 3)), rng.normal(size=(16, 1))
    with tf.Session(graph=g) as local:
        local.run(init)
        for _ in range(2):
            local.run(train, {x: X, t: T})
        ref = local.run([w, b])
    sess = tf.Session(target=client, graph=g)
    sess.run(init)
    sess.run(train, {x: X, t: T})
    token = tmp_path / "killed"
    plugin = sd.KillOnStep(once=str(token))
    client.register_plugin(plugin)
    try:                                                 # the first worker to start a shard dies
        _bounded(sess.run, train, {x: X, t: T})
    finally:
        client.unregister_worker_plugin(plugin.name)
    victim = token.read_text()
    assert victim.startswith("tcp://127.0.0.1:")
    assert victim not in client.scheduler_info()["workers"]   # it really died
    np.testing.assert_allclose(sess.run(w), ref[0], rtol=1e-12)   # two updates, not three
    np.testing.assert_allclose(sess.run(b), ref[1], rtol=1e-12)
    sess.close()


def test_step_that_cannot_complete_leaves_variables_unchanged(client):
    # the last test of the module: the workers it kills are not waited for
    g, x, t, w, b, y, loss, train, init = _regression(n_shards=2)
    sess = tf.Session(target=client, graph=g)
    sess.run(init)
    before = dict(sess.state.variables)
    plugin = sd.KillOnStep(victim=None)                  # every worker dies on a step task
    client.register_plugin(plugin)
    try:
        with pytest.raises(UnavailableError, match="The step could not complete"):
            _bounded(sess.run, train, {x: np.ones((4, 3)), t: np.ones((4, 1))})
    finally:
        client.unregister_worker_plugin(plugin.name)
    assert sess.state.variables.keys() == before.keys()
    assert all(sess.state.variables[k] is before[k] for k in before)
    sess.close()
