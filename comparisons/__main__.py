"""``python -m comparisons``: run every side-by-side script that exists, in order.

``--tensorboard DIR``: instead, write both engines' graphs and the bench's curves for
TensorBoard (``comparisons/tensorboard.py``).
"""
from __future__ import annotations

import importlib
import sys

SCRIPTS = ["counter", "gradient", "rnn", "branch", "errors", "debugging", "registry_table", "bridges"]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if importlib.import_module("comparisons.tensorboard").run_if_asked(argv):
        return 0
    for name in SCRIPTS:
        module = importlib.import_module(f"comparisons.{name}")
        print(f"\n=== comparisons.{name} " + "=" * (60 - len(name)))
        module.main(argv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
