"""Attention and Transformers on dyngraph against PyTorch 2.13's recorded answers.

``tests/fixtures/transformer.npz`` holds, for every case of ``tests/transformer_cases.py``,
what PyTorch gave: the seeded initial state_dict, the state loaded for the run, the outputs
and the gradients (regenerate: ``/work/peers/bin/python tests/fixtures/record_transformer.py``).
Here each case runs on dyngraph: the seeded construction must draw the same initial values
(bit for bit), PyTorch's state_dict must load under the same keys, and outputs and gradients
must agree -- in eval and train mode, with dropout masks drawn from the same stream.
"""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

import dyngraph as torch
from tests.transformer_cases import CASES, run

FIXTURE = np.load(Path(__file__).parent / "fixtures" / "transformer.npz")


def _recorded(name: str) -> dict[str, np.ndarray]:
    prefix = name + "/"
    return {k[len(prefix):]: FIXTURE[k] for k in FIXTURE.files if k.startswith(prefix)}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_matches_pytorch(name):
    want = _recorded(name)
    state = {k[len("state/"):]: v for k, v in want.items() if k.startswith("state/")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = run(torch, name, state or None)
    assert sorted(got) == sorted(want)
    for key in want:
        if key.startswith(("init/", "state/")):
            np.testing.assert_array_equal(got[key], want[key], err_msg=key)
        else:
            np.testing.assert_allclose(got[key], want[key], rtol=1e-4, atol=2e-5, err_msg=key)


@pytest.mark.parametrize("kind", ["plain", "bool_mask_dead_row", "float_mask", "causal_gqa"])
def test_sdpa_gradients_to_second_order(kind):
    """The composite's first and second derivatives against finite differences (float64),
    including a float mask's own gradient and a fully masked row (zeros, no NaN)."""
    rng = np.random.default_rng(0)
    F = torch.nn.functional

    def t(*shape):
        return torch.tensor(rng.standard_normal(shape), dtype=torch.float64, requires_grad=True)
    q, k, v = t(1, 3, 2), t(1, 4, 2), t(1, 4, 2)
    if kind == "plain":
        fn, args = (lambda q, k, v: F.scaled_dot_product_attention(q, k, v, scale=0.7)), (q, k, v)
    elif kind == "bool_mask_dead_row":
        mask = torch.tensor(rng.random((3, 4)) < 0.6)
        mask[1] = False
        fn, args = (lambda q, k, v: F.scaled_dot_product_attention(q, k, v, mask)), (q, k, v)
    elif kind == "float_mask":
        fn, args = (lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, m)), (q, k, v,
                                                                                    t(3, 4))
    else:
        q4, k4, v4 = t(1, 2, 3, 2), t(1, 1, 3, 2), t(1, 1, 3, 2)
        fn = lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True,  # noqa: E731
                                                            enable_gqa=True)
        args = (q4, k4, v4)
    out = fn(*args)
    assert not np.isnan(out.detach().numpy()).any()
    assert torch.autograd.gradcheck(fn, args)
    assert torch.autograd.gradgradcheck(fn, args)
