"""The README's classic PyTorch training script runs on dyngraph, trains, and resumes --
printing, line for line, what it prints under PyTorch 2.13 (CPU): its data, split, shuffles,
initialisation and so its losses come from the same random bits."""
from __future__ import annotations

import contextlib
import importlib
import io
import re
import sys
from pathlib import Path

import dyngraph

README = Path(__file__).parent.parent / "README.md"


def test_readme_training_script_runs_unchanged(monkeypatch):
    text = README.read_text()
    block = re.search(r"<!-- training-script -->\n```python\n(.*?)```\n<!-- /training-script -->",
                      text, re.S).group(1)
    assert "import torch\n" in block and "dyngraph" not in block
    monkeypatch.setitem(sys.modules, "torch", dyngraph)
    for sub in ("nn", "utils", "utils.data", "optim", "optim.lr_scheduler"):
        monkeypatch.setitem(sys.modules, "torch." + sub, importlib.import_module("dyngraph." + sub))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, "README.md", "exec"), {"__name__": "__main__"})
    lines = out.getvalue().splitlines()
    assert [line.split(":")[0] for line in lines] == [f"epoch {k}" for k in range(5)]
    losses = [float(re.search(r"train (\S+)", line).group(1)) for line in lines]
    accuracy = float(re.search(r"acc (\S+)", lines[-1]).group(1))
    assert losses[-1] < losses[0] and accuracy >= 0.9
    assert lines[-1].endswith("lr [0.025, 0.0125]")  # the schedule went on from the checkpoint
    assert lines == PYTORCH_PRINTED


PYTORCH_PRINTED = [   # the block under PyTorch 2.13.0+cpu
    "epoch 0: train 0.525  val 0.258  acc 0.99  lr [0.1, 0.05]",
    "epoch 1: train 0.278  val 0.233  acc 0.99  lr [0.05, 0.025]",
    "epoch 2: train 0.223  val 0.213  acc 0.99  lr [0.05, 0.025]",
    "epoch 3: train 0.216  val 0.207  acc 0.99  lr [0.025, 0.0125]",
    "epoch 4: train 0.212  val 0.210  acc 0.99  lr [0.025, 0.0125]"]
