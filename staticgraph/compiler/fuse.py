"""Fused elementwise kernels: a chain of elementwise steps as one loop over memory.

numpy runs one op per call, each a pass over memory: on tensors larger than the caches a
chain of twenty ``+``/``*``/``-`` reads and writes every intermediate through memory, and
runs at a small fraction of the machine's copy bandwidth.  This pass finds such chains in a
lowered plan and replaces each by one step whose kernel is a numba loop computing, per
element, every op of the chain in registers -- reading the chain's inputs once and writing
only the values something outside the chain reads::

    r0 = f0(v0, v1)       # Mul 'mul'            the bench's pointwise row, fused:
    r1 = f1(r0, v0)       # AddV2 'add'
    ...                   (10 forward steps)     r0, r1, r2 = f0(v0, v1, v6, v14)
    r3 = f10(r3)          # Sum 'Sum'               # FusedElementwise (all 24 other steps)
    ...                   (14 gradient steps)    r0 = f1(r0)  # Sum 'Sum'
    return [r3[()], r0, r6]                      return [r0[()], r1, r2]

**Which chains.**  Steps whose op is elementwise with an exact per-element form -- its impl
a ufunc numba computes with numpy's bits (:data:`EXACT_UFUNCS`: IEEE add, subtract,
multiply, divide, negation, min/max, abs, square, sqrt), or a declared ``scalar`` form
(``AddN``, ``BroadcastLike``) -- over one float dtype, with a fully known shape of at least
:data:`MIN_ELEMENTS` elements; each input has that shape or is a scalar (rank 0).  So a fused
plan gives the unfused plan's values bit for bit, -0.0 included (the tests compare them on
NaN, Inf and signed-zero inputs); only *which* NaN a NaN result is (its sign and payload: not
an IEEE result) may differ.  Transcendental ops (``Exp``, ``Tanh``, ``Sigmoid``: an
``approx_scalar`` form on their ``defop``) join a chain only under
``PassConfig(fast_math=True)`` (the default), computed by :mod:`common.vmath` within a few
ulps of numpy; with ``fast_math=False`` they stay numpy's loops and a fused plan keeps the
unfused bits.

**Loop bodies.**  A ``while_loop``'s body and its gradient loop's body fuse too
(:func:`loop_kernel`), from a smaller size (:data:`LOOP_MIN_ELEMENTS`,
:data:`LOOP_MIN_STEPS`): run once per iteration, there the numpy calls' overhead is what a
fused step saves.  Their inputs are often column slices (an LSTM's ``Split`` gates): the
kernel reads each array as a 2-D grid of any row stride, in place (:func:`kernel_source`).

**What never moves.**  A chain is gathered in plan order and closed by any stateful or
structural step (variable reads and writes, loops, prints, random ops), so no member moves
past an effect.  The fused step runs at its last member's place -- or earlier, just before
the first step outside the chain that reads a member's result (its *deadline*); steps after
the deadline join only if they read nothing made at or after it, so the gradient of
``sum(f(x))`` joins ``f``'s chain across the ``Sum``.

**Memory.**  The loop reads each input once and writes only the results read outside the
chain.  An output array nothing references any more when the kernel runs again is written
again rather than allocated (a fresh large array costs page faults and zeroing: another
pass over memory), see :class:`FusedKernel`.

**When.**  Compiling a fused kernel costs numba ~0.2-1 s (plus ~0.3-1 s to import numba
once), a thousand times a plan's Python compile, so a plan is first compiled without
fusion; only once the plan has spent :data:`FUSE_AFTER_S` seconds running (a hot plan: as
in ski rental, its total cost then stays within about twice that of the best choice made
knowing the future) is it rewritten with its fused kernels.  Where numba is missing the plan
simply stays unfused.  ``PassConfig(fuse=False)`` switches fusion off.
"""
from __future__ import annotations

import functools
import importlib
import math
import os
import threading
from sys import getrefcount
from time import perf_counter
from typing import Callable, NamedTuple

import numpy as np

from common.fastpath import numba_module

from common.ops.reduce import _sum

from .emit import comment
from .plan import Plan, Step

__all__ = ["EXACT_UFUNCS", "MIN_ELEMENTS", "LOOP_MIN_ELEMENTS", "LOOP_MIN_STEPS", "FUSE_AFTER_S",
           "Chain", "find_chains", "fuse_plan", "FusedKernel", "available", "HotKernel",
           "loop_kernel", "HotLoop"]

EXACT_UFUNCS = frozenset({np.add, np.subtract, np.multiply, np.true_divide, np.negative,
                          np.positive, np.maximum, np.minimum, np.absolute, np.square, np.sqrt})
"""ufuncs whose numba scalar form rounds as numpy's loop does (IEEE operations, no libm)."""

MIN_ELEMENTS = 1 << 16
"""Fuse only chains over tensors at least this large (256 KiB of float32): below it the
operands stay in cache and numpy's per-call overhead, not memory, bounds the chain."""

LOOP_MIN_ELEMENTS = 1 << 10
LOOP_MIN_STEPS = 4
"""The thresholds inside a loop body (``while_loop``, its gradient loop), which runs once
per iteration: there the per-call overhead is what fusion saves.  Measured per iteration
(``[32, n/32]`` float32, one core): a numpy ufunc call costs ~1.5-3 us at 1-4K elements, a
fused kernel's call ~4 us (its Python wrapper, numba's dispatch, one output array) -- so
a chain of 4 ``*``/``+`` steps wins from ~1K elements (8.0 -> 7.0 us at 1K, 13.1 -> 8.4 us
at 4K), one of 2 steps loses (4.8 -> 6.9 us)."""

_after = os.environ.get("STATICGRAPH_FUSE_AFTER", "0.5")
FUSE_AFTER_S: float = math.inf if _after.lower() in ("off", "inf", "never") else float(_after)
"""Seconds a compiled plan runs before its elementwise chains are fused (environment
``STATICGRAPH_FUSE_AFTER``: seconds, ``0`` fuses when the plan is compiled, ``off`` never)."""

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


class Chain(NamedTuple):
    """A group of plan steps fused into one: member step indices (in plan order), the slots
    it reads (arrays and scalars) and the member results it must write out."""

    members: tuple[int, ...]
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    shape: tuple[int, ...]
    dtype: np.dtype
    at: int          # the fused step runs just before the step at this index (or replaces it)
    summed: int | None = None    # a member result the loop sums instead of writing ...
    sum_step: int | None = None  # ... for this full ``Sum`` step (its result: the last output)
    fast_math: bool = False      # members may use their ``approx_scalar`` form (common.vmath)


def _form(step: Step, fast_math: bool = False) -> Callable[[list[str]], str] | None:
    """The step's per-element form as a function of argument names (None: not fusable).
    With ``fast_math``, an op's ``approx_scalar`` form too (a :mod:`common.vmath` call, its
    result cast back to the chain's dtype ``_dt``: the chain's arithmetic stays in it)."""
    d = step.op.op_def
    if d is None or d.stateful or len(step.outputs) != 1 or step.outputs[0] is None:
        return None
    if d.scalar is not None:
        return lambda args: d.scalar(*args)
    impl = step.kernel
    if impl is d.impl and isinstance(impl, np.ufunc) and impl in EXACT_UFUNCS and \
            impl.nout == 1 and len(step.inputs) == impl.nin:
        return None if step.op.attrs else (lambda args, u=impl.__name__: f"{u}({', '.join(args)})")
    if fast_math and d.approx_scalar is not None and impl is d.impl and not step.op.attrs \
            and len(step.inputs) == 1:
        return lambda args: f"_dt({d.approx_scalar(*args)})"
    return None


def _key(step: Step, min_elements: int) -> tuple | None:
    """(shape, dtype) of a step's one result when the step could join a fused loop: a fully
    known shape of ``min_elements`` or more, a float dtype, and inputs of that shape and
    dtype or scalars of the dtype (read off the op's tensors: step input ``i`` is
    ``op.inputs[i]``).  The size is checked first: most steps of most plans are small."""
    outs = step.op.outputs
    if len(outs) != 1 or len(step.outputs) != 1 or step.outputs[0] is None:
        return None
    shape = outs[0]._shape
    if shape is None or None in shape or math.prod(shape) < min_elements:
        return None
    dtype = outs[0].np_dtype
    if dtype not in _FLOATS:
        return None
    for t in step.op.inputs:
        if t.np_dtype != dtype or (t._shape != shape and t._shape != ()):
            return None
    return tuple(shape), dtype


def find_chains(plan: Plan, min_elements: int | None = None, fast_math: bool = False,
                min_steps: int = 2) -> list[Chain]:
    """The plan's fusable chains, of ``min_steps`` or more steps each, gathered in plan
    order: steps over at least ``min_elements`` elements (default :data:`MIN_ELEMENTS`),
    transcendentals too with ``fast_math``.

    A chain is closed by a stateful or structural step, and by a step with another shape or
    dtype.  A step outside the chain that reads a member's result (a reduction of it, say)
    sets the chain's *deadline*: the fused step must run before it.  Later steps may still
    join -- moved up, before the deadline -- as long as they read nothing made at or after
    it (the gradient of ``sum(f(x))`` joins ``f``'s chain across the ``Sum``)."""
    min_elements = MIN_ELEMENTS if min_elements is None else min_elements
    chains, members, made, key = [], [], set(), None
    deadline, late = None, set()      # fused step's latest place; slots made at/after it

    def close():
        nonlocal deadline
        if len(members) >= min_steps:
            at = members[-1] if deadline is None else deadline
            chains.append(_chain(plan, members, made, key, at)._replace(fast_math=fast_math))
        members.clear()
        made.clear()
        late.clear()
        deadline = None

    for k, step in enumerate(plan.steps):
        k_key = _key(step, min_elements)
        if k_key is not None and _form(step, fast_math) is not None:
            if k_key != key or (late and not late.isdisjoint(step.inputs)):
                close()
                key = k_key
            members.append(k)
            made.add(step.outputs[0])
            continue
        if members:
            d = step.op.op_def
            if d is None or d.stateful:
                close()
                continue
            if deadline is None and not made.isdisjoint(step.inputs):
                deadline = k
            if deadline is not None:
                late.update(step.outputs)
    close()
    return chains


def _chain(plan: Plan, members: list[int], made: set[int], key: tuple, at: int) -> Chain:
    """The chain of these member steps: what it reads from outside, what it must write out
    (a member result read by a step outside the chain, or fetched).

    A member result that is not fetched and whose one reader outside the chain is a full
    ``Sum`` (:func:`_full_sum`) is summed by the loop itself instead of written: the ``Sum``
    step joins the chain and its result becomes the chain's last output."""
    member_set = set(members)
    fetched = {s for s in plan.fetches if s is not None}
    readers: dict[int, list[int]] = {}
    for k, step in enumerate(plan.steps):
        if k not in member_set:
            for s in step.inputs:
                readers.setdefault(s, []).append(k)
    inputs = list(dict.fromkeys(s for k in members for s in plan.steps[k].inputs
                                if s not in made))
    outputs = [s for k in members for s in plan.steps[k].outputs
               if s in fetched or s in readers]
    summed = next((s for s in outputs if s not in fetched and len(readers[s]) == 1
                   and _full_sum(plan.steps[readers[s][0]], key[0])), None)
    if summed is None:
        return Chain(tuple(members), tuple(inputs), tuple(outputs), key[0], key[1], at)
    sum_step = readers[summed][0]
    outputs = [s for s in outputs if s != summed] + [plan.steps[sum_step].outputs[0]]
    return Chain(tuple(members), tuple(inputs), tuple(outputs), key[0], key[1], at,
                 summed, sum_step)


def _full_sum(step: Step, shape: tuple) -> bool:
    """Is ``step`` numpy's sum of all of its one input's elements (``axis`` None or every
    axis, no ``keepdims``), to one scalar of the input's dtype?  Only that sum is the one
    pairwise summation over the whole contiguous array that :func:`pairwise_schedule`
    reproduces bit for bit."""
    d, kernel = step.op.op_def, step.kernel
    if getattr(kernel, "func", kernel) is not _sum or d is None or d.impl is not _sum or \
            len(step.inputs) != 1 or len(step.outputs) != 1 or step.outputs[0] is None:
        return False                # (the kernel: ``_sum``, or a partial of it binding attrs)
    if kernel is not _sum and (kernel.args or kernel.keywords != {
            n: v for n, v in step.op.attrs.items() if n in kernel.keywords}):
        return False
    attrs = step.op.attrs
    if set(attrs) - {"axis", "keepdims"} or attrs.get("keepdims", False):
        return False
    axis = attrs.get("axis")
    if axis is not None:
        axes = (axis,) if isinstance(axis, int) else tuple(axis)
        if not all(isinstance(a, int) and -len(shape) <= a < len(shape) for a in axes) or \
                sorted(a % len(shape) for a in axes) != list(range(len(shape))):
            return False
    out = step.op.outputs[0]
    return out._shape == () and out.np_dtype == step.op.inputs[0].np_dtype


PW_BLOCKSIZE = 128
"""numpy's pairwise summation block (``numpy/_core/src/umath/loops_utils.h.src``)."""


def pairwise_schedule(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """numpy's pairwise summation of ``n`` contiguous elements as a flat schedule (unsigned
    index arrays, as the kernel takes them): the
    leaves of its recursion in order (first index, length: at most :data:`PW_BLOCKSIZE`) and,
    per leaf, how many pairs of partial sums to add once that leaf's sum is pushed.

    ``pairwise_sum(a, n)``: below 8 elements a sequential sum from 0; up to 128, eight
    accumulators ``r[i % 8]`` started at ``a[0..7]``, combined as
    ``((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7))``, the tail added after; above, split at ``n/2``
    rounded down to a multiple of 8, both halves summed so and added.  ``np.add.reduce``
    of a contiguous float array (any shape, all axes) is ``0 + pairwise_sum(a, size)`` --
    one inner loop over the whole coalesced array (checked on random shapes in the tests).
    A stack machine running this schedule adds in numpy's very order, so a fused kernel can
    sum the values it computes on the fly with numpy's bits."""
    lo: list[int] = []
    length: list[int] = []
    pops: list[int] = []
    todo = [(0, n, 0)]        # (first, length, pairs to add after this subtree's last leaf)
    while todo:
        a, m, after = todo.pop()
        if m <= PW_BLOCKSIZE:
            lo.append(a)
            length.append(m)
            pops.append(after)
            continue
        n2 = m // 2
        n2 -= n2 % 8
        todo.append((a + n2, m - n2, after + 1))
        todo.append((a, n2, 0))
    return tuple(np.array(v, np.uintp) for v in (lo, length, pops))


# --- the kernel ---------------------------------------------------------------------------------

class FusedOp:
    """What a fused step shows as its node (comments, errors): the chain's last op, typed
    ``FusedElementwise``; a structural node (``op_def`` None) to the passes after it, which
    then treat its results conservatively."""

    __slots__ = ("name", "type", "kind", "site", "op_def", "inputs", "outputs", "attrs",
                 "members", "control_inputs")

    def __init__(self, members: list, inputs: tuple, outputs: tuple):
        last = members[-1]
        self.name, self.site = last.name, last.site
        self.type = self.kind = "FusedElementwise"
        self.op_def, self.attrs, self.control_inputs = None, {}, ()
        self.members, self.inputs, self.outputs = tuple(members), inputs, outputs


def kernel_source(plan: Plan, chain: Chain, name: str) -> tuple[str, dict]:
    """The numba loop of ``chain`` (source, and the ufuncs it names).

    Every name in the source is the generator's own (``a0``, ``t3``, ``o1``, ufunc names from
    :data:`EXACT_UFUNCS`, ``vmath`` for the ``approx_scalar`` forms); op names and sites
    appear only in comments, through ``repr()``.

    Each array comes as a 2-D grid ``(rows, cols)`` whose last stride is one element (see
    :class:`FusedKernel`): a column slice of a matrix -- ``Split``'s pieces of an LSTM's
    gates -- is read where it is, not copied.  ``_span(a)`` is its memory from the first
    element as a flat C array, ``s0`` its row stride in elements; indices are unsigned (no
    wraparound checks), so LLVM vectorises the inner loop over a row.  A chain that sums a
    member (``chain.summed``) runs :func:`pairwise_schedule` instead, over one row (``rows``
    is 1): per leaf (at most 128 elements) the element loop writes the summed values to
    ``buf`` (a scratch array that stays in L1), then numpy's leaf sum adds them up, its eight
    accumulators the lanes of one vector (:func:`.simd.lanes8_sum`) -- the element loop
    keeping the plain loop's form (no loop-carried sums)."""
    tensors = {s: t for t, s in plan.slot_of.items()}
    scalar = [tensors[s]._shape == () for s in chain.inputs]
    local = {s: (f"a{i}" if scalar[i] else f"x{i}") for i, s in enumerate(chain.inputs)}
    arrays = chain.outputs if chain.summed is None else chain.outputs[:-1]
    params = ", ".join([f"a{i}" for i in range(len(chain.inputs))] +
                       [f"o{i}" for i in range(len(arrays))])
    isz = chain.dtype.itemsize
    head = ["    rows, cols = _uintp(rows), _uintp(cols)"]
    for i, sc in enumerate(scalar):
        if not sc:
            head += [f"    f{i} = _span(a{i})", f"    s{i} = _uintp(a{i}.strides[0] // {isz})"]
    head += [f"    p{i} = _span(o{i})" for i in range(len(arrays))]
    summing = chain.summed is not None
    pad = "            "
    read = (lambda i: f"f{i}[j]") if summing else (lambda i: f"f{i}[i{i} + c]")
    body = [f"{pad}x{i} = {read(i)}" for i, sc in enumerate(scalar) if not sc]
    env = {"_uintp": np.uintp, "_span": _span(), "_dt": chain.dtype.type}
    for n_t, k in enumerate(chain.members):
        step = plan.steps[k]
        form = _form(step, chain.fast_math)
        impl = step.kernel
        if isinstance(impl, np.ufunc) and step.op.op_def.scalar is None:
            env[impl.__name__] = impl
        t = f"t{n_t}"
        body.append(f"{pad}{t} = {form([local[s] for s in step.inputs])}  "
                    f"{comment(step.op, site=False)}")
        local[step.outputs[0]] = t
    if chain.fast_math:
        env["vmath"] = importlib.import_module("common.vmath")   # (numba's: loaded with it)
    if not summing:
        body += [f"{pad}p{i}[k + c] = {local[s]}" for i, s in enumerate(arrays)]
        return "\n".join([f"def {name}(rows, cols, {params}):", *head,
                          "    for r in range(rows):",
                          *[f"        i{i} = r * s{i}" for i, sc in enumerate(scalar) if not sc],
                          "        k = r * cols",
                          "        for c in range(cols):", *body]) + "\n", env
    body += [f"{pad}p{i}[j] = {local[s]}" for i, s in enumerate(arrays)]
    source = [f"def {name}(rows, cols, {params}, lo, length, pops, stack, zero, buf):",
              *head,
              "    sp = 0",
              "    for i in range(lo.shape[0]):",
              "        a = lo[i]",
              "        for j in range(a, a + length[i]):",
              *body,
              f"            buf[j - a] = {local[chain.summed]}  "
              f"{comment(plan.steps[chain.sum_step].op, site=False)}",
              "        m = int(length[i])",
              "        if m < 8:",
              "            s = zero",
              "            for k in range(m):",
              "                s += buf[k]",
              "        else:",
              "            e = m - m % 8",
              "            s = lanes8_sum(buf, e)",
              "            for k in range(e, m):",
              "                s += buf[k]",
              "        stack[sp] = s",
              "        sp += 1",
              "        for _ in range(pops[i]):",
              "            sp -= 1",
              "            stack[sp - 1] = stack[sp - 1] + stack[sp]",
              "    return zero + stack[0]"]
    return "\n".join(source) + "\n", env


_numba = None
_lock = threading.Lock()
_cache: dict[str, Callable] = {}


def available() -> bool:
    """Can fused kernels be compiled here (numba importable, without Intel's SVML)?"""
    global _numba
    if _numba is None:
        _numba = numba_module() or False
    return _numba is not False


@functools.cache
def _span() -> Callable:
    """numba's ``_span(a)``: a 2-D array's memory from its first element to its last as a
    flat C-contiguous array of the same data (no copy; ``(rows - 1) * row stride + cols``
    elements), for an array whose last stride is one element and first is non-negative
    (what :func:`_grid` hands the kernel).  A numba intrinsic, made once numba is loaded."""
    from numba import types                      # (numba: optional, loaded by available())
    from numba.core import cgutils               # (numba)
    from numba.extending import intrinsic        # (numba)

    @intrinsic
    def _span_of(typingctx, a):
        if not isinstance(a, types.Array) or a.ndim != 2:
            return None
        flat = types.Array(a.dtype, 1, "C", readonly=not a.mutable)

        def codegen(context, builder, sig, args):
            ary = context.make_array(sig.args[0])(context, builder, args[0])
            out = context.make_array(flat)(context, builder)
            rows, cols = cgutils.unpack_tuple(builder, ary.shape)
            row_stride = cgutils.unpack_tuple(builder, ary.strides)[0]
            one = context.get_constant(types.intp, 1)
            span = builder.add(builder.mul(builder.sub(rows, one),
                                           builder.sdiv(row_stride, ary.itemsize)), cols)
            context.populate_array(out, data=ary.data, shape=cgutils.pack_array(builder, [span]),
                                   strides=cgutils.pack_array(builder, [ary.itemsize]),
                                   itemsize=ary.itemsize, meminfo=ary.meminfo, parent=ary.parent)
            result = out._getvalue()
            context.nrt.incref(builder, flat, result)   # a new reference to the same memory
            return result
        return flat(a), codegen
    return _span_of


def _compiled(source: str, name: str, env: dict, dtype: np.dtype,
              scalar: list[bool], n_out: int, summing: bool = False) -> Callable | None:
    """The numba function of ``source``, compiled now (once per process per source text):
    None if numba refuses it -- then the chain is not fused.  Its arrays are typed 2-D of
    any layout (inputs read-only), so the one compiled version takes contiguous arrays,
    column slices and constants alike: compiling more is switched off (a new version would
    cost ~0.3 s in the middle of a run).  A summing kernel (:func:`kernel_source`) also
    takes its schedule, stack, zero and scratch buffer.

    ``error_model="numpy"``: a division by zero gives inf/NaN, as numpy's, not an exception."""
    available()
    with _lock:
        if source in _cache:
            return _cache[source]
        scope = dict(env)
        if summing:
            from .simd import lanes8_sum  # (imports numba and llvmlite: only when fusing)
            scope["lanes8_sum"] = lanes8_sum
        exec(compile(source, f"<staticgraph-fused-{name}>", "exec"), scope)
        nb = _numba
        item = nb.from_dtype(dtype)
        read = nb.types.Array(item, 2, "A", readonly=True)
        signature = (nb.types.intp, nb.types.intp, *[item if sc else read for sc in scalar],
                     *[nb.types.Array(item, 2, "A")] * n_out)
        if summing:
            index, vector = nb.types.Array(nb.types.uintp, 1, "C"), nb.types.Array(item, 1, "C")
            signature += (index, index, index, vector, item, vector)
        fn = nb.njit(nogil=True, error_model="numpy")(scope[name])
        try:
            fn.compile(signature)
            fn.disable_compile()
        except Exception:    # (numba's typing and lowering errors: no such kernel, no fusion)
            fn = None
        _cache[source] = fn
        return fn


ROW_MIN = 16
"""A grid's rows are the tensor's last dimension when that has at least this many elements
(else the kernel sees one row of all of them): the inner loop runs along a row."""


class FusedKernel:
    """A fused step's kernel: ``kernel(*inputs)`` returns the chain's outputs (one array, or
    a tuple), each a C-contiguous array of the chain's shape -- but for a summing kernel's
    last output, the sum: a scalar of the dtype, as ``np.add.reduce`` returns it.

    The compiled loop sees every array as a ``grid`` (rows, cols): the last dimension as
    the rows (:data:`ROW_MIN`), a summing kernel's one flat row.  An input whose last stride
    is one element (a column slice) is passed as it is (:func:`_grid`), a scalar input as a
    Python float (numba converts a numpy scalar argument ~10x slower).

    An output array whose only reference left is the kernel's own (the run that got it, and
    whoever it was handed to, dropped it) is written again by the next call instead of a new
    one: a fresh large array costs the kernel's page faults and zeroing, as much as another
    pass over memory (PyTorch's caching allocator keeps freed blocks for the same reason).
    So between runs a fused plan keeps at most one array per output alive."""

    pure = True
    """To the passes after fusion (a fused step is no registry op): it reads its inputs only
    while it runs and returns arrays of its own -- never an input, never one that anything
    else still holds (a loop's in-place writes, :mod:`.passes.carry`, and its batched
    products, :mod:`.passes.loops`, may rely on both)."""

    def __init__(self, fn: Callable, shape: tuple, dtype: np.dtype, scalar: list[bool],
                 n_out: int, source: str, summing: bool = False):
        self.fn, self.shape, self.dtype = fn, shape, dtype
        self.scalar, self.n_out, self.source = scalar, n_out, source
        self.size = size = math.prod(shape)
        cols = shape[-1] if len(shape) >= 2 and shape[-1] >= ROW_MIN and not summing else size
        self.grid = (size // cols if cols else 0, cols)
        self.n_arrays = n_out - summing
        self._kept: list[np.ndarray | None] = [None] * self.n_arrays
        self._sum = (*pairwise_schedule(self.size),
                     np.empty(64, dtype), 0.0, np.empty(PW_BLOCKSIZE, dtype)) \
            if summing else ()
        self._call = self._caller()

    def __call__(self, *xs):
        return self._call(*xs)

    def _caller(self) -> Callable:
        """The call as straight-line generated Python (half the overhead of a loop over the
        arguments: it matters in a loop body, where a call runs per iteration)::

            def call(x0, x1, x2):
                if x0.shape != G or x0.strides[1] != 4 or x0.strides[0] < 0: x0 = _grid(x0, G, 4)
                x1 = float(x1)                                  # a scalar input
                ...
                o0 = kept[0]
                if o0 is None or _refs(o0) > 3: o0 = kept[0] = _empty(S, D)
                fn(32, 128, x0, x1, x2, o0)
                return o0
        """
        grid, isz, shaped = self.grid, self.dtype.itemsize, self.grid == tuple(self.shape)
        xs = [f"x{i}" for i in range(len(self.scalar))]
        lines = [f"def call({', '.join(xs)}):"]
        for x, sc in zip(xs, self.scalar):
            lines.append(f"    {x} = float({x})" if sc else
                         f"    if {x}.shape != G or {x}.strides[1] != {isz} or {x}.strides[0] < 0: "
                         f"{x} = _grid({x}, G, {isz})")
        outs = [f"o{i}" for i in range(self.n_arrays)]
        for i, o in enumerate(outs):
            lines += [f"    {o} = kept[{i}]",
                      f"    if {o} is None or _refs({o}) > 3: {o} = kept[{i}] = _empty(S, D)"]
        args = [*xs, *(o if shaped else f"{o}.reshape(G)" for o in outs)] + \
            (["*summing"] if self._sum else [])
        call = f"fn({grid[0]}, {grid[1]}, {', '.join(args)})"
        if self._sum:
            lines.append(f"    total = {call}")
            outs.append("D.type(total)")
        else:
            lines.append(f"    {call}")
        lines.append(f"    return {outs[0]}" if len(outs) == 1 else
                     f"    return ({', '.join(outs)},)")
        scope = {"G": grid, "S": tuple(self.shape), "D": self.dtype, "fn": self.fn,
                 "kept": self._kept, "summing": self._sum, "_grid": _grid, "_refs": getrefcount,
                 "_empty": np.empty}
        exec(compile("\n".join(lines) + "\n", "<staticgraph-fused-call>", "exec"), scope)
        return scope["call"]


def _grid(x: np.ndarray, grid: tuple[int, int], itemsize: int) -> np.ndarray:
    """``x`` as the kernel's ``grid`` (rows, cols) of its elements in C order: itself or a
    view when it can be one whose last stride is one element and first is non-negative
    (a column slice of a matrix is such a view), else a C-order copy."""
    if x.shape != grid:
        x = x.reshape(grid)
    strides = x.strides
    if strides[1] != itemsize or strides[0] < 0:
        return np.ascontiguousarray(x)
    return x


def fuse_plan(plan: Plan, chains: list[Chain]) -> tuple[Plan, list[Chain]]:
    """``plan`` with each chain's steps replaced by one fused step, run just before the step
    at ``chain.at`` (its last member, or its deadline; call only where :func:`available`),
    and the chains fused (those numba compiled)."""
    done = []
    before: dict[int, Step] = {}
    dropped: set[int] = set()
    tensors = {s: t for t, s in plan.slot_of.items()}
    for n, chain in enumerate(chains):
        name = f"fused_{n}"
        source, env = kernel_source(plan, chain, name)
        scalar = [tensors[s]._shape == () for s in chain.inputs]
        summing = chain.summed is not None
        n_arrays = len(chain.outputs) - summing
        fn = _compiled(source, name, env, chain.dtype, scalar, n_arrays, summing)
        if fn is None:
            continue
        done.append(chain)
        kernel = FusedKernel(fn, chain.shape, chain.dtype, scalar, len(chain.outputs), source,
                             summing)
        op = FusedOp([plan.steps[k].op for k in chain.members],
                     tuple(tensors[s] for s in chain.inputs),
                     tuple(tensors[s] for s in chain.outputs))
        before[chain.at] = Step(op, kernel, chain.inputs, chain.outputs)
        dropped.update(chain.members)
        if summing:
            dropped.add(chain.sum_step)
    steps = []
    for k, step in enumerate(plan.steps):
        if k in before:
            steps.append(before[k])
        if k not in dropped:
            steps.append(step)
    return plan._replace(steps=steps), done


# --- loop bodies ----------------------------------------------------------------------------------

def loop_kernel(plan: Plan, build: Callable[[Plan], Callable], config) -> Callable:
    """A loop's kernel (a ``while_loop``'s or its gradient loop's), generated by
    ``build(body_plan)``, with the body's elementwise chains fused once it is hot.

    A body runs once per iteration, so its chains fuse from :data:`LOOP_MIN_ELEMENTS`
    elements (an LSTM step's ``[32, 128]`` gates: 4,096) and :data:`LOOP_MIN_STEPS` steps
    up, transcendentals included under
    ``config.fast_math``.  As for a plan (:data:`FUSE_AFTER_S`), the kernel is first built
    unfused (:class:`HotLoop` adds up its time); with no chain in the body it is just
    ``build(plan)``.  The fused plan is built by the same ``build``: the loop's in-place
    writes and rewritten products are found again in it (a fused step reads no buffer the
    loop writes in place; its results are fresh arrays)."""
    chains = find_chains(plan, LOOP_MIN_ELEMENTS, config.fast_math, LOOP_MIN_STEPS) \
        if config.fuse and FUSE_AFTER_S < math.inf else []
    if not chains:
        return build(plan)

    def fused() -> Callable | None:
        """The kernel of the body with its chains fused (None: numba missing or refusing)."""
        if not available():
            return None
        fused_plan, done = fuse_plan(plan, chains)
        return build(fused_plan) if done else None
    if FUSE_AFTER_S <= 0:
        return fused() or build(plan)
    return HotLoop(build(plan), fused)


class HotKernel:
    """A kernel until it is hot: runs the plain kernel ``fn`` and adds up the time; once
    :data:`FUSE_AFTER_S` seconds are spent it calls ``make()`` for the fused one (numba
    compiles its chains, ~0.3-1 s) and runs that from then on.  A plan's (the compiler's
    pipeline) and a loop body's (:class:`HotLoop`) tier up alike; they differ only in what
    making and installing the fused kernel involves (:meth:`_make`, :meth:`_install`)."""

    __slots__ = ("fn", "make", "spent", "lock")

    def __init__(self, fn: Callable, make: Callable):
        self.fn, self.make, self.spent = fn, make, 0.0
        self.lock = threading.Lock()

    def __call__(self, *args):
        if self.make is None:
            return self.fn(*args)
        t0 = perf_counter()
        out = self.fn(*args)
        self.spent += perf_counter() - t0
        if self.spent >= FUSE_AFTER_S:
            self.tier_up()
        return out

    def tier_up(self) -> None:
        with self.lock:
            if self.make is None:
                return
            made = self._make()
            self.make = None
            if made is not None:
                self._install(made)

    def _make(self):
        return self.make()

    def _install(self, made) -> None:
        self.fn = made


class HotLoop(HotKernel):
    """A loop kernel until it is hot (:class:`HotKernel`).  It shows as the kernel it runs
    (``source``, ``owner``, the names it binds: ``explain()`` prints the fused body once
    fused)."""

    __slots__ = ()

    @property
    def source(self) -> str:
        return self.fn.source

    @property
    def owner(self):
        return self.fn.owner

    @property
    def __globals__(self) -> dict:
        """The names the current kernel binds (but itself)."""
        return {k: v for k, v in self.fn.__globals__.items() if v is not self.fn}
