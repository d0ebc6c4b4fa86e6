"""Broadcasting gradients on random shapes (hypothesis): the one unbroadcast helper is right."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from common import REGISTRY, numpy_namespace
from tests.gradcheck import numeric_grad

F = numpy_namespace()


@st.composite
def broadcastable_pair(draw):
    """Two shapes that broadcast: drop leading dims and set some dims to 1 on either side."""
    full = draw(st.lists(st.integers(1, 3), min_size=0, max_size=3))
    def side():
        dims = [1 if draw(st.booleans()) else d for d in full]
        return tuple(dims[draw(st.integers(0, len(dims))):])
    return side(), side()


@settings(max_examples=40, deadline=None)
@given(shapes=broadcastable_pair(), name=st.sampled_from(["Add", "Sub", "Mul", "RealDiv", "Maximum"]),
       seed=st.integers(0, 2**16))
def test_binary_gradients_on_broadcast_shapes(shapes, name, seed):
    op = REGISTRY[name]
    rng = np.random.default_rng(seed)
    a = np.array(rng.standard_normal(shapes[0]))
    b = np.array(rng.uniform(0.5, 2.0, shapes[1]) * rng.choice([-1, 1], shapes[1]))
    out = op.impl(a, b)
    g = rng.standard_normal(np.shape(out))
    saved = op.save([a, b], out)
    for i, x in enumerate((a, b)):
        analytic = np.asarray(op.vjp(i, F, g, saved, {}))
        assert analytic.shape == np.shape(x)
        numeric = numeric_grad(lambda: float(np.sum(g * op.impl(a, b))), x)
        np.testing.assert_allclose(analytic, numeric, rtol=1e-5, atol=1e-6)
