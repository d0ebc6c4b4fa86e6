"""``tf.data``: input pipelines (``Dataset``) and the iterators that run them in a Session.

>>> import staticgraph as tf
>>> it = tf.data.Dataset.from_tensor_slices([1, 2, 3]).make_one_shot_iterator()
>>> with tf.Session() as s:
...     print(s.run(it.get_next()))
1
"""
from __future__ import annotations

from .dataset import Dataset
from .iterator import Iterator, get_next, make_initializable_iterator, make_one_shot_iterator

__all__ = ["Dataset", "Iterator", "make_one_shot_iterator", "make_initializable_iterator",
           "get_next", "experimental"]


class experimental:  # noqa: N801  (tf.data.experimental)
    AUTOTUNE = -1


AUTOTUNE = experimental.AUTOTUNE


def get_output_types(dataset_or_iterator):
    """``tf.data.get_output_types(ds)``: ``ds.output_types`` (TF1's accessor)."""
    return dataset_or_iterator.output_types


def get_output_shapes(dataset_or_iterator):
    return dataset_or_iterator.output_shapes


def get_output_classes(dataset_or_iterator):
    return dataset_or_iterator.output_classes


__all__ += ["get_output_types", "get_output_shapes", "get_output_classes"]
