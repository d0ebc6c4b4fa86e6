"""The op declarations, grouped by kind.  Importing this package registers them all."""
from . import (conv, elementwise, gather_scatter, linalg, misc, nn, pool, random, reduce,  # noqa: F401
               sequence, shape)
from . import dynamic_shape  # noqa: F401,E402  (registered after shape, whose tile-sum it reuses)
