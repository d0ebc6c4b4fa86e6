"""What tests of run-time errors share: TF 2's layout of a failure inside ``Session.run``.

TF 2.x (and staticgraph) start such a message with ``Graph execution error:``, the node and the
line that built it; the op's own sentence follows.  ``RUN`` matches that header in a regex;
``op_message`` is what follows it.
"""
import re

RUN = (r"^Graph execution error:\n\nDetected at node '[^']+' defined at \(most recent call "
       r"last\):\n(?:    File .*\n)?Node: '[^']+'\n")


def op_message(err) -> str:
    """The op's own message: ``err``'s text after the header (asserting the header is there)."""
    text = err.message if hasattr(err, "message") else str(err)
    m = re.match(RUN, text)
    assert m, f"no 'Graph execution error:' header in {text[:200]!r}"
    return text[m.end():]
