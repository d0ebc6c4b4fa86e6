"""The README's classic TF1 script runs on staticgraph, with TF's names, and trains."""
from __future__ import annotations

from comparisons import tf1_classic


def test_classic_tf1_script_runs_and_trains():
    out = tf1_classic.main(epochs=4, verbose=False)
    assert out["steps"] == 32
    assert out["trainable"] == ["model/hidden/kernel:0", "model/hidden/bias:0",
                                "model/out/kernel:0", "model/out/bias:0"]
    assert out["last"] < out["first"] / 10
