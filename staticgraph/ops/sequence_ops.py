"""``tf.reverse`` and ``tf.reverse_sequence``: read sequences backwards (bidirectional RNNs).

>>> import staticgraph as tf
>>> x = tf.constant([[1, 2, 3, 0], [4, 5, 0, 0]])
>>> with tf.Session() as s:
...     print(s.run(tf.reverse_sequence(x, [3, 2], seq_axis=1, batch_axis=0)))
[[3 2 1 0]
 [5 4 0 0]]
"""
from __future__ import annotations

from common import REGISTRY

from ..framework.build import apply, convert_to_tensor
from ..framework.graph import name_scope
from .core_ops import cast

__all__ = ["reverse", "reverse_v2", "reverse_sequence"]


def reverse(tensor, axis, name=None):
    """``tensor`` with the order of ``axis`` (an int or a list of ints) reversed."""
    tensor = convert_to_tensor(tensor)
    axes = tuple(int(a) for a in (axis if isinstance(axis, (list, tuple)) else [axis]))
    if tensor.shape.ndims is not None:
        for a in axes:
            if not -tensor.shape.ndims <= a < tensor.shape.ndims:
                raise ValueError(f"'axis'[0] = {a} is out of valid range [0, {tensor.shape.ndims}) "
                                 f"for 'ReverseV2'")
    return apply(REGISTRY["ReverseV2"], (tensor,), {"axis": axes}, name=name or "ReverseV2")


reverse_v2 = reverse


def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None, name=None,  # noqa: A002
                     seq_dim=None, batch_dim=None):
    """Each row's first ``seq_lengths[row]`` steps along ``seq_axis`` reversed; the rest kept."""
    x = convert_to_tensor(input)
    seq_axis = seq_dim if seq_axis is None else seq_axis
    batch_axis = (batch_dim if batch_dim is not None else 0) if batch_axis is None else batch_axis
    if seq_axis is None:
        raise TypeError("reverse_sequence() missing required argument: 'seq_axis'")
    with name_scope(name, "ReverseSequence") as scope:   # the lengths' Const inside the op's scope
        lengths = convert_to_tensor(seq_lengths, name="seq_lengths")
        if not lengths.dtype.is_integer:
            lengths = cast(lengths, "int32")
        if lengths.shape.ndims not in (None, 1):
            raise ValueError(f"Shape must be rank 1 but is rank {lengths.shape.ndims} for "
                             f"'ReverseSequence'")
        return apply(REGISTRY["ReverseSequence"], (x, lengths),
                     {"seq_axis": int(seq_axis), "batch_axis": int(batch_axis)}, name=scope)
