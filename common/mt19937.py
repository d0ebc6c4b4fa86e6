"""MT19937, the Mersenne Twister, as a stream of raw 32-bit words drawn in bulk.

PyTorch's CPU generator is this engine (``at::mt19937``): seeded with Matsumoto and
Nishimura's ``init_genrand`` of the seed's low 32 bits -- exactly what numpy's legacy
``RandomState(seed)`` does -- and read one tempered 32-bit word at a time, or two words
``(hi << 32) | lo`` for a 64-bit draw.  numpy's ``MT19937`` bit generator runs the same
recurrence in C, so n words cost one ``random_raw(n)`` call instead of n Python steps::

    >>> MT19937(0).words(4).tolist()         # torch.manual_seed(0); torch.rand(4) reads these
    [2357136044, 2546248239, 3071714933, 3626093760]

The position in the 624-word block is kept the way PyTorch's state tensor spells it
(``left``/``next``, see :meth:`MT19937.position`), so a state saved by one round-trips
through the other.
"""
from __future__ import annotations

import numpy as np

from .fastpath import kernels

__all__ = ["MT19937", "N"]

N = 624
"""Words in the state vector (``MERSENNE_STATE_N``)."""


class MT19937:
    """One Mersenne Twister stream: seed it, draw words, read or set its state.

    The state is the 624 key words and ``pos``, the index of the next word to temper (624:
    twist first) -- numpy's ``MT19937`` layout.  The compiled kernels (:mod:`common.fastpath`)
    draw from these arrays in place; without them numpy's bit generator draws, loaded with
    the state and read back (a few microseconds a call)."""

    __slots__ = ("key", "pos", "_bits", "_idle_next")

    def __init__(self, seed: int = 5489):
        self.key = np.empty(N, np.uint32)
        self.pos = np.zeros(1, np.int64)     # an array: the kernels advance it in place
        self._bits = np.random.MT19937(0)
        self.seed(seed)

    def seed(self, seed: int) -> None:
        """``init_genrand(seed & 0xFFFFFFFF)``; the first draw then twists the block."""
        key = np.random.RandomState(seed & 0xFFFF_FFFF).get_state()[1]
        self.set_position(key, left=1, next=0)

    def words(self, n: int) -> np.ndarray:
        """The next ``n`` 32-bit outputs, as uint64 (so ``%`` and ``<<`` need no casts)."""
        self._idle_next = None
        fast = kernels(n)
        if fast is None:
            return self._numpy_draw(lambda bits: bits.random_raw(n))
        out = np.empty(n, np.uint64)
        fast.mt_words(self.key, self.pos, out)
        return out

    def words64(self, n: int) -> np.ndarray:
        """``n`` 64-bit draws, each two words ``(first << 32) | second`` (``random64()``)."""
        fast = kernels(2 * n)
        if fast is None:
            w = self.words(2 * n)
            out = w[0::2] << np.uint64(32)
            out |= w[1::2]
            return out
        self._idle_next = None
        out = np.empty(n, np.uint64)
        fast.mt_words64(self.key, self.pos, out)
        return out

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """``(key, pos)`` for a compiled kernel that draws from the stream in place."""
        self._idle_next = None
        return self.key, self.pos

    def _numpy_draw(self, draw):
        """``draw(bit_generator)`` on numpy's MT19937 in this stream's state, which then
        takes the state the draw left."""
        bits = self._bits
        bits.state = {"bit_generator": "MT19937", "state": {"key": self.key, "pos": int(self.pos[0])}}
        out = draw(bits)
        state = bits.state["state"]
        self.key[:], self.pos[0] = state["key"], state["pos"]
        return out

    def position(self) -> tuple[np.ndarray, int, int]:
        """``(key, left, next)`` as ``at::mt19937`` holds them: ``key`` the 624 state words,
        ``next`` the index of the next word to temper, ``left`` how many calls until the
        block is twisted again (1: the next call twists)."""
        pos = int(self.pos[0])
        if pos < N:
            return self.key.copy(), N + 1 - pos, pos
        # A used-up block (and a fresh seed) both wait for a twist; torch tells them apart
        # only by ``next``: 624 once drawn to the end, what seeding or set_state left.
        return self.key.copy(), 1, N if self._idle_next is None else self._idle_next

    def set_position(self, key: np.ndarray, left: int, next: int) -> None:
        """Inverse of :meth:`position`.  ``left == 1`` means the next call twists; otherwise
        the next word is ``key[next]`` (``left + next == 625`` in every state torch makes)."""
        self.key[:] = np.asarray(key, np.uint32)
        self.pos[0] = N if left == 1 else next
        self._idle_next = next if left == 1 else None
