"""Variable-length batches: ``pad_sequence``, ``pack_padded_sequence``, ``pad_packed_sequence``.

A ``PackedSequence`` stores a batch of sequences sorted longest first, step by
step: ``data`` holds the ``batch_sizes[t]`` rows still running at step ``t``,
one block after another.  A recurrent layer fed a packed batch runs only those
rows at each step -- the eager engine simply does less work for shorter
sequences instead of masking padded steps.

>>> import dyngraph as torch
>>> from dyngraph.nn.utils.rnn import pack_padded_sequence
>>> x = torch.zeros(3, 2, 4)                        # (time, batch, features)
>>> pack_padded_sequence(x, [3, 1]).batch_sizes
tensor([2, 1, 1])
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from ... import creation
from ... import functions as _f
from ...tensor import Tensor

__all__ = ["PackedSequence", "pad_sequence", "pack_padded_sequence", "pad_packed_sequence",
           "pack_sequence", "invert_permutation"]


class PackedSequence(namedtuple("PackedSequence",
                                ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])):
    """``(data, batch_sizes, sorted_indices, unsorted_indices)`` as PyTorch's."""

    __slots__ = ()

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = invert_permutation(sorted_indices)
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    if permutation is None:
        return None
    p = np.asarray(permutation.numpy() if isinstance(permutation, Tensor) else permutation)
    out = np.empty_like(p)
    out[p] = np.arange(p.size, dtype=p.dtype)
    return creation.tensor(out)


def _lengths(lengths) -> np.ndarray:
    return np.asarray(lengths.numpy() if isinstance(lengths, Tensor) else lengths, dtype=np.int64)


def pad_sequence(sequences, batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    """Stack sequences of shape ``(L_i, *)`` into ``(max L, B, *)`` (or ``(B, max L, *)``)."""
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    longest = max(s.shape[0] for s in sequences)
    padded = []
    for s in sequences:
        extra = longest - s.shape[0]
        if extra:
            fill = creation.full((extra, *s.shape[1:]), padding_value, dtype=s.dtype)
            s = _f.cat([s, fill] if padding_side == "right" else [fill, s])
        padded.append(s)
    return _f.stack(padded, 0 if batch_first else 1)


def pack_padded_sequence(input: Tensor, lengths, batch_first: bool = False,
                         enforce_sorted: bool = True) -> PackedSequence:
    """Keep, at each step, only the rows of the sequences still running."""
    lengths = _lengths(lengths)
    if enforce_sorted:
        if np.any(lengths[:-1] < lengths[1:]):
            raise RuntimeError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
                "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
                "pack_sequence to sidestep this requirement if you do not need ONNX exportability.")
        sorted_indices = None
    else:
        order = np.argsort(-lengths, kind="stable")
        lengths, sorted_indices = lengths[order], creation.tensor(order)
    if lengths.size and lengths[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element "
                           "in 'lengths' that is <= 0")
    if batch_first:
        input = input.transpose(0, 1)
    if sorted_indices is not None:
        input = input[:, sorted_indices]
    sizes = (lengths[None, :] > np.arange(int(lengths[0]))[:, None]).sum(1)
    data = _f.cat([input[t, :int(b)] for t, b in enumerate(sizes)])
    return PackedSequence(data, creation.tensor(sizes.astype(np.int64)), sorted_indices, None)


def pack_sequence(sequences, enforce_sorted: bool = True) -> PackedSequence:
    """``pack_padded_sequence(pad_sequence(sequences), lengths)``."""
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False,
                        padding_value: float = 0.0, total_length: int | None = None):
    """The inverse of packing: ``(padded, lengths)`` in the batch's original order."""
    data, sizes = sequence.data, [int(b) for b in sequence.batch_sizes.tolist()]
    batch, steps = sizes[0], len(sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError("Expected total_length to be at least the length of the longest "
                             f"sequence in input, but got total_length={total_length} and max "
                             f"sequence length being {steps}")
    rows, off = [], 0
    for b in sizes:
        step = data[off:off + b]
        if b < batch:
            fill = creation.full((batch - b, *data.shape[1:]), padding_value, dtype=data.dtype)
            step = _f.cat([step, fill])
        rows.append(step)
        off += b
    for _ in range((total_length or steps) - steps):
        rows.append(creation.full((batch, *data.shape[1:]), padding_value, dtype=data.dtype))
    padded = _f.stack(rows)
    lengths = (np.asarray(sizes)[None, :] > np.arange(batch)[:, None]).sum(1).astype(np.int64)
    if sequence.unsorted_indices is not None:
        padded = padded[:, sequence.unsorted_indices]
        lengths = lengths[sequence.unsorted_indices.numpy()]
    return (padded.transpose(0, 1) if batch_first else padded), creation.tensor(lengths)
