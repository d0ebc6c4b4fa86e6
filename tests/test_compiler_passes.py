"""The compiler's rewrite passes: what each must remove (golden printouts) and what it must not.

Goldens print the optimised op list (``format_op``: one node per line) and the
pass report's changes, on small hand-written graphs.  Result-equivalence on
random graphs lives in tests/test_compiler_equivalence.py.
"""
from __future__ import annotations

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.compiler import PassConfig, prune, topological_order
from staticgraph.compiler.passes import PassReport, disable, enable, options, run_passes
from staticgraph.framework.build import F
from staticgraph.framework.printing import format_op

pytestmark = pytest.mark.usefixtures("fresh_graph")


def optimise(fetches, feeds, **switches):
    """(printout of the optimised ops, resolved fetch names, report) for ``fetches``."""
    fed = set(feeds)
    report = PassReport()
    prog = run_passes(topological_order(prune(fetches, fed)), list(fetches), fed,
                      PassConfig(**switches), report)
    text = "\n".join(format_op(op) for op in prog.ops)
    return text, [f.name for f in prog.fetches], report


def test_fold_computes_constant_subgraphs_once():
    x = tf.placeholder(tf.float32, shape=(2,), name="x")
    y = x * (tf.constant(2.0, name="a") * tf.constant(3.0, name="b"))
    text, fetched, report = optimise([y], [x])
    assert text == ("%mul/folded = Const(value=6.0)  # float32[]\n"
                    "%mul_1 = Mul(%x, %mul/folded)  # float32[2]")
    assert report.changed("fold") == ["fold: Mul 'mul' -> constant float32[]"]
    assert report.changed("dce") == ["dce: Const 'a'", "dce: Const 'b'"]


def test_fold_turns_shape_only_ops_of_known_shapes_into_constants():
    x = tf.placeholder(tf.float32, shape=(2, 3), name="x")
    y = tf.ones_like(x) + tf.zeros_like(x)
    text, _, _ = optimise([y], [x])
    assert text == "%add/folded = Const(value=[[1., 1., 1.],\n [1., 1., 1.]])  # float32[2, 3]"


def test_fold_leaves_unknown_shapes_warnings_and_big_results_to_the_run():
    x = tf.placeholder(tf.float32, shape=(None,), name="x")
    ones = tf.ones_like(x)                                    # shape known only at run time
    bad = tf.log(tf.constant(-1.0, name="neg"))               # numpy warns: the run's business
    big = tf.ones_like(tf.zeros((300, 300)))                  # 90000 elements > the cap
    text, _, report = optimise([ones, bad, big], [x], max_fold_elements=1000)
    assert "OnesLike(%x)" in text and "Log(%neg)" in text and "OnesLike(%zeros)" in text
    assert report.changed("fold") == []
    with tf.Session() as s, pytest.warns(RuntimeWarning, match="invalid value"):
        assert np.isnan(s.run(bad))


def test_folded_values_are_read_only_and_fetches_of_them_are_private_copies():
    y = tf.constant(2.0, shape=(2,)) * 3.0
    with tf.Session() as s:
        a = s.run(y)
        a += 1.0                                                # the caller owns its result
        np.testing.assert_array_equal(s.run(y), [6.0, 6.0])
        exe = s.compiled(y)
    assert all(not v.flags.writeable for v in exe.plan.consts.values())


def test_simplify_removes_neutral_elements_only_when_bit_exact():
    x = tf.placeholder(tf.float32, shape=(2, 3), name="x")
    i = tf.placeholder(tf.int32, shape=(3,), name="i")
    kept = [x + 0.0, x - (-0.0), x * tf.ones((4, 2, 3))]     # -0.0 + 0.0 is +0.0; broadcast grows x
    gone = [x * 1.0, 1.0 * x, x / 1.0, x + (-0.0), x - 0.0, i + 0, 0 + i, tf.ones_like(x) * x]
    text, fetched, report = optimise(kept + gone, [x, i])
    assert fetched[3:] == ["x:0"] * 5 + ["i:0", "i:0", "x:0"]
    assert text.count("= AddV2(") == 1 and text.count("= Sub(") == 1 and text.count("= Mul(") == 1
    assert len(report.changed("simplify")) == len(gone)


def test_simplify_keeps_promotions_and_negative_zero():
    x = tf.placeholder(tf.float32, shape=(2,), name="x")
    y = tf.cast(x, tf.float64) * tf.constant(1.0, tf.float64)   # fine: no promotion
    z = F.mul(x, tf.constant(1.0, tf.float64))                  # promotes: the Mul must stay
    text, fetched, _ = optimise([y, z], [x])
    assert fetched == ["Cast:0", "Mul_1:0"]
    feed = {x: np.array([-0.0, np.nan], np.float32)}
    with tf.Session() as s:
        r = s.run(x + 0.0, feed)
    assert not np.signbit(r[0]) and np.isnan(r[1])              # +0.0, as numpy gives


def test_simplify_collapses_identity_chains_transposes_and_reshapes():
    x = tf.placeholder(tf.float32, shape=(2, 3, 4), name="x")
    a = tf.identity(tf.stop_gradient(tf.identity(x)))
    b = tf.transpose(tf.transpose(x, (1, 2, 0)), (2, 0, 1))     # the inverse permutation: x
    c = tf.transpose(tf.transpose(x, (1, 0, 2)), (0, 2, 1))     # composes to (1, 2, 0)
    d = tf.reshape(tf.reshape(tf.reshape(x, (6, 4)), (4, 6)), (24,))
    e = tf.reshape(x, (2, 3, 4))
    f = -(-x)
    text, fetched, _ = optimise([a, b, c, d, e, f], [x])
    assert fetched[:2] == ["x:0", "x:0"] and fetched[4:] == ["x:0", "x:0"]
    assert text == ("%transpose_3/merged = Transpose(%x, perm=(1, 2, 0))  # float32[3, 4, 2]\n"
                    "%Reshape_2/merged = Reshape(%x, shape=(24,))  # float32[24]")


def test_simplify_removes_shape_ops_that_do_nothing_and_multiplication_by_broadcast_ones():
    """The RNN cell's backward: BroadcastLike(ones, ref of the same shape) * g  ->  g."""
    x = tf.placeholder(tf.float32, shape=(20, 1), name="x")
    loss = tf.reduce_sum(tf.tanh(x))
    g, = tf.gradients(loss, [x])
    text, fetched, report = optimise([g], [x])
    assert "BroadcastLike" not in text and "OnesLike" not in text
    assert text.count("= Mul(") == 1                            # tanh' = 1 - t*t, times nothing
    assert "simplify: Mul 'gradients/Tanh_grad/Mul_1' -> gradients/Tanh_grad/Sub:0" in \
        report.changed("simplify")


def test_cse_merges_equal_ops_but_not_swapped_operands_or_different_attrs():
    x = tf.placeholder(tf.float32, shape=(2, 3), name="x")
    y = tf.placeholder(tf.float32, shape=(2, 3), name="y")
    outs = [x * y, x * y, y * x, tf.reduce_sum(x, axis=0), tf.reduce_sum(x, axis=1),
            tf.reduce_sum(x, axis=0)]
    text, fetched, report = optimise(outs, [x, y])
    assert fetched == ["mul:0", "mul:0", "mul_2:0", "Sum:0", "Sum_1:0", "Sum:0"]
    assert report.changed("cse") == ["cse: Mul 'mul_1' = 'mul'", "cse: Sum 'Sum_2' = 'Sum'"]


def test_dce_keeps_effects_and_control_dependencies():
    v = tf.Variable(1.0, name="v")
    x = tf.placeholder(tf.float32, shape=(), name="x")
    with tf.control_dependencies([v.assign_add(1.0)]):
        y = x * 1.0                                          # carries a control input: kept
    text, fetched, _ = optimise([y], [x])
    assert "AssignAdd" in text and fetched == ["mul:0"]
    with tf.Session() as s:
        s.run(v.initializer)
        s.run(y, {x: 3.0})
        assert s.run(v) == 2.0


def test_every_pass_can_be_switched_off():
    x = tf.placeholder(tf.float32, shape=(2,), name="x")
    y = (x * 1.0) * (x * 1.0) + tf.constant(1.0) * 2.0
    base, _, _ = optimise([y], [x], fold=False, simplify=False, cse=False, dce=False)
    assert base == "\n".join(format_op(op) for op in topological_order(prune([y], {x})))
    for name in ("fold", "simplify", "cse", "dce"):
        text, _, report = optimise([y], [x], **{name: False})
        assert text != base and report.changed(name) == []


def test_global_switches_and_session_config():
    x = tf.placeholder(tf.float32, shape=(2,), name="x")
    y = x * 1.0

    def source(sess):
        return sess.compiled(y, {x: [1, 2]}).source
    with options(simplify=False):
        assert "Mul" in source(tf.Session())
    disable("simplify", "cse")
    try:
        assert "Mul" in source(tf.Session())
    finally:
        enable()
    assert "Mul" not in source(tf.Session())
    assert "Mul" in source(tf.Session(config=PassConfig.off()))
    with pytest.raises(ValueError, match=r"unknown pass\(es\) \['fusion'\]; known: \['fold'"):
        disable("fusion")
    with pytest.raises(ValueError, match=r"unknown pass\(es\) \['fussion'\]"):
        with options(fussion=False):
            pass


def test_explain_shows_the_report_and_the_generated_source():
    x = tf.placeholder(tf.float32, shape=(3,), name="x")
    y = tf.tanh(x) * 1.0
    with tf.Session() as s:
        s.run(y, {x: np.zeros(3, np.float32)})
        text = s.explain(y, {x: np.zeros(3, np.float32)})
        src = s._cache[(y, (x,))].exe.source                  # the plan run() uses
    assert text.startswith("pass report (nodes before -> after):\n  prune")
    assert "simplify: Mul 'mul' -> Tanh:0" in text and text.endswith(src)
    assert "liveness: 1 step results in 1 reused locals, 0 steps written in place" in text
    assert "r0 = f0(v0)  # Tanh 'Tanh'" in src


def test_golden_before_and_after_the_seeds_gradient_example():
    """``y = (x + w) * (w + 1)`` and its gradients: 8 nodes in, the 4 numpy would compute out."""
    x = tf.placeholder(tf.float32, shape=(1,), name="x")
    w = tf.placeholder(tf.float32, shape=(1,), name="w")
    y = tf.multiply(tf.add(w, x), tf.add(w, 1.0))
    fetches = [y, *tf.gradients(y, [w, x])]
    before, _, _ = optimise(fetches, [x, w], fold=False, simplify=False, cse=False, dce=False)
    after, fetched, _ = optimise(fetches, [x, w])
    assert before == """\
%Add = AddV2(%w, %x)  # float32[1]
%Add_1/y = Const(value=1.0)  # float32[]
%Add_1 = AddV2(%w, %Add_1/y)  # float32[1]
%Mul = Mul(%Add, %Add_1)  # float32[1]
%gradients/grad_ys_0 = OnesLike(%Mul)  # float32[1]
%gradients/Mul_grad/Mul = Mul(%gradients/grad_ys_0, %Add_1)  # float32[1]
%gradients/Mul_grad/Mul_1 = Mul(%gradients/grad_ys_0, %Add)  # float32[1]
%gradients/AddN = AddN(%gradients/Mul_grad/Mul, %gradients/Mul_grad/Mul_1)  # float32[1]"""
    assert after == """\
%Add = AddV2(%w, %x)  # float32[1]
%Add_1/y = Const(value=1.0)  # float32[]
%Add_1 = AddV2(%w, %Add_1/y)  # float32[1]
%Mul = Mul(%Add, %Add_1)  # float32[1]
%gradients/AddN = AddN(%Add_1, %Add)  # float32[1]"""
    assert fetched == ["Mul:0", "gradients/AddN:0", "Add_1:0"]     # dy/dx is w + 1 itself


def test_fetches_merged_by_a_pass_are_still_separate_arrays():
    x = tf.placeholder(tf.float32, shape=(2,), name="x")
    a, b, c = tf.tanh(x), tf.tanh(x), tf.tanh(x) * 1.0           # one value after CSE/simplify
    with tf.Session() as s:
        ra, rb, rc, ra2 = s.run([a, b, c, a], {x: [0.5, 1.0]})
    assert rb is not ra and rc is not ra and rc is not rb
    assert ra2 is ra                                             # the same fetch twice: as before
    np.testing.assert_array_equal(rb, ra)


def test_bool_minus_is_refused_while_building():
    """numpy refuses ``-`` and unary minus on bools, so their shape rules do too (TF 2.21 refuses
    both while building): no graph holds one, and no simplification (``b - False`` -> ``b``,
    ``--b`` -> ``b``) can hide the error."""
    b = tf.placeholder(tf.bool, shape=(2,), name="b")
    with pytest.raises(TypeError, match="subtraction is not implemented for bool tensors"):
        F.sub(b, tf.constant([False, False]))
    with pytest.raises(TypeError, match="negation is not implemented for bool tensors"):
        F.neg(b)
