"""``exp``, ``tanh`` and ``sigmoid`` without libm: numba functions a loop vectorises.

numba compiles ``np.exp``/``np.tanh`` to calls of the C library's scalar ``exp``/``tanh``, so
a loop over them runs one element at a time (and numpy's own float32 ``exp``/``tanh`` cost
4-8 ns per element on this project's machine).  The functions here are only ``+ - * /``,
fused multiply-adds, comparisons and selects -- the SLEEF/XLA construction -- with no branch,
so LLVM runs the caller's loop 8 float32 (4 float64) lanes at a time on AVX2::

    exp(x)     = 2**n * p(r),   n = round(x / ln 2),  r = x - n ln2_hi - n ln2_lo  (Cody-Waite)
                 p: Cephes' minimax polynomial (float32), Taylor to r**13 (float64);
                 times 2**n by an integer add of n to p's exponent field; a subnormal
                 result is the integer nearest p * 2**(n + 149) taken as bits (float32)
    tanh(x)    = x + x z P(z) (z = x*x) for |x| < 0.625 (relative accuracy near 0; float64:
                 Cephes' rational P/Q), else sign(x) (1 - 2 / (exp(2|x|) + 1))
    sigmoid(x) = 1 / (1 + e) for x >= 0, e / (1 + e) below,  e = exp(-|x|)  (never overflows,
                 relative accuracy for very negative x)

NaN comes out as NaN, ``+-inf`` as the limits, ``-0`` stays ``-0`` (``tanh``), overflow gives
``inf`` and underflow ``0`` or the right subnormal (as numpy's: ``sigmoid(-95)`` is
5.5e-42, where PyTorch's ``1 / (1 + exp(95))`` gives 0).

Saturation costs nothing: no multiply, divide or fma sees a subnormal operand and no
operation rounds to a subnormal (``tests/test_vmath.py`` traces the formulas), because on
Intel each such vector instruction is a microcode assist of ~100 cycles -- an LSTM driven
into saturation had its sigmoids run 11x slower (16k float32 sigmoid(95): 114 us, not 10).
Where a result is 1, +-1, ``x`` itself or a subnormal, it is selected or built from bits
instead of computed; every float32 input gives the same bits as the plain formulas did.

No fast-math flag is set: the
multiply-adds that should be fused are explicit ``llvm.fma`` calls (one ``vfmadd``), so the
results do not depend on the caller's flags.  Errors: :data:`MAX_ULP`.

How: each function is a numba ``@intrinsic`` whose code generator writes the LLVM IR at the
call site, from the formulas below run on :class:`_Ir` values (operators that emit
instructions).  A numba-level ``inline="always"`` function would do the same at a compile
cost many times higher (and with internal warnings); a plain ``@njit`` callee is too big for
LLVM to inline into a loop (float64 ``tanh``), so the loop would stay scalar.

Use from numba code as ``vmath.exp(x)`` on a float32 or float64 scalar (float32 stays
float32); from Python, ``vmath.exp(array)`` runs a compiled loop.  This module imports no
engine, and where numba is missing it still imports: the Python functions then compute
numpy's formulas.  numba's on-disk cache (``cache=True``) keys a kernel on its own file only:
after editing this module, a cached caller elsewhere (``common/cells_jit.py``) keeps the old
code until its ``__pycache__`` entries are removed.
"""
from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Callable

import numpy as np

from .fastpath import numba_module

__all__ = ["exp", "tanh", "sigmoid", "MAX_ULP", "available"]

MAX_ULP = {("exp", "float32"): 1.01, ("exp", "float64"): 1.0, ("tanh", "float32"): 1.31,
           ("tanh", "float64"): 1.35, ("sigmoid", "float32"): 2.3, ("sigmoid", "float64"): 2.3}
"""The largest errors measured (``tests/test_vmath.py``, which holds them), in units in the
last place of the true value rounded to the dtype; 0.5 would be correctly rounded.  For
comparison, numpy's own float64 ``exp`` is 0.51 ulp off, ``tanh`` 1.19, the overflow-safe
sigmoid formula 2.29 (its float32 versions are within 1-3 ulps of these)."""

_numba = numba_module()
available = _numba is not None
"""Is numba there (else the Python functions below compute numpy's formulas)?"""

# --- the constants, per dtype -----------------------------------------------------------------
# exp: log2(e); -ln 2 split so n * ln2_hi is exact for every n in range; the clamp (beyond it
# the result is inf or 0 anyway, and n/2 stays a normal exponent); the round-to-nearest
# shifter 1.5 * 2**mantissa_bits; the polynomial, highest power first.  tanh: the switch
# point and the small-|x| polynomial (float32: Cephes' tanhf) or rational (float64: Cephes'
# tanh, Q monic).
_F32 = SimpleNamespace(
    log2e=1.44269504088896341, nln2hi=-0.693359375, nln2lo=2.12194440e-4,
    lo=-104.0, hi=89.0, shift=12582912.0, nmin=-125.0, sub=149,
    inf_at=float.fromhex("0x1.62e43p+6"), one_at=2.0 ** -26,
    exp_p=(1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2,
           1.6666665459e-1, 5.0000001201e-1),
    small=0.625, tiny=2.0 ** -12, one=16.0, far_below=-32.0,
    tanh_p=(-5.70498872745e-3, 2.06390887954e-2, -5.37397155531e-2, 1.33314422036e-1,
            -3.33332819422e-1), tanh_q=None)
_F64 = SimpleNamespace(
    log2e=1.4426950408889634, nln2hi=-6.93147180369123816490e-01,
    nln2lo=-1.90821492927058770002e-10, lo=-746.0, hi=710.0, shift=6755399441055744.0,
    nmin=-1021.0, sub=1074, inf_at=float.fromhex("0x1.62e42fefa39f0p+9"),
    one_at=2.0 ** -55,
    exp_p=tuple(1.0 / float(np.prod(np.arange(1, k + 1, dtype=np.float64)))
                for k in range(13, 1, -1)),                   # 1/13!, ..., 1/2!
    small=0.625, tiny=2.0 ** -27, one=32.0, far_below=-64.0,
    tanh_p=(-9.64399179425052238628e-1, -9.92877231001918586564e1, -1.61468768441708447952e3),
    tanh_q=(1.0, 1.12811678491632931402e2, 2.23548839060100448583e3, 4.84406305325125486048e3))


# --- the formulas (on values with + - * /, comparisons, and the helpers of their kind) ------------

def _horner(x, coefs, fma):
    """``((c0 x + c1) x + c2) ...`` with fused steps (``c0 == 1``: a monic polynomial)."""
    p = x + coefs[1] if coefs[0] == 1.0 else fma(coefs[0], x, coefs[1])
    for c in coefs[2:]:
        p = fma(p, x, c)
    return p


def _exp(x, k, m, bounded: bool = False):
    """``e**x``; ``k``: the dtype's constants, ``m``: ``fma``, ``select``, ``scale``,
    ``from_bits``.  ``bounded``: the caller's ``x`` is a number in ``[0, 2 * k.one]`` (no
    clamps, no NaN, nothing under- or overflows: :func:`_tanh`'s)."""
    xc = x
    if not bounded:
        xc = m.select(x < k.hi, x, k.hi)
        xc = m.select(xc > k.lo, xc, k.lo)            # NaN -> lo; put back at the end
        xc = m.select(m.select(x >= 0.0, x, -x) < k.one_at, 0.0, xc)   # e**x is 1: no r * r
    n = m.fma(xc, k.log2e, k.shift) - k.shift         # round(x / ln 2), ties to even
    r = m.fma(n, k.nln2lo, m.fma(n, k.nln2hi, xc))
    p = m.fma(r * r, _horner(r, k.exp_p, m.fma), r) + 1.0
    big = m.scale(p, n)                               # p * 2**n (right while it is normal)
    if bounded:
        return big
    # a result under twice the smallest normal float: its bits are its value over the
    # smallest subnormal, p * 2**(n + sub) rounded to an integer -- the one rounding a
    # product would make, without a multiply whose result is subnormal (a microcode assist
    # on Intel, ~100 cycles a vector: 104 us for 16k float32 exp(-95) instead of 9)
    below = m.from_bits(m.scale(big, k.sub))
    return m.select(x < k.inf_at, m.select(n < k.nmin, below, big), x + math.inf)   # NaN: x


def _tanh(x, k, m):
    a = m.select(x >= 0.0, x, -x)
    tiny = a < k.tiny                 # tanh(x) rounds to x: x**3 / 3 is under half its ulp;
    y = m.select(tiny, 0.0, x)        # the formulas run on 0 there, so no z = x * x, x * z
    a = m.select(tiny, 0.0, a)        # or x itself is a subnormal operand (a microcode assist)
    z = y * y
    a = m.select(a < k.one, a, k.one)  # from here on tanh is +-1; so 2 / e stays normal
    e = _exp(a + a, k, m, bounded=True) + 1.0
    small = a < k.small
    if k.tanh_q is None:                              # float32: a polynomial
        d = 2.0 / e
        near0 = m.fma(z * _horner(z, k.tanh_p, m.fma), y, y)
    else:                                             # float64: one division serves both sides
        d = m.select(small, _horner(z, k.tanh_p, m.fma), 2.0) / \
            m.select(small, _horner(z, k.tanh_q, m.fma), e)
        near0 = m.fma(y * z, d, y)
    big = 1.0 - d
    big = m.select(y >= 0.0, big, -big)
    return m.select(tiny, x, m.select(small, near0, m.select(x == x, big, x)))   # -0 stays -0


def _sigmoid(x, k, m):
    e = _exp(m.select(x >= 0.0, -x, x), k, m)
    # below far_below, 1 + e is 1 and the result e itself: selected, not divided (a subnormal
    # dividend costs a microcode assist, ~10x the whole sigmoid; the divisor is harmless)
    inside = x >= k.far_below
    q = m.select(inside, m.select(x >= 0.0, 1.0, e), 1.0) / (e + 1.0)
    return m.select(inside, q, e)


_FORMULAS: dict[str, Callable] = {"exp": _exp, "tanh": _tanh, "sigmoid": _sigmoid}


# --- the Python functions ---------------------------------------------------------------------

def exp(x):
    """``e**x`` elementwise (a compiled loop when numba is there, else ``np.exp``); in numba
    code, on a float32 or float64 scalar, the vectorisable formula."""
    return _apply("exp", x)


def tanh(x):
    """``tanh(x)`` elementwise (see :func:`exp`)."""
    return _apply("tanh", x)


def sigmoid(x):
    """``1 / (1 + exp(-x))`` elementwise, overflow-safe (see :func:`exp`)."""
    return _apply("sigmoid", x)


def _numpy_sigmoid(x):
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1, e) / (1 + e)


_NUMPY = {"exp": np.exp, "tanh": np.tanh, "sigmoid": _numpy_sigmoid}


def _apply(name: str, x):
    """``name`` over ``x`` (float32 stays float32, everything else is computed in float64)."""
    x = np.asarray(x)
    x = x if x.dtype in (np.float32, np.float64) else x.astype(np.float64)
    if not available:
        return _NUMPY[name](x)
    out = np.empty_like(x, order="C")
    _LOOPS[name](np.ascontiguousarray(x).reshape(-1), out.reshape(-1))
    return out if out.ndim else out[()]


if available:
    from llvmlite import ir
    from numba import njit, types
    from numba.extending import intrinsic, overload

    class _Ir:
        """An LLVM float value whose operators emit instructions (Python floats become
        constants of its type): the formulas above, run once per call site at compile time."""
        __slots__ = ("b", "v")

        def __init__(self, builder, value):
            self.b, self.v = builder, value

        def _of(self, other):
            return other.v if isinstance(other, _Ir) else ir.Constant(self.v.type, float(other))

        def _op(self, name, a, b):
            return _Ir(self.b, getattr(self.b, name)(a, b))

        def __add__(self, o): return self._op("fadd", self.v, self._of(o))
        def __radd__(self, o): return self._op("fadd", self._of(o), self.v)
        def __sub__(self, o): return self._op("fsub", self.v, self._of(o))
        def __rsub__(self, o): return self._op("fsub", self._of(o), self.v)
        def __mul__(self, o): return self._op("fmul", self.v, self._of(o))
        def __rmul__(self, o): return self._op("fmul", self._of(o), self.v)
        def __truediv__(self, o): return self._op("fdiv", self.v, self._of(o))
        def __rtruediv__(self, o): return self._op("fdiv", self._of(o), self.v)
        def __neg__(self): return _Ir(self.b, self.b.fneg(self.v))

        def _cmp(self, op, o):          # ordered: false when either side is NaN, as Python's
            return _Ir(self.b, self.b.fcmp_ordered(op, self.v, self._of(o)))

        def __lt__(self, o): return self._cmp("<", o)
        def __gt__(self, o): return self._cmp(">", o)
        def __ge__(self, o): return self._cmp(">=", o)
        def __eq__(self, o): return self._cmp("==", o)                  # type: ignore[override]
        def __ne__(self, o): return _Ir(self.b, self.b.fcmp_unordered("!=", self.v, self._of(o)))  # type: ignore[override]

    def _ops(builder, ty) -> SimpleNamespace:
        """``fma``, ``select``, ``scale`` and ``from_bits`` emitting into ``builder`` for the
        float type ``ty``."""
        const = lambda v: v.v if isinstance(v, _Ir) else ir.Constant(ty, float(v))  # noqa: E731
        fma_fn = builder.module.declare_intrinsic("llvm.fma", [ty], ir.FunctionType(ty, [ty] * 3))
        rint_fn = builder.module.declare_intrinsic("llvm.rint", [ty], ir.FunctionType(ty, [ty]))
        bits, mant = (32, 23) if isinstance(ty, ir.FloatType) else (64, 52)
        itype = ir.IntType(bits)

        def scale(x, n):
            """``x * 2.0**n`` for an integer-valued ``n`` (an int, or a float value), by an
            integer add of ``n`` to ``x``'s exponent field: exact while both are normal
            floats, other bits otherwise (the add wraps; no float operation, no assist)."""
            n = ir.Constant(itype, n) if isinstance(n, int) else builder.fptosi(n.v, itype)
            shifted = builder.shl(n, ir.Constant(itype, mant))
            return _Ir(builder, builder.bitcast(builder.add(builder.bitcast(x.v, itype), shifted), ty))

        def from_bits(q):
            """The float whose bit pattern is the integer nearest ``q`` (ties to even; ``0 <= q
            < 2**(mant + 1)``: a subnormal or the smallest normals)."""
            return _Ir(builder, builder.bitcast(builder.fptosi(builder.call(rint_fn, [q.v]), itype), ty))

        return SimpleNamespace(
            fma=lambda a, b, c: _Ir(builder, builder.call(fma_fn, [const(a), const(b), const(c)])),
            select=lambda cond, a, b: _Ir(builder, builder.select(cond.v, const(a), const(b))),
            scale=scale, from_bits=from_bits)

    def _intrinsic(name: str):
        formula = _FORMULAS[name]

        def typer(typingctx, x):
            if x not in (types.float32, types.float64):
                return None

            def codegen(context, builder, signature, args):
                ty = args[0].type
                k = _F32 if isinstance(ty, ir.FloatType) else _F64
                return formula(_Ir(builder, args[0]), k, _ops(builder, ty)).v
            return x(x), codegen
        typer.__name__ = typer.__qualname__ = f"vmath_{name}"
        return intrinsic(typer)

    _INTRINSICS = {name: _intrinsic(name) for name in _FORMULAS}

    def _generic(python_function, kernel) -> None:
        """Let numba code call ``python_function`` on a float32 or float64 scalar: the
        intrinsic, through a one-line wrapper numba inlines (no call left for LLVM to judge)."""
        @overload(python_function, inline="always")
        def _typed(x):
            if x in (types.float32, types.float64):
                return lambda x: kernel(x)
            return None

    for _name, _fn in (("exp", exp), ("tanh", tanh), ("sigmoid", sigmoid)):
        _generic(_fn, _INTRINSICS[_name])

    @njit(cache=True, nogil=True)
    def _exp_loop(x, out):      # pragma: no cover (numba)
        for k in range(x.size):
            out[k] = exp(x[k])

    @njit(cache=True, nogil=True)
    def _tanh_loop(x, out):     # pragma: no cover (numba)
        for k in range(x.size):
            out[k] = tanh(x[k])

    @njit(cache=True, nogil=True)
    def _sigmoid_loop(x, out):  # pragma: no cover (numba)
        for k in range(x.size):
            out[k] = sigmoid(x[k])

    _LOOPS = {"exp": _exp_loop, "tanh": _tanh_loop, "sigmoid": _sigmoid_loop}
