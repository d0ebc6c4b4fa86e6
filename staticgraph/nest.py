"""``tf.nest``: flattening and rebuilding nested structures -- names only; the code lives in
``util/nest.py``."""
from __future__ import annotations

from .util.nest import *  # noqa: F403

__all__ = ["is_nested", "is_namedtuple", "flatten", "flatten_up_to", "pack_sequence_as",
           "map_structure", "assert_same_structure", "first_difference", "describe",
           "flatten_with_rebuild", "flatten_dict_items", "LITERAL"]
