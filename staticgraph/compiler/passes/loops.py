"""Loop optimisations for ``while_loop`` plans: hoist the input projection, batch weight gradients.

A recurrent step multiplies its input by a weight: ``concat([x_t, h]) @ W`` (TF's cells), or
``x_t @ W_x``.  When ``x_t`` is row ``t`` of a tensor the loop does not change (a TensorArray's
``unstack``ed buffer, an unstacked input: ``X[t]``), the input's share of the steps is one
product for a chunk of steps, made when the step index enters the chunk::

    if bhp3 is None or not 0 <= x0 - bhs3 < 16: bhp3, bhw3, bhs3 = _hoist(cap1, b9, x0, 16, 0, 32, 32, None)
    b10 = bhp3[x0 - bhs3] + x3 @ bhw3   # MatMul 'basic_lstm_cell/MatMul' (loops pass)

(``(X[a:b] @ W)[t - a] == X[t] @ W``: one product for 16 steps of ``X @ W[:32]``; the step
keeps only the recurrent product ``h @ W[32:]``.)  In the gradient loop a captured weight's
gradient is a sum over steps of ``S_t^T @ G_t``; it is taken a chunk of steps at a time,
``concat(S)^T @ concat(G)`` as one ``gemm`` added into the accumulator in place, instead of
one small product, one temporary and one addition per step::

    gc30.append((s10, g45))             # MatMul '.../MatMul_1' (loops pass)
    if len(gc30) == 1: _accumulate(a0, gc30, 0)
    ...
    if gc30: _accumulate(a0, gc30, 0)   # after the loop: what is left of the last chunk

The gradient of ``concat([x_t, h]) @ W`` with respect to the concatenation is ``G @ W^T``,
cut into ``x_t``'s and ``h``'s pieces; when only ``h``'s piece is read (nobody asked for the
inputs' gradient), the loop multiplies by ``h``'s rows of ``W`` only (:func:`split_products`).

Chunks, not all steps at once: one product over every step would hold a ``[T, batch, 4 *
units]`` array (13 MB for the 200-step LSTM), growing peak memory.  A hoisted chunk holds at
most ``CHUNK_BYTES``, a gradient chunk ``GRAD_CHUNK_BYTES`` -- for the LSTM one step, whose
product is still added in place: no product-sized temporary per step, the peak goes down.

**Not bit-identical**: float sums are taken in another order (a split inner product, sums over
chunks), so results differ from the unoptimised plan in the last bits (tests compare both to
float64 references).  ``PassConfig(loops=False)`` (``passes.disable("loops")``, or
``PassConfig.off()``) gives the unoptimised plan's exact bits.

**State is sacred**: a product is hoisted only out of a loop that writes no variable (its
weight may be a variable read in the body: every iteration then reads the same value); the
read itself stays in every iteration, as every other stateful step stays where it is.
"""
from __future__ import annotations

from typing import Callable, Iterator, NamedTuple

import numpy as np
from scipy.linalg import blas

from common.blas import gemm, matmul, matmul_for, prime_scipy_sgemm
from common.indexing import ARRAY
from common.shapes import sum_to_shape

from ...framework.graph import Tensor
from ..plan import Plan, Step

__all__ = ["LoopRewrite", "hoisted_products", "split_products", "batched_sums", "scattered_sums",
           "CHUNK_BYTES", "GRAD_CHUNK_BYTES", "HELPERS"]

CHUNK_BYTES = 1 << 20
"""What a hoisted product may hold of its steps' results at once (1 MiB)."""

GRAD_CHUNK_BYTES = 1 << 16
"""What a batched weight gradient may hold of its steps' factors at once (64 KiB).  Small: a
step whose factors are large already makes an efficient ``gemm``, and copying them into a
chunk cost more than the larger product gained (LSTM hidden 128, batch 32: one step a
chunk, 2-3% faster than two, measured); small factors (``W @ x_t`` of a small RNN) gain most."""

Lines = Callable[[dict[int, str], str], list[str]]
"""Slot -> local name, indentation -> the lines a rewritten step is emitted as."""


class LoopRewrite(NamedTuple):
    """Steps of a loop's plan emitted otherwise, and the lines around the loop they need."""

    steps: dict[int, Lines]        # step index -> its lines
    before: list[str]              # lines before the loop (the caches and chunks, empty)
    after: list[str]               # lines after the loop (what the last chunk left)

    @classmethod
    def none(cls) -> "LoopRewrite":
        return cls({}, [], [])

    def merged(self, other: "LoopRewrite") -> "LoopRewrite":
        """Both rewrites (of different steps of one plan) as one."""
        assert not self.steps.keys() & other.steps.keys(), "two rewrites of one step"
        return LoopRewrite({**self.steps, **other.steps}, self.before + other.before,
                           self.after + other.after)


def _hoist(xs: np.ndarray, w: np.ndarray, i, per: int, lo: int | None, hi: int | None,
           rest_lo: int | None, rest_hi: int | None) -> tuple:
    """``xs[start:start + per] @ w[lo:hi]`` for the chunk of steps holding step ``i`` (``xs``:
    ``[T, batch, n]``), the rows of ``w`` the step still multiplies by (``w[rest_lo:rest_hi]``,
    None when nothing is left), and ``start``.  A negative ``i`` gets a chunk of its own row.
    ``lo`` None: the left product ``w @ xs[t]`` for each step of the chunk instead."""
    start = i - i % per if i >= 0 else i
    part = xs[start:start + per] if i >= 0 else xs[i][None]
    if lo is None:
        return np.matmul(w, part), None, start
    flat = matmul(part.reshape(-1, part.shape[-1]), w[lo:hi])
    rest = None if rest_lo is None else w[rest_lo:rest_hi]
    return flat.reshape(*part.shape[:-1], w.shape[-1]), rest, start


prime_scipy_sgemm()     # scipy's OpenBLAS is a copy of its own, slow until primed (common.blas)


def _accumulate(acc: np.ndarray, chunk: list, axis: int) -> None:
    """``acc += sum_t S_t^T @ G_t`` (``axis`` 0) or ``acc += sum_t G_t @ S_t^T`` (``axis`` 1)
    over ``chunk`` (pairs ``(S_t, G_t)``) as one product written into ``acc`` itself
    (:func:`common.blas.gemm` with ``beta=1``: no product-sized temporary on MKL); empties it."""
    if len(chunk) == 1:
        s, g = chunk[0]
    else:
        s = np.concatenate([p[0] for p in chunk], axis)
        g = np.concatenate([p[1] for p in chunk], axis)
    chunk.clear()
    if axis == 0:
        gemm(s.T, g, acc, beta=1.0)
    else:
        gemm(g, s.T, acc, beta=1.0)


_GEMV = {np.dtype(np.float32): blas.sgemv, np.dtype(np.float64): blas.dgemv}
_ONES: dict[tuple[int, np.dtype], np.ndarray] = {}


def _add_rows(acc: np.ndarray, g: np.ndarray) -> None:
    """``acc += g.sum(0)`` (a bias's gradient, ``g`` ``[batch, n]``) as one BLAS ``gemv``
    written into ``acc`` itself: ``acc += g^T @ ones`` (~5 us against ~12 us for the sum, its
    temporary and the addition, [32, 512] float32, measured)."""
    gemv = _GEMV.get(acc.dtype)
    if gemv is None or g.dtype != acc.dtype or not acc.flags.c_contiguous or \
            not g.flags.c_contiguous:
        acc += sum_to_shape(g, acc.shape)
        return
    key = (g.shape[0], g.dtype)
    ones = _ONES.get(key)
    if ones is None:
        ones = _ONES[key] = np.ones(g.shape[0], g.dtype)
    gemv(1.0, g.T, ones, 1.0, acc, overwrite_y=1)


class _Uses:
    """Who produces and who reads each slot of a plan."""

    def __init__(self, plan: Plan):
        self.producer: dict[int, int] = {}
        self.readers: dict[int, list[int]] = {}
        for k, step in enumerate(plan.steps):
            for s in step.outputs:
                if s is not None:
                    self.producer[s] = k
            for s in step.inputs:
                self.readers.setdefault(s, []).append(k)
        self.fetched = {s for s in plan.fetches if s is not None}
        self.tensor = {s: t for t, s in plan.slot_of.items()}


def _registry(step: Step, name: str) -> bool:
    d = step.op.op_def
    return d is not None and d.name == name


def _rank(t: Tensor) -> int | None:
    return None if t._shape is None else len(t._shape)


def _float(t: Tensor) -> bool:
    return t.np_dtype.kind == "f"


def _invariant(plan: Plan, uses: _Uses, fixed: set[int], reads_ok: bool) -> set[int]:
    """Slots whose value is the same in every iteration: ``fixed`` (captured values), the
    plan's constants, and results of pure registry steps over those -- and of variable reads
    of such handles when ``reads_ok`` (the loop writes no variable)."""
    out = set(fixed) | set(plan.consts)
    for step in plan.steps:
        d = step.op.op_def
        pure = d is not None and not d.stateful
        read = reads_ok and getattr(step.kernel, "store_lookup", False)
        if (pure or read) and all(s in out for s in step.inputs):
            out.update(s for s in step.outputs if s is not None)
    return out


def _row(plan: Plan, uses: _Uses, slot: int, invariant: set[int]) -> tuple[int, int, int] | None:
    """``slot`` as ``X[i]`` (a 2-D row of a 3-D ``X`` that does not change in the loop, ``i``
    a scalar integer): (read step, X's slot, i's slot), else None."""
    k = uses.producer.get(slot)
    if k is None:
        return None
    step = plan.steps[k]
    if not _registry(step, "GetItem") or len(step.inputs) != 2 or \
            step.op.attrs.get("key") != (ARRAY,):
        return None
    xs, i = step.inputs
    xs_t, i_t = uses.tensor[xs], uses.tensor[i]
    if xs not in invariant or _rank(xs_t) != 3 or _rank(i_t) != 0 or i_t.np_dtype.kind not in "iu":
        return None
    return k, xs, i


def hoisted_products(plan: Plan, fixed: set[int], reads_ok: bool, prefix: str) -> LoopRewrite:
    """The body ``plan``'s products ``X[i] @ W``, ``W @ X[i]`` and ``concat([X[i], h], -1) @ W``
    (or ``[h, X[i]]``) with ``X`` and ``W`` loop-invariant, each rewritten to index one product
    over all steps, made at its first use in a run (see the module docstring).

    ``fixed``: slots of values the loop captured; ``reads_ok``: the loop writes no variable,
    so a variable read gives the same value in every iteration."""
    uses = _Uses(plan)
    invariant = _invariant(plan, uses, fixed, reads_ok)
    steps: dict[int, Lines] = {}
    before: list[str] = []
    for k, step in enumerate(plan.steps):
        if not _registry(step, "MatMul") or step.op.attrs or len(step.inputs) != 2:
            continue
        a, w = step.inputs
        out = step.outputs[0]
        a_t, w_t = uses.tensor[a], uses.tensor[w]
        if out is None or _rank(a_t) != 2 or _rank(w_t) != 2 or not _float(a_t) \
                or a_t.np_dtype != w_t.np_dtype:
            continue
        cache = f"{prefix}hp{k}"
        for x, m, bounds in ((a, w, (0, None, None, None)), (w, a, (None, None, None, None))):
            found = m in invariant and _row(plan, uses, x, invariant)
            if found and out not in uses.fetched:   # X[i] @ W or W @ X[i]: the step indexes
                _, xs, i = found                    # (a view of) the product of its chunk
                before.append(f"{cache} = None")
                steps[k] = _indexed(prefix, k, xs, m, i, out, _per_chunk(step), bounds, None)
                break
        if k in steps or w not in invariant:
            continue
        concat = uses.producer.get(a)
        if concat is None or not _registry(plan.steps[concat], "ConcatV2") or \
                len(plan.steps[concat].inputs) != 2 or \
                plan.steps[concat].op.attrs.get("axis") not in (1, -1):
            continue
        parts = plan.steps[concat].inputs
        rows_of = [uses.tensor[p]._shape[1] for p in parts]
        rowed = [_row(plan, uses, p, invariant) for p in parts]
        if None in rows_of or sum(r is not None for r in rowed) != 1:
            continue
        j = 0 if rowed[0] is not None else 1
        _, xs, i = rowed[j]
        split = rows_of[0]
        bounds = (0, split, split, None) if j == 0 else (split, None, 0, split)
        before.append(f"{cache} = None")
        shapes = (uses.tensor[parts[1 - j]]._shape, (rows_of[1 - j], w_t._shape[1]))
        steps[k] = _indexed(prefix, k, xs, w, i, out, _per_chunk(step), bounds, parts[1 - j],
                            shapes)
    return LoopRewrite(steps, before, [])


def _per_chunk(step: Step) -> int:
    """Steps per hoisted chunk: as many products ``[batch, units]`` as ``CHUNK_BYTES`` holds."""
    return max(1, CHUNK_BYTES // _size(step.op.outputs[0]))


def _indexed(prefix: str, k: int, xs: int, w: int, i: int, out: int, per: int, bounds: tuple,
             rest: int | None, shapes: tuple = (None, None)) -> Lines:
    """The lines of a hoisted product: the chunk holding step ``i`` (made when ``i`` leaves
    the chunk at hand), indexed, plus the recurrent part's product."""
    cache, rows, start = f"{prefix}hp{k}", f"{prefix}hw{k}", f"{prefix}hs{k}"
    lo, hi, rest_lo, rest_hi = bounds

    def lines(names: dict[int, str], pad: str) -> list[str]:
        i_ = names[i]
        first = (f"{pad}if {cache} is None or not 0 <= {i_} - {start} < {per!r}: "
                 f"{cache}, {rows}, {start} = _hoist({names[xs]}, {names[w]}, {i_}, {per!r}, "
                 f"{lo!r}, {hi!r}, {rest_lo!r}, {rest_hi!r})")
        value = f"{cache}[{i_} - {start}]"
        if rest is not None:
            value += f" + {_product(names[rest], rows, *shapes)}"
        return [first, f"{pad}{names[out]} = {value}"]
    return lines


def batched_sums(plan: Plan, sums: dict[int, str], stable: set[int], prefix: str
                 ) -> tuple[LoopRewrite, dict[int, str | None]]:
    """The gradient loop's accumulated products ``acc += S^T @ G`` (fetch position ->
    accumulator name in ``sums``) taken a chunk of steps at a time, and its bias gradients
    ``acc += SumLike(G)`` added in place (:func:`_add_rows`).  Returns the rewrite and, per
    fetch position rewritten, the line that replaces its per-step accumulation (None: none,
    the rewritten step adds).
    ``stable``: fed slots nothing writes into (kept forward values, captures -- not the
    loop's own gradient buffers, which are written in place).

    ``acc += G @ S^T`` (a weight on the left: ``W @ x_t``) likewise, the steps' columns side
    by side.  A product qualifies when ``S^T`` is a Transpose read only by it, ``S`` and ``G`` are 2-D
    and neither a view of anything (a fresh result or a value the trace kept: nothing
    writes into them after the step), and its result is read by nothing but the sum."""
    uses = _Uses(plan)
    steps: dict[int, Lines] = {}
    before, after, accumulate = [], [], {}
    for pos, acc, k, step in _summed_steps(plan, uses, sums):
        rows = _summed_rows(step, uses)
        if rows is not None:                      # a bias's gradient: rows added in place
            steps[k], accumulate[pos] = _call("_add_rows", acc, rows), None
            continue
        if not _registry(step, "MatMul") or step.op.attrs:
            continue
        st, g = step.inputs
        t = uses.producer.get(st)
        axis = 0                                  # S^T @ G: the steps' rows side by side
        if t is None or not _registry(plan.steps[t], "Transpose"):
            g, st = step.inputs                   # G @ S^T: their columns
            t, axis = uses.producer.get(st), 1
        if t is None or not _registry(plan.steps[t], "Transpose") or \
                plan.steps[t].op.attrs.get("perm") is not None or uses.readers.get(st) != [k] \
                or st in uses.fetched:
            continue
        s = plan.steps[t].inputs[0]
        s_t, g_t = uses.tensor[s], uses.tensor[g]
        if _rank(s_t) != 2 or _rank(g_t) != 2 or not _float(g_t) or \
                not (_fresh(plan, uses, s, stable) and _fresh(plan, uses, g, stable)):
            continue
        chunk = f"{prefix}c{k}"
        per = max(1, GRAD_CHUNK_BYTES // _step_bytes(s_t, g_t))
        before.append(f"{chunk} = []")
        steps[k] = _collect(chunk, s, g)
        steps[t] = lambda names, pad: []          # S^T is taken by the batched product
        accumulate[pos] = f"if len({chunk}) == {int(per)!r}: _accumulate({acc}, {chunk}, {axis!r})"
        after.append(f"if {chunk}: _accumulate({acc}, {chunk}, {axis!r})")
    return LoopRewrite(steps, before, after), accumulate


def split_products(plan: Plan, skip: set[int] = frozenset()) -> LoopRewrite:
    """The body ``plan``'s products ``A @ B`` of which one piece is used: a product read by
    nothing but one ``SplitPart`` of its columns (``concat([x_t, h], 1) @ W``'s gradient
    when only ``h``'s piece flows on) multiplies by those columns of ``B`` only::

        g48 = g45 @ g47[:, 32:160]      # MatMul '.../MatMul_grad/MatMul' (loops pass)
        g51 = g48                       # SplitPart '.../concat_grad/SplitPart' (loops pass)

    (LSTM hidden 128, input 32: ``[32, 512] @ [512, 128]`` instead of ``[512, 160]``, 20%
    fewer multiplies.)  ``B[:, lo:hi]`` is a view BLAS reads in place, whether ``B`` is a
    matrix or a transposed one.  The bounds come from the pieces' static widths; ``skip``:
    steps another rewrite of the plan already takes."""
    uses = _Uses(plan)
    steps: dict[int, Lines] = {}
    for k, step in enumerate(plan.steps):
        if k in skip or not _registry(step, "MatMul") or step.op.attrs or len(step.inputs) != 2:
            continue
        out = step.outputs[0]
        readers = uses.readers.get(out, [])
        if out is None or out in uses.fetched or len(readers) != 1 or readers[0] in skip:
            continue
        j = readers[0]
        part = plan.steps[j]
        a_t, b_t = (uses.tensor[s] for s in step.inputs)
        if not _registry(part, "SplitPart") or part.inputs[0] != out or \
                out in part.inputs[1:] or _rank(a_t) != 2 or _rank(b_t) != 2:
            continue
        refs = [uses.tensor[s] for s in part.inputs[1:]]
        widths = [None if _rank(r) != 2 else r._shape[1] for r in refs]
        which = part.op.attrs.get("part", 0)
        if part.op.attrs.get("axis") not in (1, -1) or None in widths or \
                sum(widths) != b_t._shape[1]:
            continue
        lo = sum(widths[:which])
        steps[k] = _columns(step.inputs, out, lo, lo + widths[which], a_t._shape)
        steps[j] = _renamed(out, part.outputs[0])
    return LoopRewrite(steps, [], [])


def _columns(inputs: tuple[int, int], out: int, lo: int, hi: int, a_shape: tuple) -> Lines:
    def lines(names: dict[int, str], pad: str) -> list[str]:
        a, b = inputs
        product = _product(names[a], f"{names[b]}[:, {lo!r}:{hi!r}]", a_shape, (None, hi - lo))
        return [f"{pad}{names[out]} = {product}"]
    return lines


def _product(a: str, b: str, a_shape: tuple | None, b_shape: tuple | None) -> str:
    """The generated code of the product ``a @ b`` of matrices of these static shapes: numpy's
    operator where :func:`common.blas.matmul_for` leaves it to numpy (small), else
    ``_matmul(a, b)`` (:func:`common.blas.matmul`: MKL where installed)."""
    if matmul_for(a_shape, b_shape) is np.matmul:
        return f"{a} @ {b}"
    return f"_matmul({a}, {b})"


def _renamed(src: int, out: int) -> Lines:
    def lines(names: dict[int, str], pad: str) -> list[str]:
        return [f"{pad}{names[out]} = {names[src]}"]
    return lines


def _summed_steps(plan: Plan, uses: _Uses, sums: dict[int, str]
                  ) -> Iterator[tuple[int, str, int, Step]]:
    """(fetch position, accumulator, step index, step) of each sum in ``sums`` whose
    per-step value a step of ``plan`` makes for the sum alone (read by nothing else)."""
    for pos, acc in sums.items():
        out = plan.fetches[pos]
        k = uses.producer.get(out)
        if k is not None and not uses.readers.get(out) and list(plan.fetches).count(out) == 1:
            yield pos, acc, k, plan.steps[k]


def _summed_rows(step: Step, uses: _Uses) -> int | None:
    """``G``'s slot if ``step`` is ``SumLike(G, ref)`` summing a float ``[batch, n]`` to
    ``[n]`` (a bias's gradient), else None."""
    if not _registry(step, "SumLike"):
        return None
    g_t, out_t = uses.tensor[step.inputs[0]], uses.tensor[step.outputs[0]]
    if _rank(g_t) != 2 or _rank(out_t) != 1 or not _float(g_t) or out_t._shape[0] is None \
            or g_t._shape[1] != out_t._shape[0]:
        return None
    return step.inputs[0]


def _call(helper: str, acc: str, slot: int) -> Lines:
    def lines(names: dict[int, str], pad: str) -> list[str]:
        return [f"{pad}{helper}({acc}, {names[slot]})"]
    return lines


def scattered_sums(plan: Plan, sums: dict[int, str], refs: dict[int, int]
                   ) -> tuple[LoopRewrite, dict[int, None]]:
    """The gradient loop's sums ``acc = acc + ScatterLike(u, ref, i)`` (fetch position ->
    accumulator in ``sums``) as ``acc[i] += u``: the gradient of a step's read ``X[i]`` of a
    captured ``X`` (an input sequence) adds its row in place instead of building a
    ``X``-sized array of zeros and adding all of it, every step (quadratic in the steps).
    ``refs``: per position, the slot of the captured value the accumulator is shaped like;
    the scatter must be shaped like it.  The same bits (the other rows gained zeros).
    Returns the rewrite and the positions whose per-step sum it takes."""
    uses = _Uses(plan)
    steps: dict[int, Lines] = {}
    taken: dict[int, None] = {}
    for pos, acc, k, step in _summed_steps(plan, uses, sums):
        if not _registry(step, "ScatterLike") or len(step.inputs) != 3 or \
                step.op.attrs.get("key") != (ARRAY,):
            continue
        u, ref, i = step.inputs
        i_t = uses.tensor[i]
        if ref != refs.get(pos) or _rank(i_t) != 0 or i_t.np_dtype.kind not in "iu" or \
                uses.tensor[u].np_dtype != uses.tensor[ref].np_dtype:
            continue
        steps[k] = _added_at(acc, u, i)
        taken[pos] = None
    return LoopRewrite(steps, [], []), taken


def _added_at(acc: str, u: int, i: int) -> Lines:
    def lines(names: dict[int, str], pad: str) -> list[str]:
        return [f"{pad}{acc}[{names[i]}] += {names[u]}"]
    return lines


def _size(t: Tensor) -> int:
    """Bytes of a value of ``t`` (a dimension not known statically counted as 64)."""
    n = t.np_dtype.itemsize
    for d in t._shape:
        n *= 64 if d is None else max(1, d)
    return n


def _step_bytes(s: Tensor, g: Tensor) -> int:
    """Bytes one step adds to a chunk: its ``G_t`` held, both factors once more in the
    chunk's concatenation."""
    return 2 * _size(g) + _size(s)


def _fresh(plan: Plan, uses: _Uses, slot: int, stable: set[int]) -> bool:
    """Is ``slot`` a value nothing writes into later: a ``stable`` feed, or the result of a
    registry step that aliases no input and writes in no place."""
    k = uses.producer.get(slot)
    if k is None:
        return slot in stable
    d = plan.steps[k].op.op_def
    if d is None:     # a fused chain's results are arrays of its own (compiler/fuse.py)
        return getattr(plan.steps[k].kernel, "pure", False)
    return d.into is None and not d.stateful and \
        not any(d.may_alias(i) for i in range(len(plan.steps[k].inputs)))


def _collect(chunk: str, s: int, g: int) -> Lines:
    def lines(names: dict[int, str], pad: str) -> list[str]:
        return [f"{pad}{chunk}.append(({names[s]}, {names[g]}))"]
    return lines


HELPERS = {"_hoist": _hoist, "_accumulate": _accumulate, "_add_rows": _add_rows,
           "_matmul": matmul}
"""The functions the rewritten lines call, by the names a kernel's source binds them to."""
