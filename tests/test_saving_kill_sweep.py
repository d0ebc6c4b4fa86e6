"""A save killed at any point leaves a loadable latest checkpoint (both engines).

The sweep: a forked child runs one save and dies (``os._exit``: no ``finally``,
no cleanup, as under SIGKILL) just before -- or just after -- its k-th file
operation (``os.open``, ``os.replace``, ``os.remove``, ``os.fsync`` ... each
counted once), for every k until the save completes.  After each kill the
parent checks what a restarted program would see: the latest checkpoint loads,
whole, as the old values or the new ones; and its next save leaves no temp file
behind.
"""
from __future__ import annotations

import os

import numpy as np
import pytest

import dyngraph as torch
import staticgraph as tf

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")

FILE_OPERATIONS = ("open", "close", "chmod", "fsync", "replace", "rename", "remove", "unlink",
                   "mkdir", "rmdir")
KILLED, FINISHED = 70, 71


def _run_killed(save, k: int, after: bool) -> bool:
    """Run ``save()`` in a child killed before (or after) its k-th file operation; whether
    the save finished first (it has fewer than k + 1 operations)."""
    pid = os.fork()
    if pid == 0:                                   # the child: count, and die at operation k
        code = KILLED
        try:
            done = [0]

            def counted(operation):
                def run(*args, **kwargs):
                    if done[0] == k and not after:
                        os._exit(KILLED)
                    result = operation(*args, **kwargs)
                    if done[0] == k:
                        os._exit(KILLED)
                    done[0] += 1
                    return result
                return run
            for name in FILE_OPERATIONS:
                setattr(os, name, counted(getattr(os, name)))
            save()
            code = FINISHED
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    assert code in (KILLED, FINISHED), f"the child failed (exit code {code})"
    return code == FINISHED


def _sweep(trial, monkeypatch) -> tuple[int, list[str]]:
    """``trial(k, after)`` -> (finished, problems) for every kill point of a save; returns
    how many points there were and every problem found, each with its kill point."""
    monkeypatch.setattr(os, "fsync", lambda fd: None)   # a kill keeps the page cache: fsync
    k, problems = 0, []                                 # only costs time here (still counted)
    while True:
        finished = []
        for after in (False, True):
            done, found = trial(k, after)
            finished.append(done)
            problems += [f"killed {'after' if after else 'before'} operation {k}: {p}"
                         for p in found]
        if all(finished):
            return 2 * k, problems
        k += 1


def _temp_files(folder) -> list[str]:
    return [name for name in os.listdir(folder) if name.endswith(".tmp")]


def test_a_killed_saver_save_leaves_a_loadable_latest_checkpoint(tmp_path, monkeypatch):
    """``Saver(max_to_keep=1).save(..., global_step=2)`` after step 1: the state file is
    written before step 1's files are deleted, so it never names a deleted checkpoint."""
    graph = tf.Graph()
    with graph.as_default():
        w = tf.Variable(np.zeros(3), name="w")
        b = tf.Variable(np.zeros(2, np.float32), name="b")
        set_to = tf.placeholder(tf.float64, [])
        assign = [w.assign(tf.fill([3], set_to)), b.assign(tf.cast(tf.fill([2], set_to), tf.float32))]
        sess = tf.Session()
    outcomes = []

    def trial(k: int, after: bool):
        folder = tmp_path / f"{k}-{after}"
        folder.mkdir()
        with graph.as_default():
            saver = tf.train.Saver(max_to_keep=1)
        sess.run(assign, {set_to: 1.0})
        saver.save(sess, str(folder / "m"), global_step=1)
        sess.run(assign, {set_to: 2.0})
        finished = _run_killed(lambda: saver.save(sess, str(folder / "m"), global_step=2), k, after)
        sess.run(assign, {set_to: 9.0})
        latest = tf.train.latest_checkpoint(str(folder))
        if latest is None:
            return finished, ["latest_checkpoint() is None"]
        try:
            saver.restore(sess, latest)
        except Exception as e:
            return finished, [f"restore({latest}) raised {type(e).__name__}"]
        step = int(latest.rsplit("-", 1)[1])
        problems = [] if sess.run(w).tolist() == [float(step)] * 3 and sess.run(b).tolist() == [
            step] * 2 else [f"{latest} restored {sess.run(w)}, {sess.run(b)}"]
        if finished and step != 2:
            problems.append(f"the save finished, but the latest checkpoint is {latest}")
        outcomes.append(step)
        saver.save(sess, str(folder / "m"), global_step=3)          # the restarted program
        if _temp_files(folder):
            problems.append(f"the next save left {_temp_files(folder)}")
        return finished, problems

    points, problems = _sweep(trial, monkeypatch)
    assert problems == []
    assert points >= 50 and set(outcomes) == {1, 2}   # kills landed both before and after


def test_a_killed_dyngraph_save_leaves_the_old_or_the_new_file_and_no_temp_file(tmp_path, monkeypatch):
    path = tmp_path / "m.pt"
    outcomes = []

    def trial(k: int, after: bool):
        torch.save({"w": torch.ones(3), "k": 1}, path)
        finished = _run_killed(lambda: torch.save({"w": torch.full((3,), 2.0), "k": 2}, path),
                               k, after)
        saved = torch.load(path)
        problems = [] if saved["w"].tolist() == [float(saved["k"])] * 3 else [f"loaded {saved}"]
        if finished and saved["k"] != 2:
            problems.append("the save finished, but the file holds the old values")
        outcomes.append(saved["k"])
        torch.save({"w": torch.zeros(3), "k": 0}, path)             # the next save cleans up
        if _temp_files(tmp_path):
            problems.append(f"the next save left {_temp_files(tmp_path)}")
        return finished, problems

    points, problems = _sweep(trial, monkeypatch)
    assert problems == []
    assert points >= 6 and set(outcomes) == {1, 2}


def test_a_temp_file_being_written_is_left_alone(tmp_path, monkeypatch):
    """Stale means its writer is gone: a live process's temp file (here: the parent's), or
    one this process is writing on another thread, is never deleted."""
    from common import checkpoint
    alive = tmp_path / f".m.pt.{os.getppid()}.abcdefgh.tmp"
    mine = tmp_path / f".m.pt.{os.getpid()}.abcdefgh.tmp"
    gone = tmp_path / f".m.pt.{os.getpid()}.stalexyz.tmp"
    for f in (alive, mine, gone):
        f.write_bytes(b"half")
    monkeypatch.setattr(checkpoint, "_writing", {str(mine)})
    torch.save(torch.ones(1), tmp_path / "m.pt")
    assert sorted(_temp_files(tmp_path)) == sorted([alive.name, mine.name])
