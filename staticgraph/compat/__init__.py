"""``tf.compat.v1``: the TF1 names, as TF2-ported code spells them (``tf.compat.v1.Session``)."""
from . import v1, v2

__all__ = ["v1", "v2"]
