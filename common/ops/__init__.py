"""The op declarations, grouped by kind.  Importing this package registers them all."""
from . import elementwise, linalg, misc, nn, random, reduce, sequence, shape  # noqa: F401
