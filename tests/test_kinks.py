"""Values and gradients at kinks, zeros and NaN (issue #28, "Silent wrong answers"): dyngraph
gives PyTorch 2.13's answers, staticgraph TensorFlow 2.21's, where the two frameworks differ.

One registry op serves both; the convention is an attribute of the op (``Pow.masked_at_zero``,
``Atan2.zero_at_origin``, ``Xlogy.product_at_zero``, ``Digamma.inf_at_zero``, ``Sign``/``Abs``
``nan_sign_zero``, ``Relu.nan_passes``, ``ClipByValue.bounds_open``/``nan_passes``) whose
default is TF's and which dyngraph sets. The literals below were printed by torch 2.13 and
TF 2.21 (``tf.compat.v1`` graph mode) on the same float64 inputs: the sum's gradient.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import dyngraph as torch
import dyngraph.nn.functional as F
import staticgraph as tf

nan, inf = math.nan, math.inf


def _torch_side(f, *xs):
    ts = [torch.tensor(x, dtype=torch.float64, requires_grad=True) for x in xs]
    with np.errstate(all="ignore"):
        y = f(*ts)
        y.sum().backward()
    return [y.tolist()] + [t.grad.tolist() for t in ts]


def _tf_side(f, *xs):
    g = tf.Graph()
    with g.as_default():
        ts = [tf.constant(x, tf.float64) for x in xs]
        y = f(*ts)
        grads = tf.compat.v1.gradients(tf.reduce_sum(y), ts)
        with tf.compat.v1.Session() as s, np.errstate(all="ignore"):
            return [v.tolist() for v in s.run([y, *grads])]


def _same(got, want):
    np.testing.assert_array_equal(np.array(got, dtype=np.float64), np.array(want, dtype=np.float64))


POW_IN = ([0., 0., 0., 0., 2., -1., -2.], [0., 0.5, -1., 2., 0., 0.5, 2.])

CASES = {
    # name: (dyngraph fn, staticgraph fn, inputs, torch [value, grads...], TF [value, grads...])
    "pow": (torch.pow, tf.pow, POW_IN,
            [[1., 0., inf, 0., 1., nan, 4.], [0., inf, -inf, 0., 0., nan, -4.],
             [0., 0., -inf, 0., math.log(2), nan, nan]],
            [[1., 0., inf, 0., 1., nan, 4.], [nan, inf, -inf, 0., 0., nan, -4.],
             [0., 0., nan, 0., math.log(2), nan, 0.]]),
    "atan2": (torch.atan2, tf.atan2, ([0., 0., -0., 1.], [0., -0., 0., 0.]),
              [[0., math.pi, -0., math.pi / 2], [0., -0., 0., 0.], [-0., -0., 0., -1.]],
              [[0., math.pi, -0., math.pi / 2], [nan, nan, nan, 0.], [nan, nan, nan, -1.]]),
    "xlogy": (torch.xlogy, tf.math.xlogy, ([0., 0., 0., 1., 0., 0.], [0., 1., nan, 0., -1., 2.]),
              [[0., 0., nan, -inf, 0., 0.], [0., 0., nan, -inf, 0., math.log(2)],
               [nan, 0., nan, inf, -0., 0.]],
              [[0., 0., 0., -inf, 0., 0.], [0., 0., 0., -inf, 0., 0.], [0., 0., 0., inf, 0., 0.]]),
    "digamma": (torch.digamma, tf.math.digamma, ([0., -0., -1., 1.],),
                [[-inf, inf, nan, -0.5772156649015329], [inf, inf, None, 1.6449340668482264]],
                [[nan, nan, nan, -0.5772156649015329], [inf, inf, inf, 1.6449340668482264]]),
    "sign": (torch.sign, tf.sign, ([nan, 0., -0.],), [[0., 0., 0.], [0., 0., 0.]],
             [[nan, 0., 0.], [0., 0., 0.]]),
    "abs": (torch.abs, tf.abs, ([nan, 0., -0., -2.],), [[nan, 0., 0., 2.], [0., 0., 0., -1.]],
            [[nan, 0., 0., 2.], [nan, 0., 0., -1.]]),
    "relu": (torch.relu, tf.nn.relu, ([nan, 0., -1., 2.],), [[nan, 0., 0., 2.], [1., 0., 0., 1.]],
             [[nan, 0., 0., 2.], [0., 0., 0., 1.]]),
    "relu6": (F.relu6, tf.nn.relu6, ([nan, 0., 6., 3.],), [[nan, 0., 6., 3.], [1., 0., 0., 1.]],
              [[nan, 0., 6., 3.], [0., 0., 0., 1.]]),
}


@pytest.mark.parametrize("name", CASES)
def test_dyngraph_gives_torchs_answer(name):
    fn, _, inputs, want, _ = CASES[name]
    got = _torch_side(fn, *inputs)
    for g, w in zip(got, want):
        if None in w:   # torch's trigamma at the pole -1 is a rounding artefact (6.6e32)
            keep = [i for i, v in enumerate(w) if v is not None]
            g, w = [g[i] for i in keep], [w[i] for i in keep]
        np.testing.assert_allclose(np.array(g, np.float64), np.array(w, np.float64), rtol=1e-12,
                                   err_msg=name)


@pytest.mark.parametrize("name", CASES)
def test_staticgraph_keeps_tfs_answer(name):
    _, fn, inputs, _, want = CASES[name]
    got = _tf_side(fn, *inputs)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.array(g, np.float64), np.array(w, np.float64), rtol=1e-12,
                                   err_msg=name)


def test_scalar_powers_at_zero_follow_torch():
    """``x ** 0`` and ``0 ** x``: the Python-number forms take the same rule."""
    _same(_torch_side(lambda x: x ** 0.0, [0., 1.])[1], [0., 0.])
    _same(_torch_side(lambda x: 0.0 ** x, [0., 1., -1., 2.]), [[1., 0., inf, 0.], [0., 0., -inf, 0.]])
    _same(_torch_side(lambda x: torch.exp2(x), [0.])[1], [math.log(2)])


def test_hardtanh_keeps_torchs_bounds_and_nan():
    _same(_torch_side(lambda x: F.hardtanh(x, -1., 1.), [nan, -1., 1., 0.]),
          [[nan, -1., 1., 0.], [1., 0., 0., 1.]])


def test_xlog1py_keeps_the_product_at_zero_in_dyngraph():
    x, y = [0., 0., 0., 0., 1., 0.], [2., -1., -2., 0.5, -3., nan]
    got = _torch_side(torch.special.xlog1py, x, y)
    want = [[0., 0., 0., 0., nan, nan], [1.0986122886681098, 0., 0., 0.4054651081081644, nan, nan],
            [0., nan, -0., 0., -0.5, nan]]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12)
