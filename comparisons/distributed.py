"""distributed: the same staticgraph training step in-process and on a Dask cluster.

Run: ``python -m comparisons.distributed [--out DIR] [--quick]``
(needs the extra: ``pip install -e ".[distributed]"``).

TF1's answer to "the model outgrew one machine" was the graph itself: a graph
is data, so ``tf.device`` can cut it and the pieces can run elsewhere.  Here
the pieces run on a ``dask.distributed`` LocalCluster (worker processes on
this machine, loopback only).  PyTorch needs a separate wrapper for this
(``DistributedDataParallel``); the eager program has no graph to ship.

Sections: one MLP step in-process, placed by device (model parallel) and data
parallel, with the same numbers; a picture coloured by device; the per-step
time split into compute, transfer and scheduling overhead; the 1-vs-2-worker
scaling of a large-batch gradient step (batch 4096, MLP 784-1024-1024-10); a
dataset larger than a worker's memory limit reduced chunk by chunk; and a
worker killed in the middle of a step.
"""
from __future__ import annotations

import os
import tempfile
import time

import numpy as np

import staticgraph as tf

from .pictures import by_device, static_graph, write_graph
from .sidebyside import heading, parse_args

__all__ = ["main", "mlp", "step_split"]


def mlp(sizes, dtype=tf.float32, placed: bool = False, shards: int | None = None, seed: int = 0):
    """An MLP with a mean squared-error loss and a gradient-descent train op.

    ``placed``: the first layer on ``/job:worker/task:0``, the rest on task 1 (model
    parallel); ``shards``: the train op is ``data_parallel`` over that many shards.
    """
    from staticgraph.client import distributed as sd
    rng = np.random.default_rng(seed)
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(dtype, [None, sizes[0]], name="x")
        t = tf.placeholder(dtype, [None, sizes[-1]], name="t")
        h = x
        for k, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
            with tf.device(("/job:worker/task:0" if k == 0 else "/job:worker/task:1") if placed else ""):
                w = tf.Variable((rng.normal(size=(n_in, n_out)) / np.sqrt(n_in)).astype(dtype.as_numpy_dtype),
                                name=f"w{k}")
                b = tf.Variable(np.zeros(n_out, dtype.as_numpy_dtype), name=f"b{k}")
                h = tf.matmul(h, w) + b
                if k < len(sizes) - 2:
                    h = tf.nn.relu(h)
        with tf.device("/job:worker/task:1" if placed else ""):
            loss = sd.reduces_batch(tf.reduce_mean(tf.square(h - t)), "mean")
        opt = tf.train.GradientDescentOptimizer(0.01)
        train = (sd.data_parallel(opt, shards) if shards else opt).minimize(
            loss, colocate_gradients_with_ops=placed)     # placed: each gradient by its forward op
        init = tf.global_variables_initializer()
    return dict(graph=g, x=x, t=t, loss=loss, train=train, init=init,
                variables=g.get_collection("variables"))


def _data(n, sizes, seed=1, dtype=np.float32):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, sizes[0])).astype(dtype), rng.normal(size=(n, sizes[-1])).astype(dtype)


def _cluster(n_workers: int, **kw):
    from distributed import Client, LocalCluster
    cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                           dashboard_address=None, worker_dashboard_address=None, **kw)
    return cluster, Client(cluster)


def _train(m, sess, X, T, steps):
    sess.run(m["init"])
    losses = [sess.run([m["train"], m["loss"]], {m["x"]: X, m["t"]: T})[1] for _ in range(steps)]
    return losses, [sess.run(v) for v in m["variables"]]


def same_step(client, out_dir: str | None, quick: bool) -> None:
    """One MLP, three ways: in-process, placed by tf.device, data parallel -- same numbers."""
    heading("the same training step, in-process and on 2 Dask workers")
    sizes = [16, 32, 32, 4] if quick else [64, 128, 128, 10]
    X, T = _data(64, sizes)
    m = mlp(sizes)
    ref_losses, ref_vars = _train(m, tf.Session(graph=m["graph"]), X, T, 3)
    rows = []
    for label, m in (("placed by tf.device", mlp(sizes, placed=True)),
                     ("data_parallel(2 shards)", mlp(sizes, shards=2))):
        sess = tf.Session(target=client, graph=m["graph"])
        losses, vars_ = _train(m, sess, X, T, 3)
        diff = max(float(np.abs(a - b).max()) for a, b in zip(vars_, ref_vars))
        rows.append((label, losses, diff))
        if label.startswith("placed"):
            parts = sess.partitions(m["train"], {m["x"]: X, m["t"]: T})
            print(f"placed train step: {len(parts)} partitions (Dask tasks) on "
                  f"{', '.join(sorted({'/job:%s/task:%d' % p.place if p.place else 'any worker' for p in parts}))}")
            if out_dir:
                _picture(out_dir)
        sess.close()
    print(f"in-process losses: {np.round(ref_losses, 6).tolist()}")
    for label, losses, diff in rows:
        print(f"{label:>24}: losses {np.round(losses, 6).tolist()}  max |param - in-process| = {diff:.2e}")


def _picture(out_dir: str) -> None:
    """A two-layer placed MLP's training step (initializers left out), coloured by device."""
    from staticgraph.compiler import prune
    m = mlp([4, 8, 2], placed=True)
    pic = static_graph(m["graph"])
    pic.remove_nodes_from([op.name for op in m["graph"].get_operations()
                           if op not in prune([m["train"]], set())])
    legend = by_device(pic, m["graph"])
    write_graph(pic, out_dir, "distributed_devices",
                "a training step coloured by tf.device: " + ", ".join(legend))


def step_split(client, sess, fetches, feed: dict, steps: int) -> dict:
    """Wall time per step and its parts, from Dask's task stream (seconds per step).

    compute: time workers spent running tasks (summed over workers); transfer: moving
    data between processes; overhead: wall time minus the busiest worker's busy time
    (scheduling, the client round trips, serialization on the driver, the driver's update).
    """
    from distributed import get_task_stream
    sess.run(fetches, feed)                                    # compile and ship first
    with get_task_stream(client) as ts:
        start = time.perf_counter()
        for _ in range(steps):
            sess.run(fetches, feed)
        wall = (time.perf_counter() - start) / steps
    busy: dict = {}
    totals = {"compute": 0.0, "transfer": 0.0}
    for task in ts.data:
        for s in task["startstops"]:
            kind = "compute" if s["action"] == "compute" else "transfer"
            d = s["stop"] - s["start"]
            totals[kind] += d
            busy[task["worker"]] = busy.get(task["worker"], 0.0) + d
    busiest = max(busy.values(), default=0.0) / steps
    return {"wall": wall, "compute": totals["compute"] / steps, "transfer": totals["transfer"] / steps,
            "overhead": max(wall - busiest, 0.0), "tasks": len(ts.data) / steps}


def overhead(client, quick: bool) -> None:
    heading("per-step time: compute, transfer, scheduling overhead (2 workers)")
    sizes = [16, 32, 32, 4] if quick else [784, 256, 10]
    X, T = _data(64, sizes)
    m = mlp(sizes)
    local = tf.Session(graph=m["graph"])
    local.run(m["init"])
    start = time.perf_counter()
    for _ in range(20):
        local.run(m["train"], {m["x"]: X, m["t"]: T})
    t_local = (time.perf_counter() - start) / 20
    print(f"in-process step (batch 64, MLP {'-'.join(map(str, sizes))}): {1e3 * t_local:.2f} ms")
    print(f"Dask's floor on this machine now: one trivial task round trip {1e3 * _round_trip(client):.1f} ms "
          f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    for label, m in (("placed by tf.device", mlp(sizes, placed=True)), ("data_parallel(2)", mlp(sizes, shards=2))):
        sess = tf.Session(target=client, graph=m["graph"])
        sess.run(m["init"])
        s = step_split(client, sess, m["train"], {m["x"]: X, m["t"]: T}, 5 if quick else 20)
        print(f"{label:>20}: {1e3 * s['wall']:.1f} ms/step = compute {1e3 * s['compute']:.1f} + "
              f"transfer {1e3 * s['transfer']:.1f} (summed over workers) ; overhead "
              f"{1e3 * s['overhead']:.1f} ms ; {s['tasks']:.0f} tasks/step")
        sess.close()


def _round_trip(client, n: int = 20) -> float:
    from staticgraph.client.distributed.worker import hold
    client.submit(hold, 0, pure=False).result()
    start = time.perf_counter()
    for _ in range(n):
        client.submit(hold, 0, pure=False).result()
    return (time.perf_counter() - start) / n


def scaling(quick: bool) -> None:
    """A large-batch gradient step, data parallel on 1 and on 2 workers."""
    sizes = [64, 128, 128, 10] if quick else [784, 1024, 1024, 10]
    batch, steps = (256, 2) if quick else (4096, 5)
    heading(f"scaling: data-parallel step, batch {batch}, MLP {'-'.join(map(str, sizes))}")
    X, T = _data(batch, sizes)
    m = mlp(sizes)
    local = tf.Session(graph=m["graph"])
    local.run(m["init"])
    local.run(m["train"], {m["x"]: X, m["t"]: T})
    start = time.perf_counter()
    for _ in range(steps):
        local.run(m["train"], {m["x"]: X, m["t"]: T})
    times = {"in-process": (time.perf_counter() - start) / steps}
    splits = {}
    for n in (1, 2):
        cluster, client = _cluster(n)
        try:
            m = mlp(sizes, shards=n)
            sess = tf.Session(target=client, graph=m["graph"])
            sess.run(m["init"])
            label = f"{n} worker{'s' * (n > 1)}"
            splits[label] = step_split(client, sess, m["train"], {m["x"]: X, m["t"]: T}, steps)
            times[label] = splits[label]["wall"]
            sess.close()
        finally:
            client.close()
            cluster.close()
    for label, t in times.items():
        extra = "" if label not in splits else (
            f"  (workers computing {1e3 * splits[label]['compute']:.0f} ms in total, "
            f"overhead {1e3 * splits[label]['overhead']:.0f} ms)")
        print(f"{label:>12}: {1e3 * t:8.1f} ms/step{extra}")
    speedup = times["1 worker"] / times["2 workers"]
    print(f"speed-up 1 -> 2 workers: {speedup:.2f}x, parallel efficiency {100 * speedup / 2:.0f}% "
          f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; workers use one BLAS "
          f"thread each, the in-process Session numpy's default unless OMP_NUM_THREADS is set)")


def out_of_core(quick: bool) -> None:
    """A dataset larger than one worker's memory limit, reduced chunk by chunk."""
    import dask.array as da
    limit = 400 * 2**20
    rows, features = (200_000, 16) if quick else (4_194_304, 64)
    chunk = rows // 32
    heading("out of core: a dask.array bigger than a worker's memory limit")
    sizes = [features, 32, 1]
    m = mlp(sizes)
    with m["graph"].as_default():
        from staticgraph.client import distributed as sd
        grads = [sd.reduces_batch(g, "mean") for g in tf.gradients(m["loss"], m["variables"])]
    cluster, client = _cluster(2, memory_limit=limit)
    try:
        rng = da.random.default_rng(0)
        X = rng.random((rows, features), chunks=(chunk, features), dtype=np.float32)
        T = (X[:, :1] * 2.0 - 1.0).astype(np.float32)
        sess = tf.Session(target=client, graph=m["graph"])
        sess.run(m["init"])
        base = client.run(_rss)
        start = time.perf_counter()
        loss, *g = sess.run([m["loss"], *grads], {m["x"]: X, m["t"]: T})
        took = time.perf_counter() - start
        peak = client.run(_peak_rss)
        sess.close()
    finally:
        client.close()
        cluster.close()
    mib = 2**20
    print(f"data: {rows} x {features} float32 = {X.nbytes / mib:.0f} MiB in {X.numblocks[0]} chunks of "
          f"{chunk * features * 4 / mib:.1f} MiB; worker memory limit {limit / mib:.0f} MiB")
    print(f"dataset-wide loss {float(loss):.6f} and full-batch gradient ({len(g)} tensors) in {took:.1f} s")
    for (addr, b), p in zip(sorted(base.items()), (peak[a] for a in sorted(base))):
        print(f"  worker {addr}: RSS before {b / mib:.0f} MiB, peak {p / mib:.0f} MiB "
              f"(+{(p - b) / mib:.0f} MiB = {(p - b) / (chunk * features * 4):.1f} chunks)")


def _status(field: str) -> int:
    """A memory figure of this process from /proc (bytes): VmRSS now, VmHWM its peak.

    (``getrusage``'s ru_maxrss is no good here: Linux keeps it across exec, so a worker
    spawned from a big driver reports the driver's peak.)"""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return 0


def _rss() -> int:
    return _status("VmRSS")


def _peak_rss() -> int:
    return _status("VmHWM")


def fault(quick: bool) -> None:
    """A worker killed when its shard starts: the step is redone, the update applied once."""
    from staticgraph.client import distributed as sd
    heading("a worker killed in the middle of a step")
    sizes = [16, 32, 4] if quick else [64, 128, 10]
    X, T = _data(64, sizes)
    m = mlp(sizes)
    _, ref = _train(m, tf.Session(graph=m["graph"]), X, T, 3)
    cluster, client = _cluster(2)
    try:
        m = mlp(sizes, shards=4)
        sess = tf.Session(target=client, graph=m["graph"])
        sess.run(m["init"])
        feed = {m["x"]: X, m["t"]: T}
        start = time.perf_counter()
        sess.run(m["train"], feed)
        normal = time.perf_counter() - start
        with tempfile.TemporaryDirectory() as tmp:
            token = os.path.join(tmp, "killed")
            plugin = sd.KillOnStep(once=token)
            client.register_plugin(plugin)
            start = time.perf_counter()
            sess.run(m["train"], feed)
            disturbed = time.perf_counter() - start
            client.unregister_worker_plugin(plugin.name)
            with open(token) as f:
                victim = f.read()
        died = victim not in client.scheduler_info()["workers"]
        sess.run(m["train"], feed)
        diff = max(float(np.abs(sess.run(v) - r).max()) for v, r in zip(m["variables"], ref))
        sess.close()
    finally:
        client.close()
        cluster.close()
    print(f"step 2 of 3: worker {victim} killed (SIGKILL) as its shard started: died={died}")
    print(f"step times: undisturbed {1e3 * normal:.0f} ms, with the kill {1e3 * disturbed:.0f} ms")
    print(f"after 3 steps, max |param - in-process| = {diff:.2e} (every update applied exactly once)")


def main(argv: list[str] | None = None) -> int:
    import dask
    args = parse_args(argv, __doc__)
    quick = "--quick" in (argv or [])
    # feeds travel inside their tasks (so Dask can redo a step a dead worker was running);
    # a 4096 x 784 batch is a "large graph" to Dask's warning, not a problem
    dask.config.set({"distributed.admin.large-graph-warning-threshold": "256MB"})
    cluster, client = _cluster(2)
    try:
        same_step(client, args.out, quick)
        overhead(client, quick)
    finally:
        client.close()
        cluster.close()
    scaling(quick)
    out_of_core(quick)
    fault(quick)
    return 0


if __name__ == "__main__":
    import sys
    sys.exit(main(sys.argv[1:]))
