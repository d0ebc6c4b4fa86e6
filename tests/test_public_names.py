"""The public API of both packages is what ``tests/fixtures/public_names.json`` records.

Moving modules between subpackages must not add, drop or change the kind of a public name.
"""
from __future__ import annotations

import json

from tests.public_names import FIXTURE, public_names


def test_public_names_match_the_fixture():
    expected = json.loads(FIXTURE.read_text())
    actual = public_names()
    assert sorted(actual) == sorted(expected), "namespaces differ"
    for namespace, names in expected.items():
        got = actual[namespace]
        missing = sorted(set(names) - set(got))
        extra = sorted(set(got) - set(names))
        changed = sorted(n for n in set(names) & set(got) if names[n] != got[n])
        assert not (missing or extra or changed), (namespace, missing, extra, changed)


def test_the_fixture_covers_the_namespaces_users_import():
    expected = json.loads(FIXTURE.read_text())
    for namespace in ("staticgraph", "staticgraph.nn", "staticgraph.train", "staticgraph.compat.v1",
                      "staticgraph.nn.rnn_cell", "dyngraph.nn.functional", "dyngraph.optim",
                      "dyngraph.utils.data"):
        assert namespace in expected
    assert expected["staticgraph"]["Session"] == "class"
    assert expected["staticgraph.nn"]["relu"] == "function"
