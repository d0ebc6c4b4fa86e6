"""Saving and restoring, nothing lost: dyngraph save/load/state_dict, staticgraph train.Saver.

Every failure path checks two things: the specific error, and that the
module / session / previous checkpoint is exactly as it was.
"""
from __future__ import annotations

import errno
import json
import os
import pickle
import struct
import zipfile

import numpy as np
import pytest

import dyngraph as torch
import staticgraph as tf
from common import checkpoint
from common.checkpoint import CheckpointError


def _model(seed: int = 0):
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))


def _params(module) -> dict:
    return {k: v._data.copy() for k, v in module.state_dict().items()}


def _same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) and a[k].dtype == b[k].dtype
                                        for k in a)


def _truncate(path, fraction=0.5) -> None:
    data = open(path, "rb").read()
    open(path, "wb").write(data[:int(len(data) * fraction)])


def _flip_byte(path) -> None:
    """Corrupt one byte in the middle of the largest array's payload (bit rot on disk)."""
    with zipfile.ZipFile(path) as z:
        info = max(z.infolist(), key=lambda i: i.file_size)
    data = bytearray(open(path, "rb").read())
    name_len, extra_len = struct.unpack("<HH", data[info.header_offset + 26:info.header_offset + 30])
    data[info.header_offset + 30 + name_len + extra_len + info.file_size // 2] ^= 0xFF
    open(path, "wb").write(bytes(data))


# --- dyngraph: save / load -----------------------------------------------------------

@pytest.mark.parametrize("value", [torch.tensor([[1.5, -2.0]]), torch.tensor([1, 2, 3]),
                                   torch.tensor([True, False]), torch.tensor(3.25, dtype=torch.float64),
                                   torch.zeros(0, 3)])
def test_tensor_round_trip_keeps_values_dtype_shape(tmp_path, value):
    torch.save(value, tmp_path / "t.pt")
    back = torch.load(tmp_path / "t.pt")
    assert back.dtype == value.dtype and back.shape == value.shape
    assert np.array_equal(back.numpy(), value.numpy())


def test_requires_grad_and_parameters_survive(tmp_path):
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    p = torch.nn.Parameter(torch.ones(2))
    torch.save({"w": w, "p": p}, tmp_path / "x.pt")
    back = torch.load(tmp_path / "x.pt")
    assert back["w"].requires_grad and back["w"].is_leaf
    assert isinstance(back["p"], torch.nn.Parameter)


def test_nested_checkpoint_with_numbers_and_shared_tensor(tmp_path):
    t = torch.arange(4)
    obj = {"model": _model().state_dict(), "epoch": 7, "lr": 0.5, "tags": ["a", None],
           "pair": (t, t)}
    torch.save(obj, tmp_path / "ck.pt")
    back = torch.load(tmp_path / "ck.pt")
    assert back["epoch"] == 7 and back["lr"] == 0.5 and back["tags"] == ["a", None]
    assert list(back["model"]) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert back["pair"][0] is back["pair"][1]  # stored once, shared again after loading


def test_save_refuses_objects_that_would_need_pickle(tmp_path):
    with pytest.raises(TypeError, match=r"cannot store obj\['x'\], a set: only tensors"):
        torch.save({"x": {1, 2}}, tmp_path / "m.pt")
    assert os.listdir(tmp_path) == []  # nothing written, no temp file left


def test_state_dict_round_trip_gives_identical_outputs(tmp_path):
    a, b = _model(0), _model(1)
    x = torch.randn(5, 3)
    torch.save(a.state_dict(), tmp_path / "a.pt")
    assert repr(b.load_state_dict(torch.load(tmp_path / "a.pt"))) == "<All keys matched successfully>"
    assert np.array_equal(a(x).detach().numpy(), b(x).detach().numpy())
    b(x).sum().backward()  # still trainable
    assert b[0].weight.grad is not None and b[0].weight.requires_grad


def test_state_dict_shares_memory_and_is_detached():
    m = _model()
    sd = m.state_dict()
    assert not sd["0.weight"].requires_grad
    with torch.no_grad():
        m[0].weight.add_(1.0)
    assert np.array_equal(sd["0.weight"].numpy(), m[0].weight.detach().numpy())


def test_load_state_dict_strict_errors_use_pytorch_wording_and_change_nothing():
    m = _model()
    before = _params(m)
    bad = dict(m.state_dict())
    del bad["2.bias"]
    bad["extra"] = torch.zeros(1)
    bad["0.weight"] = torch.zeros(3, 3)
    with pytest.raises(RuntimeError) as e:
        m.load_state_dict(bad)
    assert str(e.value) == (
        'Error(s) in loading state_dict for Sequential:\n\t'
        'Missing key(s) in state_dict: "2.bias". \n\t'
        'Unexpected key(s) in state_dict: "extra". \n\t'
        'size mismatch for 0.weight: copying a param with shape torch.Size([3, 3]) from '
        'checkpoint, the shape in current model is torch.Size([4, 3]).')
    assert _same(_params(m), before)


def test_size_mismatch_is_an_error_even_when_not_strict_and_nothing_is_copied():
    m = _model()
    before = _params(m)
    sd = {k: v + 1.0 for k, v in m.state_dict().items()}
    sd["2.weight"] = torch.zeros(2, 5)
    with pytest.raises(RuntimeError, match=r"size mismatch for 2.weight: copying a param with "
                                           r"shape torch.Size\(\[2, 5\]\)"):
        m.load_state_dict(sd, strict=False)
    assert _same(_params(m), before)  # 0.weight etc. were NOT copied before the error


def test_non_strict_load_reports_keys_and_copies_the_matches():
    m = _model()
    sd = {"0.bias": torch.ones(4), "other": torch.ones(1)}
    result = m.load_state_dict(sd, strict=False)
    assert result.missing_keys == ["0.weight", "2.weight", "2.bias"]
    assert result.unexpected_keys == ["other"]
    assert np.array_equal(m[0].bias.detach().numpy(), np.ones(4, np.float32))


def test_non_tensor_value_in_state_dict():
    m = _model()
    sd = dict(m.state_dict(), **{"0.bias": [0.0] * 4})
    with pytest.raises(RuntimeError, match=r'While copying the parameter named "0.bias", expected '
                                           r"torch.Tensor or Tensor-like object"):
        m.load_state_dict(sd)


@pytest.mark.parametrize("damage", [_truncate, lambda p: _truncate(p, 0.95), _flip_byte,
                                    lambda p: open(p, "wb").close()])
def test_damaged_file_raises_and_module_is_unchanged(tmp_path, damage):
    m, path = _model(), tmp_path / "m.pt"
    torch.save(_model(5).state_dict(), path)
    damage(path)
    before = _params(m)
    with pytest.raises(CheckpointError, match="truncated or corrupted and was not loaded"):
        m.load_state_dict(torch.load(path))
    assert isinstance(CheckpointError("x"), RuntimeError)  # what PyTorch raises for a bad file
    assert _same(_params(m), before)


def test_missing_file_and_non_checkpoint_files(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"^\[Errno 2\] No such file or directory: '"):  # torch's
        torch.load(tmp_path / "nope.pt")
    np.save(tmp_path / "plain.npy", np.arange(3))
    with pytest.raises(CheckpointError, match="single array, not an .npz archive"):
        torch.load(tmp_path / "plain.npy")
    np.savez(tmp_path / "other.npz", a=np.arange(3))
    with pytest.raises(CheckpointError, match="is not a dyngraph checkpoint"):
        torch.load(tmp_path / "other.npz")


class _Evil:
    """Unpickling this object would create a file: loading must never do that."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_loading_never_executes_code(tmp_path):
    marker = tmp_path / "pwned"
    (tmp_path / "evil.pt").write_bytes(pickle.dumps({"w": _Evil(str(marker))}))
    np.savez(tmp_path / "evil.npz", __manifest__=np.array([_Evil(str(marker))], dtype=object))
    for name in ("evil.pt", "evil.npz"):
        with pytest.raises(CheckpointError, match="pickled/object data is never loaded"):
            torch.load(tmp_path / name)
    assert not marker.exists()


# --- crashes and failures mid-write -------------------------------------------------------

def _half_then_fail(f, **arrays):
    f.write(b"PK\x03\x04 half a checkpoint")
    raise OSError(errno.ENOSPC, "No space left on device")


@pytest.mark.parametrize("where", ["savez", "fsync"])
def test_failure_mid_save_leaves_old_checkpoint_and_no_temp_file(tmp_path, monkeypatch, where):
    path = tmp_path / "m.pt"
    good = _model(0).state_dict()
    torch.save(good, path)
    original = path.read_bytes()
    if where == "savez":
        monkeypatch.setattr(checkpoint.np, "savez", _half_then_fail)
    else:
        def full_disk(fd):
            raise OSError(errno.ENOSPC, "No space left on device")
        monkeypatch.setattr(checkpoint.os, "fsync", full_disk)
    with pytest.raises(OSError, match="No space left"):
        torch.save(_model(1).state_dict(), path)
    monkeypatch.undo()
    assert path.read_bytes() == original
    assert os.listdir(tmp_path) == ["m.pt"]
    assert _same({k: v._data for k, v in torch.load(path).items()}, {k: v._data for k, v in good.items()})


# --- staticgraph: train.Saver ----------------------------------------------------------

def _tf_model():
    """A small graph trained with Adam (so slots and beta powers are variables too)."""
    x = tf.placeholder(tf.float64, [None, 3], name="x")
    w = tf.Variable(np.linspace(-1, 1, 6).reshape(3, 2), name="w")
    b = tf.Variable(np.zeros(2), name="b")
    y = tf.tanh(tf.matmul(x, w) + b, name="y")
    loss = tf.reduce_mean(tf.square(y - 0.5), name="loss")
    step = tf.train.AdamOptimizer(0.1).minimize(loss)
    return x, w, b, y, loss, step


FEED = np.array([[0.5, -1.0, 2.0], [1.0, 0.0, -0.5]])


def _values(sess):
    return {k: v.copy() for k, v in sess.state.variables.items()}


def test_saver_round_trip_restores_every_variable(tmp_path):
    with tf.Graph().as_default():
        x, w, b, y, loss, step = _tf_model()
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(step, {x: FEED})
            path = saver.save(sess, str(tmp_path / "model"))
            saved, out = _values(sess), sess.run(y, {x: FEED})
            for _ in range(3):
                sess.run(step, {x: FEED})
            saver.restore(sess, path)
            assert _same(_values(sess), saved)
            assert np.array_equal(sess.run(y, {x: FEED}), out)
    assert path == str(tmp_path / "model") and set(saved) >= {"w", "b", "w/Adam", "beta1_power"}


def test_saver_var_list_global_step_and_uninitialized(tmp_path):
    with tf.Graph().as_default():
        w = tf.Variable([1.0, 2.0], name="w")
        v = tf.Variable([3.0], name="v")
        with tf.Session() as sess:
            with pytest.raises(tf.errors.FailedPreconditionError,
                               match="Could not find variable w. This could mean"):
                tf.train.Saver([w]).save(sess, str(tmp_path / "a"))
            assert os.listdir(tmp_path) == []
            sess.run(tf.global_variables_initializer())
            path = tf.train.Saver({"weights": w}).save(sess, str(tmp_path / "a"), global_step=3)
            assert path.endswith("a-3")
            assert sorted(checkpoint.read_arrays(path + ".data-00000-of-00001")) == ["__format__", "weights"]
            sess.run(w.assign([0.0, 0.0]))
            tf.train.Saver({"weights": w}).restore(sess, path)
            assert sess.run(w).tolist() == [1.0, 2.0] and sess.run(v).tolist() == [3.0]


def test_saver_keeps_only_the_newest_max_to_keep_checkpoints(tmp_path):
    with tf.Graph().as_default():
        w = tf.Variable([0.0], name="w")
        step = w.assign_add([1.0])
        saver = tf.train.Saver(max_to_keep=2)
        with tf.Session() as sess:
            sess.run(w.initializer)
            for k in range(4):
                sess.run(step)
                saver.save(sess, str(tmp_path / "m"), global_step=k)
            assert saver.last_checkpoints == [str(tmp_path / "m-2"), str(tmp_path / "m-3")]
            assert sorted(os.listdir(tmp_path)) == ["checkpoint", "m-2.data-00000-of-00001", "m-2.index", "m-2.meta",
                                                   "m-3.data-00000-of-00001", "m-3.index", "m-3.meta"]
            saver.restore(sess, str(tmp_path / "m-2"))
            assert sess.run(w).tolist() == [3.0]


def _restore_error_case(tmp_path, make_bad):
    """Save a good checkpoint, damage it with ``make_bad``; restore must fail and change nothing."""
    with tf.Graph().as_default():
        x, w, b, y, loss, step = _tf_model()
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = saver.save(sess, str(tmp_path / "model"))
            make_bad(path)
            sess.run(step, {x: FEED})
            before = _values(sess)
            with pytest.raises(Exception) as e:
                saver.restore(sess, path)
            assert _same(_values(sess), before)
            sess.run(step, {x: FEED})  # the session still works
            return e


def _rewrite(path, **changes):
    """Change values in checkpoint ``path``, its index too (a self-consistent checkpoint)."""
    arrays = checkpoint.read_arrays(path + ".data-00000-of-00001")
    for k, v in changes.items():
        if v is None:
            del arrays[k]
        else:
            arrays[k] = v
    checkpoint.write_arrays(path + ".data-00000-of-00001", arrays)
    checkpoint.write_text(path + ".index", json.dumps(
        {k: [list(a.shape), a.dtype.name] for k, a in arrays.items() if k != "__format__"}))


@pytest.mark.parametrize("make_bad, error, message", [
    (lambda p: _truncate(p + ".data-00000-of-00001"), tf.errors.DataLossError, "truncated or corrupted"),
    (lambda p: _flip_byte(p + ".data-00000-of-00001"), tf.errors.DataLossError, "truncated or corrupted"),
    (lambda p: _rewrite(p, b=None), tf.errors.NotFoundError, "Key b not found in checkpoint"),
    (lambda p: _rewrite(p, b=np.zeros(3)), tf.errors.InvalidArgumentError,
     r"Assign requires shapes of both tensors to match. lhs shape= \[2\] rhs shape= \[3\]"),
    (lambda p: _rewrite(p, b=np.zeros(2, np.float32)), tf.errors.InvalidArgumentError,
     "expected dtype float64 does not equal original dtype float32"),
    (lambda p: _rewrite(p, __format__=None), tf.errors.DataLossError, "not a staticgraph checkpoint"),
    (lambda p: os.remove(p + ".index"), ValueError, "The passed save_path is not a valid checkpoint"),
])
def test_bad_checkpoint_restore_raises_and_changes_nothing(tmp_path, make_bad, error, message):
    e = _restore_error_case(tmp_path, make_bad)
    assert e.type is error and e.match(message)


def test_saver_checks_the_session(tmp_path):
    with tf.Graph().as_default():
        w = tf.Variable([1.0], name="w")
        saver = tf.train.Saver()
        sess = tf.Session()
        sess.close()
        with pytest.raises(RuntimeError, match="Attempted to use a closed Session"):
            saver.save(sess, str(tmp_path / "m"))
    with tf.Graph().as_default(), tf.Session() as other:
        with pytest.raises(ValueError, match="not the graph of this Saver's variables"):
            saver.restore(other, str(tmp_path / "m"))
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="No variables to save"):
            tf.train.Saver()


def test_import_meta_graph_needs_an_empty_default_graph(tmp_path):
    with tf.Graph().as_default():
        tf.Variable([1.0], name="w")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            tf.train.Saver().save(sess, str(tmp_path / "m"))
        with pytest.raises(ValueError, match="needs an empty default graph"):
            tf.train.import_meta_graph(str(tmp_path / "m.meta"))


def test_saver_failure_mid_save_keeps_old_checkpoint(tmp_path, monkeypatch):
    with tf.Graph().as_default():
        w = tf.Variable([1.0, 2.0], name="w")
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = saver.save(sess, str(tmp_path / "m"))
            sess.run(w.assign([9.0, 9.0]))
            monkeypatch.setattr(checkpoint.np, "savez", _half_then_fail)
            with pytest.raises(OSError):
                saver.save(sess, path)
            monkeypatch.undo()
            saver.restore(sess, path)
            assert sess.run(w).tolist() == [1.0, 2.0]
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "m.data-00000-of-00001", "m.index", "m.meta"]


def test_export_meta_graph_round_trips_through_import_meta_graph(tmp_path):
    """tf.train.export_meta_graph / Saver.export_meta_graph (issue #30): the graph file that
    import_meta_graph reads back; written whole."""
    import staticgraph as tf
    path = str(tmp_path / "model.meta")
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0], name="v")
        tf.multiply(v, 3.0, name="y")
        meta = tf.train.export_meta_graph(filename=path)
        assert open(path).read() == meta.graph_json == str(meta)
        saver = tf.train.Saver()
        assert saver.export_meta_graph().saver_def is saver.as_saver_def()
    for source in (path, meta):   # a file, or the MetaGraphDef itself (TF takes both)
        with tf.Graph().as_default():
            tf.train.import_meta_graph(source)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                assert sess.run("y:0").tolist() == [3.0, 6.0]
