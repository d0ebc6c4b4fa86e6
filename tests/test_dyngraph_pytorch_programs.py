"""Plain PyTorch programs run on dyngraph print exactly what they print under PyTorch 2.

Each ``tests/pytorch_programs/NAME.py`` only does ``import torch``; ``NAME.expected``
is its output under the real PyTorch 2 CPU wheel (regenerate with that
interpreter: ``python NAME.py > NAME.expected``).  Here ``torch`` is dyngraph.
The programs cover the everyday surface: dtypes and promotion, operators,
math and reductions with their backward node names, indexing, devices,
modules and their reprs, activations, losses, optimizers and schedulers,
data loading, custom autograd Functions and ``autograd.functional``.
Random draws are used only where their values are not printed.
"""
from __future__ import annotations

import contextlib
import io
import runpy
import sys
import warnings
from pathlib import Path

import pytest

import dyngraph

HERE = Path(__file__).parent / "pytorch_programs"
PROGRAMS = sorted(p.stem for p in HERE.glob("*.py"))
ALIASES = ["nn", "nn.functional", "nn.init", "optim", "optim.lr_scheduler", "utils",
           "utils.data", "autograd", "autograd.functional"]


@pytest.mark.parametrize("name", PROGRAMS)
def test_program_prints_what_pytorch_prints(name, monkeypatch):
    assert_prints_what_pytorch_prints(name, monkeypatch)


def test_random_streams_from_the_numpy_code_and_the_compiled_kernels(monkeypatch, random_kernels):
    """The recorded random streams, every draw taken by one of the two implementations."""
    assert_prints_what_pytorch_prints("random_streams", monkeypatch)


def assert_prints_what_pytorch_prints(name: str, monkeypatch) -> None:
    import importlib
    monkeypatch.setitem(sys.modules, "torch", dyngraph)
    for sub in ALIASES:
        monkeypatch.setitem(sys.modules, "torch." + sub, importlib.import_module("dyngraph." + sub))
    out = io.StringIO()
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dyngraph.manual_seed(0)
        runpy.run_path(str(HERE / f"{name}.py"), run_name="__main__")
    expected = (HERE / f"{name}.expected").read_text()
    assert out.getvalue().splitlines() == expected.splitlines()
