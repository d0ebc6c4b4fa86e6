"""``python -m comparisons --tensorboard DIR``: both engines' graphs and the bench's curves."""
from __future__ import annotations

import json

import pytest

pytest.importorskip("tensorboard")
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa: E402

from comparisons import __main__ as cli  # noqa: E402
from comparisons.tensorboard import PAIRS  # noqa: E402


def _bench_json(path) -> str:
    rows = [dict(workload="counter_10", engine=e, kind=k, peer=False, build_s=b, first_s=f,
                 min_s=s, median_s=s, runs=5) for e, k, b, f, s in (
        ("numpy", "numpy", 0.0, 1e-6, 1e-6), ("dyngraph", "eager", 0.0, 1e-5, 1e-5),
        ("staticgraph", "static", 1e-3, 1e-3, 1e-6))]
    path.write_text(json.dumps({"rows": rows}))
    return str(path)


def test_tensorboard_option_writes_both_engines_graphs_and_bench_curves(tmp_path, capsys):
    logdir = tmp_path / "tb"
    assert cli.main(["--tensorboard", str(logdir), "--bench-json",
                     _bench_json(tmp_path / "bench.json")]) == 0
    assert "tensorboard --logdir" in capsys.readouterr().out
    for name in PAIRS:
        static = EventAccumulator(str(logdir / name / "staticgraph"))
        eager = EventAccumulator(str(logdir / name / "dyngraph"))
        static.Reload(), eager.Reload()
        assert len(static.Graph().node) > 0 and len(eager.Graph().node) > 0
    counter_static = {n.op for n in EventAccumulator(str(logdir / "counter" / "staticgraph"))
                      .Reload().Graph().node}
    counter_eager = [n.op for n in EventAccumulator(str(logdir / "counter" / "dyngraph"))
                     .Reload().Graph().node]
    assert "StatelessWhile" in counter_static and "StatelessWhile" not in counter_eager
    assert counter_eager.count("Add") == 2 * 10        # the trace unrolled the 10 trips it saw
    curves = {}
    for engine in ("dyngraph", "staticgraph"):
        acc = EventAccumulator(str(logdir / "bench" / engine))
        acc.Reload()
        curves[engine] = {e.step: e.value for e in acc.Scalars("amortization/counter_10")}
    assert curves["dyngraph"][1] == pytest.approx(1e-2) and curves["staticgraph"][1] == \
        pytest.approx(2.0)                                 # ms: k x steady vs build + first run
    assert curves["staticgraph"][10000] < curves["dyngraph"][10000]
    assert not (logdir / "bench" / "numpy").exists()
