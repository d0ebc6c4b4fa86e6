"""``python -m comparisons.seeded_tf``: a seeded TF1 script prints TF 2.21's lines, digit for digit."""
from comparisons import seeded_tf


def test_the_seeded_script_prints_what_tf_printed(capsys):
    seeded_tf.main([])
    out = capsys.readouterr().out
    assert "13 of 13 printed lines are TF's, character for character." in out
    ours, theirs, draws = seeded_tf.run()
    assert ours == theirs
    assert draws == ["RandomStandardNormal (2024, 0): 640", "RandomUniform (2024, 1): 320",
                     "RandomUniform (2024, 2): 2048", "TruncatedNormal (2024, 3): 64"]
