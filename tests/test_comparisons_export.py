"""``python -m comparisons.export``: the traced ONNX model freezes its path, the static one keeps Loop/If."""
from __future__ import annotations

import pytest

pytest.importorskip("onnxruntime")

from comparisons import export  # noqa: E402


def test_export_comparison_runs_both_models_on_the_other_branch(tmp_path, capsys):
    export.main(["--out", str(tmp_path)])
    out = " ".join(capsys.readouterr().out.split())
    assert "x = [1.5, 3.0] (eager: 2592) 2592 RIGHT 2592 RIGHT" in out
    assert "x = [0.3, -2.0] (eager: -1768.8) -345.6 WRONG -1768.8 RIGHT" in out
    assert "no Loop or If" in out and "1 Loop and 1 If node(s)" in out
    assert "TracerWarning: Converting a tensor to a Python boolean" in out
    assert (tmp_path / "program_dyngraph.onnx").exists() and (tmp_path / "program_staticgraph.onnx").exists()
