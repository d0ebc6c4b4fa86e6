"""``python -m comparisons``: run every side-by-side script that exists, in order."""
from __future__ import annotations

import importlib
import sys

SCRIPTS = ["counter", "gradient", "rnn", "cnn", "branch", "errors", "debugging", "registry_table", "bridges"]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    for name in SCRIPTS:
        module = importlib.import_module(f"comparisons.{name}")
        print(f"\n=== comparisons.{name} " + "=" * (60 - len(name)))
        module.main(argv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
