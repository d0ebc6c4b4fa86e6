"""The op declarations, grouped by kind.  Importing this package registers them all."""
from . import conv, elementwise, linalg, misc, nn, pool, random, reduce, sequence, shape  # noqa: F401
