"""The side-by-side scripts: each main() runs and prints the expected values (never timings)."""
from __future__ import annotations

import argparse

import pytest
import staticgraph as tf

from comparisons import __main__ as runner, branch, cnn, counter, debugging, errors, gradient, rnn, seeded

HAS_WHILE = hasattr(tf, "while_loop")
HAS_COND = hasattr(tf, "cond")


def flat(text: str) -> str:
    """Whitespace collapsed, so a wrapped paragraph reads as one line."""
    return " ".join(text.split())


def run(module, capsys, *argv) -> str:
    module.main(list(argv))
    return capsys.readouterr().out


def test_counter_prints_both_programs_results(capsys):
    out = run(counter, capsys)
    assert out.count("tensor([20.])") == 2                      # the PyTorch seed, as PyTorch prints
    assert "tensor(20.) tensor(20.)" in out and "tensor(20000.) tensor(20000.)" in out
    assert "0 recorded (nothing requires grad)" in out
    assert "N=3 recorded 4 nodes, N=10 recorded 11" in out     # the eager graph follows the data
    assert "second_conter" in out                               # the closure bug, explained
    if HAS_WHILE:
        assert "prints  tensor([20.])" in out and out.split("prints  tensor([20.])")[1].split()[0:2] == ["10", "10"]
        assert "20 20" in out and "20000 20000" in out
        assert "unchanged by running" in out
    else:
        assert "not available yet (staticgraph has no while_loop" in out


def test_gradient_matches_the_seed_in_both_engines(capsys):
    out = run(gradient, capsys)
    assert out.splitlines()[3] == "tensor([5.])"                # seed snippet output
    assert "dy/dw               tensor([5.])" in out and "[5.]" in out
    assert "True True False False False" in out
    assert "None None <AddBackward0> <AddBackward0> <MulBackward0>" in out
    assert "5 nodes (3 ops + 2 leaves)" in out
    assert "RuntimeError: Trying to backward through the graph" in out
    assert "the engines agree (max |difference| 0)" in out


def test_rnn_engines_agree_and_graphs_grow_with_length(capsys):
    out = run(rnn, capsys, "--lengths", "3,6")
    assert "DISAGREE" not in out and out.count(" agree (") >= 5
    assert "3 steps: losses and dloss/dweight_hh of the three strategies agree" in flat(out)
    assert "the packed eager batch ran 25 row-steps" in flat(out)
    assert "3 steps -> 15 nodes (13 ops + 2 leaves), 5 steps -> 23 nodes (21 ops + 2 leaves)" in out
    assert "one graph per length" in out
    if HAS_WHILE:
        assert "serve every length; loss and gradients vs eager agree" in flat(out)
    else:
        assert "not available yet" in out


def test_cnn_losses_agree_step_by_step(capsys):
    out = run(cnn, capsys)
    assert "DISAGREE" not in out and "losses step by step agree" in flat(out)
    assert "dyngraph recorded 29 nodes (21 ops + 8 leaves) on every one of the 4 passes" in flat(out)
    rows = [line.split() for line in out.splitlines() if line.startswith("step ")]
    assert len(rows) == cnn.STEPS and float(rows[-1][3]) < float(rows[0][3])


def test_seeded_script_prints_what_pytorch_printed_digit_for_digit(capsys):
    out = run(seeded, capsys)
    assert "4 of 4 printed lines are PyTorch's, character for character." in flat(out)
    assert seeded.run() == seeded.PYTORCH_PRINTED.splitlines()


def test_branch_records_two_graphs_and_diffs_them(capsys):
    out = run(branch, capsys)
    assert "x.grad = tensor([2., 2., 2.])" in out and "x.grad = tensor([1., 1., 1.])" in out
    assert "A left the shared graph at: MulBackward0(AccumulateGrad(x))" in out
    assert "B left the shared graph at: AddBackward0(AccumulateGrad(x))" in out
    assert "loops in A: [MulBackward0] x 2" in out and "loops in B: [MulBackward0] x 6" in out
    assert "OperatorNotAllowedInGraphError" in out
    if HAS_COND:
        assert "y = [2. 4. 6.], dx = [2. 2. 2.]" in out and "y = [0. 3. 4.], dx = [1. 1. 1.]" in out
    else:
        assert "not available yet (staticgraph has no cond" in out
    if hasattr(tf, "function"):
        assert "y = tensor([0., 3., 4.])" in out and "y = [0. 3. 4.], dx = [1. 1. 1.]" in out
        assert "traced python_branch 1 time(s) for both inputs into one graph with 1 If op" in flat(out)
    if HAS_WHILE:
        assert "for both inputs: 2 and 6 trips, decided at run time; results vs eager agree" in flat(out)


def test_errors_static_at_build_eager_at_the_call(capsys):
    out = run(errors, capsys)
    assert "GraphShapeError" in out and "SizeMismatchError" in out
    assert "static_program(), line" in out and "forward(), line" in out
    assert "raised during  eager_program() -> forward()" in out
    assert "the line they cite: dyngraph errors.py:" in out and "staticgraph errors.py:" in out


def test_debugging_prints_a_value_eagerly_and_a_symbol_statically(capsys):
    out = run(debugging, capsys)
    assert 'h = Tensor("MatMul:0", shape=(2, 2), dtype=float32)' in out
    assert "h = tensor([[0.0700, 0.1000]," in out and "grad_fn=<MmBackward0>" in out
    assert "dloss/dh = tensor([[0.9951, 0.9901]," in out
    assert "inside Session.run:" in out and "Same loss in both: 0.534957 vs 0.534957" in out


@pytest.mark.parametrize("module,names", [
    (branch, ["branch_eager_positive", "branch_eager_negative", "loop_eager"]
     + (["branch_static"] if HAS_COND else []) + (["loop_static"] if HAS_WHILE else [])),
    (counter, ["counter_eager"] + (["counter_static"] if HAS_WHILE else [])),
    (gradient, ["gradient_eager", "gradient_static"]),
    (rnn, ["rnn_eager", "rnn_cell_static"]),
])
def test_scripts_write_pictures(module, names, tmp_path, capsys):
    run(module, capsys, "--out", str(tmp_path), "--lengths", "2,3")
    for name in names:
        dot = (tmp_path / f"{name}.dot").read_text()
        assert dot.startswith("digraph") and "->" in dot
        pytest.importorskip("matplotlib")
        assert (tmp_path / f"{name}.png").stat().st_size > 1000
        assert (tmp_path / f"{name}.svg").read_text().lstrip().startswith("<?xml")


def test_python_m_comparisons_runs_every_script(capsys):
    assert runner.main(["--lengths", "3,5"]) == 0       # the rnn showcase's short lengths
    out = capsys.readouterr().out
    for name in runner.SCRIPTS:
        assert f"=== comparisons.{name} " in out


def test_help_lists_every_comparison_with_its_summary_and_the_shared_options(capsys):
    from comparisons import cli
    with pytest.raises(SystemExit) as e:
        runner.main(["--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    for name in runner.SCRIPTS + ["bench"]:
        assert f"\n    {name} " in out
    assert "--out DIR" in out and "--only NAME" in out
    assert cli.summary("rnn") in " ".join(out.split())


def test_a_subcommand_runs_one_comparison_and_only_selects_some(capsys):
    assert runner.main(["errors"]) == 0
    out = capsys.readouterr().out
    assert "errors: a shape mismatch" in out and "=== comparisons." not in out
    assert runner.main(["--only", "errors,debugging"]) == 0
    out = capsys.readouterr().out
    assert "=== comparisons.errors " in out and "=== comparisons.debugging " in out
    assert "=== comparisons.counter " not in out


def test_unknown_comparison_names_are_refused_with_the_known_ones(capsys):
    with pytest.raises(SystemExit) as e:
        runner.main(["--only", "nope"])
    assert e.value.code == 2
    assert "unknown comparison nope; known: counter, gradient" in capsys.readouterr().err


def test_bench_is_a_subcommand_with_its_own_options(tmp_path, capsys):
    path = tmp_path / "b.json"
    assert runner.main(["bench", "--quick", "--only", "gradient", "--engines", "numpy",
                        "--json", str(path)]) == 0
    assert path.exists() and "gradient" in capsys.readouterr().out


def test_a_new_shared_option_reaches_the_scripts_without_other_changes(monkeypatch):
    from comparisons import cli, errors
    original = cli.add_shared_options

    def with_flag(p, *, in_subcommand=False):
        original(p, in_subcommand=in_subcommand)
        p.add_argument("--loud", action="store_true",
                       default=argparse.SUPPRESS if in_subcommand else False)
    monkeypatch.setattr(cli, "add_shared_options", with_flag)
    seen = []
    monkeypatch.setattr(errors, "main", lambda argv: seen.append(argv))
    runner.main(["errors", "--loud", "--out", "D"])
    runner.main(["--loud", "--only", "errors"])
    runner.main(["--out", "E", "errors"])          # before the subcommand's name too
    assert seen == [["--out", "D", "--loud"], ["--loud"], ["--out", "E"]]
