"""The op registry: every op is declared once, here, and both engines interpret it.

An op is *data*, an engine is an *interpreter*::

                    OpDef("Mul")
          impl  ---------------------  numpy forward, run by both engines
          infer ---------------------  shape/dtype on partial shapes (static engine, build time)
          grads ---------------------  one VJP rule per input, written against ``F``

A gradient rule never touches numpy.  It receives ``F``, a namespace with one
function per registry op (``F.mul``, ``F.sum``, ...), and the engine decides
what applying an op means:

* eager backward: ``F`` computes on numpy arrays right away;
* eager ``create_graph=True``: ``F`` computes on recorded tensors (so the
  gradient itself has a graph, giving higher derivatives);
* static ``gradients()``: ``F`` adds nodes to the graph.

That is why one rule serves all three (TF's gradient registry and PyTorch's
``derivatives.yaml`` work the same way).

What a backward step must keep is *derived* from the rules' parameter names
(see :func:`defop`): a rule ``def d_a(F, g, b)`` reads input ``b``, a rule
that names ``out`` reads the output, ``a_shape`` reads only the shape and dtype
of ``a`` (a cheap :class:`ShapeRef` in the eager engine).  Nothing else is kept.
"""
from __future__ import annotations

import inspect
import operator
import types
from types import MappingProxyType
from typing import Any, Callable, Mapping, NamedTuple, Sequence

import numpy as np

__all__ = ["OpDef", "Spec", "ShapeRef", "Algebra", "REGISTRY", "defop", "get_op", "Namespace",
           "numpy_namespace"]


class Spec(NamedTuple):
    """What the static engine knows about a tensor before running: shape and dtype.

    ``shape`` is a tuple whose entries are ints or ``None`` (unknown size), or
    ``None`` for unknown rank.  ``dtype`` is a ``numpy.dtype``.
    """

    shape: tuple | None
    dtype: np.dtype


class ShapeRef:
    """Stands for "a tensor of this shape and dtype" without holding its data.

    Gradient rules that only need an input's shape (``sum``'s rule broadcasts
    back to it, ``reshape``'s reshapes back) name ``x_shape``; the eager engine
    then keeps a ShapeRef instead of the array.  ndarrays and the static
    engine's symbolic tensors offer the same three attributes, so the shape
    ops accept any of them as a reference.

    >>> ShapeRef((2, 3), np.float32).ndim
    2
    """

    __slots__ = ("shape", "dtype", "ndim")

    def __init__(self, shape: tuple, dtype: np.dtype):
        self.shape = shape
        self.dtype = dtype
        self.ndim = len(shape)

    def __repr__(self) -> str:
        return f"ShapeRef({self.shape}, {np.dtype(self.dtype).name})"


class Algebra(NamedTuple):
    """What the static simplifier may assume about an op's *values* (rewrites stay bit-exact).

    ``passthrough``: the result is input 0 itself (Identity, StopGradient).
    ``involution``: ``f(f(x)) == x`` bit for bit (Neg).
    ``reshape``: input 0's elements, same order, another shape (Reshape, ExpandDims...).
    ``replicate``: every element is a copy of one of input 0's (broadcasts).
    ``same_shape_noop``: when input 0 already has the output's shape and dtype, the result
    equals it (every reshape and broadcast, SumLike).
    ``same_dtype_noop``: when input 0 already has the output's dtype, the result equals it (Cast).
    ``permutes``: a permutation of axes given by the ``perm`` attribute (Transpose composes).
    ``neutral``: the identity element on each side, or None: ``x * 1``, ``x + (-0.0)``,
    ``x - (+0.0)``, ``x / 1``.  A signed zero is matched with its sign.
    ``fills``: every element of the result equals this value (OnesLike 1, ZerosLike +0.0).
    """

    passthrough: bool = False
    involution: bool = False
    reshape: bool = False
    replicate: bool = False
    same_shape_noop: bool = False
    same_dtype_noop: bool = False
    permutes: bool = False
    neutral: tuple = (None, None)
    fills: float | None = None


NO_ALGEBRA = Algebra()


class OpDef:
    """One registered op.  Built by :func:`defop`; read by both engines.

    Attributes:
        name: TF-style op type, e.g. ``"MatMul"`` (also the static node's type).
        fname: the ``F`` namespace name, e.g. ``"matmul"``.
        inputs: input names; a single ``"*xs"`` makes the op variadic.
        impl: ``impl(*arrays, **attrs) -> ndarray`` (numpy forward).
        infer: ``infer(*specs, **attrs) -> Spec`` (static shape/dtype rule).
        grads: one rule (or ``None`` = not differentiable) per input.
        params: for each rule, the names it reads besides ``F`` and ``g``.
        saves: union of ``params`` that are inputs, shapes or ``out``.
        torch_name: the PyTorch ``grad_fn`` class name, e.g. ``MulBackward0``.
        torch_names: the names PyTorch gives this op's node in other call forms, by a key
            the eager function that records it passes (``Sum``: ``{"dim": "SumBackward1"}``
            for ``x.sum(0)``, where ``x.sum()`` is ``torch_name``, ``SumBackward0``).  PyTorch
            names a node after the overload that recorded it, so one op here may print
            several names; every one is declared on the op (see :meth:`grad_fn_name`).
        examples: example inputs ``(args, attrs)`` driving the test-suite.

    Facts every consumer reads here, never from a list of op names elsewhere:

        aliases: input positions whose memory the result may share (a view, or the input
            itself); empty means the result is always a new, writeable array.  The eager
            engine shares version counters along these; the static compiler tracks buffer
            holders with them and copies a fetched value that may alias state.  A registry
            test checks every example against ``np.shares_memory``.
        shape_only: input positions the impl reads only for ``.shape``/``.dtype`` (the
            ``*Like`` refs), or ``"rest"``: every input after the first (variadic ops).
        dtype_attr: the attribute that fixes the result dtype (Cast's ``dtype``), or None.
        stateful: the op has an effect or draws random numbers: never folded, merged,
            dropped or reordered by a pass.
        algebra: what the simplifier may assume (:class:`Algebra`).
        sized_by_values: some output dims depend on input *values* (``tf.where(c)``'s row
            count): ``infer`` leaves them None, and the registry tests check compatibility.
        outputs: None for the usual one result; else how many the op returns -- an int, or
            a function of the attributes (``Split``: one per piece).  Such an op is ONE node
            with several outputs in both engines (TF's ``split:0``, ``split:1``; PyTorch's
            one ``SplitBackward0`` for all pieces): ``impl`` returns a tuple of arrays,
            ``infer`` a tuple of Specs, ``out`` in a rule is the tuple of results, and ``g``
            is the tuple of their cotangents (the engines pass zeros for a float result that
            got no gradient, None for a non-float one such as ``top_k``'s indices).
        undefined_grads: positions of results whose missing cotangent the rules receive as
            None (PyTorch's undefined gradient, which its formulas test with ``defined()``)
            rather than as zeros of the result's size: a workspace that only the op's own
            gradient reads (``LSTMLayer``'s), whose cotangent is None except in higher-order
            gradients -- no zero array of its size is made on every backward.
        into: the op's in-place form, or None: ``into(*inputs, **attrs)`` returns what
            ``impl`` returns, written into input 0's own buffer when it fits (a fresh array
            when it does not).  Only a compiler that owns that buffer, and knows nothing
            reads it afterwards, may call it (a loop's carried TensorArray buffer).
        tf_type: the op type TF 2 gives such a node when it differs from ``name`` (``Add`` is
            ``AddV2``: what ``(a + b).op.type`` prints); staticgraph shows it as ``op.type``.
        expr: the op as a Python expression, or None: ``expr(*arg_names, **attrs)`` returns
            source text over those names computing what ``impl`` computes for them (the
            same values, shape and dtype; an index array may give a copy where impl gives a
            view), or None for attributes it has no such form for.  A code generator writes
            it in place of a kernel call (``x.transpose((1, 0))``, ``xs[i]``), saving the call
            and the attribute binding -- most of such a small op's cost.
        scalar: the op's per-element form, for an op whose ``impl`` is not itself a ufunc:
            ``scalar(*arg_names)`` returns source over scalar arguments computing one element
            of ``impl``'s result with the same operations in the same order (the same bits)
            when every input is a scalar or has the result's shape -- ``AddN``'s
            ``((a + b) + c)``, ``BroadcastLike``'s ``x``.  A fused elementwise loop
            (``staticgraph.compiler.fuse``) writes it per element.
        approx_scalar: the op's per-element form where it differs from ``impl``'s bits (a
            transcendental: ``Exp``, ``Tanh``, ``Sigmoid``): ``approx_scalar(arg_name)``
            returns source calling :mod:`common.vmath` (``vmath.sigmoid(x)``), within a few
            ulps of ``impl``.  A fused loop uses it only under ``PassConfig(fast_math=True)``;
            with ``fast_math=False`` such an op is left to numpy (its exact bits).
    """

    __slots__ = ("name", "fname", "inputs", "variadic", "impl", "infer", "grads",
                 "params", "saves", "defaults", "torch_name", "torch_names", "examples", "doc",
                 "aliases", "shape_only", "dtype_attr", "stateful", "algebra", "sized_by_values",
                 "outputs", "undefined_grads", "into", "tf_type", "expr", "static_impl", "scalar",
                 "approx_scalar")

    def __init__(self, name, fname, inputs, impl, infer, grads, torch_name, examples, doc,
                 aliases=(), shape_only=(), dtype_attr=None, stateful=False, algebra=NO_ALGEBRA,
                 sized_by_values=False, outputs=None, into=None, tf_type=None, expr=None,
                 torch_names=None, static_impl=None, scalar=None, approx_scalar=None,
                 undefined_grads=()):
        self.name = name
        self.fname = fname
        self.variadic = inputs == ("*xs",)
        self.inputs = ("xs",) if self.variadic else tuple(inputs)
        self.impl = impl
        self.infer = infer
        self.grads = tuple(grads)
        self.params = tuple(_rule_params(r) if r else () for r in self.grads)
        self.saves = _saved_names(self.params, self.inputs)
        self.defaults = _defaults(impl)
        self.torch_name = torch_name
        self.torch_names = MappingProxyType(dict(torch_names or {}))
        self.examples = examples
        self.doc = doc
        self.aliases = frozenset(aliases)
        self.shape_only = shape_only if shape_only == "rest" else frozenset(shape_only)
        self.dtype_attr = dtype_attr
        self.stateful = stateful
        self.algebra = algebra
        self.sized_by_values = sized_by_values
        self.outputs = outputs
        self.undefined_grads = frozenset(undefined_grads)
        self.into = into
        self.tf_type = tf_type or name
        self.expr = expr
        self.static_impl = static_impl
        self.scalar = scalar
        self.approx_scalar = approx_scalar

    @property
    def multi_output(self) -> bool:
        """Does the op return a tuple of results (``outputs`` declared)?"""
        return self.outputs is not None

    def n_outputs(self, attrs: dict) -> int:
        """How many results the op returns with these attributes."""
        n = self.outputs
        return 1 if n is None else n if isinstance(n, int) else n({**self.defaults, **attrs})

    @property
    def differentiable(self) -> bool:
        return any(r is not None for r in self.grads)

    def save(self, inputs: Sequence, out: Any, ref: Callable = lambda x: x) -> dict:
        """What a backward step keeps: exactly what the rules read.

        ``ref(x)`` makes a shape reference for ``<input>_shape`` parameters
        (the eager engine passes ``ShapeRef``-making function; the static
        engine keeps the symbolic tensor itself).
        """
        saved = {}
        for name in self.saves:
            if name == "out":
                saved[name] = out
            elif name.endswith("_shape"):
                saved[name] = ([ref(x) for x in inputs] if self.variadic
                               else ref(inputs[self.inputs.index(name.removesuffix("_shape"))]))
            else:
                saved[name] = list(inputs) if self.variadic else inputs[self.inputs.index(name)]
        return saved

    def vjp(self, i: int, F: "Namespace", g: Any, saved: dict, attrs: dict) -> Any:
        """The gradient for input ``i`` given output cotangent ``g`` (None: no gradient)."""
        k = 0 if self.variadic else i
        rule = self.grads[k]
        if rule is None:
            return None
        args = [saved[p] if p in saved else (i if p == "index" else attrs.get(p, self.defaults.get(p)))
                for p in self.params[k]]
        return rule(F, g, *args)

    def grad_fn_name(self, form: str | None = None) -> str:
        """PyTorch's ``grad_fn`` class name for this op recorded in call form ``form``
        (None: the usual form, ``torch_name``); an undeclared form is a KeyError naming the
        declared ones, so a misspelt key fails where the eager function is defined."""
        if form is None:
            return self.torch_name
        try:
            return self.torch_names[form]
        except KeyError:
            raise KeyError(f"op {self.name!r} declares no torch name for call form {form!r}; "
                           f"declared: {sorted(self.torch_names)}") from None

    def spelled(self, args: Sequence[str], attrs: dict) -> str | None:
        """``expr`` for these argument names and attributes (None: no expression form)."""
        return None if self.expr is None else self.expr(*args, **{**self.defaults, **attrs})

    def reads_shape_only(self, i: int) -> bool:
        """Does the impl read input ``i`` for its shape and dtype only (never its values)?"""
        return i > 0 if self.shape_only == "rest" else i in self.shape_only

    def may_alias(self, i: int) -> bool:
        """May the result share memory with input ``i``?"""
        return i in self.aliases

    def input_differentiable(self, i: int) -> bool:
        return self.grads[0 if self.variadic else i] is not None

    def __repr__(self) -> str:
        return f"<OpDef {self.name}({', '.join(self.inputs)})>"


REGISTRY: dict[str, OpDef] = {}


def defop(name: str, impl: Callable, infer: Callable, *, inputs: Sequence[str],
          grads: Sequence[Callable | None] = (), fname: str | None = None,
          torch_name: str | None = None, torch_names: Mapping[str, str] | None = None,
          examples: Sequence = (),
          doc: str = "", aliases: Sequence[int] = (), shape_only: Sequence[int] | str = (),
          dtype_attr: str | None = None, stateful: bool = False,
          algebra: Algebra = NO_ALGEBRA, sized_by_values: bool = False,
          outputs: int | Callable[[dict], int] | None = None,
          into: Callable | None = None, tf_type: str | None = None,
          static_impl: Callable | None = None,
          expr: Callable | None = None, scalar: Callable | None = None,
          approx_scalar: Callable | None = None,
          undefined_grads: Sequence[int] = ()) -> OpDef:
    """Declare an op.  Its rules are read once, here.

    ``grads`` holds one rule per input (``None`` where the input is not
    differentiable; omitted entirely for ops with no gradient).  A rule is
    ``rule(F, g, *named)`` where every name after ``g`` is one of: an input
    name (its value), ``<input>_shape`` (a reference to its shape/dtype),
    ``out`` (the op's output), ``index`` (position of the input, for variadic
    ops) or an attribute name.  Names are resolved by the engines via
    :meth:`OpDef.params`.

    ``torch_name`` is the name PyTorch prints for the node (``type(y.grad_fn).__name__``,
    default ``<name>Backward0``); ``torch_names`` maps a call-form key to the name PyTorch
    prints when the op is recorded in that form -- by another overload (``x.sum(0)``:
    ``SumBackward1``) or by a torch function that is this op applied once (``Select`` recorded
    by ``masked_fill`` is ``MaskedFillBackward0``).  The eager function that records the form
    passes its key (:meth:`OpDef.grad_fn_name`); no ``grad_fn`` name is written anywhere else.

    ``static_impl(*input_shapes)``: a kernel the static engine may use instead of ``impl`` for a
    node whose input shapes (tuples with None dims, or None) it knows when it compiles -- an
    algorithm chosen once per call site; None keeps ``impl``.  It must give ``impl``'s values
    (the registry tests run both on every example).

    >>> op = defop("Neg", np.negative, lambda x: x, inputs=("x",),
    ...            grads=(lambda F, g: F.neg(g),), examples=())  # doctest: +SKIP
    """
    if name in REGISTRY:
        raise ValueError(f"op {name!r} is already registered")
    if not grads:
        grads = (None,) * (1 if inputs == ("*xs",) else len(inputs))
    op = OpDef(name, fname or _snake(name), tuple(inputs), impl, infer, grads,
               torch_name or f"{name}Backward0", tuple(examples), doc or (impl.__doc__ or ""),
               aliases, shape_only, dtype_attr, stateful, algebra, sized_by_values, outputs, into,
               tf_type, expr, torch_names, static_impl, scalar, approx_scalar, undefined_grads)
    REGISTRY[name] = op
    return op


def get_op(name: str) -> OpDef:
    """The registered op called ``name`` (TF-style type name, e.g. ``"Add"``)."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError(f"no op named {name!r} in the registry; known: {sorted(REGISTRY)}") from None


class Namespace:
    """``F``: one method per registry op, bound to an engine's ``apply``.

    ``apply(op, inputs, attrs)`` is the engine's single entry point.  Gradient
    rules and composites call ``F.mul(a, b)``, ``F.sum(x, axis=0)``... and never
    know which engine they run in.  The three helpers below answer static
    questions the rules need (rank, static shape, dtype) for any value kind.

    >>> F = Namespace(lambda op, xs, attrs: op.impl(*xs, **attrs))
    >>> F.add(1.0, 2.0)
    3.0
    """

    def __init__(self, apply: Callable[[OpDef, tuple, dict], Any]):
        for op in REGISTRY.values():
            setattr(self, op.fname, _bind(apply, op))

    @staticmethod
    def shape(x) -> tuple | None:
        """The static shape of ``x`` (may hold ``None`` in the static engine)."""
        s = x.shape
        return tuple(s) if s is not None else None

    @staticmethod
    def rank(x) -> int:
        return x.ndim

    @staticmethod
    def dtype(x) -> np.dtype:
        return np.dtype(getattr(x, "np_dtype", None) or x.dtype)


def _bind(apply, op):
    def call(*xs, **attrs):
        return apply(op, xs, attrs)
    call.__name__ = op.fname
    call.__doc__ = op.doc
    return call


_STAR_ARGS = inspect.CO_VARARGS | inspect.CO_VARKEYWORDS


def _parameters(fn) -> tuple[str, ...]:
    """``fn``'s parameter names, read off its code object when it has one.

    ``inspect.signature`` builds a Signature object per call; with ~150 ops and ~270
    rules registered at import, reading ``__code__`` directly saves a few ms of every
    ``import`` (the fallback serves builtins and partials).
    """
    code = getattr(fn, "__code__", None)
    if not isinstance(fn, types.FunctionType) or code.co_flags & _STAR_ARGS:
        return tuple(inspect.signature(fn).parameters)
    return code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]


def _defaults(fn) -> dict:
    """``{name: default}`` of ``fn``'s parameters that have one (as ``inspect.signature``)."""
    if not isinstance(fn, types.FunctionType):
        return {p.name: p.default for p in inspect.signature(fn).parameters.values()
                if p.default is not inspect.Parameter.empty}
    code = fn.__code__
    positional = code.co_varnames[:code.co_argcount]
    out = dict(zip(positional[len(positional) - len(fn.__defaults__ or ()):], fn.__defaults__ or ()))
    out.update(fn.__kwdefaults__ or {})
    return out


def _rule_params(rule) -> tuple[str, ...]:
    names = list(_parameters(rule))
    if names[:2] != ["F", "g"]:
        raise TypeError(f"gradient rule {rule} must start with parameters (F, g)")
    return tuple(names[2:])


def _saved_names(params, inputs) -> tuple[str, ...]:
    wanted = {p for ps in params for p in ps}
    values = [n for n in inputs if n in wanted]
    shapes = [n + "_shape" for n in inputs if n + "_shape" in wanted]
    return tuple(values + shapes + (["out"] if "out" in wanted else []))


def _snake(name: str) -> str:
    out = []
    for i, c in enumerate(name):
        if c.isupper() and i and not name[i - 1].isupper():
            out.append("_")
        out.append(c.lower())
    return "".join(out)


def numpy_namespace(bound: bool = False) -> Namespace:
    """``F`` that computes right away on numpy arrays (the eager engine's backward uses it).

    ``bound=True``: each method *is* the op's impl (one Python call less per
    op, which a backward walk over small tensors feels), and ``F.shape`` and
    ``F.rank`` read ``.shape`` and ``.ndim`` as they are (already a tuple and an
    int for arrays and ShapeRefs).  Such an F keeps the impls of the moment it
    was made: callers use it only while :func:`common.numerics.enabled` is False
    (checking swaps the impls).
    """
    F = Namespace(lambda op, xs, attrs: op.impl(*xs, **attrs))
    if bound:
        for op in REGISTRY.values():
            setattr(F, op.fname, op.impl)
        F.shape = operator.attrgetter("shape")
        F.rank = operator.attrgetter("ndim")
    return F
