"""The benchmark harness: the numpy floor's hand-derived gradients, the harness end to end.

Timings are never asserted; only that the harness measures, checks and reports.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

from comparisons.bench import main, numpy_floor as nf, report
from comparisons.bench.suite import ENGINES, WORKLOADS, Row, _check, run_suite
from comparisons.bench.timing import Budget, measure
from tests.gradcheck import numeric_grad

RNG = np.random.default_rng(7)


def randn(*shape, scale=1.0):
    return RNG.standard_normal(shape) * scale


def test_gradient_example_matches_finite_differences_and_the_seed():
    x, w = np.array([2.0]), np.array([1.0])
    y, gx, gw = nf.gradient_example(x, w)
    f = lambda: nf.gradient_example(x, w)[0].sum()
    np.testing.assert_allclose(gx, numeric_grad(f, x), rtol=1e-6)
    np.testing.assert_allclose(gw, numeric_grad(f, w), rtol=1e-6)
    assert (y[0], gw[0], gx[0]) == (6.0, 5.0, 2.0)   # the seed: w.grad is 5


def test_rnn_cell_matches_finite_differences():
    W_h, W_x, x, h = randn(20, 20), randn(20, 10), randn(1, 10), randn(1, 20)
    _, dW_h, dW_x = nf.rnn_cell(W_h, W_x, x, h)
    f = lambda: nf.rnn_cell(W_h, W_x, x, h)[0]
    np.testing.assert_allclose(dW_h, numeric_grad(f, W_h), rtol=1e-5, atol=1e-8)
    np.testing.assert_allclose(dW_x, numeric_grad(f, W_x), rtol=1e-5, atol=1e-8)


def test_unrolled_rnn_matches_finite_differences():
    W_h, W_x = randn(6, 6, scale=0.4), randn(6, 3, scale=0.4)
    xs, h0 = randn(7, 3, 1), randn(6, 1)
    _, dW_h, dW_x = nf.rnn_unrolled(W_h, W_x, xs, h0)
    f = lambda: nf.rnn_unrolled(W_h, W_x, xs, h0)[0]
    np.testing.assert_allclose(dW_h, numeric_grad(f, W_h), rtol=1e-5, atol=1e-8)
    np.testing.assert_allclose(dW_x, numeric_grad(f, W_x), rtol=1e-5, atol=1e-8)


def test_mlp_gradients_match_finite_differences():
    dims = (5, 4, 4, 3)
    params = [(randn(i, o), randn(o)) for i, o in zip(dims[:-1], dims[1:])]
    x, labels = randn(6, 5), RNG.integers(0, 3, size=6)
    _, grads = nf.mlp_loss_and_grads(params, x, labels)
    f = lambda: nf.mlp_loss_and_grads(params, x, labels)[0]
    for (W, b), (dW, db) in zip(params, grads):
        np.testing.assert_allclose(dW, numeric_grad(f, W), rtol=1e-5, atol=1e-8)
        np.testing.assert_allclose(db, numeric_grad(f, b), rtol=1e-5, atol=1e-8)


def test_mlp_train_step_descends_by_the_gradient():
    params = [(randn(4, 3), randn(3))]
    x, labels = randn(8, 4), RNG.integers(0, 3, size=8)
    before = [(W.copy(), b.copy()) for W, b in params]
    _, grads = nf.mlp_loss_and_grads(params, x, labels)
    nf.mlp_train_step(params, x, labels, lr=0.5)
    np.testing.assert_allclose(params[0][0], before[0][0] - 0.5 * grads[0][0])
    np.testing.assert_allclose(params[0][1], before[0][1] - 0.5 * grads[0][1])


def test_chain_matches_finite_differences():
    x, c = randn(3, 3), randn(3, 3)
    loss, dx, dc = nf.chain_forward_backward(x, c, 5)
    f = lambda: nf.chain_forward(x, c, 5).sum()
    assert loss == pytest.approx(f())
    np.testing.assert_allclose(dx, numeric_grad(f, x), rtol=1e-6)
    np.testing.assert_allclose(dc, numeric_grad(f, c), rtol=1e-6)


def test_conv2d_floor_matches_finite_differences():
    x, w = randn(2, 3, 5, 4), randn(4, 3, 3, 3)
    _, dx, dw = nf.conv2d_forward_backward(x, w, 1)
    f = lambda: nf.conv2d_forward_backward(x, w, 1)[0]
    np.testing.assert_allclose(dx, numeric_grad(f, x), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(dw, numeric_grad(f, w), rtol=1e-6, atol=1e-8)


def test_cnn_floor_step_is_dyngraphs_sgd_step():
    """The hand-derived CNN backward against dyngraph's autograd, on a small float64 net."""
    import dyngraph as torch
    F = torch.nn.functional
    params = [randn(4, 1, 3, 3), randn(4), randn(6, 4, 3, 3), randn(6), randn(10, 24), randn(10)]
    x, labels = randn(5, 1, 8, 8), RNG.integers(0, 10, size=5)
    leaves = [torch.tensor(p, requires_grad=True) for p in params]
    w1, b1, w2, b2, W, b = leaves
    h = F.max_pool2d(F.relu(F.conv2d(torch.tensor(x), w1, b1, padding=1)), 2)
    h = F.max_pool2d(F.relu(F.conv2d(h, w2, b2, padding=1)), 2)
    loss = F.cross_entropy(F.linear(h.flatten(1), W, b), torch.tensor(labels))
    loss.backward()
    stepped = [p.copy() for p in params]
    assert nf.cnn_train_step(stepped, x, labels, 0.1) == pytest.approx(loss.item())
    for p, new, leaf in zip(params, stepped, leaves):
        np.testing.assert_allclose(new, p - 0.1 * leaf.grad.numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("n", [0, 1, 10, 37])
def test_counter_runs_n_iterations(n):
    assert nf.counter(n) == (2 * n, 2 * n)


def test_measure_returns_first_result_and_counts_runs():
    calls = []
    run = lambda: calls.append(1) or len(calls)
    out, t = measure(run, Budget(seconds=0.0, min_samples=3, min_sample_s=0.0, warmup_s=0.0))
    assert out == 1
    assert t.samples == 3 and t.runs == 3 and len(calls) == 4      # first + 3 samples
    assert 0 < t.min_s <= t.median_s
    calls.clear()
    measure(run, Budget(seconds=0.0, min_samples=2, min_sample_s=0.0, warmup_s=1e-12,
                        warmup_runs=0))
    assert len(calls) == 4                                          # first + 1 warm-up + 2
    calls.clear()
    measure(run, Budget(seconds=0.0, min_samples=2, min_sample_s=0.0, warmup_s=1e-12))
    assert len(calls) == 1 + Budget().warmup_runs + 2               # past a static tier-up


def test_check_flags_a_wrong_result():
    assert _check([np.ones(3)], [np.ones(3)]) == "ok"
    assert _check([np.ones(3) * 2], [np.ones(3)]) == "MISMATCH in result 0"
    assert _check([1.0], [1.0, 2.0]).startswith("MISMATCH")


def _row(engine, kind, median, build=0.0, first=0.0):
    return Row("w", engine, kind, False, build_s=build, first_s=first, median_s=2 * median,
               min_s=median)


def test_table_puts_each_variant_after_its_engine():
    rows = [_row(e, "static", 1.0) for e in ("numpy", "staticgraph", "staticgraph-nopasses",
                                             "staticgraph-unrolled", "staticgraph-nopasses-unrolled",
                                             "tf1")]
    header = report.summary_table(rows).splitlines()[0].split()
    assert header[4:10] == ["staticgraph", "staticgraph-unrolled", "staticgraph-nopasses",
                           "staticgraph-nopasses-unrolled", "tf1", "static/eager"]


def test_break_even_counts_runs_until_static_pays_off():
    # static: 10 up front + 1 per run (first run included); eager: 3 per run
    static, eager = _row("staticgraph", "static", 1.0, 9.0, 1.0), _row("dyngraph", "eager", 3.0)
    assert report.break_even(static, eager) == 5       # 9 + 1 + 4 = 14 <= 15


def test_break_even_charges_every_early_run_where_it_happened():
    """A compile on the fifth run counts: static pays off only once it is paid for."""
    eager = _row("dyngraph", "eager", 3.0)
    static = _row("staticgraph", "static", 1.0, 2.0, 1.0)
    static.early_s = (1.0, 2.0, 2.0, 2.0, 20.0, 1.0)   # interpreted runs, then the compile
    assert [report.cumulative(static, k) for k in (1, 4, 6, 8)] == [3.0, 9.0, 30.0, 32.0]
    assert report.up_front(static) == 2.0 + 28.0 - 6 * 1.0
    # cheaper than eager after 4 runs (9 <= 12), but the fifth run's compile undoes it:
    # 2 + 28 + (k - 6) <= 3k  from k = 12 on
    assert report.break_even(static, eager) == 12
    assert report.cumulative(eager, 12) == 36.0 and report.cumulative(static, 12) == 36.0
    plain = _row("staticgraph", "static", 1.0, 0.0, 1.0)
    plain.early_s = (1.0, 1.0, 1.0)                     # nothing up front: pays off at once
    assert report.up_front(plain) == 0.0 and report.break_even(plain, eager) == 1
    assert report.break_even(_row("staticgraph", "static", 4.0), eager) is None


def test_ratios_divide_by_numpy_and_pair_engines():
    rows = [_row("numpy", "numpy", 2.0), _row("dyngraph", "eager", 6.0),
            _row("staticgraph", "static", 3.0)]
    r = report.ratios(rows)["w"]
    assert r["dyngraph/numpy"] == 3.0 and r["static/eager"] == 0.5
    assert "dyngraph/torch" not in r


def test_an_engine_failure_becomes_a_row_not_a_crash():
    broken = [e for e in ENGINES if e.name == "numpy"]
    from comparisons.bench.suite import Engine
    broken.append(Engine("broken", "eager", False, lambda: __import__("no_such_module_xyz")))
    rows = run_suite(WORKLOADS[2:3], broken, Budget.quick(), quick=True)
    assert [(r.engine, r.status) for r in rows] == [("numpy", "ok"), ("broken", "n/a")]
    assert "not installed" in rows[1].note


def test_quick_run_end_to_end_writes_valid_json(tmp_path, capsys):
    path = tmp_path / "bench.json"
    assert main(["--quick", "--engines", "dyngraph,staticgraph,staticgraph-nopasses",
                 "--json", str(path)]) == 0
    doc = json.loads(path.read_text())
    assert doc["quick"] is True
    assert {"python", "numpy", "cpu", "platform"} <= set(doc["machine"])
    names = {(r["workload"], r["engine"]) for r in doc["rows"]}
    assert names >= {(w.name, e) for w in WORKLOADS
                     for e in ("numpy", "dyngraph", "staticgraph", "staticgraph-nopasses")}
    assert all(r["status"] == "ok" and 0 < r["min_s"] <= r["median_s"]
               for r in doc["rows"] if r["engine"] == "numpy")
    assert any(r["peak_bytes"] for r in doc["rows"] if r["workload"] == "mlp_large")
    assert all(r["check"] in (None, "ok") for r in doc["rows"] if r["status"] == "ok")
    out = capsys.readouterr().out
    assert "static/eager" in out and "chain_fwd_bwd" in out and "QUICK MODE" in out


def test_unknown_workload_is_refused():
    with pytest.raises(SystemExit, match="unknown workload: nope"):
        main(["--quick", "--only", "nope", "--json", ""])


def test_plots_are_written(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    assert main(["--quick", "--only", "gradient,rnn_cell", "--engines", "dyngraph,staticgraph",
                 "--json", "", "--plots", str(tmp_path)]) == 0
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["amortization.png", "bars_gradient.png", "bars_rnn_cell.png", "summary.png"]


def test_missing_matplotlib_says_how_to_install(tmp_path, monkeypatch, capsys):
    from comparisons.bench import plots
    monkeypatch.setattr(plots, "have_matplotlib", lambda: False)
    assert main(["--quick", "--only", "gradient", "--engines", "numpy", "--json", "",
                 "--plots", str(tmp_path)]) == 0
    assert "pip install -e '.[plots]'" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_progress_reports_each_step_with_time_left_when_piped():
    import io
    from comparisons.bench.progress import Progress
    pipe = io.StringIO()
    p = Progress(3, stream=pipe)
    for label in ("numpy  a", "numpy  b", "numpy  c"):
        p.step(label)
    p.done()
    lines = pipe.getvalue().splitlines()
    assert [line.split()[1] for line in lines[:3]] == ["a", "b", "c"]
    assert all("elapsed" in line and line.endswith(" left") for line in lines[:3])
    assert "1/3" in lines[1] and "2/3" in lines[2]
    assert lines[3].startswith("ran 3 measurements in ")


def test_default_results_go_to_a_folder_named_for_the_run(tmp_path, monkeypatch, capsys):
    pytest.importorskip("matplotlib")
    monkeypatch.chdir(tmp_path)
    assert main(["--quick", "--only", "gradient", "--engines", "numpy", "--plots"]) == 0
    (run,) = (tmp_path / "bench-results").iterdir()
    assert run.name.endswith("Z-quick") and run.name[:4].isdigit()
    assert sorted(p.name for p in run.iterdir()) == ["bars_gradient.png", "bench.json"]
    captured = capsys.readouterr()
    assert f"wrote {run / 'bench.json'}" in captured.out
    assert f"results go to {run / 'bench.json'}" in captured.err
    assert not (tmp_path / "comparisons").exists()


def test_best_of_rounds_keeps_each_figures_fastest_round():
    from comparisons.bench.suite import best_of
    slow, fast = _row("dyngraph", "eager", 3.0), _row("dyngraph", "eager", 1.0)
    broken = Row("w", "staticgraph", "static", False, status="error", note="boom")
    fixed = _row("staticgraph", "static", 2.0)
    best = best_of([[slow, broken], [fast, fixed]])
    assert [(r.engine, r.steady_s) for r in best] == [("dyngraph", 1.0), ("staticgraph", 2.0)]


def test_best_of_rounds_takes_the_start_up_cost_from_its_own_cheapest_round():
    from comparisons.bench.suite import best_of
    fast_steady = _row("staticgraph", "static", 1.0, build=5.0, first=9.0)
    fast_steady.early_s = (9.0, 2.0)
    fast_start = _row("staticgraph", "static", 1.5, build=4.0, first=3.0)
    fast_start.early_s = (3.0, 2.0)
    (best,) = best_of([[fast_steady], [fast_start]])
    assert (best.steady_s, best.build_s, best.first_s, best.early_s) == (1.0, 4.0, 3.0, (3.0, 2.0))
    assert fast_steady.build_s == 5.0                      # the rounds' rows are left as they were


def test_per_op_overhead_script_times_every_way_of_running_the_chain():
    from comparisons.bench.per_op import chain_times
    times = chain_times(n=3, reps=2)
    assert list(times) == ["numpy", "dyngraph, no grad", "dyngraph, forward (recording)",
                           "dyngraph, forward + backward"]
    assert all(t > 0 for t in times.values())


def _chain_row(engine, kind, layers, build, first, steady, ops=None):
    return Row(f"chain_{layers}", engine, kind, False, build_s=build, first_s=first,
               median_s=steady, min_s=steady, units=layers, unit="op", graph_ops=ops,
               series="chain")


def test_compile_table_lists_each_size_with_cost_per_node_and_break_even():
    rows = [_chain_row("staticgraph", "static", 1000, 0.02, 0.03, 0.001, ops=2004),
            _chain_row("dyngraph", "eager", 1000, 0.0, 0.006, 0.006),
            _chain_row("staticgraph", "static", 100, 0.002, 0.003, 0.0001, ops=204),
            _chain_row("dyngraph", "eager", 100, 0.0, 0.0006, 0.0006),
            _row("staticgraph", "static", 1.0)]                  # not in the series
    points = report.series_points(rows)
    assert [p["layers"] for p in points] == [100, 1000]
    assert points[1]["break_even_runs"] == 10     # 0.02 + 0.03 + 9 * 0.001 <= 10 * 0.006
    assert points[1]["up_front_s"] == pytest.approx(0.049)   # build + first run - steady
    lines = report.compile_table(rows).splitlines()
    assert lines[0].split()[:3] == ["layers", "graph", "ops"]
    assert lines[2].split()[:4] == ["100", "204", "2", "ms"] and "10 runs" in lines[3]
    assert "24.5 µs" in lines[3]                # 49 ms / 2,004 nodes
    assert report.compile_table([_row("staticgraph", "static", 1.0)]) == ""


def test_chain_series_runs_at_three_sizes_and_is_plotted(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    names = [w.name for w in WORKLOADS if w.series == "chain"]
    assert names == ["chain_fwd_bwd", "chain_fwd_bwd_1k", "chain_fwd_bwd_10k"]
    path = tmp_path / "bench.json"
    assert main(["--quick", "--only", ",".join(names), "--engines", "dyngraph,staticgraph",
                 "--json", str(path), "--plots", str(tmp_path)]) == 0
    doc = json.loads(path.read_text())
    assert len(doc["compile_cost"]) == 3 and all(p["graph_ops"] for p in doc["compile_cost"])
    assert (tmp_path / "compile_cost.png").exists()
    assert "Compile cost against graph size" in capsys.readouterr().out
