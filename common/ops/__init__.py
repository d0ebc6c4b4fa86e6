"""The op declarations, grouped by kind.  Importing this package registers them all."""
from . import elementwise, gather_scatter, linalg, misc, nn, reduce, shape  # noqa: F401
from . import conv, pool  # noqa: F401
