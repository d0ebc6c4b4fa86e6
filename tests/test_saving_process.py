"""Saving across processes: restore in a FRESH process, and SIGKILL in the middle of a write.

The scripts run with ``python -c`` in a child process whose only link to the
parent is the files on disk, so nothing can leak through module state.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import dyngraph as torch
from common.checkpoint import read_arrays

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs POSIX signals")


def _python(code: str, *args: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=ROOT)
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(code), *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _run(code: str, *args: str) -> str:
    proc = _python(code, *args)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    return out


TRAIN = """
    import sys, numpy as np, staticgraph as tf
    ckpt, out = sys.argv[1], sys.argv[2]
    feed = np.array([[0.5, -1.0, 2.0], [1.0, 0.0, -0.5]])
    x = tf.placeholder(tf.float64, [None, 3], name="x")
    w = tf.Variable(np.linspace(-1, 1, 6).reshape(3, 2), name="w")
    b = tf.Variable(np.zeros(2), name="b")
    y = tf.tanh(tf.matmul(x, w) + b, name="y")
    loss = tf.reduce_mean(tf.square(y - 0.5), name="loss")
    step = tf.train.AdamOptimizer(0.1).minimize(loss)
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            sess.run(step, {x: feed})
        saver.save(sess, ckpt)
        y_now = sess.run(y, {x: feed})
        losses = [sess.run([loss, step], {x: feed})[0] for _ in range(4)]
    np.savez(out, y=y_now, losses=np.array(losses))
    print(step.name)
"""

RESTORE = """
    import sys, numpy as np, staticgraph as tf
    ckpt, out, step_name = sys.argv[1], sys.argv[2], sys.argv[3]
    feed = np.array([[0.5, -1.0, 2.0], [1.0, 0.0, -0.5]])
    saver = tf.train.import_meta_graph(ckpt + ".meta")
    with tf.Session() as sess:
        saver.restore(sess, ckpt)
        y_now = sess.run("y:0", {"x:0": feed})
        losses = [sess.run(["loss:0", step_name], {"x:0": feed})[0] for _ in range(4)]
    np.savez(out, y=y_now, losses=np.array(losses))
"""


def test_staticgraph_trained_graph_restored_in_fresh_process_is_identical(tmp_path):
    """Graph from the .meta JSON + variables (with Adam's slots) -> same outputs, same training."""
    ckpt = str(tmp_path / "model")
    step_name = _run(TRAIN, ckpt, str(tmp_path / "a.npz")).strip()
    _run(RESTORE, ckpt, str(tmp_path / "b.npz"), step_name)
    a, b = np.load(tmp_path / "a.npz"), np.load(tmp_path / "b.npz")
    assert np.array_equal(a["y"], b["y"])            # bit-identical outputs
    assert np.array_equal(a["losses"], b["losses"])  # and identical further training


def test_dyngraph_state_dict_restored_in_fresh_process_is_identical(tmp_path):
    code = """
        import sys, numpy as np, dyngraph as torch
        torch.manual_seed(int(sys.argv[2]))
        m = torch.nn.Sequential(torch.nn.Linear(3, 5), torch.nn.Tanh(), torch.nn.Linear(5, 1))
        if sys.argv[3] == "save":
            torch.save(m.state_dict(), sys.argv[1])
        else:
            m.load_state_dict(torch.load(sys.argv[1]))
        x = torch.tensor(np.linspace(-2, 2, 12).reshape(4, 3))
        print(m(x.float()).detach().numpy().tobytes().hex())
    """
    path = str(tmp_path / "m.pt")
    assert _run(code, path, "1", "save") == _run(code, path, "2", "load")


WRITER = """
    import sys, numpy as np
    path, engine = sys.argv[1], sys.argv[2]
    big = np.zeros(2_000_000)                # 16 MB: a write takes long enough to interrupt
    if engine == "dyngraph":
        import dyngraph as torch
        def save(k):
            torch.save({"w": torch.from_numpy(big), "k": k}, path)
    else:
        import staticgraph as tf
        w = tf.Variable(big, name="w")
        sess = tf.Session()
        saver = tf.train.Saver()
        def save(k):
            sess.run(w.assign(big))
            saver.save(sess, path, write_meta_graph=False)
    for k in range(1, 10_000):
        big[:] = k
        print(k, flush=True)
        save(k)
"""


def _saved_version(path: str, engine: str) -> int:
    """Load the checkpoint; its 16 MB must all be one version (never a mix, never corrupt)."""
    if engine == "dyngraph":
        obj = torch.load(path)
        w, k = obj["w"].numpy(), obj["k"]
    else:
        w = read_arrays(path + ".data-00000-of-00001")["w"]
        k = int(w[0])
    assert w.shape == (2_000_000,) and (w == k).all()
    return k


def _temp_files(directory) -> list[str]:
    return [f for f in os.listdir(directory) if f.endswith(".tmp")]


def _kill_mid_write(directory, path: str, engine: str) -> tuple[list[str], int]:
    """Start the writer, SIGKILL it once a temp file has bytes in it.

    Returns the temp files left behind and the version that was being written.
    """
    proc = _python(WRITER, path, engine)
    proc.stdout.readline()  # the child is about to write version 1
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and proc.poll() is None:
        temps = _temp_files(directory)
        try:
            started = bool(temps) and os.path.getsize(os.path.join(directory, temps[0])) > 0
        except FileNotFoundError:  # renamed in between: that save completed
            started = False
        if started:
            os.kill(proc.pid, signal.SIGKILL)
            break
        time.sleep(0.0005)
    proc.wait(timeout=20)
    being_written = int(([1] + proc.stdout.read().split())[-1])
    proc.stdout.close()
    proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL
    return _temp_files(directory), being_written


@pytest.mark.parametrize("engine", ["dyngraph", "staticgraph"])
def test_sigkill_during_save_leaves_a_whole_checkpoint(tmp_path, engine):
    path = str(tmp_path / "ckpt")
    torch.save({"w": torch.from_numpy(np.zeros(2_000_000)), "k": 0}, path)
    if engine == "staticgraph":  # the previous checkpoint, written by the Saver itself
        _run(WRITER.replace("range(1, 10_000)", "range(0, 1)"), path, engine)
    previous = 0
    for _ in range(3):  # a kill can (rarely) land just after a rename: then try again
        leftovers, being_written = _kill_mid_write(tmp_path, path, engine)
        # every save completes before the next number is printed: the file holds the last whole one
        expected = being_written - 1 if being_written > 1 else previous
        previous = _saved_version(path, engine)
        assert previous == expected
        if leftovers:  # the interrupted write's temp file: the kill did land mid-write
            break
    assert leftovers
