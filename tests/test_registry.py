"""The registry's contract, driven by each op's own examples.

For every op: infer agrees with impl (shape and dtype), infer accepts partially
known shapes, and every gradient rule matches central finite differences in
float64.  The engines' own gradient checks live in their test modules.
"""
from __future__ import annotations

import numpy as np
import pytest

from common import REGISTRY, DTypeError, ShapeError, Spec, numpy_namespace
from common.examples import materialize
from common.shapes import broadcast_shapes, normalize_axes, sum_to_shape
from tests.gradcheck import cotangents, numeric_grad, results, weighted

F = numpy_namespace()
CASES = [(name, k) for name, op in sorted(REGISTRY.items()) for k in range(len(op.examples))]


def _example(name, k, seed=0):
    op = REGISTRY[name]
    args, attrs = materialize(op.examples[k], np.random.default_rng(seed))
    return op, args, attrs


def spec_of(a) -> Spec:
    a = np.asarray(a)
    return Spec(a.shape, a.dtype)


def test_every_op_has_examples():
    missing = [name for name, op in REGISTRY.items() if not op.examples]
    assert not missing, f"ops registered without examples: {missing}"


@pytest.mark.parametrize("name,k", CASES)
def test_infer_matches_impl(name, k):
    op, args, attrs = _example(name, k)
    outs = results(op, op.impl(*args, **attrs))
    specs = results(op, op.infer(*map(spec_of, args), **attrs))
    assert len(outs) == len(specs) == op.n_outputs(attrs)
    for out, spec in zip(map(np.asarray, outs), specs):
        if op.sized_by_values:   # dims that depend on values are None; the rest must match
            from common.shapes import refines
            assert refines(out.shape, spec.shape) and None in spec.shape
        else:
            assert spec.shape == out.shape
        assert spec.dtype == out.dtype


@pytest.mark.parametrize("name,k", [c for c in CASES if REGISTRY[c[0]].static_impl is not None])
def test_static_impl_gives_impls_values(name, k):
    """A kernel chosen for known shapes (``defop(static_impl=)``) computes what ``impl`` does,
    bit for bit, on every example -- with the shapes known and with them unknown."""
    op, args, attrs = _example(name, k)
    want = results(op, op.impl(*args, **attrs))
    for shapes in ([np.shape(a) for a in args], [None for _ in args]):
        impl = op.static_impl(*shapes) or op.impl
        for got, w in zip(results(op, impl(*args, **attrs)), want):
            np.testing.assert_array_equal(got, w)


@pytest.mark.parametrize("name,k", CASES)
def test_infer_on_unknown_dims(name, k):
    """With every dim of the first input unknown, infer still answers compatibly."""
    op, args, attrs = _example(name, k)
    if not args or op.name in ("Fill",):
        pytest.skip("no tensor input")
    outs = results(op, op.impl(*args, **attrs))
    specs = list(map(spec_of, args))
    specs[0] = Spec(tuple(None for _ in specs[0].shape), specs[0].dtype)
    for out, spec in zip(map(np.asarray, outs), results(op, op.infer(*specs, **attrs))):
        assert spec.dtype == out.dtype
        if spec.shape is not None:
            assert len(spec.shape) == out.ndim
            assert all(d is None or d == o for d, o in zip(spec.shape, out.shape))


def differentiable_cases():
    for name, k in CASES:
        op = REGISTRY[name]
        if op.differentiable:
            yield name, k


@pytest.mark.parametrize("name,k", list(differentiable_cases()))
def test_gradient_matches_finite_differences(name, k):
    op, args, attrs = _example(name, k)
    args = [np.array(a) for a in args]
    out = op.impl(*args, **attrs)
    outs = [np.asarray(o) for o in results(op, out)]
    if outs[0].dtype != np.float64:
        pytest.skip("finite differences need a float64 result")
    g, gs = cotangents(op, outs, np.random.default_rng(1))
    saved = op.save(args, out if op.multi_output else outs[0], ref=lambda x: x)
    checked = lists = 0
    for i, x in enumerate(args):
        if not op.input_differentiable(i) or not np.issubdtype(x.dtype, np.floating):
            lists += x.dtype == object
            continue
        analytic = op.vjp(i, F, g, saved, attrs)
        if analytic is None:
            continue
        analytic = np.asarray(analytic)
        if analytic.dtype == object:
            lists += 1
            continue
        assert analytic.shape == x.shape, f"{name} input {i}: grad shape {analytic.shape} != {x.shape}"
        numeric = numeric_grad(lambda: weighted(gs, results(op, op.impl(*args, **attrs))), x)
        np.testing.assert_allclose(analytic, numeric, rtol=1e-5, atol=1e-6,
                                   err_msg=f"{name} example {k} input {i}")
        checked += 1
    if not checked and lists:   # a TensorArray's list of elements (an object array)
        pytest.skip("list gradients are checked end to end (tests/test_tf_tensor_array.py)")
    assert checked, f"{name} example {k}: no input was gradient-checked"


@pytest.mark.parametrize("name,k", [(n, k) for n, k in CASES if REGISTRY[n].undefined_grads])
def test_rules_also_take_a_cotangent_of_an_undefined_grads_result(name, k):
    """A result declared ``undefined_grads`` (a workspace) gets None as its cotangent above;
    a higher-order gradient gives it one, which the rules must take in: checked here with a
    random cotangent for every float result, against finite differences."""
    op, args, attrs = _example(name, k)
    args = [np.array(a) for a in args]
    out = op.impl(*args, **attrs)
    outs = [np.asarray(o) for o in results(op, out)]
    assert op.multi_output and max(op.undefined_grads) < len(outs)
    rng = np.random.default_rng(3)
    gs = [rng.standard_normal(o.shape) if o.dtype.kind == "f" else None for o in outs]
    saved = op.save(args, out, ref=lambda x: x)
    for i, x in enumerate(args):
        if not op.input_differentiable(i) or x.dtype.kind != "f":
            continue
        analytic = np.asarray(op.vjp(i, F, tuple(gs), saved, attrs))
        numeric = numeric_grad(lambda: weighted(gs, results(op, op.impl(*args, **attrs))), x)
        np.testing.assert_allclose(analytic, numeric, rtol=1e-5, atol=1e-6,
                                   err_msg=f"{name} example {k} input {i}")


# --- the facts declared on each op ---------------------------------------------------

def _own_arrays(args) -> list:
    return [np.array(a) for a in args]   # private buffers: nothing aliases anything yet


@pytest.mark.parametrize("name,k", CASES)
def test_declared_aliasing_covers_numpy(name, k):
    """A result that shares memory with an input must be declared (``aliases``); an op that
    declares none returns a new, writeable array (the static compiler may write into it)."""
    op, args, attrs = _example(name, k)
    args = _own_arrays(args)
    for out in results(op, op.impl(*args, **attrs)):
        for i, a in enumerate(args):
            if isinstance(out, np.ndarray) and np.shares_memory(out, a):
                assert op.may_alias(i), f"{name}'s result shares memory with input {i}: declare aliases=({i},)"
        if not op.aliases and isinstance(out, np.ndarray) and out.ndim:
            assert out.flags.writeable and out.flags.owndata or out.base is not None and not any(
                np.shares_memory(out, a) for a in args)


@pytest.mark.parametrize("name", sorted(n for n, op in REGISTRY.items() if op.aliases))
def test_declared_aliasing_is_witnessed(name):
    """A declared alias is real for some example (a needless one costs the compiler reuse)."""
    op = REGISTRY[name]
    for i in sorted(op.aliases):
        seen = False
        for k in range(len(op.examples)):
            _, args, attrs = _example(name, k)
            args = _own_arrays(args)
            seen |= any(isinstance(out, np.ndarray) and i < len(args) and np.shares_memory(out, args[i])
                        for out in results(op, op.impl(*args, **attrs)))
        assert seen, f"{name} declares aliases=({i},) but no example's result shares input {i}"


@pytest.mark.parametrize("name,k", [(n, k) for n, k in CASES if REGISTRY[n].into])
def test_in_place_form_computes_what_impl_computes(name, k):
    """``into`` returns impl's value (shape, dtype, bits) and leaves every other input alone."""
    op, args, attrs = _example(name, k)
    expected = op.impl(*_own_arrays(args), **attrs)
    mine = _own_arrays(args)
    before = [a.copy() for a in mine[1:]]
    out = op.into(*mine, **attrs)
    assert out.shape == expected.shape and out.dtype == expected.dtype
    np.testing.assert_array_equal(out, expected)
    for a, b in zip(mine[1:], before):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", sorted(n for n, op in REGISTRY.items() if op.into))
def test_in_place_form_writes_in_place_for_some_example(name):
    """A declared in-place form really reuses input 0 for some example (else it is useless)."""
    op = REGISTRY[name]
    hits = []
    for k in range(len(op.examples)):
        _, args, attrs = _example(name, k)
        args = _own_arrays(args)
        hits.append(op.into(*args, **attrs) is args[0])
    assert any(hits) and not all(hits), f"{name}: in place for examples {hits}"


@pytest.mark.parametrize("name,k", [(n, k) for n, k in CASES if REGISTRY[n].expr])
def test_expression_form_computes_what_impl_computes(name, k):
    """``expr`` (what generated code writes instead of a kernel call) evaluates to impl's
    value: same shape, dtype and elements; integer-scalar indices (a loop counter) too."""
    op, args, attrs = _example(name, k)
    names = [f"a{i}" for i in range(len(args))]
    variants = [list(args)]
    if any(isinstance(a, np.ndarray) and a.dtype.kind in "iu" for a in args[1:]):
        variants.append([args[0]] + [np.int64(a.reshape(-1)[0]) if isinstance(a, np.ndarray)
                                     and a.dtype.kind in "iu" else a for a in args[1:]])
    text = op.spelled(names, attrs)
    if text is None:        # no form for these attributes (the next test: some example has one)
        return
    for values in variants:
        want = op.impl(*_own_arrays(values), **attrs)
        got = eval(text, {}, dict(zip(names, _own_arrays(values))))
        assert got.shape == want.shape and got.dtype == want.dtype, text
        np.testing.assert_array_equal(got, want)


def test_expression_forms_decline_what_they_cannot_write():
    from common.indexing import ARRAY
    for name, op in REGISTRY.items():
        if op.expr:
            assert any(op.spelled([f"a{i}" for i in range(len(_example(name, k)[1]))],
                                  _example(name, k)[2]) for k in range(len(op.examples))), name
    assert REGISTRY["Transpose"].spelled(["x"], {}) == "x.T"                  # reversed axes
    assert REGISTRY["GetItem"].spelled(["x", "i", "j"], {"key": (ARRAY, ARRAY)}) is None
    assert REGISTRY["GetItem"].spelled(["x", "i"], {"key": (None, ARRAY)}) == "x[None, i]"


def test_in_place_forms_fall_back_on_negative_or_outgrown_positions():
    zero_item = REGISTRY["TensorListZeroItem"]
    args = (np.ones((3, 2)), np.zeros((3, 2)), np.array(-1))
    np.testing.assert_array_equal(zero_item.into(*_own_arrays(args)), zero_item.impl(*_own_arrays(args)))
    set_item = REGISTRY["TensorListSetItem"]
    args = (np.zeros((3, 2)), np.array(-1), np.ones(2))
    for form in (set_item.into, set_item.impl):   # a write at -1: TF's refusal, both forms
        with pytest.raises(ShapeError) as info:
            form(*_own_arrays(args), size=3)
        assert info.value.tf == "Trying to modify element -1 in a list with 3 elements."
    grow = REGISTRY["TensorListSetItem"].into(np.zeros((2, 2)), np.array(3), np.ones(2), size=None)
    assert grow.shape == (4, 2) and grow[3].tolist() == [1, 1]


@pytest.mark.parametrize("name,k", [(n, k) for n, k in CASES if REGISTRY[n].shape_only])
def test_shape_only_inputs_are_read_for_shape_only(name, k):
    """Replacing a shape-only input by a ShapeRef (no data at all) changes nothing."""
    from common import ShapeRef
    op, args, attrs = _example(name, k)
    expected = np.asarray(op.impl(*args, **attrs))
    refs = [ShapeRef(np.shape(a), np.asarray(a).dtype) if op.reads_shape_only(i) else a
            for i, a in enumerate(args)]
    assert any(isinstance(r, ShapeRef) for r in refs)
    np.testing.assert_array_equal(np.asarray(op.impl(*refs, **attrs)), expected)


# --- dtype promotion -----------------------------------------------------------------

DTYPES = [np.float32, np.float64, np.int32, np.int64, np.bool_]


@pytest.mark.parametrize("name", sorted(REGISTRY))
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_dtype_rule_matches_numpy(name, dtype):
    """Cast the first example's float inputs to ``dtype``: infer and impl agree on it.

    Either both accept, and infer's dtype is the one impl produces; or both refuse: impl
    with a ``TypeError`` (our ``DTypeError`` or numpy's own), infer with ``DTypeError``
    (what the static engine reports at build time).  Never skipped: a dtype the forward
    refuses but the shape rule accepts is a graph that builds and fails when it runs."""
    op, args, attrs = _example(name, 0)
    args = [a.astype(dtype) if np.issubdtype(np.asarray(a).dtype, np.floating) else a for a in args]
    try:
        with np.errstate(all="ignore"):
            outs = results(op, op.impl(*args, **attrs))
    except TypeError:
        with pytest.raises(DTypeError):
            op.infer(*map(spec_of, args), **attrs)
        return
    specs = results(op, op.infer(*map(spec_of, args), **attrs))
    assert [s.dtype for s in specs] == [np.asarray(o).dtype for o in outs]


# --- shape rules and the broadcast-gradient kernel ---------------------------------

def test_broadcast_shapes_partial():
    assert broadcast_shapes((None, 3), (3,)) == (None, 3)
    assert broadcast_shapes((None, 1), (4, 5)) == (4, 5)
    assert broadcast_shapes((2, None), (2, 1)) == (2, None)
    assert broadcast_shapes(None, (3,)) is None


def test_broadcast_mismatch_names_the_shapes():
    with pytest.raises(ShapeError, match=r"\[2, 3\] and \[4\]"):
        broadcast_shapes((2, 3), (4,))


@pytest.mark.parametrize("name,a,b,msg", [
    ("MatMul", (2, 3), (4, 5), r"matmul of \[2, 3\] and \[4, 5\]: inner dims 3 and 4 differ"),
    ("MatMul", (None, 3), (4, None), r"inner dims 3 and 4"),
    ("Add", (None, 3), (2,), r"cannot be broadcast"),
])
def test_infer_mismatch_raises(name, a, b, msg):
    with pytest.raises(ShapeError, match=msg):
        REGISTRY[name].infer(Spec(a, np.dtype("f4")), Spec(b, np.dtype("f4")))


def test_matmul_infers_with_unknown_batch():
    spec = REGISTRY["MatMul"].infer(Spec((None, 784), np.dtype("f4")), Spec((784, 256), np.dtype("f4")))
    assert spec == Spec((None, 256), np.dtype("f4"))


def test_reshape_infer_rules():
    op = REGISTRY["Reshape"]
    f4 = np.dtype("f4")
    assert op.infer(Spec((2, 3), f4), shape=(-1,)).shape == (6,)
    assert op.infer(Spec((None, 3), f4), shape=(-1, 3)).shape == (None, 3)
    with pytest.raises(ShapeError, match=r"cannot reshape \[2, 3\] \(6 elements\) into \[4\]"):
        op.infer(Spec((2, 3), f4), shape=(4,))


def test_normalize_axes():
    assert normalize_axes(None, 3) == (0, 1, 2)
    assert normalize_axes((-1, 0), 3) == (0, 2)
    with pytest.raises(ShapeError, match="out of range"):
        normalize_axes(3, 3)


def test_sum_to_shape():
    g = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(sum_to_shape(g, (3, 1)), g.sum(axis=(0, 2)).reshape(3, 1))
    np.testing.assert_array_equal(sum_to_shape(g, ()), g.sum())
    assert sum_to_shape(g, (2, 3, 4)) is g


def test_max_splits_ties_evenly():
    op = REGISTRY["Max"]
    x = np.array([1.0, 3.0, 3.0])
    out = op.impl(x)
    grad = op.vjp(0, F, np.float64(1.0), op.save([x], out), {"axis": None, "keepdims": False})
    np.testing.assert_array_equal(grad, [0.0, 0.5, 0.5])


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int32])
def test_sum_to_shape_over_leading_axes_gives_the_general_paths_bits(dtype):
    """A bias's gradient (only leading axes summed) takes a shorter path: the same sums,
    bit for bit, as a new array of the target shape; a 0-d target keeps the general path."""
    g = (np.random.default_rng(0).standard_normal((5, 7, 3)) * 100).astype(dtype)
    for shape, axes in (((7, 3), (0,)), ((3,), (0, 1))):
        got = sum_to_shape(g, shape)
        want = g.sum(axis=axes, keepdims=True, dtype=g.dtype).reshape(shape)
        assert got.shape == shape and got.dtype == g.dtype and got.tobytes() == want.tobytes()
        assert not np.shares_memory(got, g)
    assert isinstance(sum_to_shape(g, ()), np.ndarray) and sum_to_shape(g, ()).shape == ()


def test_rules_read_only_what_they_need():
    assert REGISTRY["Add"].saves == ("a_shape", "b_shape")
    assert REGISTRY["Mul"].saves == ("a", "b", "a_shape", "b_shape")
    assert REGISTRY["Exp"].saves == ("out",)
    assert REGISTRY["Neg"].saves == ()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_select_against_a_zero_scalar_keeps_np_where_bits(dtype):
    """Select's fast path (one side a +0.0 scalar) gives np.where's result bit for bit:
    NaN payloads, infinities, -0.0 and subnormals on the kept side; -0.0, non-zero or
    dtype-promoting scalars take np.where itself."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((32, 16)).astype(dtype)
    a[0, :6] = [np.nan, -0.0, np.inf, -np.inf, 0.0, -1e-40]
    cond = rng.random((32, 16)) > 0.5
    where = REGISTRY["Select"].impl
    for zero in (0.0, 0, np.array(0.0, dtype), np.float32(0.0), np.float64(0.0), -0.0, 2.0):
        for x, y in ((a, zero), (zero, a)):
            want, got = np.where(cond, x, y), where(cond, x, y)
            assert got.dtype == want.dtype and got.shape == want.shape
            assert got.tobytes() == want.tobytes(), (dtype, zero)


_SPECIALS = [np.nan, -np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-45, -1e-45, 100.0, -100.0, 88.7, -1e4]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_select_gives_np_where_bits_for_every_operand_kind(dtype):
    """Select's impl gives np.where's bits for every operand kind (fast path or not)."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 80)).astype(dtype)
    x.ravel()[:len(_SPECIALS)] = _SPECIALS
    y = rng.standard_normal((80,)).astype(dtype)
    cond = rng.random((64, 80)) > 0.5
    select = REGISTRY["Select"].impl
    for a, b in [(x, 0.0), (0.0, x), (x, -0.0), (x, y), (y, x), (x, np.float64(2.0)),
                 (np.arange(80), 0.5), (x, np.nan), (x[None], 0.0), (cond[:1], x)]:
        c = cond if np.ndim(a) < 3 else cond[None]
        want, got = np.where(c, a, b), select(c, a, b)
        assert got.dtype == want.dtype and got.shape == want.shape
        assert got.tobytes() == want.tobytes()


def test_sigmoid_impl_gives_the_two_branch_formula_bits():
    """1/(1+e) where x >= 0, else e/(1+e), with e = exp(-|x|): the reference formula."""
    def reference(x):
        e = np.exp(-np.abs(x))
        return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e)).astype(e.dtype, copy=False)
    rng = np.random.default_rng(1)
    for dtype in (np.float16, np.float32, np.float64):
        x = rng.standard_normal((7, 9)).astype(dtype) * 30
        x.ravel()[:len(_SPECIALS)] = _SPECIALS
        for v in (x, x.T, x[:, ::2], np.float32(3.0), np.array(-2.0), 1.5, -3, np.arange(-4, 4)):
            with np.errstate(all="ignore"):
                want, got = reference(v), REGISTRY["Sigmoid"].impl(v)
            assert type(got) is type(want) and got.dtype == want.dtype
            assert np.asarray(got).tobytes() == np.asarray(want).tobytes()
