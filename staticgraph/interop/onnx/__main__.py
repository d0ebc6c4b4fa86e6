"""``python -m staticgraph.interop.onnx``: print the ONNX coverage table; ``--readme`` rewrites README's copy.

The README holds the table between two marker lines; a test checks it equals
:func:`rules.coverage_markdown`, so a new op or rule means re-running this.
"""
from __future__ import annotations

import argparse
import os
import sys

from .rules import coverage_markdown

BEGIN, END = "<!-- onnx-coverage:begin -->", "<!-- onnx-coverage:end -->"
README = os.path.join(os.path.dirname(__file__), "..", "..", "..", "README.md")


def readme_with_table(text: str) -> str:
    """``text`` (README) with the section between the markers replaced by the current table."""
    head, sep, rest = text.partition(BEGIN)
    if not sep or END not in rest:
        raise ValueError(f"README has no {BEGIN} ... {END} section")
    return f"{head}{BEGIN}\n{coverage_markdown()}\n{END}{rest.split(END, 1)[1]}"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--readme", action="store_true", help="rewrite the table in README.md")
    args = p.parse_args(argv)
    if not args.readme:
        print(coverage_markdown())
        return 0
    path = os.path.normpath(README)
    with open(path) as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(readme_with_table(text))
    print(f"updated {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
