"""Op impls that skip numpy's Python-level dispatch give numpy's own bits, layouts and views.

Mean, ExpandDims, BroadcastLike and the softmax pair take shortcuts on their common cases
(see their docstrings); each is checked here against the numpy call it stands for, on the
cases it takes and on the ones it hands back to numpy.  And the eager cross-entropy's one
pass over the labels still finds an ``ignore_index`` inside their range.
"""
from __future__ import annotations

import numpy as np
import pytest

import dyngraph as torch
from common import ShapeRef
from common.ops.nn import _log_softmax, _softmax
from common.ops.reduce import _mean
from common.ops.shape import _broadcast_like, _expand_dims


def _same_bits(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return (a.dtype == b.dtype and a.shape == b.shape
            and a.reshape(-1).view(np.uint8).tolist() == b.reshape(-1).view(np.uint8).tolist())


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int64])
@pytest.mark.parametrize("shape", [(), (1,), (7,), (64,), (129,), (3, 5), (17, 3, 5)])
def test_mean_over_all_elements_is_np_mean(dtype, shape):
    x = (np.random.default_rng(0).standard_normal(shape) * 1e3).astype(dtype)
    for keepdims in (False, True):
        ours, numpys = _mean(x, keepdims=keepdims), np.mean(x, keepdims=keepdims)
        assert type(ours) is type(numpys) and _same_bits(ours, numpys)


def test_mean_of_overflowing_and_empty_arrays_is_np_mean():
    with np.errstate(all="ignore"):
        big = np.array([3e38, 3e38], np.float32)
        assert _same_bits(_mean(big), np.mean(big))
        assert np.isnan(_mean(np.array([np.inf, -np.inf], np.float32)))
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"), np.errstate(invalid="ignore"):
        assert np.isnan(_mean(np.zeros((0,), np.float32)))


@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 3, 4)])
def test_expand_dims_is_the_same_view(shape):
    base = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    for x in (base, base.T, base[..., ::2] if base.ndim else base):
        for axis in range(-x.ndim - 1, x.ndim + 1):
            ours, numpys = _expand_dims(x, axis), np.expand_dims(x, axis)
            assert ours.shape == numpys.shape and ours.strides == numpys.strides
            assert np.shares_memory(ours, x) and np.array_equal(ours, numpys)
        with pytest.raises(np.exceptions.AxisError):
            _expand_dims(x, x.ndim + 1)


@pytest.mark.parametrize("x_shape", [(), (1,), (1, 1), (3,), (2, 1)])
@pytest.mark.parametrize("to", [(2, 3), (4, 2, 3), (0, 3)])
def test_broadcast_like_is_a_copy_of_the_broadcast_view(x_shape, to):
    if x_shape == (2, 1) and to[-2] != 2 or x_shape == (3,) and to[-1] != 3:
        pytest.skip("shapes that do not broadcast")
    x = np.arange(1, int(np.prod(x_shape)) + 1, dtype=np.float32).reshape(x_shape)
    ours = _broadcast_like(x, ShapeRef(to, x.dtype))
    numpys = np.array(np.broadcast_to(x, to))
    assert ours.strides == numpys.strides and ours.flags.owndata and _same_bits(ours, numpys)
    ours[...] = 0  # its own memory
    assert x.reshape(-1)[0] == 1


def _reference_softmax(x, axis=-1):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def _reference_log_softmax(x, axis=-1):
    shifted = x - np.max(x, axis=axis, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


@pytest.mark.parametrize("shape", [(64, 10), (16, 2), (3, 8, 5), (64, 33), (4,)])
@pytest.mark.parametrize("values", ["normal", "zeros", "special"])
def test_softmax_pair_bits_on_short_last_axes(shape, values):
    rng = np.random.default_rng(1)
    pick = {"normal": None, "zeros": [0.0, -0.0, -1.0, -30.0, -200.0],
            "special": [0.0, -0.0, np.nan, np.inf, -np.inf, 1e30]}[values]
    for dtype in (np.float32, np.float64):
        x = (rng.standard_normal(shape) * 10 if pick is None
             else rng.choice(np.array(pick), size=shape)).astype(dtype)
        with np.errstate(all="ignore"):
            for ours, ref in ((_softmax, _reference_softmax),
                              (_log_softmax, _reference_log_softmax)):
                a, b = ours(x, -1), ref(x, -1)
                assert np.array_equal(a, b, equal_nan=True)
                assert np.array_equal(np.signbit(a[~np.isnan(a)]), np.signbit(b[~np.isnan(b)]))


def test_cross_entropy_still_sees_an_ignore_index_inside_the_label_range():
    logits = torch.tensor(np.random.default_rng(2).standard_normal((4, 3)).astype(np.float32),
                          requires_grad=True)
    labels = torch.tensor([0, 2, 1, 2])
    loss = torch.nn.functional.cross_entropy(logits, labels, ignore_index=2)
    kept = torch.nn.functional.cross_entropy(logits[[0, 2]], labels[[0, 2]])
    assert np.allclose(loss.item(), kept.item())
    with pytest.raises(IndexError, match="Target 3 is out of bounds."):
        torch.nn.functional.cross_entropy(logits, torch.tensor([0, 3, 1, 2]))


def test_engine_view_test_is_may_share_memory():
    from dyngraph.engine import _shares
    a = np.arange(24.0).reshape(4, 6)
    for x in (a, a[1:], a.T, a[:, ::2], a[2:2]):
        outs = (a, a.T, a[1], a[:, 2:], a.reshape(6, 4), a.copy(), a + 1, a[::2].T, a[:0], x,
                x.T, x[:1], x.copy(), np.ascontiguousarray(x), x.reshape(-1) if x.size else x)
        for out in outs:
            assert _shares(out, x) == np.may_share_memory(out, x)


def test_out_wrappers_keep_names_keywords_and_out():
    assert torch.mm.__name__ == "mm" and torch.tanh.__name__ == "tanh"
    a, b = torch.ones(2, 3), torch.ones(3, 1)
    c = torch.empty(1)
    assert torch.mm(input=a, mat2=b, out=c) is c and c.tolist() == [[3.0], [3.0]]
    assert torch.tanh(torch.zeros(2), out=c) is c and c.tolist() == [0.0, 0.0]
    with pytest.raises(RuntimeError, match=r"^mm\(\): functions with out=\.\.\. arguments don't "):
        torch.mm(a.requires_grad_(), b, out=c)
    with pytest.raises(TypeError):
        torch.mm(a, b, c)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int32, np.bool_])
def test_reduce_size_dtype_and_count(dtype):
    from common.ops.reduce import _reduce_size
    from common.shapes import result_dtype
    for shape, axis, n in [((2, 3), None, 6), ((2, 3), 1, 3), ((4, 0, 5), (0, 2), 20), ((), None, 1)]:
        for x in (np.zeros(shape, dtype), ShapeRef(shape, dtype), ShapeRef(shape, np.dtype(dtype))):
            size = _reduce_size(x, axis)
            assert size.dtype == result_dtype(np.dtype(dtype), np.float16) and size == n
