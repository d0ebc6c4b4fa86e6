"""``tf.data``: input pipelines (``Dataset``, ``dataset.py``) and the iterators that run them in a
Session (``iterator.py``) -- names only.

>>> import staticgraph as tf
>>> it = tf.data.Dataset.from_tensor_slices([1, 2, 3]).make_one_shot_iterator()
>>> with tf.Session() as s:
...     print(s.run(it.get_next()))
1
"""
from __future__ import annotations

from .dataset import (AUTOTUNE, Dataset, experimental, get_output_classes, get_output_shapes,
                      get_output_types)
from .iterator import Iterator, get_next, make_initializable_iterator, make_one_shot_iterator

__all__ = ["Dataset", "Iterator", "make_one_shot_iterator", "make_initializable_iterator",
           "get_next", "experimental", "get_output_types", "get_output_shapes",
           "get_output_classes"]
