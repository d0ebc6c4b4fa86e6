"""The op declarations, grouped by kind.  Importing this package registers them all."""
from . import elementwise, linalg, misc, nn, random, reduce, shape  # noqa: F401
from . import conv, pool  # noqa: F401
