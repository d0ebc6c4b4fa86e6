"""tf.gfile / tf.io.gfile over the local file system: results and errors as TF 2.21 gives them."""
import os

import pytest

import staticgraph as tf


def test_files_and_directories(tmp_path):
    d = str(tmp_path)
    assert tf.gfile.Exists(d) and not tf.gfile.Exists(d + "/nope") and not tf.gfile.Exists("")
    assert tf.gfile.IsDirectory(d)
    tf.gfile.MakeDirs(d + "/a/b")
    tf.gfile.MakeDirs(d + "/a/b")  # exists: nothing happens
    tf.gfile.MkDir(d + "/a")
    with tf.gfile.GFile(d + "/a/x.txt", "w") as f:
        assert f.write("hi\nthere\n") is None
    with tf.gfile.GFile(d + "/a/x.txt") as f:
        assert f.read() == "hi\nthere\n"
    with tf.gfile.GFile(d + "/a/x.txt", "rb") as f:
        assert f.read() == b"hi\nthere\n"
    with tf.gfile.GFile(d + "/a/x.txt") as f:
        assert list(f) == ["hi\n", "there\n"]
    with tf.gfile.Open(d + "/a/x.txt") as f:
        assert (f.readline(), f.size(), f.name, f.mode) == ("hi\n", 9, d + "/a/x.txt", "r")
    assert sorted(tf.gfile.ListDirectory(d + "/a")) == ["b", "x.txt"]
    assert sorted(tf.io.gfile.listdir(d + "/a")) == ["b", "x.txt"]
    assert tf.gfile.Glob(d + "/a/*.txt") == [d + "/a/x.txt"] and tf.gfile.Glob(d + "/nope*") == []
    tf.gfile.Copy(d + "/a/x.txt", d + "/a/y.txt")
    tf.gfile.Copy(d + "/a/x.txt", d + "/a/y.txt", overwrite=True)
    tf.gfile.Rename(d + "/a/y.txt", d + "/a/z.txt")
    tf.io.gfile.remove(d + "/a/z.txt")
    assert list(tf.gfile.Walk(d)) == [(d, ["a"], []), (d + "/a", ["b"], ["x.txt"]), (d + "/a/b", [], [])]
    assert tf.gfile.Stat(d + "/a/x.txt").length == 9 and not tf.io.gfile.stat(d + "/a/x.txt").is_directory
    with tf.io.gfile.GFile(d + "/q", "w") as f:
        f.write(b"bytes")  # a text-mode GFile takes bytes too
    with tf.io.gfile.GFile(d + "/q") as f:
        assert f.read() == "bytes"
    tf.gfile.DeleteRecursively(d + "/a")
    assert not tf.gfile.Exists(d + "/a") and tf.io.gfile.join("a", "b") == os.path.join("a", "b")


def test_errors_are_tfs(tmp_path):
    d = str(tmp_path)
    open(d + "/x", "w").write("x")
    cases = [
        (lambda: tf.gfile.ListDirectory(d + "/zz"), tf.errors.NotFoundError, f"Could not find directory {d}/zz"),
        (lambda: tf.gfile.Remove(d + "/zz"), tf.errors.NotFoundError, f"{d}/zz; No such file or directory"),
        (lambda: tf.gfile.GFile(d + "/zz").read(), tf.errors.NotFoundError, f"{d}/zz; No such file or directory"),
        (lambda: tf.gfile.MkDir(d + "/q/r"), tf.errors.NotFoundError, f"{d}/q/r; No such file or directory"),
        (lambda: tf.gfile.DeleteRecursively(d + "/nope"), tf.errors.NotFoundError, f"{d}/nope not found"),
        (lambda: tf.gfile.Stat(d + "/nope"), tf.errors.NotFoundError, f"{d}/nope; No such file or directory"),
        (lambda: tf.gfile.MakeDirs(d + "/x/y"), tf.errors.FailedPreconditionError, f"{d}/x is not a directory"),
        (lambda: tf.gfile.Copy(d + "/x", d + "/x"), tf.errors.AlreadyExistsError, "file already exists"),
        (lambda: tf.gfile.Rename(d + "/x", d + "/x"), tf.errors.AlreadyExistsError, "file already exists"),
        (lambda: tf.gfile.GFile(d + "/x").write("y"), tf.errors.PermissionDeniedError, "File isn't open for writing"),
        (lambda: tf.gfile.GFile(d + "/w", "w").read(), tf.errors.PermissionDeniedError, "File isn't open for reading"),
    ]
    for call, cls, message in cases:
        with pytest.raises(cls) as info:
            call()
        assert str(info.value) == message
    assert open(d + "/x").read() == "x"  # nothing clobbered
