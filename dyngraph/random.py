"""Random numbers: ``torch.Generator``, ``manual_seed`` and the sampling functions, bit for bit.

A ``Generator`` is PyTorch's CPU generator: a Mersenne Twister (``common.mt19937``) seeded
like PyTorch's, plus the cached second value of a Box-Muller pair.  Every draw runs the
kernel PyTorch 2.13 runs on an x86 CPU (``random_kernels``): it reads the same words of
the stream in the same order and does the same float arithmetic, so a seeded program
prints the numbers it prints under PyTorch -- initialisation, dropout and shuffling
included::

    >>> g = manual_seed(0)
    >>> rand(4).tolist() == [0.49625658988952637, 0.7682217955589294,
    ...                      0.08847743272781372, 0.13203048706054688]   # PyTorch's
    True
    >>> s = get_rng_state(); a = randn(20); set_rng_state(s)
    >>> bool((randn(20) == a).all()), tuple(s.shape)  # PyTorch's state layout, byte for byte
    (True, (5056,))

Two exceptions, both PyTorch's own build dependencies rather than the algorithm:
``bernoulli_(p)`` (dropout) on an Intel CPU goes through MKL's generator in PyTorch's MKL
builds (AMD and other CPUs run the kernel reproduced here), and float64 normals,
exponentials, log-normals and Cauchy values take ``log``/``sin``/``cos``/``tan`` from
numpy (the compiled normals from libm itself), which gave glibc's bits (PyTorch's) on the
AVX2 machine the tests were recorded on;
where numpy uses its own SIMD versions (AVX-512) a float64 value may move by an ulp, a
float32 one, rounded from it, practically never.
"""
from __future__ import annotations

import builtins
import math
import os

import numpy as np

from common.mt19937 import MT19937, N

from . import random_kernels as K
from .creation import _dtype, _leaf, _shape
from .device import CPU, check_device
from .dtypes import to_dtype
from .tensor import Tensor, check_inplace, make

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed",
           "get_rng_state", "set_rng_state", "rand", "randn", "randint", "randperm", "normal",
           "bernoulli", "poisson", "multinomial", "rand_like", "randn_like", "randint_like",
           "normal_", "uniform_", "bernoulli_", "random_", "exponential_", "geometric_",
           "log_normal_", "cauchy_"]

DEFAULT_SEED = 67280421310721
"""What a new ``torch.Generator()`` starts from (``default_rng_seed_val``)."""

_STATE = np.dtype([("seed", "<u8"), ("left", "<i4"), ("seeded", "<i4"), ("next", "<u8"),
                   ("state", "<u8", (N,)), ("normal_x", "<f8"), ("normal_y", "<f8"),
                   ("normal_rho", "<f8"), ("normal_is_valid", "<i4"), ("pad", "V4"),
                   ("next_float_normal", "<f4"), ("next_float_normal_is_valid", "u1"),
                   ("pad2", "V3")])
"""``CPUGeneratorImplState``: the legacy THGenerator fields, then the float normal cache;
``get_rng_state()`` is these 5056 bytes (x86-64 layout, padding zeroed)."""


class Generator:
    """An independent random stream (``torch.Generator()``), PyTorch's to the bit.

    >>> g = Generator()
    >>> g.initial_seed()                 # a fresh Generator starts at PyTorch's fixed seed
    67280421310721
    >>> Generator().manual_seed(42).initial_seed()
    42
    """

    def __init__(self, device="cpu"):
        check_device(device)
        self.engine, self._seed = MT19937(DEFAULT_SEED), DEFAULT_SEED
        self.next_normal = self.next_float_normal = None
        # the raw draws the kernels read: ``words(n)``, the next n 32-bit outputs
        # (``random()``), and ``words64(n)``, n 64-bit ones (``random64()``: two words,
        # the first on top) -- the engine's own methods, bound once; compiled kernels
        # draw from ``engine.arrays()`` in place
        self.words, self.words64 = self.engine.words, self.engine.words64

    @property
    def device(self):
        return CPU

    def manual_seed(self, seed) -> "Generator":
        seed = builtins.int(seed)
        if not -(1 << 63) <= seed < 1 << 64:
            raise ValueError("Overflow when unpacking long long")
        self._seed = seed & 0xFFFF_FFFF_FFFF_FFFF  # negative seeds wrap, as PyTorch's
        self.engine.seed(self._seed)
        self.next_normal = self.next_float_normal = None
        return self

    def seed(self) -> int:
        """Re-seed from OS entropy (64 bits); returns the new seed."""
        self.manual_seed(builtins.int.from_bytes(os.urandom(8), "little"))
        return self._seed

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self) -> Tensor:
        """The state as PyTorch's uint8 tensor (``set_state`` it back, here or in PyTorch)."""
        key, left, nxt = self.engine.position()
        s = np.zeros((), _STATE)
        s["seed"], s["left"], s["seeded"], s["next"], s["state"] = self._seed, left, 1, nxt, key
        if self.next_normal is not None:
            s["normal_y"], s["normal_is_valid"] = self.next_normal, 1
        if self.next_float_normal is not None:
            s["next_float_normal"], s["next_float_normal_is_valid"] = self.next_float_normal, 1
        return make(np.frombuffer(s.tobytes(), np.uint8).copy())

    def set_state(self, new_state: Tensor) -> "Generator":
        if not isinstance(new_state, Tensor) or new_state._data.dtype != np.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        data = np.ascontiguousarray(new_state._data).reshape(-1)
        if data.size != _STATE.itemsize:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {_STATE.itemsize} but "
                               f"found the input RNG state size to be {data.size}")
        s = data.view(_STATE)[0]
        left, nxt = builtins.int(s["left"]), builtins.int(s["next"]) & 0xFFFF_FFFF
        if not (s["seeded"] and 0 < left <= N and nxt <= N):
            raise RuntimeError("Invalid mt19937 state")
        self.engine.set_position(s["state"].astype(np.uint32), left, nxt)
        self._seed = builtins.int(s["seed"])
        self.next_normal = builtins.float(s["normal_y"]) if s["normal_is_valid"] else None
        self.next_float_normal = (builtins.float(s["next_float_normal"])
                                  if s["next_float_normal_is_valid"] else None)
        return self

    def clone_state(self) -> "Generator":
        """A new Generator in this one's state (it then draws the same values, on its own)."""
        return Generator().set_state(self.get_state())


default_generator = Generator()
default_generator.seed()


def _gen(generator: Generator | None) -> Generator:
    return default_generator if generator is None else generator


def manual_seed(seed) -> Generator:
    """Seed the default generator (returns it, as PyTorch does)."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    return default_generator.get_state()


def set_rng_state(new_state: Tensor) -> None:
    default_generator.set_state(new_state)


def draw_seed(generator: Generator | None = None) -> int:
    """A seed as PyTorch's data utilities draw one from a generator (the default one if
    None): ``torch.empty((), dtype=torch.int64).random_(generator=...).item()``."""
    return builtins.int(K.random_full(_gen(generator), 1, np.dtype(np.int64))[0])


# --- sampling new tensors ---------------------------------------------------------------------


def _num(x) -> str:
    """A number as PyTorch's C++ messages print it (``ostream``: 6 significant digits)."""
    return f"{x:g}"


def _float_dtype(dt: np.dtype, what: str) -> np.dtype:
    if dt.kind != "f":
        raise NotImplementedError(f'"{what}" not implemented for '
                                  f"'{to_dtype(dt).scalar_name}'")
    return dt


def _new(values: np.ndarray, shape: tuple, requires_grad: bool) -> Tensor:
    return _leaf(values.reshape(shape), requires_grad)


def rand(*size, generator=None, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """Uniform on [0, 1)."""
    check_device(device)
    dt, shape = _float_dtype(_dtype(dtype), "check_uniform_bounds"), _shape(size)
    return _new(K.uniform(_gen(generator), math.prod(shape), dt), shape, requires_grad)


def randn(*size, generator=None, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """Standard normal."""
    check_device(device)
    dt, shape = _float_dtype(_dtype(dtype), "normal_kernel_cpu"), _shape(size)
    return _new(K.normal(_gen(generator), math.prod(shape), dt), shape, requires_grad)


def _check_from_to(low: int, high: int) -> None:
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= "
                           f"to={high}")


def randint(low, high=None, size=None, *, generator=None, dtype=None, device=None,
            requires_grad: bool = False) -> Tensor:
    """Integers uniform on [low, high): ``randint(high, size)`` or ``randint(low, high, size)``."""
    check_device(device)
    if size is None:
        if high is None or not isinstance(high, (tuple, list)):
            raise TypeError(f"randint() received an invalid combination of arguments - got "
                            f"({', '.join(type(a).__name__ for a in (low, high) if a is not None)})"
                            f", but expected one of:\n * (int high, tuple of ints size)\n"
                            f" * (int low, int high, tuple of ints size)")
        low, high, size = 0, low, high
    low, high, shape = builtins.int(low), builtins.int(high), _shape((size,))
    _check_from_to(low, high)
    data = K.random_from_to(_gen(generator), math.prod(shape), _dtype(dtype, np.dtype(np.int64)),
                            low, high)
    return _new(data, shape, requires_grad)


def randperm(n: int, *, generator=None, dtype=None, device=None,
             requires_grad: bool = False) -> Tensor:
    """A random permutation of ``0..n-1`` (int64)."""
    check_device(device)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    order = K.randperm(_gen(generator), builtins.int(n))
    return _leaf(order.astype(_dtype(dtype, np.dtype(np.int64))), requires_grad)


def normal(mean=0.0, std=1.0, size=None, *, generator=None, dtype=None, device=None,
           requires_grad: bool = False) -> Tensor:
    """Normal draws: ``mean``/``std`` numbers (with ``size``) or tensors (broadcast together).

    With a tensor, PyTorch draws standard normals of the result's shape, then scales
    and shifts them in the result's dtype (``out * std + mean``, two roundings)."""
    check_device(device)
    m_t, s_t = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not (m_t or s_t):
        if size is None:
            raise TypeError("normal() received an invalid combination of arguments: give "
                            "tensors for mean/std, or numbers and a size")
        if std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {_num(std)}")
        shape = _shape((size,))
        dt = _float_dtype(_dtype(dtype), "normal_kernel_cpu")
        return _new(K.normal(_gen(generator), math.prod(shape), dt, mean, std), shape,
                    requires_grad)
    if s_t and np.any(std._data < 0):
        raise RuntimeError("normal expects all elements of std >= 0.0")
    if not s_t and std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_num(std)}")
    m, s = getattr(mean, "_data", mean), getattr(std, "_data", std)
    dt = (mean if m_t else std)._data.dtype
    shape = np.broadcast_shapes(np.shape(m), np.shape(s))
    n = math.prod(shape)
    if s_t:
        out = K.normal(_gen(generator), n, dt).reshape(shape) * s.astype(dt, copy=False)
    else:
        out = K.normal(_gen(generator), n, dt, 0.0, std).reshape(shape)
    return _leaf(out + np.asarray(m, dt), requires_grad)


def bernoulli(input: Tensor, p=None, *, generator=None) -> Tensor:
    """1 with probability ``input`` (or ``p``), else 0; same shape and dtype as ``input``."""
    if p is not None:
        return bernoulli_(make(np.empty_like(input._data)), p, generator=generator)
    prob = input._data
    if np.any((prob < 0) | (prob > 1)):
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
    return make(K.bernoulli_tensor(_gen(generator), prob).astype(prob.dtype))


def poisson(input: Tensor, generator=None) -> Tensor:
    """Poisson draws with the rates in ``input``; same shape and dtype (no gradient)."""
    rates = input._data
    if np.any(rates < 0):
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    return make(K.poisson(_gen(generator), rates).astype(rates.dtype))


def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *,
                generator=None) -> Tensor:
    """Category indices drawn with the (unnormalised) weights in the last dim of ``input``."""
    w = input._data
    if w.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not replacement and num_samples > w.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    if np.any(w < 0) or not np.all(np.isfinite(w)):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    rows = np.atleast_2d(w)
    if np.any(rows.sum(axis=-1) <= 0):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    out = K.multinomial(_gen(generator), rows, builtins.int(num_samples), replacement)
    return make(out if w.ndim == 2 else out[0])


def rand_like(input: Tensor, *, dtype=None, generator=None, device=None,
              requires_grad: bool = False) -> Tensor:
    return rand(input.shape, generator=generator, dtype=_dtype(dtype, input._data.dtype),
                device=device, requires_grad=requires_grad)


def randn_like(input: Tensor, *, dtype=None, generator=None, device=None,
               requires_grad: bool = False) -> Tensor:
    return randn(input.shape, generator=generator, dtype=_dtype(dtype, input._data.dtype),
                 device=device, requires_grad=requires_grad)


def randint_like(input: Tensor, low=0, high=None, *, dtype=None, generator=None, layout=None,
                 device=None, requires_grad: bool = False, memory_format=None) -> Tensor:
    if high is None:
        low, high = 0, low
    return randint(low, high, input.shape, generator=generator, device=device,
                   dtype=_dtype(dtype, input._data.dtype), requires_grad=requires_grad)


# --- in-place draws (parameter initialisation) -----------------------------------------------


def _fill_with(t: Tensor, values: np.ndarray) -> Tensor:
    check_inplace(t)
    t._data[...] = values.reshape(t._data.shape)
    t._vc[0] += 1
    return t


def normal_(input: Tensor, mean: float = 0.0, std: float = 1.0, *, generator=None) -> Tensor:
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_num(std)}")
    data = input._data
    dt = _float_dtype(data.dtype, "normal_kernel_cpu")
    return _fill_with(input, K.normal(_gen(generator), data.size, dt, mean, std,
                                      contiguous=data.flags.c_contiguous))


def uniform_(input: Tensor, a: float = 0.0, b: float = 1.0, *, generator=None) -> Tensor:
    dt = _float_dtype(input._data.dtype, "check_uniform_bounds")
    if a > b:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                           f"from={_num(a)} > to={_num(b)}")
    return _fill_with(input, K.uniform(_gen(generator), input._data.size, dt, a, b))


def bernoulli_(input: Tensor, p=0.5, *, generator=None) -> Tensor:
    """1 with probability ``p`` (a number, or a tensor broadcast to ``input``), else 0."""
    if isinstance(p, Tensor):
        prob = np.broadcast_to(p._data, input._data.shape)
        if np.any((prob < 0) | (prob > 1)):
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
        return _fill_with(input, K.bernoulli_tensor(_gen(generator), prob))
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_num(p)}")
    return _fill_with(input, K.bernoulli_scalar(_gen(generator), input._data.size, p))


def _continuous(input: Tensor) -> None:
    if input._data.dtype.kind != "f":
        raise RuntimeError(f"Exponential distribution is a continuous probability distribution. "
                           f"dtype must be a floating point but you specified "
                           f"{to_dtype(input._data.dtype).scalar_name}")


def exponential_(input: Tensor, lambd: float = 1.0, *, generator=None) -> Tensor:
    _continuous(input)
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_num(lambd)}")
    return _fill_with(input, K.exponential(_gen(generator), input._data.size, lambd))


def geometric_(input: Tensor, p: float, *, generator=None) -> Tensor:
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_num(p)}")
    return _fill_with(input, K.geometric(_gen(generator), input._data.size, p))


def log_normal_(input: Tensor, mean: float = 1.0, std: float = 2.0, *, generator=None) -> Tensor:
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_num(std)}")
    return _fill_with(input, K.log_normal(_gen(generator), input._data.size, mean, std))


def cauchy_(input: Tensor, median: float = 0.0, sigma: float = 1.0, *, generator=None) -> Tensor:
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_num(sigma)}")
    return _fill_with(input, K.cauchy(_gen(generator), input._data.size, median, sigma))


def random_(input: Tensor, from_=None, to=None, *, generator=None) -> Tensor:
    """``random_()``: the dtype's whole range; ``random_(to)``: [0, to); ``random_(from, to)``."""
    n, dt = input._data.size, input._data.dtype
    if from_ is None and to is None:
        return _fill_with(input, K.random_full(_gen(generator), n, dt))
    low, high = (0, from_) if to is None else (from_, to)
    _check_from_to(builtins.int(low), builtins.int(high))
    return _fill_with(input, K.random_from_to(_gen(generator), n, dt, builtins.int(low),
                                              builtins.int(high)))


METHODS = ["normal_", "uniform_", "bernoulli_", "exponential_", "geometric_", "log_normal_",
           "cauchy_", "random_", "bernoulli", "multinomial"]
