"""dyngraph replayed against torch's ``op_db`` samples recorded in tests/fixtures/opdb.* (see
tests/opdb.py; ``python -m tests.opdb --record`` with torch importable regenerates them).

Without torch (CI) the recorded samples are replayed; with torch importable a few ops are also
run live, straight from ``op_db``.
"""
from __future__ import annotations

import functools

import pytest

from tests import opdb

#: Ops fixed against torch's samples: every recorded sample of theirs agrees, forward and
#: gradient, at both dtypes.
FIXED = ("nn.functional.cosine_similarity", "clamp", "clamp_min", "clamp_max",
         "nn.functional.embedding", "nn.functional.elu", "nn.functional.hardtanh",
         "nn.functional.relu6", "cumprod", "where", "pow", "atan2", "xlogy", "digamma", "sign",
         "abs", "nn.functional.relu", "__rpow__",
         # issue #28's nn.functional refusals (dilation, return_indices, divisor_override,
         # negative padding, a 1-D linear input, conv_transpose2d's backward, 0-d / p=0 norms)
         "nn.functional.max_pool1d", "nn.functional.max_pool2d", "nn.functional.avg_pool2d",
         "nn.functional.pad.constant", "nn.functional.pad.reflect", "nn.functional.pad.circular",
         "nn.functional.pad.replicate_negative", "nn.functional.linear",
         "nn.functional.normalize", "nn.functional.batch_norm", "nn.functional.conv_transpose2d")


@functools.cache
def _replayed() -> tuple[dict, dict]:
    doc, arrays = opdb.load_fixture()
    return doc, opdb.replay(doc["entries"], arrays)


def test_fixture_is_small_and_covers_both_dtypes():
    doc, _ = _replayed()
    assert opdb.FIXTURE_NPZ.stat().st_size + opdb.FIXTURE_JSON.stat().st_size < 8 * 2**20
    assert {e["dtype"] for e in doc["entries"]} == set(opdb.DTYPES)
    assert len({e["name"] for e in doc["entries"]}) == 636


def test_agreeing_samples_never_shrink():
    """Every sample recorded as agreeing still agrees (forward and gradient)."""
    doc, results = _replayed()
    now = set(opdb.agreeing(results))
    lost = sorted(k for k in doc["known_agreeing"] if k not in now)
    assert not lost, f"{len(lost)} samples no longer agree with torch, e.g. " + ", ".join(
        f"{k}: {results.get(k)}" for k in lost[:10])


@pytest.mark.parametrize("name", FIXED)
def test_fixed_ops_agree_on_every_sample(name):
    doc, results = _replayed()
    mine = {k: v for k, v in results.items() if k.split(":", 1)[1].split("#")[0] == name}
    assert mine, f"no recorded sample of {name}"
    bad = {k: v for k, v in mine.items()
           if v[0] not in opdb.FORWARD_AGREE or v[1] not in (None, "agree")}
    assert not bad


def test_coverage_table_is_current():
    """The table (and README's copy) is generated from the same replay (regenerate:
    ``python -m tests.opdb --replay --record``)."""
    doc, results = _replayed()
    table = opdb.coverage(doc["entries"], results)
    assert table == opdb.COVERAGE_MD.read_text()
    assert opdb.README_START + "\n" + table + opdb.README_END in opdb.README.read_text()


def test_classes_are_told_apart():
    """The classifier sees a wrong value, a wrong shape and a refusal for what they are."""
    import numpy as np
    arrays = {"a0": np.array([1.0, 2.0], np.float32), "a1": np.array([2.0, 4.0], np.float32)}
    rec = {"input": {"t": "a0", "rg": False}, "args": {"tuple": []}, "kwargs": {"dict": {}},
           "output": {"t": "a1", "rg": False}}
    assert opdb.replay_sample("mul", {**rec, "args": {"tuple": [2.0]}}, arrays)[0] == "agree"
    assert opdb.replay_sample("mul", {**rec, "args": {"tuple": [3.0]}}, arrays)[0] == "wrong value"
    assert opdb.replay_sample("sum", rec, arrays)[0] == "wrong shape"
    assert opdb.replay_sample("mul", rec, arrays)[0] == "dyngraph raises"
    assert opdb.replay_sample("no_such_op", rec, arrays)[0] == "missing name"


@pytest.mark.parametrize("name", ["nn.functional.cosine_similarity", "clamp", "cumprod"])
def test_live_against_torch(name):
    """With torch importable: the op's samples straight from op_db agree at float64."""
    pytest.importorskip("expecttest")
    pytest.importorskip("torch")
    from torch.testing._internal.common_methods_invocations import op_db
    arrays: dict = {}
    entries = [opdb.record_op(op, "float64", arrays) for op in op_db if op.name == name]
    results = opdb.replay(entries, arrays)
    assert results and set(opdb.agreeing(results)) == set(results)
