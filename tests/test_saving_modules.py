"""Whole-module saves (``torch.save(model, f)``), file objects, ``map_location`` and safe globals.

What torch 2.13 does (recorded in its CPU wheel, wordings copied below), done without
pickle: a module is stored as its class's import path and its state, and loading one
needs ``weights_only=False`` or the class among the safe globals, as torch 2.6+.  Even
then loading imports nothing and constructs nothing but ``nn.Module`` subclasses.
"""
from __future__ import annotations

import io
import json
import os
import pathlib
import re
import sys
from pickle import UnpicklingError

import numpy as np
import pytest

import dyngraph as torch
from common.checkpoint import CheckpointError, write_arrays
from dyngraph import nn

# torch 2.13's UnpicklingError for a whole module loaded with weights_only=True (the class
# path in torch's text was __main__.M); dyngraph appends a sentence of its own.
WEIGHTS_ONLY = (
    "Weights only load failed. This file can still be loaded, to do so you have two options, "
    "\x1b[1mdo those steps only if you trust the source of the checkpoint\x1b[0m. \n\t(1) In "
    "PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` "
    "from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will "
    "likely succeed, but it can result in arbitrary code execution. Do it only if you got the "
    "file from a trusted source.\n\t(2) Alternatively, to load with `weights_only=True` please "
    "check the recommended steps in the following error message.\n\tWeightsUnpickler error: "
    "Unsupported global: GLOBAL {path} was not an allowed global by default. Please use "
    "`torch.serialization.add_safe_globals([{path}])` or the "
    "`torch.serialization.safe_globals([{path}])` context manager to allowlist this global if "
    "you trust this class/function.\n\nCheck the documentation of torch.load to learn more about "
    "types accepted by default with weights_only "
    "https://pytorch.org/docs/stable/generated/torch.load.html.")
CUDA_ON_CPU = ("Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is "
               "False. If you are running on a CPU-only machine, please use torch.load with "
               "map_location=torch.device('cpu') to map your storages to the CPU.")
NET = f"{__name__}.Net"
LINEAR = f"{nn.Linear.__module__}.Linear"


class Net(nn.Module):
    built = 0

    def __init__(self):
        super().__init__()
        Net.built += 1
        self.fc = nn.Linear(3, 4)
        self.rnn = nn.LSTM(4, 2, num_layers=2)
        self.out = nn.Linear(2, 4)
        self.out.weight = nn.Parameter(torch.randn(4, 2))
        self.tied = nn.Linear(2, 4, bias=False)
        self.tied.weight = self.out.weight              # one parameter, two modules
        self.frozen = nn.Parameter(torch.ones(2), requires_grad=False)
        self.register_buffer("steps", torch.tensor(3))
        self.register_buffer("scratch", torch.zeros(2), persistent=False)
        self.hyper = {"size": (3, 4), "names": ["a", None], "rate": 0.5, "deep": True}
        self.dtype_used, self.where = torch.float64, torch.device("cpu")

    def forward(self, x):
        return self.out(self.rnn(self.fc(x).unsqueeze(1))[0].squeeze(1))


class Outer:
    class Inner(nn.Module):
        pass


def _saved(obj) -> io.BytesIO:
    buf = io.BytesIO()
    torch.save(obj, buf)
    buf.seek(0)
    return buf


def _crafted(tmp_path, root) -> pathlib.Path:
    """A checkpoint whose manifest is ``root`` (what a stranger can send)."""
    path = tmp_path / "crafted.pt"
    write_arrays(path, {"__manifest__": np.array(json.dumps({"format": "dyngraph/1",
                                                             "root": root}))})
    return path


def _module_entry(module: str, qualname: str, **fields) -> dict:
    return {"module": module, "class": qualname, "training": True, "parameters": [],
            "buffers": [], "non_persistent": [], "modules": [], "attributes": [], **fields}


# --- round trips ------------------------------------------------------------------------

def test_a_whole_module_round_trips_with_its_classes_state_and_attributes():
    torch.manual_seed(0)
    net = Net()
    net.rnn.eval()
    built = Net.built
    back = torch.load(_saved(net), weights_only=False)
    assert Net.built == built                      # made without __init__, as pickle makes it
    assert type(back) is Net and type(back.rnn) is nn.LSTM and back is not net
    assert [type(m) for m in back.modules()] == [type(m) for m in net.modules()]
    assert back.training and not back.rnn.training and back.fc.training
    assert list(back.state_dict()) == list(net.state_dict())
    assert all(torch.equal(a, b) for a, b in zip(back.state_dict().values(),
                                                 net.state_dict().values()))
    assert back.tied.weight is back.out.weight and type(back.out.weight) is nn.Parameter
    assert not back.frozen.requires_grad and back.fc.weight.requires_grad
    assert torch.equal(back.scratch, net.scratch) and "scratch" not in back.state_dict()
    assert back.hyper == net.hyper and isinstance(back.hyper["size"], tuple)
    assert back.dtype_used is torch.float64 and back.where == torch.device("cpu")
    assert back.rnn.num_layers == 2 and repr(back) == repr(net)
    x = torch.randn(5, 3)
    assert torch.equal(back(x), net(x))
    back(x).sum().backward()                       # it trains: gradients reach its parameters
    assert back.fc.weight.grad is not None and net.fc.weight.grad is None


def test_modules_inside_a_checkpoint_dict_and_modules_that_refer_to_each_other():
    parent = nn.Sequential(nn.Linear(2, 2))
    parent.head = nn.Linear(2, 1)
    object.__setattr__(parent[0], "owner", parent)    # a plain attribute pointing back up
    back = torch.load(_saved({"model": parent, "epoch": 3, "same": parent}), weights_only=False)
    model = back["model"]
    assert back["epoch"] == 3 and back["same"] is model and model[0].owner is model
    assert type(model) is nn.Sequential and list(model.state_dict()) == list(parent.state_dict())


def test_nested_classes_are_found_by_their_qualified_name():
    back = torch.load(_saved(Outer.Inner()), weights_only=False)
    assert type(back) is Outer.Inner


@pytest.mark.parametrize("open_file", ["path", "str", "file", "bytesio"])
def test_save_and_load_take_paths_and_open_binary_files(tmp_path, open_file):
    path = tmp_path / "m.pt"
    state = {"w": torch.arange(3.0), "epoch": 2}
    if open_file == "file":
        with open(path, "wb") as f:
            torch.save(state, f)
        with open(path, "rb") as f:
            back = torch.load(f)
    elif open_file == "bytesio":
        back = torch.load(_saved(state))
    else:
        target = path if open_file == "path" else str(path)
        torch.save(state, target)
        back = torch.load(target)
    assert torch.equal(back["w"], state["w"]) and back["epoch"] == 2


def test_a_file_object_is_read_from_its_position_and_must_be_seekable():
    buf = io.BytesIO(b"header")
    buf.seek(0, os.SEEK_END)
    torch.save(torch.ones(2), buf)
    buf.seek(len(b"header"))
    assert torch.equal(torch.load(buf), torch.ones(2))
    with pytest.raises(AttributeError, match=r"^'int' object has no attribute 'seek'. You can only "
                                             r"torch.load from a file that is seekable"):
        torch.load(3)
    with pytest.raises(AttributeError, match="^expected 'f' to be string, path, or a file-like "
                                             "object with a 'write' attribute$"):
        torch.save(torch.ones(1), 3)


def test_a_truncated_module_file_is_a_checkpoint_error(tmp_path):
    data = _saved(Net()).getvalue()
    with pytest.raises(CheckpointError, match=r"checkpoint '<BytesIO>' is truncated or corrupted"):
        torch.load(io.BytesIO(data[:len(data) // 2]), weights_only=False)
    (tmp_path / "m.pt").write_bytes(data[:-30])
    with pytest.raises(CheckpointError, match="is truncated or corrupted"):
        torch.load(tmp_path / "m.pt", weights_only=False)


# --- weights_only and safe globals -----------------------------------------------------------

def test_weights_only_refuses_a_module_with_torchs_error():
    buf = _saved({"model": Net()})
    for weights_only in ({}, {"weights_only": True}, {"weights_only": None}):
        buf.seek(0)
        with pytest.raises(UnpicklingError) as e:
            torch.load(buf, **weights_only)
        assert str(e.value).startswith(WEIGHTS_ONLY.format(path=NET))
    assert torch.load(_saved({"w": torch.ones(1)}), weights_only=False)["w"].shape == (1,)


def test_safe_globals_allow_the_classes_they_name_and_only_inside_the_block():
    buf = _saved(Net())
    assert torch.serialization.get_safe_globals() == []
    with torch.serialization.safe_globals([Net]):
        assert torch.serialization.get_safe_globals() == [Net]
        with pytest.raises(UnpicklingError) as e:   # the first class not allowed, as torch
            torch.load(buf)
        assert str(e.value).startswith(WEIGHTS_ONLY.format(path=LINEAR))
        buf.seek(0)
        with torch.serialization.safe_globals([nn.Linear, nn.LSTM]):
            assert type(torch.load(buf)) is Net
        assert torch.serialization.get_safe_globals() == [Net]
    assert torch.serialization.get_safe_globals() == []
    try:
        torch.serialization.add_safe_globals([Net, nn.Linear, (nn.LSTM, "renamed.LSTM")])
        buf.seek(0)
        with pytest.raises(UnpicklingError, match="GLOBAL dyngraph.nn.rnn.LSTM was not"):
            torch.load(buf)     # the pair allows a file's "renamed.LSTM", not LSTM's own path
        torch.serialization.add_safe_globals([nn.LSTM])
        buf.seek(0)
        assert type(torch.load(buf).rnn) is nn.LSTM
        assert torch.serialization.get_safe_globals()[:2] == [Net, nn.Linear]
    finally:
        torch.serialization.clear_safe_globals()
    assert torch.serialization.get_safe_globals() == []


def test_a_crafted_file_naming_a_non_module_is_refused_before_anything_is_made(tmp_path):
    path = _crafted(tmp_path, _module_entry("os", "system"))
    with pytest.raises(UnpicklingError, match="GLOBAL os.system was not an allowed global"):
        torch.load(path)
    with pytest.raises(CheckpointError, match=r"names 'os.system', which is not a "
                                              r"torch.nn.Module subclass; only module classes"):
        torch.load(path, weights_only=False)
    path = _crafted(tmp_path, _module_entry("builtins", "object"))
    with pytest.raises(CheckpointError, match="'builtins.object', which is not a torch.nn.Module"):
        torch.load(path, weights_only=False)


def test_loading_never_imports_a_module(tmp_path):
    importable = next(m for m in ("xml.dom.minidom", "tkinter", "turtle") if m not in sys.modules)
    for module, qualname, reason in [
            ("this_module_does_not_exist", "Net", "module 'this_module_does_not_exist' is not "
                                                  "imported"),
            (importable, "X", f"module '{importable}' is not imported"),
            (__name__, "Missing", f"'{__name__}' has no 'Missing'"),
            (__name__, "Net.__init__.<locals>.X", f"'{__name__}' has no 'Net.__init__.<locals>.X'")]:
        path = _crafted(tmp_path, _module_entry(module, qualname))
        with pytest.raises(CheckpointError, match=f"it names class .*, but {re.escape(reason)}: "
                                                  f"loading never imports code"):
            torch.load(path, weights_only=False)
        assert module not in sys.modules or module == __name__


@pytest.mark.parametrize("fields, reason", [
    ({"training": "yes"}, "a module's training must be true or false"),
    ({"parameters": [["w", {"tensor": 0, "requires_grad": False, "parameter": False}]]},
     "Net.w in parameters is a Tensor"),
    ({"modules": [["m", {"value": 3}]]}, "Net.m in modules is a int"),
    ({"attributes": [["_parameters", {"value": 3}]]}, "attribute '_parameters' is one it has"),
    ({"non_persistent": ["nothing"]}, "non_persistent must list some of its buffers"),
    ({"attributes": [["x", {"module_ref": 5}]]}, "module_ref 5 names no module before it"),
    ({"attributes": [["x", {"dtype": "object"}]]}, "unknown dtype 'object'"),
    ({"attributes": [["x", {"device": "gpu"}]]}, "Expected one of cpu"),
    ({"attributes": [[1, {"value": 3}]]}, "dict keys must be strings, in"),
])
def test_crafted_module_entries_are_checkpoint_errors(tmp_path, fields, reason):
    path = tmp_path / "crafted.pt"
    write_arrays(path, {"t0": np.ones(2, np.float32), "__manifest__": np.array(json.dumps(
        {"format": "dyngraph/1", "root": _module_entry(__name__, "Net", **fields)}))})
    with pytest.raises(CheckpointError, match=reason):
        torch.load(path, weights_only=False)


# --- what save refuses ---------------------------------------------------------------------

def test_save_refuses_what_it_cannot_store_naming_the_attribute_and_writes_nothing(tmp_path):
    net = nn.Sequential(nn.Linear(2, 2))
    net[0].act = lambda x: x
    with pytest.raises(TypeError, match=r"^dyngraph.save cannot store obj\['model'\]\.0\.act, a "
                                        r"function: only tensors, modules"):
        torch.save({"model": net}, tmp_path / "m.pt")
    with open(tmp_path / "log.txt", "w") as log:
        net[0].act = log
        with pytest.raises(TypeError, match=r"cannot store obj\.0\.act, a TextIOWrapper"):
            torch.save(net, tmp_path / "m.pt")
    del net[0].act
    net.register_forward_hook(lambda m, i, o: o)
    with pytest.raises(TypeError, match="cannot store obj: it has forward hooks"):
        torch.save(net, tmp_path / "m.pt")

    def local():
        class Local(nn.Module):
            pass
        return Local()
    with pytest.raises(AttributeError, match=r"cannot store obj\[0\]: its class .*"
                                             r"local.<locals>.Local cannot be found by that import"):
        torch.save([local()], tmp_path / "m.pt")
    assert os.listdir(tmp_path) == ["log.txt"]       # nothing written, no temp file left


# --- map_location ---------------------------------------------------------------------------

@pytest.mark.parametrize("map_location", ["cpu", torch.device("cpu"), {"cpu": "cpu"},
                                          {"cuda:0": "cpu"}, lambda storage, loc: storage,
                                          lambda storage, loc: None])
def test_map_location_to_the_cpu_as_torch_takes_it(map_location):
    net = nn.Linear(2, 2)
    back = torch.load(_saved(net), map_location=map_location, weights_only=False)
    assert torch.equal(back.weight, net.weight) and type(back.weight) is nn.Parameter
    assert back.weight.requires_grad


def test_a_map_location_function_gets_each_tensor_and_cpu():
    calls = []
    back = torch.load(_saved({"a": torch.ones(2), "b": torch.zeros(1)}),
                      map_location=lambda storage, loc: calls.append(loc) or storage * 2)
    assert calls == ["cpu", "cpu"] and torch.equal(back["a"], torch.full((2,), 2.0))


@pytest.mark.parametrize("map_location, error, message", [
    ("cuda", RuntimeError, CUDA_ON_CPU),
    ("cuda:0", RuntimeError, CUDA_ON_CPU),
    ({"cpu": "cuda:0"}, RuntimeError, CUDA_ON_CPU),
    ("bogus", RuntimeError, "don't know how to restore data location of "
                            "torch.storage.UntypedStorage (tagged with bogus)"),
    ("cpu:0", RuntimeError, "don't know how to restore data location of "
                            "torch.storage.UntypedStorage (tagged with cpu:0)"),
    (torch.device("meta"), RuntimeError, "don't know how to restore data location of "
                                         "torch.storage.UntypedStorage (tagged with meta) "
                                         "(dyngraph computes on the CPU only)"),
    (3, TypeError, "'int' object is not callable"),
    (lambda storage, loc: {}["missing"], KeyError, "'missing'"),
    (lambda storage, loc: 5, TypeError, "map_location returned a int; it must return the storage"),
])
def test_map_location_errors_are_torchs(map_location, error, message):
    with pytest.raises(error) as e:
        torch.load(_saved({"w": torch.ones(1)}), map_location=map_location)
    assert str(e.value).startswith(message)


def test_a_scripts_own_classes_load_in_that_script_as_torch_finds_them_in_main(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(
        "import dyngraph as torch\n"
        "class Tagger(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.fc = torch.nn.Linear(2, 3)\n"
        f"torch.save(Tagger(), {str(tmp_path / 'm.pt')!r})\n"
        f"model = torch.load({str(tmp_path / 'm.pt')!r}, weights_only=False)\n")
    import runpy
    ran = runpy.run_path(str(script), run_name="__main__")
    assert type(ran["model"]) is ran["Tagger"] and ran["model"].fc.out_features == 3
    with pytest.raises(CheckpointError, match=r"it names class '__main__.Tagger', but '__main__' "
                                              r"has no 'Tagger'"):
        torch.load(tmp_path / "m.pt", weights_only=False)   # another program: as torch, not found
