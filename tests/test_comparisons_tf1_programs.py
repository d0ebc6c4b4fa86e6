"""Classic TF1 programs print on staticgraph what TF 2.21 printed (comparisons/tf1_programs)."""
import pytest

from comparisons import tf1_programs as P


@pytest.mark.parametrize("name", P.PROGRAMS)
def test_the_program_prints_what_tf_printed(name):
    if name in P.REQUIRES:
        pytest.importorskip(P.REQUIRES[name], reason=f"{name} needs the optional {P.REQUIRES[name]!r} package")
    got, want = P.run(name), P.expected(name)
    assert len(got) == len(want), "\n".join(got)
    known = P.KNOWN_DIFFERENCES.get(name, {})
    for i, (g, w) in enumerate(zip(got, want)):
        if i in known:
            assert g != w, f"line {i} now matches TF: drop it from KNOWN_DIFFERENCES ({known[i]})"
        else:
            assert g == w, f"line {i}:\n  tf:   {w}\n  ours: {g}"
