"""Random numbers: ``torch.Generator`` over numpy's, ``manual_seed`` and the sampling functions.

Draws happen in Python on a ``numpy.random.Generator`` (PCG64), so no registry
op is involved: an eager draw is just a new leaf tensor.  The bits differ from
PyTorch's (its generator is a Mersenne Twister), but the distributions, shapes,
dtypes and seeding behaviour are PyTorch's: the same seed gives the same
draws, a ``Generator`` object is a stream of its own, and ``manual_seed``
returns the default generator.

For code that needs raw numpy draws (dropout masks, shuffling)::

    >>> manual_seed(0) is default_generator
    True
    >>> numpy_generator().random(2).shape     # the default stream, as a numpy Generator
    (2,)
"""
from __future__ import annotations

import builtins
import json

import numpy as np

from common import REGISTRY

from .creation import _dtype, _leaf, _shape
from .device import CPU, check_device
from .dtypes import to_dtype
from .tensor import Tensor, check_inplace, make

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed",
           "get_rng_state", "set_rng_state", "numpy_generator", "rand", "randn", "randint",
           "randperm", "normal", "bernoulli", "poisson", "multinomial", "rand_like", "randn_like",
           "randint_like", "normal_", "uniform_", "bernoulli_", "random_", "exponential_"]


class Generator:
    """An independent random stream (``torch.Generator()``), seeded from the OS until told so.

    >>> g = Generator().manual_seed(42)
    >>> g.initial_seed()
    42
    """

    def __init__(self, device="cpu"):
        check_device(device)
        self.seed()

    @property
    def device(self):
        return CPU

    def manual_seed(self, seed: int) -> "Generator":
        seed = builtins.int(seed)
        self._seed = seed & 0xFFFF_FFFF_FFFF_FFFF  # negative seeds wrap, as PyTorch's
        self.np = np.random.default_rng(self._seed)
        return self

    def seed(self) -> int:
        """Re-seed from OS entropy; returns the new seed."""
        self.manual_seed(builtins.int(np.random.SeedSequence().entropy) & 0xFFFF_FFFF_FFFF_FFFF)
        return self._seed

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self) -> Tensor:
        """The stream's state as a uint8 tensor (save it, ``set_state`` it back)."""
        text = json.dumps({"seed": self._seed, "state": self.np.bit_generator.state})
        return make(np.frombuffer(text.encode(), dtype=np.uint8).copy())

    def set_state(self, new_state: Tensor) -> "Generator":
        data = json.loads(bytes(np.asarray(new_state._data, np.uint8)).decode())
        self.manual_seed(data["seed"])
        self.np.bit_generator.state = data["state"]
        return self


default_generator = Generator()


def numpy_generator(generator: Generator | None = None) -> np.random.Generator:
    """The numpy Generator to draw from: ``generator``'s, or the default one's."""
    return (generator or default_generator).np


def manual_seed(seed: int) -> Generator:
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


# --- sampling new tensors ---------------------------------------------------------------------


def _float_dtype(dtype, what: str) -> np.dtype:
    dt = _dtype(dtype)
    if dt.kind != "f":
        raise NotImplementedError(f'"{what}" not implemented for '
                                  f"'{to_dtype(dt).scalar_name}'")
    return dt


def rand(*size, generator=None, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """Uniform on [0, 1)."""
    check_device(device)
    dt = _float_dtype(dtype, "check_uniform_bounds")
    return _leaf(numpy_generator(generator).random(_shape(size)).astype(dt), requires_grad)


def randn(*size, generator=None, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """Standard normal."""
    check_device(device)
    dt = _float_dtype(dtype, "normal_kernel_cpu")
    return _leaf(numpy_generator(generator).standard_normal(_shape(size)).astype(dt), requires_grad)


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
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= "
                           f"to={high}")
    data = numpy_generator(generator).integers(low, high, _shape((size,)))
    return _leaf(data.astype(_dtype(dtype, np.dtype(np.int64))), requires_grad)


def randperm(n: int, *, generator=None, dtype=None, device=None,
             requires_grad: bool = False) -> Tensor:
    """A random permutation of ``0..n-1`` (int64)."""
    check_device(device)
    order = numpy_generator(generator).permutation(n)
    return _leaf(order.astype(_dtype(dtype, np.dtype(np.int64))), requires_grad)


def normal(mean=0.0, std=1.0, size=None, *, generator=None, dtype=None, device=None,
           requires_grad: bool = False) -> Tensor:
    """Normal draws: ``mean``/``std`` numbers (with ``size``) or tensors (broadcast together)."""
    check_device(device)
    m, s = getattr(mean, "_data", mean), getattr(std, "_data", std)
    if size is None and not isinstance(mean, Tensor) and not isinstance(std, Tensor):
        raise TypeError("normal() received an invalid combination of arguments: give tensors for "
                        "mean/std, or numbers and a size")
    if np.any(np.asarray(s) < 0):
        raise RuntimeError(f"normal expects std >= 0.0, but found std {np.min(s)}")
    shape = _shape((size,)) if size is not None else np.broadcast_shapes(np.shape(m), np.shape(s))
    like = next((x._data.dtype for x in (mean, std) if isinstance(x, Tensor)), None)
    dt = _dtype(dtype, like if like is not None else _dtype(None))
    z = numpy_generator(generator).standard_normal(shape)
    return _leaf((m + s * z).astype(dt), requires_grad)


def bernoulli(input: Tensor, p=None, *, generator=None) -> Tensor:
    """1 with probability ``input`` (or ``p``), else 0; same shape and dtype as ``input``."""
    prob = input._data if p is None else np.full(input._data.shape, p)
    if np.any((prob < 0) | (prob > 1)):
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
    u = numpy_generator(generator).random(input._data.shape)
    return make((u < prob).astype(input._data.dtype))


def poisson(input: Tensor, generator=None) -> Tensor:
    """Poisson draws with the rates in ``input``; same shape and dtype (no gradient)."""
    rates = input._data
    return make(REGISTRY["RandomPoissonV2"].impl(rates, shape=(), dtype=rates.dtype,
                                                 rng=numpy_generator(generator)))


def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *,
                generator=None) -> Tensor:
    """Category indices drawn with the (unnormalised) weights in the last dim of ``input``."""
    w = np.asarray(input._data, dtype=np.float64)
    if w.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if np.any(w < 0) or not np.all(np.isfinite(w)):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if not replacement and num_samples > w.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    rng = numpy_generator(generator)
    rows = []
    for row in np.atleast_2d(w):
        total = row.sum()
        if total <= 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        if not replacement and np.count_nonzero(row) < num_samples:
            raise RuntimeError("invalid multinomial distribution (with replacement=False, not "
                               "enough non-negative category to sample)")
        rows.append(rng.choice(row.size, num_samples, replace=replacement, p=row / total))
    out = np.array(rows, dtype=np.int64)
    return make(out if w.ndim == 2 else out[0])


def _like(draw):
    def f(input: Tensor, *, dtype=None, generator=None, device=None,
          requires_grad: bool = False) -> Tensor:
        check_device(device)
        dt = _dtype(dtype, input._data.dtype)
        return _leaf(draw(numpy_generator(generator), input._data.shape).astype(dt), requires_grad)
    return f


rand_like = _like(lambda rng, shape: rng.random(shape))
randn_like = _like(lambda rng, shape: rng.standard_normal(shape))


def randint_like(input: Tensor, low=0, high=None, *, dtype=None, generator=None) -> Tensor:
    if high is None:
        low, high = 0, low
    data = numpy_generator(generator).integers(low, high, input._data.shape)
    return make(data.astype(_dtype(dtype, input._data.dtype)))


# --- in-place draws (parameter initialisation) -----------------------------------------------


def _fill_with(t: Tensor, values: np.ndarray) -> Tensor:
    check_inplace(t)
    t._data[...] = values
    t._vc[0] += 1
    return t


def normal_(input: Tensor, mean: float = 0.0, std: float = 1.0, *, generator=None) -> Tensor:
    z = numpy_generator(generator).standard_normal(input._data.shape)
    return _fill_with(input, mean + std * z)


def uniform_(input: Tensor, a: float = 0.0, b: float = 1.0, *, generator=None) -> Tensor:
    return _fill_with(input, numpy_generator(generator).uniform(a, b, input._data.shape))


def bernoulli_(input: Tensor, p: float = 0.5, *, generator=None) -> Tensor:
    return _fill_with(input, numpy_generator(generator).random(input._data.shape) < p)


def exponential_(input: Tensor, lambd: float = 1.0, *, generator=None) -> Tensor:
    return _fill_with(input, numpy_generator(generator).exponential(1.0 / lambd, input._data.shape))


def random_(input: Tensor, from_: int = 0, to: int | None = None, *, generator=None) -> Tensor:
    """Integers uniform on [from, to) (``random_(to)`` means [0, to))."""
    if to is None:
        from_, to = 0, from_
    return _fill_with(input, numpy_generator(generator).integers(from_, to, input._data.shape))


METHODS = ["normal_", "uniform_", "bernoulli_", "exponential_", "random_", "bernoulli",
           "multinomial"]
