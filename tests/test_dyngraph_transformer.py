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
