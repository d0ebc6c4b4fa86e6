"""The memory-bound bench row: its hand-derived gradient, its byte count, its bandwidth table."""
from __future__ import annotations

import numpy as np

from comparisons.bench import pointwise, report
from comparisons.bench.suite import Row
from tests.gradcheck import numeric_grad


def test_floor_gradients_match_finite_differences():
    rng = np.random.default_rng(5)
    d = {"x": rng.standard_normal((3, 4)), "y": rng.standard_normal((3, 4))}
    loss, dx, dy = pointwise.floor(d)()
    f = lambda: pointwise.forward(d["x"], d["y"]).sum()
    assert loss == f()
    np.testing.assert_allclose(dx, numeric_grad(f, d["x"]), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(dy, numeric_grad(f, d["y"]), rtol=1e-6, atol=1e-8)


def test_the_least_bytes_are_two_reads_and_two_writes_of_a_tensor():
    d = pointwise.data(np.random.default_rng(0), quick=False)
    assert d["x"].shape == (1024, 4096) and d["x"].dtype == np.float32
    assert pointwise.compulsory_bytes(d) == 4 * 4 * 1024 * 4096
    assert pointwise.copy_bandwidth(1 << 20, repeat=2) > 0


def test_bandwidth_table_gives_gb_per_s_and_the_share_of_copy_bandwidth():
    rows = [Row("pointwise", "numpy", "numpy", False, min_s=0.1, bytes=2 * 10**9),
            Row("pointwise", "staticgraph", "static", False, min_s=0.4, bytes=2 * 10**9),
            Row("mlp", "numpy", "numpy", False, min_s=0.1)]
    text = report.bandwidth_table(rows, copy_bandwidth=10e9)
    assert "copy bandwidth 10.00 GB/s" in text
    assert [line.split()[1:] for line in text.splitlines()[3:]] == [
        ["numpy", "100", "ms", "20.00", "200%"], ["staticgraph", "400", "ms", "5.00", "50%"]]
    assert report.bandwidth_table(rows[2:], 10e9) == ""
