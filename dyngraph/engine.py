"""``apply(op, inputs, attrs)``: the one function every forward op goes through.

    compute with numpy  --->  nothing requires grad (or no_grad)?  -->  wrap, done
                                     |
                                     v
                        record a Node: parents, and what the
                        op's gradient rules read (nothing more)

The fast path is the common case when evaluating, so it does no dict or
ShapeRef work at all.  Recording keeps only what the rules of the inputs that
need a gradient read: ``x * 2`` with ``x`` requiring grad keeps ``2`` and a
ShapeRef of ``x``, never ``x``'s data.  Which names to keep for which inputs is
worked out once per (op, inputs-needing-grad) and cached as a plan.

:func:`binary` is the same steps specialised for the operators' two operands
(``x + y``, ``x * 2``, ``mm``): no argument list, no star-call, about 0.4 us less per op;
``apply`` of one Tensor (``x.tanh()``, ``x.sum()``, ``x.t()``, ``x[i]``) takes the same
kind of short path (:func:`_apply_one`).

dtype rules follow PyTorch where they differ from numpy: Python numbers are
weak (``float32 + 1.5`` stays float32, which numpy 2 also does) and integer
inputs that numpy would promote to float64 (``int / int``, ``int + 1.5``,
``exp(int)``) give the default float32.
"""
from __future__ import annotations

import weakref

import numpy as np

from common import REGISTRY, ShapeRef

from .creation import as_tensor
from .dtypes import get_default_dtype
from .errors import explain
from .anomaly import STATE as ANOMALY, remember_forward
from .grad_mode import STATE
from .multi_output import apply_multi
from .node import node_class, next_seq
from .tensor import Tensor, make

__all__ = ["apply", "binary", "record", "node_class_for", "base_counter", "plain_view", "TRACER",
           "OP_INFO"]

TRACER = None
"""``jit.trace`` sets this while it records; every op then goes through ``TRACER.apply``."""

_ndarray = np.ndarray
_new = object.__new__
_SCALARS = (int, float, bool, complex)
_EMPTY: dict = {}
_FLOAT32 = np.dtype(np.float32)
"""The default dtype's descriptor.  numpy hands out one object per built-in dtype, so
``out.dtype is _FLOAT32`` (~0.05 us) answers both questions every op asks of its result --
may it need a recast (``dtype.char in "dD"``) and can it record (``dtype.kind in "fc"``),
~0.13 us each, as numpy 2.4 builds those strings on every read -- for the common case;
any other dtype (a byte-swapped float32 included) takes the two string tests."""


class _OpInfo:
    """Per-op data computed once: node class, which inputs are differentiable, save plans,
    and for backward each input's rule with the saved names it reads."""

    __slots__ = ("cls", "diff", "variadic", "plans", "pairs", "keeps_dtype", "views", "rules",
                 "values", "single", "one_result")

    def __init__(self, op):
        self.cls = node_class(op.torch_name)
        self.variadic = op.variadic
        self.diff = tuple(r is not None for r in op.grads)
        self.plans: dict[int, SavePlan] = {}
        # the same plans by mask 1..3 for ``binary`` (a list index, not a dict lookup)
        self.pairs: list = [None] * 4
        # an op whose dtype attribute decides the result keeps it (no float64 -> float32)
        self.keeps_dtype = op.dtype_attr is not None
        # a result that may share input 0's memory shares its version counter too, so an
        # in-place change through either is seen by nodes that saved the other
        self.views = op.may_alias(0)
        # backward's fast path (not variadic): per input, the saved names its rule reads,
        # None when it also reads attributes (then ``op.vjp`` assembles its arguments);
        # the rule itself is read from ``op.grads`` at each call
        self.rules = None if op.variadic else tuple(
            tuple(ps) if rule is not None and all(p in op.saves for p in ps) else None
            for rule, ps in zip(op.grads, op.params))
        # saved names that may hold a Tensor (an input's value): backward unwraps them
        self.values = tuple(n for n in op.saves if n in op.inputs)
        # one result: ``apply`` of one Tensor takes the short path when nothing is recorded;
        # with one declared input (not variadic) also when it records
        self.one_result = op.outputs is None
        self.single = not op.variadic and self.one_result and len(op.inputs) == 1


_INFO = {op: _OpInfo(op) for op in REGISTRY.values()}
OP_INFO = _INFO
"""Per-op engine data by OpDef (backward reads ``rules`` and ``values``)."""


def node_class_for(op, form: str | None = None) -> type:
    """The node class of ``op`` recorded in call form ``form`` (the op's declared
    ``torch_names``; None: its usual ``torch_name``).  Eager functions call it once, at
    import, and pass the class to ``apply(..., cls=)``: no per-op name lookup."""
    return _INFO[op].cls if form is None else node_class(op.grad_fn_name(form))


class SavePlan:
    """What a node of one op saves when a given set of its inputs needs gradients.

    ``entries`` are ``(name, kind, index)`` with kinds "input" an input's value,
    "shape" a ShapeRef of an input, "output" the output's array, "inputs"/"shapes"
    the same for all inputs of a variadic op (``index`` is the input's position, 0
    for the others); ``frees`` says whether backward must release anything
    (ShapeRefs alone are kept, as PyTorch keeps sizes, so such nodes can be walked
    twice); ``saves_out`` whether the output is saved (its version is then checked);
    ``shape_pair`` names the two entries when they are the shapes of inputs 0 and 1
    and nothing else (``x + y``: recorded without the loop); ``pair`` the same steps
    as the loop of :func:`_save` for the operators' two operands, compiled for these
    entries (:func:`_pair_saver`).

    A slots class, not a tuple or NamedTuple: a slot read is as fast as ``plan[1]``
    (faster on CPython 3.11) where a NamedTuple field costs twice as much.
    """

    __slots__ = ("entries", "frees", "saves_out", "shape_pair", "pair")

    def __init__(self, entries: tuple, frees: bool, saves_out: bool, shape_pair: tuple | None):
        self.entries, self.frees, self.saves_out, self.shape_pair = (
            entries, frees, saves_out, shape_pair)
        self.pair = None if any(i > 1 or kind in ("inputs", "shapes") for _, kind, i in entries) \
            else _pair_saver(entries)


def _pair_saver(entries: tuple):
    """``save(a, b, out) -> (saved, versions)`` for a plan of the operators' two operands
    (``a`` a Tensor, ``b`` a Tensor or a Python number): :func:`_save`'s loop unrolled into
    straight-line code, generated once per plan: no tuple unpacking and kind tests per entry,
    the versions built as one tuple.  ``mm(W, h)`` recorded for both operands (four entries)
    2.86 -> 2.78 us (best of 15x3000 calls; near the noise of the loaded 2-core machine).
    :func:`_apply_one` calls it too, with no second operand."""
    lines, items, versions, b_version = ["def save(a, b, out):"], [], [], False
    for k, (name, kind, i) in enumerate(entries):
        x = "b" if i else "a"
        if kind == "shape":   # the tensor's own reference, else looked up and kept there
            ref = [f"r{k} = {x}._sref",
                   f"if r{k} is None:",
                   f"    d = {x}._data",
                   f"    r{k} = _BY_SHAPE.get(d.shape)",
                   f"    if r{k} is None or r{k}.dtype is not d.dtype:",
                   f"        r{k} = _ref(d)",
                   f"    {x}._sref = r{k}"]
            if i:   # b may be a Python number
                ref = ["if isinstance(b, Tensor):", *("    " + r for r in ref),
                       "else:", f"    r{k} = _ref(b)"]
            lines += ["    " + r for r in ref]
            items.append(f"{name!r}: r{k}")
        elif kind == "input":
            items.append(f"{name!r}: {x}")
            if i:
                b_version = True
            else:
                versions.append("(a, a._vc[0])")
        else:  # "output"
            items.append(f"{name!r}: out")
    # the versions of the saved inputs: one tuple, b's entry only when b is a Tensor
    mine = "".join(v + ", " for v in versions)
    if b_version:
        tail = f"(({mine}(b, b._vc[0]),) if isinstance(b, Tensor) else ({mine}))"
    else:
        tail = f"({mine})"
    lines.append(f"    return {{{', '.join(items)}}}, {tail}")
    scope = {"_BY_SHAPE": _BY_SHAPE, "_ref": _ref, "Tensor": Tensor}
    exec(compile("\n".join(lines) + "\n", f"<save plan {[e[0] for e in entries]}>", "exec"),
         scope)
    return scope["save"]


def _plan(op, mask: int) -> SavePlan:
    """What to save when the inputs in ``mask`` need gradients (see :class:`SavePlan`)."""
    if op.variadic:
        wanted = set(op.params[0])
    else:
        wanted = {p for i, ps in enumerate(op.params) if mask >> i & 1 for p in ps}
    entries = []
    for name in op.saves:
        if name not in wanted:
            continue
        if name == "out":
            entries.append((name, "output", 0))
        elif op.variadic:
            entries.append((name, "shapes" if name.endswith("_shape") else "inputs", 0))
        elif name.endswith("_shape"):
            entries.append((name, "shape", op.inputs.index(name.removesuffix("_shape"))))
        else:
            entries.append((name, "input", op.inputs.index(name)))
    frees = any(kind != "shape" and kind != "shapes" for _, kind, _ in entries)
    pair = (tuple(name for name, _, _ in entries)
            if [(kind, i) for _, kind, i in entries] == [("shape", 0), ("shape", 1)] else None)
    return SavePlan(tuple(entries), frees, "out" in wanted, _AB if pair == _AB else pair)


_AB = ("a_shape", "b_shape")
"""``x + y``'s and ``x - y``'s ``shape_pair``, one object: ``binary`` builds their saved dict
with constant keys when the plan's names are this very tuple."""


_REFS: dict = {}


def _tensor_ref(t: Tensor) -> ShapeRef:
    """``t``'s ShapeRef, looked up once and kept on the tensor (``Tensor._sref``).  ``binary``
    and the compiled savers (:class:`SavePlan`) spell these lines out inline: a call per
    operand is what they save."""
    ref = t._sref
    if ref is None:
        d = t._data
        ref = _BY_SHAPE.get(d.shape)
        if ref is None or ref.dtype is not d.dtype:
            ref = _ref(d)
        t._sref = ref
    return ref


def _ref(x) -> ShapeRef:
    """A shared ShapeRef per (shape, dtype): rules only read it, so one object serves all."""
    if isinstance(x, ShapeRef):  # a rule's input that is already a reference (create_graph)
        return x
    d = x._data if isinstance(x, Tensor) else np.asarray(x)
    key = (d.shape, d.dtype)
    ref = _REFS.get(key)
    if ref is None:
        if len(_REFS) > 4096:
            _REFS.clear()
            _BY_SHAPE.clear()
        ref = _REFS[key] = ShapeRef(d.shape, d.dtype)
    _BY_SHAPE[d.shape] = ref
    return ref


_BY_SHAPE: dict = {}
"""The last ShapeRef made or found per shape: recording looks here first (no (shape, dtype)
tuple to build and hash) and takes it when its dtype is the very same object."""


def record(op, inputs: tuple, attrs: dict, out: np.ndarray, cls=None, vc=None) -> Tensor:
    """Wrap ``out`` as the result of a new Node (if some differentiable input requires grad).

    ``vc``: the version counter to share when ``out`` is a view of an input.
    """
    info = _INFO[op]
    diff = info.diff
    parents, mask, i = [], 0, 0
    for x in inputs:
        if isinstance(x, Tensor) and x._rg and diff[0 if info.variadic else i]:
            parents.append(x.grad_fn or x._accum or x._accumulator())
            mask |= 1 << i
        else:
            parents.append(None)
        i += 1
    if not mask:
        return _view_of(make(out), vc)
    plan = info.plans.get(mask)
    if plan is None:
        plan = info.plans[mask] = _plan(op, mask)
    saved, versions = _save(plan, inputs, out)
    return _new_node(cls or info.cls, op, attrs, tuple(parents), saved, versions, plan, out, vc)


def _save(plan: SavePlan, inputs: tuple, out: np.ndarray) -> tuple[dict, list]:
    """What the node keeps for its rules (by rule parameter name), and the versions of the
    saved inputs (backward refuses them if they changed in place since)."""
    saved, versions = {}, []
    for name, kind, i in plan.entries:
        if kind == "shape":
            x = inputs[i]
            saved[name] = _tensor_ref(x) if isinstance(x, Tensor) else _ref(x)
        elif kind == "input":
            x = saved[name] = inputs[i]
            if isinstance(x, Tensor):
                versions.append((x, x._vc[0]))
        elif kind == "output":
            saved[name] = out
        elif kind == "inputs":
            saved[name] = list(inputs)
            versions.extend((x, x._vc[0]) for x in inputs if isinstance(x, Tensor))
        else:  # "shapes"
            saved[name] = [_ref(x) for x in inputs]
    return saved, versions


def _new_node(cls, op, attrs: dict, parents: tuple, saved: dict, versions, plan: SavePlan,
              out: np.ndarray, vc) -> Tensor:
    """The Node and its output Tensor (``make(out, True, node)``, written inline)."""
    node = _new(cls)
    node.op, node.attrs, node.parents = op, attrs, parents
    node.saved, node.versions, node.frees = saved, versions, plan.frees
    node.seq, node.hooks, node.retained = next_seq(), None, None
    if ANOMALY.on:
        remember_forward(node)
    t = _new(Tensor)
    t._data, t._rg, t.grad_fn = out, True, node
    vc = t._vc = vc or [0]
    t._grad = t._hooks = t._accum = t._sref = None
    node.out_vc = (vc, vc[0]) if plan.saves_out else None
    return t


def base_counter(base: Tensor) -> list:
    """``base``'s version counter, marked (once) with a weak reference to the memory's owner.

    ``[version]`` becomes ``[version, ref(owner)]``: in-place checks use it to
    refuse writing through a view into a leaf that requires grad.
    """
    vc = base._vc
    if len(vc) == 1:
        vc.append(weakref.ref(base))
    return vc


def plain_view(x: Tensor, out: np.ndarray) -> Tensor | None:
    """What ``apply`` of a view op (``x[i]``, ``x.t()``) returns when nothing records: ``out``,
    a non-empty view into ``x``'s memory, as a Tensor sharing ``x``'s version counter -- or
    None while ``jit.trace`` records (every op must reach it).  The callers check the rest
    (``x`` needs no gradient, ``out`` is a view of a non-empty ``x``); this skips the attribute
    dict, the keyword call of the impl, the dtype and sharing tests: ``xs[t]`` 1.20 -> 0.50 us,
    ``h.t()`` 1.05 -> 0.33 us (best of 15x3000 calls)."""
    if TRACER is not None:
        return None
    t = _new(Tensor)
    t._data, t._rg, t.grad_fn = out, False, None
    vc = x._vc
    if len(vc) == 1:
        vc.append(weakref.ref(x))
    t._vc = vc
    t._grad = t._hooks = t._accum = t._sref = None
    return t


def _shares(out: np.ndarray, x) -> bool:
    """``np.may_share_memory(out, x)`` for an op's result and its input, the common answers
    first: ``x`` itself shares; a result that owns its memory shares none (it is new); a view
    of ``x`` or of ``x``'s owner shares (numpy collapses a view's ``base`` to the owner).
    About 0.4 us less on every view op (``x.t()``, ``x[i]``, reshapes)."""
    if out.size and x.size:   # (empty arrays share nothing, whatever their bases)
        if out is x:
            return True
        base = out.base
        if base is None:
            return False
        if base is x or base is x.base:
            return True
    return np.may_share_memory(out, x)


def _view_of(t: Tensor, vc) -> Tensor:
    if vc is not None:
        t._vc = vc
    return t


def _torch_dtype(out: np.ndarray, inputs) -> np.ndarray:
    """A float64 (complex128) result recast where PyTorch's promotion gives a narrower one.

    PyTorch ranks operands: tensors with dims, then 0-dim tensors, then Python
    numbers, each only counting when it raises the category (int < float < complex).
    So ``float32[3] + float64 0-dim`` is float32, ``int + 1.5`` is the default dtype
    (float32 unless changed) and ``float32[3] * complex128 0-dim`` is complex64, where
    numpy says float64 and complex128.
    """
    dims, zero, wrapped = [], [], None
    for x in inputs:
        d = getattr(x, "_data", x)
        dt = getattr(d, "dtype", None)
        if dt is not None and dt.kind in "fc":
            (dims if d.ndim else zero).append(dt)
        elif type(d) is complex:
            wrapped = get_default_dtype().to_complex().np
    target = _combine(np.result_type(*dims) if dims else None,
                      _combine(np.result_type(*zero) if zero else None, wrapped))
    if target is None:
        target = get_default_dtype().np
    if out.dtype.kind == "c" and target.kind == "f":
        target = np.result_type(target, np.complex64)
    return out if target == out.dtype else out.astype(target)


def _combine(higher, lower):
    """PyTorch's ``combine_categories`` over float/complex dtypes (None: no such operand): the
    higher-ranked group's dtype, made complex when only the lower one is complex."""
    if higher is None or lower is None:
        return lower if higher is None else higher
    if lower.kind == "c" and higher.kind == "f":
        return np.result_type(higher, np.complex64)
    return higher


def apply(op, inputs: tuple, attrs: dict = _EMPTY, cls=None) -> Tensor:
    """Run ``op`` on ``inputs`` (Tensors, Python numbers, ShapeRefs) now; record if needed."""
    if TRACER is not None:
        return TRACER.apply(op, inputs, attrs, cls)
    info = _INFO[op]
    if info.one_result and len(inputs) == 1:
        x = inputs[0]
        if isinstance(x, Tensor) and (info.single or not x._rg):
            return _apply_one(op, info, x, attrs, cls)
    arrays, needs = [], False
    for x in inputs:
        if isinstance(x, Tensor):
            arrays.append(x._data)
            needs = needs or x._rg
        elif isinstance(x, np.generic):
            arrays.append(x.item())
        else:
            arrays.append(x)
    if op.outputs is not None:   # several results: one call node (see multi_output.py)
        vc = base_counter(inputs[0]) if _INFO[op].views and isinstance(inputs[0], Tensor) else None
        try:
            return apply_multi(op, inputs, attrs, arrays, needs, vc, cls)
        except Exception as e:
            raise explain(op, inputs, e) from None
    try:
        out = op.impl(*arrays, **attrs)
    except Exception as e:
        raise explain(op, inputs, e) from None
    if type(out) is not _ndarray:
        out = np.asarray(out)
    dt = out.dtype
    if dt is not _FLOAT32 and dt.char in "dD" and not info.keeps_dtype:
        out = _torch_dtype(out, inputs)
        dt = out.dtype
    vc = None
    if info.views and isinstance(inputs[0], Tensor) and _shares(out, arrays[0]):
        vc = base_counter(inputs[0])
    if needs and STATE.enabled and (dt is _FLOAT32 or dt.kind in "fc"):
        return record(op, inputs, attrs, out, cls, vc)
    return _view_of(make(out), vc)


def _apply_one(op, info: _OpInfo, x: Tensor, attrs: dict, cls) -> Tensor:
    """``apply`` of an op to one Tensor (``x.exp()``, ``x.sum()``, ``x.t()``, ``x[i]``): the
    same steps without the input loop.  It records too (reached for that only with ops of one
    declared input: ``apply`` sends others here only when ``x`` needs no gradient), the steps
    of ``record`` inline as in :func:`binary`, the saved values through the plan's compiled
    saver (:func:`_pair_saver`, called with no second operand).  With this session's other
    changes, recorded on a (20, 1) float32: ``x.exp()`` 1.33 -> 1.24 us, ``x.tanh()`` 1.29 ->
    1.25 us, ``x.sum()`` 2.62 -> 2.10 us (best of 21x3000 calls, A/B alternated)."""
    xd = x._data
    try:
        out = op.impl(xd, **attrs) if attrs else op.impl(xd)
    except Exception as e:
        raise explain(op, (x,), e) from None
    if type(out) is not _ndarray:
        out = np.asarray(out)
    dt = out.dtype
    if dt is not _FLOAT32 and dt.char in "dD" and not info.keeps_dtype \
            and xd.dtype.char not in "dD":
        out = _torch_dtype(out, (xd,))
        dt = out.dtype
    vc = base_counter(x) if info.views and _shares(out, xd) else None
    if not (x._rg and info.diff[0] and STATE.enabled and (dt is _FLOAT32 or dt.kind in "fc")):
        t = make(out)
        if vc is not None:
            t._vc = vc
        return t
    plan = info.pairs[1]
    if plan is None:
        plan = info.pairs[1] = info.plans[1] = _plan(op, 1)
    saved, versions = plan.pair(x, None, out)
    node = _new(cls or info.cls)
    node.op, node.attrs, node.parents = op, attrs, (x.grad_fn or x._accum or x._accumulator(),)
    node.saved, node.versions, node.frees = saved, versions, plan.frees
    node.seq, node.hooks, node.retained = next_seq(), None, None
    if ANOMALY.on:
        remember_forward(node)
    t = _new(Tensor)
    t._data, t._rg, t.grad_fn = out, True, node
    vc = t._vc = vc or [0]
    t._grad = t._hooks = t._accum = t._sref = None
    node.out_vc = (vc, vc[0]) if plan.saves_out else None
    return t


def binary(op, a: Tensor, b, cls=None) -> Tensor:
    """``apply`` for a Tensor and a Tensor-or-number (the operators' path, kept short).

    It records too, ``record`` -> ``_save`` -> ``_new_node`` written inline: this is the path
    of every recorded operator, and the calls cost ~3% of ``x + y`` and ~8% of ``x * y``
    (measured A/B in one process, best of 100 alternating runs; re-measured for issue 27 with
    ``_save`` and ``_new_node`` called: ``x * y`` 7.9 -> 9.7 us, ``x * c`` 6.4 -> 8.4 us;
    the last call, to a ``_record_pair``, is inlined too since session 39, which with the
    tensors' kept ShapeRefs, the compiled savers and stores of at most three targets took
    ``y = y + c`` (16x16, both recorded) 1.55 -> 1.15 us an op: best of 15 chains of 100,
    A/B alternated against the session's start).
    When both operands need gradients and the rules keep only their two shapes (``x + y``),
    the two shape references are taken without the plan's saver (tensors keep theirs:
    ``Tensor._sref``).  The plan's fields are named (:class:`SavePlan` slots)."""
    if TRACER is not None:
        return TRACER.apply(op, (a, b), _EMPTY, cls)
    if isinstance(b, Tensor):
        bd, brg = b._data, b._rg
    elif type(b) in _SCALARS:
        bd, brg = b, False
    elif isinstance(b, np.generic):
        return binary(op, a, b.item(), cls)
    else:
        return apply(op, (a, as_tensor(b)), _EMPTY, cls)
    ad = a._data
    try:
        out = op.impl(ad, bd)
    except Exception as e:
        raise explain(op, (a, b), e) from None
    if type(out) is not _ndarray:
        out = np.asarray(out)
    dt = out.dtype
    if dt is not _FLOAT32 and dt.char in "dD" and not (ad.ndim and ad.dtype.char == dt.char):
        out = _torch_dtype(out, (ad, bd))
        dt = out.dtype
    if not ((a._rg or brg) and STATE.enabled and (dt is _FLOAT32 or dt.kind in "fc")):
        t = _new(Tensor)   # make(out), inline: one call less on every unrecorded operator
        t._data, t._rg, t.grad_fn = out, False, None
        t._vc = [0]
        t._grad = t._hooks = t._accum = t._sref = None
        return t
    info = _INFO[op]
    da, db = info.diff
    pa = pb = None
    mask = 0
    if a._rg and da:
        pa = a.grad_fn or a._accum or a._accumulator()
        mask = 1
    if db and brg:
        pb = b.grad_fn or b._accum or b._accumulator()
        mask |= 2
    if not mask:
        return make(out)
    plan = info.pairs[mask]
    if plan is None:
        plan = info.pairs[mask] = info.plans[mask] = _plan(op, mask)
    names = plan.shape_pair
    if names is not None and mask == 3:
        ra = a._sref
        if ra is None:
            d = a._data
            ra = _BY_SHAPE.get(d.shape)
            if ra is None or ra.dtype is not d.dtype:
                ra = _ref(d)
            a._sref = ra
        rb = b._sref
        if rb is None:
            d = b._data
            rb = _BY_SHAPE.get(d.shape)
            if rb is None or rb.dtype is not d.dtype:
                rb = _ref(d)
            b._sref = rb
        saved = {"a_shape": ra, "b_shape": rb} if names is _AB else {names[0]: ra, names[1]: rb}
        versions = ()
        # (Add, Sub, Complex: the result has the operands' broadcast shape, so when both are
        # the very same reference and the dtype did not change, it is the result's too)
        sref = ra if ra is rb and dt is ra.dtype else None
    else:
        saved, versions = plan.pair(a, b, out)
        sref = None
    node = _new(cls or info.cls)
    node.op, node.attrs, node.parents = op, _EMPTY, (pa, pb)
    node.saved, node.versions, node.frees = saved, versions, plan.frees
    node.seq, node.hooks, node.retained = next_seq(), None, None
    if ANOMALY.on:
        remember_forward(node)
    t = _new(Tensor)
    t._data, t._rg, t.grad_fn = out, True, node
    vc = [0]
    t._vc, t._sref = vc, sref
    t._grad = t._hooks = t._accum = None
    node.out_vc = (vc, 0) if plan.saves_out else None
    return t


