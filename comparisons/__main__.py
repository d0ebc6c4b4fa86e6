"""``python -m comparisons``: see :mod:`comparisons.cli`."""
import sys

from .cli import SCRIPTS, main

__all__ = ["SCRIPTS", "main"]

if __name__ == "__main__":
    sys.exit(main())
