"""comparisons.bridges: the traced function is wrong off the example's path, the converted one right."""
from __future__ import annotations

import numpy as np

import dyngraph as torch
from comparisons import __main__ as runner, bridges


def test_script_shows_the_pitfall_and_the_fix(capsys):
    bridges.main([])
    out = " ".join(capsys.readouterr().out.split())
    assert "TracerWarning: Converting a tensor to a Python boolean might cause the trace" in out
    assert "while x[0] < 10.0:" in out and "if x[1] > 0.0:" in out   # the lines are named
    assert "for x = [0.3, -2.0] it is WRONG (-345.6 instead of -1769)" in out
    assert "tf.function traced 1 time(s) into a graph with 1 loop and 1 cond node(s); it is RIGHT" in out
    assert out.count("d/dx = [-8576, 844.8]") == 2                   # eager and tf.function agree
    assert "x, steps = _ag__.while_stmt(_ag_test_1, _ag_body_1" in out     # the rewrite is shown
    assert "us/call" in out


def test_program_runs_eagerly_and_its_gradient_is_the_hand_derived_one():
    x = torch.tensor([0.3, -2.0], requires_grad=True)
    out = bridges.program(x)          # 6 doublings -> [19.2, -128]; else branch: y = x - 6
    out.backward()
    assert np.isclose(out.item(), 13.2 * -134.0)
    np.testing.assert_allclose(x.grad.numpy(), [64 * -134.0, 64 * 13.2], rtol=1e-5)


def test_registered_with_python_m_comparisons():
    assert "bridges" in runner.SCRIPTS
