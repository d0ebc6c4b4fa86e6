"""Ops over a sequence axis: ``ReverseV2`` and ``ReverseSequence``.

A bidirectional RNN reads each sequence backwards.  When every sequence in the
batch has the full length that is a flip of the time axis (``ReverseV2``);
with per-row lengths only each row's first ``seq_lengths[b]`` steps are
reversed and the padding stays where it is (``ReverseSequence``)::

    x[:, b] = [a, b, c, 0, 0], seq_lengths[b] = 3  ->  [c, b, a, 0, 0]

Both are their own inverse, so each is its own gradient.  They are primitives
because the time axis may be unknown until the graph runs (no static index
list to gather with).
"""
from __future__ import annotations

import numpy as np

from ..examples import Example as E, ints
from ..registry import defop
from ..shapes import normalize_axes
from .elementwise import same


def _reverse(x, axis=(0,)):
    return np.flip(x, normalize_axes(axis, x.ndim)).copy()


def _reverse_sequence(x, seq_lengths, seq_axis=1, batch_axis=0):
    """Row ``b`` (along ``batch_axis``) gets its first ``seq_lengths[b]`` steps reversed."""
    moved = np.moveaxis(x, (batch_axis, seq_axis), (0, 1))
    steps = np.arange(moved.shape[1])
    lens = np.asarray(seq_lengths).astype(np.int64)[:, None]
    idx = np.where(steps[None, :] < lens, lens - 1 - steps[None, :], steps[None, :])
    idx = idx.reshape(idx.shape + (1,) * (moved.ndim - 2))
    out = np.take_along_axis(moved, idx, axis=1)
    return np.ascontiguousarray(np.moveaxis(out, (0, 1), (batch_axis, seq_axis)))


defop("ReverseV2", _reverse, same, inputs=("x",), fname="reverse", torch_name="FlipBackward0",
      examples=(E(((4,),), {"axis": (0,)}), E(((3, 4, 2),), {"axis": (1,)}),
                E(((3, 4),), {"axis": (0, -1)})),
      grads=(lambda F, g, axis: F.reverse(g, axis=axis),))
defop("ReverseSequence", _reverse_sequence, lambda x, seq_lengths, **_: same(x),
      inputs=("x", "seq_lengths"),
      examples=(E(((3, 4), ints((3,), 5)), {"seq_axis": 1, "batch_axis": 0}),
                E(((4, 3, 2), ints((3,), 5)), {"seq_axis": 0, "batch_axis": 1})),
      grads=(lambda F, g, seq_lengths, seq_axis, batch_axis:
             F.reverse_sequence(g, seq_lengths, seq_axis=seq_axis, batch_axis=batch_axis), None))
