"""Loading files from strangers: every loader fails with its own documented error, early.

One test per way a checkpoint, an index, a ``checkpoint`` state file, a
manifest or a state dict can be wrong (each failed before its fix with a
stray exception, a terabyte allocation, or an error deep inside the next
``step()``), plus the TF behaviour of state files that name checkpoints
outside their folder.  The TF and PyTorch wordings were taken from
TF 2.21 / torch 2.13.
"""
from __future__ import annotations

import io
import json
import logging
import os
import struct
import zipfile

import numpy as np
import pytest

import dyngraph as torch
import staticgraph as tf
from common import checkpoint
from common.checkpoint import CheckpointError

RESTORE_FAILED = ("Restoring from checkpoint failed. This is most likely due to a Variable name or "
                  "other graph key that is missing from the checkpoint. Please ensure that you "
                  "have not altered the graph expected based on the checkpoint. Original error:")


# --- read_arrays: what a zip member declares is checked against what the file holds ----------

def _npy(shape, dtype="<f8", payload=b"") -> bytes:
    """An .npy member: a header declaring ``shape``/``dtype``, then ``payload`` as its data."""
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": dtype, "fortran_order": False,
                                               "shape": shape})
    return buf.getvalue() + payload


def _zip(path, members: dict, compression=zipfile.ZIP_STORED) -> None:
    with zipfile.ZipFile(path, "w", compression) as z:
        for name, data in members.items():
            z.writestr(name, data)


def test_a_header_declaring_more_than_the_member_holds_is_refused_before_allocating(tmp_path):
    path = tmp_path / "m.npz"
    _zip(path, {"w.npy": _npy((2 ** 40,), payload=b"\0" * 8)})   # 8 TiB declared, 8 bytes held
    with pytest.raises(CheckpointError, match=r"member 'w.npy' declares float64 \(1099511627776,\) "
                                              r"\(8796093022208 bytes\) but holds 8 bytes"):
        checkpoint.read_arrays(path)


def test_compressed_members_are_refused_so_a_deflate_bomb_never_inflates(tmp_path):
    path = tmp_path / "bomb.npz"
    _zip(path, {"w.npy": _npy((2 ** 24,), payload=bytes(8 * 2 ** 24))}, zipfile.ZIP_DEFLATED)
    assert os.path.getsize(path) < 2 ** 18                        # 128 MiB in a few hundred KiB
    with pytest.raises(CheckpointError, match="member 'w.npy' is compressed or encrypted; "
                                              "checkpoints are written as stored .npy members"):
        checkpoint.read_arrays(path)


def _central_entry(data: bytes) -> int:
    return data.index(b"PK\x01\x02")


@pytest.mark.parametrize("offset, value", [(8, 99),      # compression method 99 (unsupported)
                                           (8, 12),      # bzip2, which zipfile would inflate
                                           (6, 0x40)])   # general flag: strong encryption
def test_a_flipped_zip_directory_byte_is_a_checkpoint_error(tmp_path, offset, value):
    """zipfile raised NotImplementedError here ("That compression method is not supported")."""
    path = tmp_path / "m.pt"
    torch.save({"w": torch.ones(3)}, path)
    data = bytearray(path.read_bytes())
    at = _central_entry(data) + offset + 2          # fields of the central directory entry
    data[at:at + 2] = struct.pack("<H", value)
    path.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="compressed or encrypted"):
        torch.load(path)


@pytest.mark.parametrize("header, error", [
    (b"{'descr': '<f8',B'fortran_order': False, 'shape': (3,), }", "TypeError"),
    (b"{'descr': '<,f8', 'fortran_order': False, 'shape': (3,), }", "SyntaxError"),
    (b"{'descr': '<f8', 'fortran_order': False, 'shape': ((3,), }", "TokenError"),
])
def test_a_header_numpy_cannot_parse_is_a_checkpoint_error(tmp_path, header, error):
    """numpy lets these out of its .npy header parser (found by the loader fuzz)."""
    path = tmp_path / "m.npz"
    header = header.ljust(118) + b"\n"
    _zip(path, {"w.npy": b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header
                + bytes(24)})
    with pytest.raises(CheckpointError, match=f"member 'w.npy' has an unreadable .npy header "
                                              f"\\({error}: "):
        checkpoint.read_arrays(path)


def test_members_adding_up_to_more_than_the_file_are_refused(tmp_path):
    path = tmp_path / "m.npz"
    _zip(path, {"a.npy": _npy((4,), payload=bytes(32))})
    data = bytearray(path.read_bytes())
    at = _central_entry(data)
    for field in (20, 24):                          # compressed and uncompressed size
        data[at + field:at + field + 4] = struct.pack("<I", 2 ** 31)
    path.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match=r"its members declare 2147483648 bytes or more; "
                                              r"the file has \d+"):
        checkpoint.read_arrays(path)


def test_big_endian_members_load_in_native_byte_order(tmp_path):
    path = tmp_path / "be.npz"
    np.savez(path, w=np.arange(3, dtype=">f8"))
    w = checkpoint.read_arrays(path)["w"]
    assert w.dtype == np.float64 and w.dtype.isnative and w.tolist() == [0.0, 1.0, 2.0]


# --- dyngraph.load: the manifest -------------------------------------------------------

def _manifest_file(path, root: dict | str, **arrays) -> None:
    """A checkpoint file whose manifest has ``root`` (an object, or its JSON text)."""
    text = root if isinstance(root, str) else json.dumps(root)
    with open(path, "wb") as f:   # (np.savez would add ".npz" to a path)
        np.savez(f, __manifest__=np.array('{"format": "dyngraph/1", "root": ' + text + "}"),
                 **arrays)


def test_deeply_nested_manifest_is_a_checkpoint_error(tmp_path):
    path = tmp_path / "deep.pt"
    root = '{"list": [' * 5000 + '{"value": 1}' + "]}" * 5000   # too deep for json.dumps
    _manifest_file(path, root)
    with pytest.raises(CheckpointError, match=r"is not a dyngraph checkpoint \(it nests deeper "
                                              r"than 100 containers\)"):
        torch.load(path)


def test_save_refuses_what_load_would_refuse_and_writes_nothing(tmp_path):
    deep = [1]
    for _ in range(100):
        deep = [deep]
    with pytest.raises(ValueError, match="dyngraph.save: the object nests deeper than 100 "
                                         "containers"):
        torch.save(deep, tmp_path / "deep.pt")
    assert os.listdir(tmp_path) == []
    torch.save(deep[0], tmp_path / "ok.pt")                    # 100 levels: saved and loaded
    assert torch.load(tmp_path / "ok.pt") == deep[0]


@pytest.mark.parametrize("root, reason", [
    ({"tensor": 0, "requires_grad": True, "parameter": False},
     "tensor 0 is int64, which cannot require gradients"),
    ({"tensor": 0, "requires_grad": "yes", "parameter": False}, "requires_grad must be true or false"),
    ({"value": [1, 2]}, "a value must be a number, string, bool or null"),
    ({"dict": [[[1], {"value": 1}]]}, "dict keys must be strings or integers"),
    ({"tensor": 7, "requires_grad": False, "parameter": False}, "no array t7 for tensor 7"),
])
def test_manifest_entries_that_save_never_writes_are_refused(tmp_path, root, reason):
    path = tmp_path / "m.pt"
    _manifest_file(path, root, t0=np.arange(3))
    with pytest.raises(CheckpointError, match=reason.replace("[", r"\[")):
        torch.load(path)


# --- optimizer.load_state_dict: state checked against the parameters ------------------------

def _adam():
    w = torch.nn.Parameter(torch.ones(4))
    w.grad = torch.full((4,), 0.5)
    opt = torch.optim.Adam([w], lr=0.1)
    opt.step()
    return w, opt


def _snapshot(opt):
    return (repr(opt.param_groups), {id(p): {k: v._data.copy() if hasattr(v, "_data") else v
                                              for k, v in s.items()} for p, s in opt.state.items()})


def _same_snapshot(a, b) -> bool:
    return a[0] == b[0] and a[1].keys() == b[1].keys() and all(
        s.keys() == b[1][p].keys() and all(np.array_equal(v, b[1][p][k]) for k, v in s.items())
        for p, s in a[1].items())


def _crafted(change):
    w, opt = _adam()
    sd = opt.state_dict()
    change(sd)
    return w, opt, sd


@pytest.mark.parametrize("change, message", [
    (lambda sd: sd["state"][0].update(exp_avg=torch.zeros(3)),
     r"loaded state dict has exp_avg of shape torch.Size\(\[3\]\) for parameter 0, which has "
     r"shape torch.Size\(\[4\]\)"),
    (lambda sd: sd["state"][0].update(exp_avg_sq=torch.zeros(4, 1)),
     r"exp_avg_sq of shape torch.Size\(\[4, 1\]\) for parameter 0"),
    (lambda sd: sd["state"][0].update(exp_avg=[0.0] * 4),
     r"loaded state dict has exp_avg of type list for parameter 0; expected a tensor"),
    (lambda sd: sd["state"][0].update(max_exp_avg_sq=None),
     r"max_exp_avg_sq of type NoneType for parameter 0; expected a tensor"),
    (lambda sd: sd["state"][0].update(step=torch.ones(3)),
     r"loaded state dict has step tensor\(\[1., 1., 1.\]\) for parameter 0; expected a whole "
     r"number of steps, at least 0"),
    (lambda sd: sd["state"][0].update(step=-1), r"step -1 for parameter 0"),
    (lambda sd: sd["state"].update({0: 3}), r"the state of parameter 0 is a int, not a dict"),
    (lambda sd: sd["state"].update({"x": {}}), r"state key 'x' is not a parameter index"),
    (lambda sd: sd["param_groups"][0].update(lr="0.1"),
     r"option 'lr' of parameter group 0 is '0.1'; expected a number like 0.1"),
    (lambda sd: sd["param_groups"][0].update(betas=(0.9, 0.9, 0.9)),
     r"option 'betas' of parameter group 0 is \(0.9, 0.9, 0.9\); expected .* like \(0.9, 0.999\)"),
    (lambda sd: sd["param_groups"][0].update(betas=(1.0, 0.999)),
     r"^loaded state dict: parameter group 0: Invalid beta parameter at index 0: 1.0$"),
    (lambda sd: sd["param_groups"][0].update(params=[0, 0]),
     r"loaded state dict contains a parameter group that doesn't match the size of optimizer's "
     r"group"),
    (lambda sd: sd["param_groups"][0].update(params=["a"]),
     r"parameter group 0 lists 'a' among its params; expected parameter indices"),
    (lambda sd: sd.pop("param_groups"), r"loaded state dict has no 'param_groups'"),
    (lambda sd: sd.update(state=[1]), r"loaded state dict's 'state' is a list, not a dict"),
])
def test_crafted_optimizer_state_is_refused_early_and_changes_nothing(change, message):
    """PyTorch loads all of these and fails inside the next step() (or with a KeyError) --
    except the group size, which is its own check and wording."""
    w, opt, sd = _crafted(change)
    before = _snapshot(opt)
    with pytest.raises(ValueError, match=message):
        opt.load_state_dict(sd)
    assert _same_snapshot(_snapshot(opt), before)
    opt.step()                                        # the optimizer still works


def test_optimizer_state_is_cast_to_the_parameter_dtype_as_pytorch():
    """PyTorch casts every state tensor but ``step`` to the parameter's dtype (ints and bools
    too); a Python number for ``step`` works as well."""
    w, opt, sd = _crafted(lambda sd: sd["state"][0].update(exp_avg=torch.ones(4, dtype=torch.int64),
                                                           exp_avg_sq=torch.ones(4).double(),
                                                           step=1))
    opt.load_state_dict(sd)
    state = opt.state[w]
    assert state["exp_avg"].dtype == state["exp_avg_sq"].dtype == torch.float32
    assert state["step"].dtype == torch.float32 and state["step"].shape == ()
    opt.step()
    assert float(state["step"]) == 2.0


def test_optimizer_load_state_dict_of_a_non_dict():
    w, opt = _adam()
    with pytest.raises(ValueError, match="loaded state dict is a list, not a dict"):
        opt.load_state_dict([1])


def test_module_load_state_dict_of_a_non_mapping_uses_pytorch_wording():
    with pytest.raises(TypeError, match=r"^Expected state_dict to be dict-like, got "
                                        r"<class 'list'>.$"):
        torch.nn.Linear(2, 2).load_state_dict([1])


# --- train.Saver.restore: the index and the data file --------------------------------------

def _saved(tmp_path):
    """A checkpoint of two variables, then both changed: a restore would change them back."""
    graph = tf.Graph()
    with graph.as_default():
        w = tf.Variable(np.arange(4.0), name="w")
        b = tf.Variable([[3.0]], name="b")
        saver = tf.train.Saver()
        bump = [w.assign_add(np.ones(4)), b.assign_add([[1.0]])]
        sess = tf.Session()
    sess.run([w.initializer, b.initializer])
    path = saver.save(sess, str(tmp_path / "m"))
    sess.run(bump)
    return sess, saver, path


def _restore_fails(sess, saver, path):
    """``saver.restore`` raises (returned) and every variable keeps its value."""
    before = {k: v.copy() for k, v in sess.state.variables.items()}
    with pytest.raises(Exception) as e:
        saver.restore(sess, path)
    assert before.keys() == sess.state.variables.keys()
    assert all(np.array_equal(v, sess.state.variables[k]) for k, v in before.items())
    return e


def test_restore_of_a_missing_data_file_is_tfs_not_found_error(tmp_path):
    sess, saver, path = _saved(tmp_path)
    os.remove(path + ".data-00000-of-00001")
    e = _restore_fails(sess, saver, path)
    assert e.type is tf.errors.NotFoundError
    assert str(e.value) == (f"{RESTORE_FAILED}\n\n{path}.data-00000-of-00001; No such file or "
                            f"directory")


def _write_index(path, index) -> None:
    with open(path + ".index", "w") as f:
        f.write(index if isinstance(index, str) else json.dumps(index))


@pytest.mark.parametrize("index, problem", [
    ({"w": [[4], "float64"]}, "b is in the data file but not in the index"),
    ({"w": [[4], "float64"], "b": [[1, 1], "float32"], "c": [[], "int32"]},
     "c is in the index but not in the data file"),
    ({"w": [[10], "float64"], "b": [[1, 1], "float32"]},
     r"w is float64 \[10\] in the index but float64 \[4\] in the data file"),
    ({"w": [[4], "float32"], "b": [[1, 1], "float32"]},
     r"w is float32 \[4\] in the index but float64 \[4\] in the data file"),
    ({"w": [[4], "nonsense"], "b": [[1, 1], "float32"]},
     r"w is nonsense \[4\] in the index but float64 \[4\] in the data file"),
])
def test_an_index_that_disagrees_with_the_data_is_data_loss(tmp_path, index, problem):
    """TF 2.21 restored a variable of shape [1000] as shape [10] from an index of another
    checkpoint whose first bytes matched; here any disagreement is refused."""
    sess, saver, path = _saved(tmp_path)
    _write_index(path, index)
    e = _restore_fails(sess, saver, path)
    assert e.type is tf.errors.DataLossError
    assert e.match(f"^checkpoint {path}: its index {path}.index does not match its data file "
                   f"{path}.data-00000-of-00001 \\({problem}\\)$")


@pytest.mark.parametrize("index, reason", [
    ("\udcff", "UnicodeDecodeError"), ("{", "JSONDecodeError"), ("[1]", "not an object"),
    ('{"w": [[-4], "float64"]}', r"w: \[\[-4\], 'float64'\] is not \[shape, dtype name\]"),
    ('{"w": [4, "float64"]}', r"w: \[4, 'float64'\] is not \[shape, dtype name\]"),
    ("[" * 100000, "nested too deeply"),
])
def test_an_unreadable_index_is_data_loss(tmp_path, index, reason):
    sess, saver, path = _saved(tmp_path)
    with open(path + ".index", "w", errors="surrogateescape") as f:
        f.write(index)
    e = _restore_fails(sess, saver, path)
    assert e.type is tf.errors.DataLossError
    assert e.match(f"^{path}.index is not a valid checkpoint index \\(.*{reason}")


def test_readers_check_the_index_too(tmp_path):
    sess, saver, path = _saved(tmp_path)
    _write_index(path, {"w": [[4], "float64"]})
    for read in (tf.train.list_variables, tf.train.NewCheckpointReader):
        with pytest.raises(tf.errors.DataLossError, match="b is in the data file but not in the "
                                                          "index"):
            read(path)


# --- the ``checkpoint`` state file ----------------------------------------------------------

def _state(tmp_path, content: bytes):
    (tmp_path / "checkpoint").write_bytes(content)


@pytest.mark.parametrize("content, problem", [
    (b'model_checkpoint_path: "m-1\xff"\n', "1:1 : the file is not UTF-8 text ('utf-8' codec "
                                             "can't decode byte 0xff in position 27: invalid "
                                             "start byte)"),
    (b"hello world\n", '1:1 : Message type "tensorflow.CheckpointState" has no field named '
                       '"hello".'),
    (b"model_checkpoint_path: m-1\n", "1:24 : 'model_checkpoint_path: m-1': Expected string but "
                                      "found: 'm-1'"),
    (b'model_checkpoint_path "m-1"\n', '1:23 : \'model_checkpoint_path "m-1"\': Expected ":".'),
])
def test_an_unparseable_state_file_is_ignored_with_tfs_warning(tmp_path, caplog, content, problem):
    """TF 2.21 logs the ParseError and returns None (and raised UnicodeDecodeError for the
    non-UTF-8 file, a stray exception this treats as the unparseable file it is)."""
    _state(tmp_path, content)
    with caplog.at_level(logging.WARNING, "tensorflow"):
        assert tf.train.get_checkpoint_state(str(tmp_path)) is None
        assert tf.train.latest_checkpoint(str(tmp_path)) is None
    assert caplog.messages[:2] == [f"ParseError: {problem}",
                                   f"{tmp_path / 'checkpoint'}: Checkpoint ignored"]


@pytest.mark.parametrize("content", [b"", b'all_model_checkpoint_paths: "m-1"\n', b"# nothing\n"])
def test_a_state_file_without_a_newest_path_is_tfs_value_error(tmp_path, content):
    _state(tmp_path, content)
    for read in (tf.train.get_checkpoint_state, tf.train.latest_checkpoint):
        with pytest.raises(ValueError, match=f"^Invalid checkpoint state loaded from {tmp_path}$"):
            read(str(tmp_path))


def test_state_file_strings_are_tfs_text_format(tmp_path):
    """TF 2.21 wrote this file for a directory named ``a'b"c é`` (quotes escaped, UTF-8 kept);
    both engines' files read the same, and comments, single quotes, escapes, adjacent strings
    and the timestamp fields of TF 2's CheckpointManager parse as in TF."""
    folder = tmp_path / "a'b\"c é"
    folder.mkdir()
    sess, saver, path = _saved(folder)
    tf_wrote = (f'model_checkpoint_path: "{tmp_path}/a\\\'b\\"c \u00e9/m"\n'
                f'all_model_checkpoint_paths: "{tmp_path}/a\\\'b\\"c \u00e9/m"\n').encode()
    assert (folder / "checkpoint").read_bytes() == tf_wrote
    _state(folder, b"# a comment\nmodel_checkpoint_path: 'x' \"\\155\" ;\n"
                   b"all_model_checkpoint_timestamps: 1.5e9 last_preserved_timestamp: 3\n")
    state = tf.train.get_checkpoint_state(str(folder))
    assert state.model_checkpoint_path == str(folder / "xm")
    assert state.all_model_checkpoint_paths == []


def test_a_path_with_a_newline_round_trips_through_the_state_file(tmp_path):
    folder = tmp_path / "two\nlines"
    folder.mkdir()
    sess, saver, path = _saved(folder)
    assert b'two\\nlines' in (folder / "checkpoint").read_bytes()
    assert tf.train.latest_checkpoint(str(folder)) == path


def test_a_state_file_may_name_checkpoints_outside_its_folder_as_in_tf(tmp_path):
    """TF 2.21 joins a relative path to the folder without normalising it (``../`` included)
    and keeps absolute paths; latest_checkpoint returns either when its files exist, and
    otherwise logs "Couldn't match files for checkpoint ..." and returns None."""
    (tmp_path / "elsewhere").mkdir()
    sess, saver, path = _saved(tmp_path / "elsewhere")
    folder = tmp_path / "run"
    folder.mkdir()
    _state(folder, b'model_checkpoint_path: "../elsewhere/m"\n')
    assert tf.train.latest_checkpoint(str(folder)) == f"{folder}/../elsewhere/m"
    _state(folder, f'model_checkpoint_path: "{path}"\n'.encode())
    assert tf.train.latest_checkpoint(str(folder)) == path
    saver.restore(sess, tf.train.latest_checkpoint(str(folder)))


def test_latest_checkpoint_logs_a_missing_checkpoint_as_tf(tmp_path, caplog):
    _state(tmp_path, b'model_checkpoint_path: "/nowhere/m-1"\n')
    with caplog.at_level(logging.ERROR, "tensorflow"):
        assert tf.train.latest_checkpoint(str(tmp_path)) is None
    assert caplog.messages == ["Couldn't match files for checkpoint /nowhere/m-1"]
