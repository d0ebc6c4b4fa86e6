"""MT19937, the Mersenne Twister, as a stream of raw 32-bit words drawn in bulk.

PyTorch's CPU generator is this engine (``at::mt19937``): seeded with Matsumoto and
Nishimura's ``init_genrand`` of the seed's low 32 bits -- exactly what numpy's legacy
``RandomState(seed)`` does -- and read one tempered 32-bit word at a time, or two words
``(hi << 32) | lo`` for a 64-bit draw.  n words cost one call: a compiled kernel's
(:mod:`common.random_jit`) once loaded, else numpy's ``MT19937`` bit generator's
``random_raw(n)`` -- the same recurrence in C::

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

    Two engines run it: the compiled kernels (:mod:`common.fastpath`), in place on the arrays
    ``key`` (the 624 state words) and ``pos`` (the index of the next word to temper, 624:
    twist first -- numpy's layout), and numpy's ``MT19937`` bit generator, which holds its
    own copy.  The state lives in one of them at a time and moves (a copy, ~0.1 ms) only when
    the other one draws next: in practice once, when the kernels load."""

    __slots__ = ("key", "pos", "_bits", "_in_bits", "_idle_next")

    def __init__(self, seed: int = 5489):
        self.key = np.empty(N, np.uint32)
        self.pos = np.zeros(1, np.int64)     # an array: the kernels advance it in place
        self._bits = np.random.MT19937(0)
        self._in_bits = False                # does _bits hold the state (not key/pos)?
        self.seed(seed)

    def seed(self, seed: int) -> None:
        """``init_genrand(seed & 0xFFFFFFFF)``; the first draw then twists the block."""
        key = np.random.RandomState(seed & 0xFFFF_FFFF).get_state()[1]
        self.set_position(key, left=1, next=0)

    def words(self, n: int) -> np.ndarray:
        """The next ``n`` 32-bit outputs, as uint64 (so ``%`` and ``<<`` need no casts)."""
        fast = kernels(n)
        if fast is None:
            self._idle_next = None
            return self._numpy_bits().random_raw(n)
        out = np.empty(n, np.uint64)
        fast.mt_words(*self.arrays(), out)
        return out

    def words64(self, n: int) -> np.ndarray:
        """``n`` 64-bit draws, each two words ``(first << 32) | second`` (``random64()``)."""
        fast = kernels(2 * n)
        if fast is None:
            w = self.words(2 * n)
            out = w[0::2] << np.uint64(32)
            out |= w[1::2]
            return out
        out = np.empty(n, np.uint64)
        fast.mt_words64(*self.arrays(), out)
        return out

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """``(key, pos)`` for a compiled kernel that draws from the stream in place."""
        self._idle_next = None
        return self._state_arrays()

    def _state_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """``key`` and ``pos``, holding the state."""
        if self._in_bits:
            state = self._bits.state["state"]
            self.key[:], self.pos[0], self._in_bits = state["key"], state["pos"], False
        return self.key, self.pos

    def _numpy_bits(self) -> np.random.MT19937:
        """numpy's bit generator, holding the state."""
        if not self._in_bits:
            self._bits.state = {"bit_generator": "MT19937",
                                "state": {"key": self.key, "pos": int(self.pos[0])}}
            self._in_bits = True
        return self._bits

    def position(self) -> tuple[np.ndarray, int, int]:
        """``(key, left, next)`` as ``at::mt19937`` holds them: ``key`` the 624 state words,
        ``next`` the index of the next word to temper, ``left`` how many calls until the
        block is twisted again (1: the next call twists)."""
        key, pos = self._state_arrays()
        pos = int(pos[0])
        if pos < N:
            return key.copy(), N + 1 - pos, pos
        # A used-up block (and a fresh seed) both wait for a twist; torch tells them apart
        # only by ``next``: 624 once drawn to the end, what seeding or set_state left.
        return key.copy(), 1, N if self._idle_next is None else self._idle_next

    def set_position(self, key: np.ndarray, left: int, next: int) -> None:
        """Inverse of :meth:`position`.  ``left == 1`` means the next call twists; otherwise
        the next word is ``key[next]`` (``left + next == 625`` in every state torch makes)."""
        self.key[:] = np.asarray(key, np.uint32)
        self.pos[0] = N if left == 1 else next
        self._in_bits = False
        self._idle_next = next if left == 1 else None
