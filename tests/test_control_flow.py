"""staticgraph control flow (forward): while_loop, cond, case -- values, structure, errors.

Each primitive is checked against the plain-Python semantics its docstring
states, on the same lambdas (they work on symbolic tensors and numpy values).
"""
from __future__ import annotations

import collections
import contextlib
import io
from pathlib import Path

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.control.control_flow import Region
from comparisons.counter import SEED_TF as SEED_COUNTER  # the seed's snippet, verbatim (checked below)

pytestmark = pytest.mark.usefixtures("fresh_graph")

SEEDS = Path(__file__).resolve().parents[2] / "shared" / "seeds"


def run(fetches, feed=None):
    with tf.Session() as s:
        return s.run(fetches, feed)


# --- the seeds' counter ------------------------------------------------------------

def test_seed_counter_prints_what_tf1_graph_mode_prints():
    """cond/body read the OUTER second_counter (10): first stops at 10, second stays 10."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(SEED_COUNTER.replace("import tensorflow as tf", "import staticgraph as tf"), {})
    assert out.getvalue() == "10 10\n"        # tensorflow-cpu 2.21, compat.v1 graph mode


def test_seed_counter_is_verbatim_from_its_seed():
    seeds = sorted(SEEDS.glob("*.txt")) if SEEDS.exists() else []
    if not seeds:
        pytest.skip("the seeds are not next to this checkout")
    assert any(SEED_COUNTER.strip() in p.read_text(encoding="utf-8") for p in seeds)


def test_counter_bound_fed_runs_10_and_10000_from_one_compiled_plan(monkeypatch):
    lowered = []
    plan = Region.plan
    monkeypatch.setattr(Region, "plan", lambda self, *a: lowered.append(self) or plan(self, *a))
    n = tf.placeholder(tf.float32, (), name="n")
    c1, c2 = tf.while_loop(lambda a, b: a < b, lambda a, b: (a + 2.0, b + 1.0), [tf.constant(0.0), n])
    with tf.Session() as s:
        assert s.run([c1, c2], {n: 10}) == [20.0, 20.0]
        assert s.run([c1, c2], {n: 10_000}) == [20000.0, 20000.0]
        assert s.run([c1, c2], {n: 3}) == [6.0, 6.0]
        assert s.compile_count == 1
    assert len(lowered) == 2                  # cond and body regions, each lowered once
    assert c1.dtype == tf.float32 and c1.shape == () and isinstance(s, tf.Session)


def test_loop_kernel_is_a_tight_generated_loop():
    from staticgraph.compiler import PassConfig
    from staticgraph.framework.kinds import LowerContext, SessionState, lower
    n = tf.placeholder(tf.float32, (), name="n")
    c1, _ = tf.while_loop(lambda a, b: a < b, lambda a, b: (a + 2.0, b + 1.0), [tf.constant(0.0), n])
    src = lower(c1.op.inputs[0].op, LowerContext(SessionState(), PassConfig())).source
    assert "while True:" in src and "x0 < x1" in src and "x0 + bk" in src
    assert "run(" not in src and "plan" not in src


# --- while_loop semantics vs its reference loop ------------------------------------

def reference_while(cond, body, loop_vars, maximum_iterations=None):
    """The docstring's semantics, verbatim."""
    vars, i = loop_vars, 0
    while (maximum_iterations is None or i < maximum_iterations) and cond(*vars):
        vars, i = body(*vars), i + 1
    return vars


@pytest.mark.parametrize("limit,max_it", [(0.0, None), (1.0, None), (37.5, None), (37.5, 4),
                                          (37.5, 0), (-3.0, 2)])
def test_while_loop_matches_reference_loop(limit, max_it):
    cond = lambda i, x, lim: x < lim  # noqa: E731
    body = lambda i, x, lim: (i + 1, x * 1.5 + 1.0, lim)  # noqa: E731
    lim = tf.placeholder(tf.float64, (), name="lim")
    x0 = np.array([1.0, 2.0]).sum()
    got = run(tf.while_loop(cond, body, [tf.constant(0), tf.constant(x0), lim],
                            maximum_iterations=max_it), {lim: limit})
    want = reference_while(cond, body, [np.int32(0), np.float64(x0), np.float64(limit)], max_it)
    assert [type(v) for v in got] == [np.int32, np.float64, np.float64]
    np.testing.assert_allclose(got, want)


def test_zero_iterations_return_the_initial_values():
    x = tf.placeholder(tf.float32, (2, 2), name="x")
    out = tf.while_loop(lambda v: tf.reduce_sum(v) < 0.0, lambda v: v * 2.0, [x])
    value = np.ones((2, 2), np.float32)
    np.testing.assert_array_equal(run(out, {x: value}), value)
    assert isinstance(out, tf.Tensor)                 # a one-element list gives the tensor (TF 1.x)


def test_maximum_iterations_fed_at_run_time_bounds_an_endless_loop():
    m = tf.placeholder(tf.int32, (), name="m")
    i, x = tf.while_loop(lambda i, x: True, lambda i, x: (i + 1, x + x), [0, 1.0],
                         maximum_iterations=m)
    assert run([i, x], {m: 7}) == [7, 128.0]
    assert run([i, x], {m: 0}) == [0, 1.0]


def test_nested_structures_namedtuple_dict_and_return_same_structure():
    State = collections.namedtuple("State", "step acc")

    def body(s, d):
        return State(s.step + 1, s.acc + d["w"] * tf.cast(s.step, tf.float32)), {"w": d["w"]}
    s, d = tf.while_loop(lambda s, d: s.step < 4, body,
                         (State(tf.constant(0), tf.constant(0.5)), {"w": tf.constant(2.0)}))
    assert isinstance(s, State) and set(d) == {"w"}
    assert run([s.step, s.acc, d["w"]]) == [4, 0.5 + 2.0 * (0 + 1 + 2 + 3), 2.0]
    same = tf.while_loop(lambda v: v < 3, lambda v: [v + 1], [tf.constant(0)], return_same_structure=True)
    assert isinstance(same, list) and run(same) == [3]
    single = tf.while_loop(lambda v: v < 3, lambda v: v + 1, tf.constant(0))
    assert run(single) == 3


def test_closure_capture_reads_outer_tensors_at_run_time():
    w = tf.placeholder(tf.float32, (), name="w")
    limit = tf.placeholder(tf.float32, (), name="limit")
    x = tf.while_loop(lambda x: x < limit, lambda x: x + w, [tf.constant(0.0)])
    assert run(x, {w: 3.0, limit: 10.0}) == 12.0
    assert run(x, {w: 5.0, limit: 10.0}) == 10.0
    loop = x.op.inputs[0].op
    assert list(loop.attrs["captured"]) == [limit, w] and list(loop.inputs[1:]) == [limit, w]


def test_body_may_return_outer_tensors_and_unchanged_loop_vars():
    k = tf.constant(7.0)
    a, b, c = tf.while_loop(lambda a, b, c: a < 3, lambda a, b, c: (a + 1, k, c), [0, 1.0, 2.0])
    assert run([a, b, c]) == [3, 7.0, 2.0]


def test_python_values_returned_by_cond_and_body_become_constants_of_their_regions():
    i, x = tf.while_loop(lambda i, x: True, lambda i, x: (i + 1, 2.0), [0, 1.0], maximum_iterations=3)
    outer = [op.type for op in tf.get_default_graph().get_operations()]
    assert outer == ["Const", "Const", "Const", "StatelessWhile", "Identity", "Identity"]   # 0, 1.0, max
    assert [op.type for op in x.op.inputs[0].op.attrs["cond"].graph.get_operations()] == ["Placeholder"] * 2 + ["Const"]
    assert run([i, x]) == [3, 2.0]


def test_shape_invariants_let_a_loop_var_grow():
    x = tf.constant([1.0])
    i, y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, tf.concat([y, y], 0)), [0, x],
                         shape_invariants=[tf.TensorShape([]), tf.TensorShape([None])])
    assert y.shape.as_list() == [None]
    np.testing.assert_array_equal(run(y), np.ones(8, np.float32))


def test_nested_loops_with_the_outer_bound_fed():
    n = tf.placeholder(tf.int32, (), name="n")

    def outer_body(i, total):
        _, inner = tf.while_loop(lambda j, t: j < i, lambda j, t: (j + 1, t + 1), [0, total])
        return i + 1, inner
    _, total = tf.while_loop(lambda i, t: i < n, outer_body, [0, 0])
    with tf.Session() as s:
        assert [s.run(total, {n: k}) for k in (0, 1, 5, 20)] == [0, 0, 10, 190]


def test_cond_inside_a_loop_body_and_a_loop_inside_a_cond_branch():
    n = tf.placeholder(tf.int32, (), name="n")
    _, acc = tf.while_loop(lambda i, a: i < n,
                           lambda i, a: (i + 1, tf.cond(i < 3, lambda: a + 1.0, lambda: a * 2.0)),
                           [0, 0.0])
    p = tf.placeholder(tf.bool, (), name="p")
    y = tf.cond(p, lambda: tf.while_loop(lambda v: v < 100.0, lambda v: v * 3.0, [1.0]),
                lambda: tf.constant(-1.0))
    with tf.Session() as s:
        assert s.run(acc, {n: 5}) == 12.0 and s.run(acc, {n: 2}) == 2.0
        assert s.run(y, {p: True}) == 243.0 and s.run(y, {p: False}) == -1.0


# --- while_loop build-time errors ---------------------------------------------------

def test_error_body_returns_a_different_number_of_values():
    with pytest.raises(ValueError, match=r"body must return the same structure as loop_vars; they "
                                         r"differ at loop_vars: a list of 2 items vs a list of 1 items"):
        tf.while_loop(lambda a, b: a < b, lambda a, b: [a + 1], [1, 2])


def test_error_body_returns_a_dict_with_other_keys():
    with pytest.raises(ValueError, match=r"differ at loop_vars\[0\]: a dict with keys \['a', 'b'\] "
                                         r"vs a dict with keys \['a'\]"):
        tf.while_loop(lambda d: d["a"] < 3, lambda d: {"a": d["a"] + 1},
                      {"a": tf.constant(0), "b": tf.constant(1.0)})


def test_error_body_changes_a_loop_var_dtype():
    with pytest.raises(TypeError, match=r"loop variable 1 \(Const_1:0\) enters the loop with dtype "
                                        r"int32, but body returns dtype float32"):
        tf.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, tf.cast(x, tf.float32)),
                      [tf.constant(0), tf.constant(1)])


def test_error_loop_var_shape_changes_without_shape_invariants():
    with pytest.raises(ValueError, match=r"Input tensor `Const:0` enters the loop with shape \(1,\), "
                                         r"but has shape \(2,\) after one iteration\. To allow the "
                                         r"shape to vary across iterations, use the `shape_invariants`"):
        tf.while_loop(lambda y: tf.reduce_sum(y) < 10.0, lambda y: tf.concat([y, y], 0),
                      [tf.constant([1.0])])


def test_error_shape_invariant_incompatible_with_the_initial_value():
    with pytest.raises(ValueError, match=r"The shape invariant specified for Const:0 is not compatible "
                                         r"with the initial shape of the loop variable. It enters the "
                                         r"loop with shape \(2,\), but the specified shape invariant "
                                         r"is \(3,\)"):
        tf.while_loop(lambda y: True, lambda y: y, [tf.constant([1.0, 2.0])],
                      shape_invariants=[tf.TensorShape([3])])


def test_error_shape_invariants_structure_differs():
    with pytest.raises(ValueError, match="shape_invariants must have the same structure as loop_vars"):
        tf.while_loop(lambda a, b: True, lambda a, b: (a, b), [1, 2], shape_invariants=[tf.TensorShape([])])


def test_error_cond_result_not_a_boolean_scalar():
    with pytest.raises(TypeError, match=r"cond's result must be a boolean scalar tensor, got "
                                        r"Tensor\(\"add:0\", shape=\(\), dtype=int32\)"):
        tf.while_loop(lambda i: i + 1, lambda i: i + 1, [0])
    with pytest.raises(ValueError, match=r"cond's result must be a scalar \(shape \(\)\), got .* "
                                         r"of shape \(2,\)"):
        tf.while_loop(lambda v: v < 3.0, lambda v: v + 1.0, [tf.constant([1.0, 2.0])])


def test_error_not_callable_and_empty_loop_vars():
    with pytest.raises(TypeError, match="cond and body must be callable, got int and function"):
        tf.while_loop(1, lambda: 1, [1])
    with pytest.raises(ValueError, match="no loop variables provided"):
        tf.while_loop(lambda: True, lambda: [], [])


def test_error_capturing_a_tensor_of_another_graph():
    other = tf.Graph()
    with other.as_default():
        foreign = tf.constant(1.0)
    with pytest.raises(ValueError, match="Tensor Const:0 must be from the same graph"):
        tf.while_loop(lambda x: x < foreign, lambda x: x + 1.0, [0.0])


def test_python_while_on_a_tensor_explains_while_loop():
    x = tf.constant(1.0)
    with pytest.raises(TypeError, match="tf.while_loop"):
        while x < 3.0:
            x = x + 1.0


# --- cond ----------------------------------------------------------------------------

def test_cond_matches_its_reference_for_both_predicates():
    x = tf.placeholder(tf.float64, (3,), name="x")
    true_fn, false_fn = (lambda: (x * 2.0, x[0])), (lambda: (x + 1.0, x[2]))
    out = tf.cond(tf.reduce_sum(x) > 0.0, true_fn, false_fn)
    for value in (np.array([1.0, 2.0, 3.0]), np.array([-1.0, -2.0, 0.5])):
        want = (value * 2.0, value[0]) if value.sum() > 0 else (value + 1.0, value[2])
        got = run(list(out), {x: value})
        np.testing.assert_allclose(got[0], want[0])
        assert got[1] == want[1]


def test_untaken_branch_costs_nothing_even_if_it_would_fail(capsys):
    x = tf.placeholder(tf.float32, (None,), name="x")
    p = tf.placeholder(tf.bool, (), name="p")

    def expensive_failing():
        with tf.control_dependencies([tf.print("false branch ran")]):
            return x[10] * 2.0             # fails for any x shorter than 11: only if taken
    y = tf.cond(p, lambda: x[0] + 1.0, expensive_failing)
    with tf.Session() as s:
        assert s.run(y, {x: [1.0, 2.0], p: True}) == 2.0
        assert capsys.readouterr().err == ""
        with pytest.raises(tf.errors.InvalidArgumentError, match="index 10 is out of bounds"):
            s.run(y, {x: [1.0, 2.0], p: False})
        assert capsys.readouterr().err == "false branch ran\n"


def test_cond_result_shape_is_the_most_specific_compatible_one():
    p = tf.placeholder(tf.bool, (), name="p")
    a, b = tf.cond(p, lambda: (tf.zeros((2, 3)), tf.zeros((2,))), lambda: (tf.ones((2, 4)), tf.ones((3,))))
    assert a.shape.as_list() == [2, None] and b.shape.as_list() == [None]
    c = tf.cond(p, lambda: tf.zeros((2,)), lambda: tf.zeros((2, 2)))
    assert c.shape.ndims is None
    assert run(a, {p: False}).shape == (2, 4) and run(c, {p: True}).shape == (2,)


def test_cond_singleton_list_unpacked_unless_strict():
    p = tf.constant(True)
    assert isinstance(tf.cond(p, lambda: [tf.constant(1)], lambda: [tf.constant(2)]), tf.Tensor)
    strict = tf.cond(p, lambda: [tf.constant(1)], lambda: [tf.constant(2)], strict=True)
    assert isinstance(strict, list) and run(strict) == [1]


def test_error_cond_pred_python_bool():
    with pytest.raises(TypeError, match="pred must not be a Python bool"):
        tf.cond(True, lambda: 1, lambda: 2)


def test_error_cond_branch_structures_differ():
    # TF 2.21: a TypeError about the outputs, nest's words as its details, then ours
    with pytest.raises(TypeError, match=r"^true_fn and false_fn arguments to tf.cond must have the "
                                        r"same number, type, and overall structure of return "
                                        r"values.\n\ntrue_fn output: (.|\n)*Error details:\nThe two "
                                        r"structures don't have the same nested structure.(.|\n)*"
                                        r"true_fn and false_fn must return the same structure; they "
                                        r"differ at result: a tuple of 2 items vs a tuple of 1 items"):
        tf.cond(tf.constant(True), lambda: (1, 2), lambda: (1,))


def test_error_cond_branch_dtypes_differ():
    with pytest.raises(TypeError, match=r"^true_fn and false_fn arguments to tf.cond must have the "
                                        r"same number, type, and overall structure of return values.(.|\n)*"
                                        r'Tensor\("Const:0", shape=\(\), dtype=int32\) and Tensor\('
                                        r'"Const:0", shape=\(\), dtype=float32\) have different types'):
        tf.cond(tf.constant(True), lambda: tf.constant(1), lambda: tf.constant(1.0))


def test_error_cond_without_outputs_non_callable_and_bad_pred():
    with pytest.raises(ValueError, match="must return at least one tensor"):
        tf.cond(tf.constant(True), lambda: [], lambda: [])
    with pytest.raises(TypeError, match="true_fn and false_fn must be callable"):
        tf.cond(tf.constant(True), 1, lambda: 2)
    with pytest.raises(TypeError, match="tf.cond: pred must be a boolean scalar tensor"):
        tf.cond(tf.constant(1), lambda: 1, lambda: 2)


# --- case ----------------------------------------------------------------------------

def reference_case(pairs, default):
    for pred, fn in pairs:
        if pred:
            return fn()
    return default()


def test_case_picks_the_first_true_pred_else_default():
    x = tf.placeholder(tf.int32, (), name="x")
    fns = [lambda: tf.constant(10), lambda: tf.constant(20)]
    y = tf.case([(x < 0, fns[0]), (x < 5, fns[1])], default=lambda: tf.constant(30))
    with tf.Session() as s:
        for v in (-3, 2, 7):
            assert s.run(y, {x: v}) == reference_case([(v < 0, lambda: 10), (v < 5, lambda: 20)],
                                                      lambda: 30)


def test_case_without_default_uses_the_last_fn_and_checks_a_pred_holds():
    x = tf.placeholder(tf.int32, (), name="x")
    y = tf.case([(x < 0, lambda: tf.constant(1)), (x > 10, lambda: tf.constant(2))])
    one = tf.case([(x > 0, lambda: tf.constant(5))])
    with tf.Session() as s:
        assert s.run(y, {x: -1}) == 1 and s.run(y, {x: 11}) == 2 and s.run(one, {x: 3}) == 5
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"no default was given and none of "
                                                                 r"the predicates \(Less:0, "
                                                                 r"Greater:0\) is True"):
            s.run(y, {x: 5})


def test_case_exclusive_refuses_two_true_preds_at_run_time():
    x = tf.placeholder(tf.int32, (), name="x")
    y = tf.case({x > 0: lambda: tf.constant(1), x > 1: lambda: tf.constant(2)},
                default=lambda: tf.constant(0), exclusive=True)
    with tf.Session() as s:
        assert s.run(y, {x: 1}) == 1 and s.run(y, {x: -1}) == 0
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"exclusive=True: more than 1 "
                                                                 r"conditions .* evaluated as True"):
            s.run(y, {x: 2})


def test_error_case_empty_or_not_callable():
    with pytest.raises(ValueError, match="pred_fn_pairs must not be empty"):
        tf.case([])
    with pytest.raises(TypeError, match="fn for pred .* must be callable"):
        tf.case([(tf.constant(True), 3)])


def test_run_time_failure_inside_a_loop_names_the_inner_node_and_its_line():
    x = tf.placeholder(tf.float32, (None,), name="x")
    n = tf.placeholder(tf.int32, (), name="n")
    _, y = tf.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, v + x[i]), [0, 0.0])
    with tf.Session() as s:
        assert s.run(y, {x: [1.0, 2.0], n: 2}) == 3.0
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"IndexError: index 2 is out of bounds .*\n  in node 'strided_slice' "
                                 r"\(StridedSlice\) with input shapes: \[2\], \[\], inside StatelessWhile 'while'\n"
                                 r"  created at .*test_control_flow.py:\d+") as e:
            s.run(y, {x: [1.0, 2.0], n: 3})
    assert e.value.op.type == "StridedSlice"


def test_region_plans_get_the_compiler_passes_like_any_plan():
    from staticgraph.compiler import PassConfig
    from staticgraph.framework.kinds import LowerContext, SessionState, lower
    y = tf.while_loop(lambda v: v < 5.0, lambda v: tf.tanh(v) + tf.tanh(v) * 1.0, [1.0],
                      maximum_iterations=2)   # 2*tanh(v) settles near 1.9: the bound ends it
    src = lower(y.op.inputs[0].op, LowerContext(SessionState(), PassConfig(cse=True, simplify=True))).source
    assert src.count("# Tanh") == 1 and "Mul" not in src          # CSE merged, x*1 simplified
    unoptimised = lower(y.op.inputs[0].op, LowerContext(SessionState(), PassConfig(cse=False, simplify=False))).source
    assert unoptimised.count("# Tanh") == 2 and "# Mul" in unoptimised
    assert run(y) == pytest.approx(2 * np.tanh(2 * np.tanh(1.0)))


def test_a_sessions_pass_configuration_reaches_loop_bodies():
    """``Session(config=PassConfig.off())`` compiles loop bodies unoptimised too (the global
    switches do not leak in): the configuration travels with the Session."""
    from staticgraph.compiler import PassConfig
    y = tf.while_loop(lambda v: v < 5.0, lambda v: tf.tanh(v) + tf.tanh(v) * 1.0, [1.0],
                      maximum_iterations=2)

    def loop_source(config):
        exe = tf.Session(config=config).compiled(y)
        return next(s.kernel.source for s in exe.plan.steps if s.op.type == "StatelessWhile")
    off, on = loop_source(PassConfig.off()), loop_source(None)
    assert off.count("# Tanh") == 2 and "# Mul" in off
    assert on.count("# Tanh") == 1 and "# Mul" not in on
    assert tf.Session(config=PassConfig.off()).run(y) == pytest.approx(2 * np.tanh(2 * np.tanh(1.0)))


def test_results_never_alias_fed_arrays_or_graph_constants():
    x = tf.placeholder(tf.float64, (3,), name="x")
    k = tf.placeholder(tf.int32, (), name="k")
    c = tf.constant([1.0, 2.0], tf.float64)
    h = tf.while_loop(lambda i, v: i < k, lambda i, v: (i + 1, v * 2.0), [0, x])[1]
    b = tf.cond(k > 0, lambda: x, lambda: x + 1.0)
    kept = tf.while_loop(lambda i, v: i < k, lambda i, v: (i + 1, v), [0, c])[1]
    fed = np.ones(3)
    with tf.Session() as s:
        got_h, got_b, got_c = s.run([h, b, kept], {x: fed, k: 0})
        assert got_h is not fed and got_c.flags.writeable
        got_h[:] = 7.0
        got_c[:] = 7.0
        got_b = s.run(b, {x: fed, k: 1})
        assert got_b is not fed and np.array_equal(fed, np.ones(3))
        assert np.array_equal(s.run(kept, {k: 3}), [1.0, 2.0])


def test_indexing_and_transposes_are_written_as_expressions_with_the_kernels_results_and_errors(
        monkeypatch):
    """``xs[i]`` and ``x.transpose(...)`` stand in generated code for the GetItem and Transpose
    kernels (their ``defop(expr=...)``): same values, and an index out of range fails with
    the same error as the kernel call."""
    from common import REGISTRY
    xs = tf.placeholder(tf.float32, (None, 2), name="xs")
    n = tf.placeholder(tf.int32, (), name="n")
    _, acc = tf.while_loop(lambda i, a: i < n, lambda i, a: (i + 1, a + tf.transpose(xs)[:, i]),
                           [tf.constant(0), tf.zeros(2)])
    rows = tf.transpose(xs, (1, 0))[1:, ::2]
    data = np.arange(6, dtype=np.float32).reshape(3, 2)

    def run(feed_n):
        with tf.Session() as s:
            text = s.explain([acc, rows], {xs: data, n: feed_n})
            try:
                return text, s.run([acc, rows], {xs: data, n: feed_n}), None
            except tf.errors.InvalidArgumentError as e:
                return text, None, e.message
    text, got, _ = run(3)
    assert ".T  #" in text and ".transpose((1, 0))" in text
    assert "[:, x0]" in text and "[1:, ::2]" in text
    failed = run(4)[2]
    for name in ("GetItem", "Transpose"):
        monkeypatch.setattr(REGISTRY[name], "expr", None)
    plain_text, plain, plain_failed = run(3)[0], run(3)[1], run(4)[2]
    assert ".transpose(" not in plain_text
    for a, b in zip(got, plain):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(got[0], data.sum(axis=0))
    assert failed is not None and failed == plain_failed


def test_a_captured_scalar_is_read_as_a_numpy_scalar_with_the_same_results():
    """A loop bound captured from outside (``i < n``) is compared as a numpy scalar, as the
    loop's own 0-d variables are (~80x cheaper than against a 0-d array); values and dtypes
    are those of the reference loop, whether n is fed as a 0-d array or a numpy scalar."""
    n = tf.placeholder(tf.int32, (), name="n")
    w = tf.placeholder(tf.float32, (2,), name="w")
    i, last, acc = tf.while_loop(lambda i, last, acc: i < n,
                                 lambda i, last, acc: (i + 1, n * 2, acc + w * tf.cast(n, tf.float32)),
                                 [tf.constant(0), tf.constant(0), tf.zeros(2)])
    with tf.Session() as s:
        assert "cap0 = cap0[()]" in s.explain([i, last, acc], {n: 3, w: [1.0, 2.0]})
        for fed in (np.array(3, np.int32), np.int32(3)):
            got = s.run([i, last, acc], {n: fed, w: np.array([1.0, 2.0], np.float32)})
            assert got[0] == 3 and got[1] == 6 and got[0].dtype == got[1].dtype == np.int32
            np.testing.assert_array_equal(got[2], np.array([9.0, 18.0], np.float32))
        assert s.run(last, {n: 0, w: [1.0, 2.0]}) == 0            # no iteration: the initial value
