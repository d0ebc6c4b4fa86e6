"""Composite elementwise kernels run block by block: numpy's own ufuncs, one cache-sized
block at a time (numexpr's trick, without its compiler).

A kernel written as several numpy calls -- ``sigmoid`` is ``abs``, ``negative``, ``exp``,
``greater_equal``, ``maximum``, ``add``, ``divide`` -- makes one pass over memory per call,
each writing a new array as large as the input.  On a large input the same calls, made on
consecutive blocks that stay in the L2 cache and write into reused scratch buffers
(``out=``), read the input and write the result through memory once::

    whole arrays:  x -> |x| -> -|x| -> exp -> ... -> out      7 passes, 6 temporaries
    by blocks:     for each 32K-element block: the same 7 calls on cached buffers

The same ufuncs on the same elements in the same order give the same bits (an elementwise
ufunc's result does not depend on where in an array an element sits; the registry tests run
both paths).  numpy's float32 ``exp``/``tanh`` stay its SIMD loops -- the reason this beats
a JIT loop calling libm (issue 32 measured that 7x slower).  Measured on this machine's
4M-element float32 sigmoid: 41 ms whole-array, 26-28 ms by blocks (CPU time, best of 10).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

__all__ = ["BLOCK", "MIN_SIZE", "by_blocks", "blockable"]

BLOCK = 1 << 15
"""Elements per block: 128 KiB of float32 per buffer, a few buffers within a 512 KiB L2."""

MIN_SIZE = 1 << 16
"""Inputs smaller than this run whole: they are in cache anyway, and the loop would cost."""


def blockable(x) -> bool:
    """Is ``x`` worth (and fit for) running by blocks: a large C-contiguous float array?"""
    return (isinstance(x, np.ndarray) and x.size >= MIN_SIZE and x.dtype.kind == "f"
            and x.flags.c_contiguous)


def by_blocks(kernel: Callable[..., None], x: np.ndarray, scratch: int = 1) -> np.ndarray:
    """``kernel(x_block, out_block, *scratch_blocks)`` over consecutive blocks of ``x``
    (see :func:`blockable`); returns the result, a new array of ``x``'s shape and dtype.
    ``scratch`` buffers of one block each are made once and handed to every call."""
    out = np.empty_like(x)
    flat, out_flat = x.reshape(-1), out.reshape(-1)
    buffers = [np.empty(BLOCK, x.dtype) for _ in range(scratch)]
    n = flat.size
    for start in range(0, n, BLOCK):
        stop = min(start + BLOCK, n)
        kernel(flat[start:stop], out_flat[start:stop], *[b[:stop - start] for b in buffers])
    return out
