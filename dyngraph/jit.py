"""``jit.trace``: run a function once eagerly, record the ops it ran, replay them as a static graph.

::

    trace(fn, (x,))
      engine.TRACER = tracer        every dyngraph op now also adds a staticgraph node:
      out = fn(x)                   x -> Placeholder; Tanh(x) -> Tanh(%x) ...
      engine.TRACER = None
      -> TracedFunction: a staticgraph ConcreteFunction (compiled once) + autograd glue

What the trace cannot see is frozen: Python control flow runs once, on the
example, so ``if x.sum() > 0:`` keeps the branch the example took (a
:class:`TracerWarning` names the line that turned a tensor into a Python
value).  Tensors the function creates become constants; tensors it reads from
outside that require grad (parameters) become inputs fed with their current
value on every call, so the traced function sees optimizer updates and gives
them gradients.  The outputs of a call join dyngraph's autograd through one
``DifferentiableGraphBackward`` node whose gradient is the traced graph's own
vector-Jacobian product.  With ``create_graph=True`` that product runs as a
traced call itself (its graph is the VJP's, built once), recorded on the tape
the same way, so gradients of gradients work to any order.

This module is the one bridge between the two engines.  Elsewhere dyngraph
never imports staticgraph, except to hand a graph this module traced to
staticgraph's exporters (``dyngraph.onnx``, ``SummaryWriter.add_graph``), and
staticgraph never imports dyngraph.  The bridge itself imports staticgraph only
when a trace is made, so ``import dyngraph`` does not load the other engine.
"""
from __future__ import annotations

import os
import sys
import warnings
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from . import engine, methods
from .grad_mode import STATE, no_grad
from .nn.module import Module
from .node import next_seq, node_class
from .tensor import Tensor, make, rebase

__all__ = ["trace", "TracedFunction", "TracerWarning", "TracingError"]

if TYPE_CHECKING:
    import staticgraph as sg
    from staticgraph.control.function import ConcreteFunction

_HERE = os.path.dirname(os.path.abspath(__file__)) + os.sep


class TracerWarning(UserWarning):
    """A value the trace cannot follow (a tensor turned into a Python value) was used."""


class TracingError(RuntimeError):
    """Something the trace cannot record (an untracked in-place write, a non-tensor output)."""


_CONVERSIONS = {  # Tensor method -> what PyTorch's warning says it converts the tensor to
    "__bool__": "a Python boolean", "item": "a Python number", "__float__": "a Python float",
    "__int__": "a Python integer", "__index__": "a Python index", "tolist": "a Python list",
    "numpy": "a NumPy array",
}


def _user_line() -> tuple[str, int]:
    frame = sys._getframe(2)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_HERE):
        frame = frame.f_back
    return (frame.f_code.co_filename, frame.f_lineno) if frame else ("<unknown>", 0)


class _Tracer:
    """Maps each live dyngraph Tensor to the staticgraph Tensor that computes it."""

    def __init__(self, graph: sg.Graph):
        self.graph = graph
        self.symbols: dict[int, tuple[Tensor, sg.Tensor, int, bool]] = {}  # id -> (t, sym, version, dep)
        self.params: list[Tensor] = []
        self.param_syms: list[sg.Tensor] = []
        self.converting_now = False

    def bind(self, t: Tensor, sym: sg.Tensor, dependent: bool) -> None:
        self.symbols[id(t)] = (t, sym, t._vc[0], dependent)

    def lookup(self, t: Tensor) -> sg.Tensor:
        entry = self.symbols.get(id(t))
        if entry is not None and entry[0] is t:
            if entry[2] != t._vc[0]:
                raise TracingError(
                    f"{'%s:%d' % _user_line()}: a traced tensor was modified in place by an "
                    f"operation the trace cannot record (index assignment, fill_, zero_, copy_); "
                    f"compute a new tensor instead (torch.where, torch.cat, x = x * 0).")
            return entry[1]
        import staticgraph as sg  # the engines never import each other at module level
        with self.graph.as_default():
            if t._rg and t.grad_fn is None:          # a parameter: an input fed at every call
                sym = sg.placeholder(t._data.dtype, t._data.shape, name="param")
                self.params.append(t)
                self.param_syms.append(sym)
            else:                                    # made inside fn, or a plain captured tensor
                sym = sg.constant(t._data.copy())
        self.bind(t, sym, dependent=bool(t._rg))
        return sym

    def depends(self, x: Any) -> bool:
        entry = self.symbols.get(id(x)) if isinstance(x, Tensor) else None
        return entry is not None and entry[0] is x and entry[3]

    # --- the hook: every dyngraph op while tracing ------------------------------------
    def apply(self, op, inputs: tuple, attrs: dict, cls) -> Tensor:
        engine.TRACER = None
        try:
            out = engine.apply(op, inputs, attrs, cls)
        finally:
            engine.TRACER = self
        args = tuple(self.lookup(x) if isinstance(x, Tensor) else
                     x.item() if isinstance(x, np.generic) else x for x in inputs)
        import staticgraph as sg  # (as in lookup: only while tracing)
        from staticgraph.framework.build import apply as static_apply
        multi = op.outputs is not None      # several results: one node, bound per output
        outs = out if multi else (out,)
        try:
            with self.graph.as_default():
                syms = static_apply(op, args, attrs)
                syms = syms if multi else (syms,)
                syms[0].op.site = "%s:%d" % _user_line()
                syms = [sg.cast(sym, o._data.dtype) if sym.np_dtype != o._data.dtype else sym
                        for sym, o in zip(syms, outs)]    # dyngraph's PyTorch dtype rules
        except (TypeError, ValueError) as e:
            raise TracingError(f"jit.trace cannot record {op.name} on these inputs: {e}") from None
        dependent = any(self.depends(x) for x in inputs)
        for o, sym in zip(outs, syms):
            self.bind(o, sym, dependent)
        return out

    def rebased(self, t: Tensor, result: Tensor) -> None:
        """``t op= x`` wrote ``result`` into ``t``: ``t`` now stands for ``result``'s node."""
        _, sym, _, dependent = self.symbols[id(result)]
        self.bind(t, sym, dependent)

    def converting(self, method: str, original: Callable) -> Callable:
        """``Tensor.<method>`` that warns when a value computed from the inputs leaves the trace."""
        tracer, target = self, _CONVERSIONS[method]

        def convert(t, *args, **kwargs):
            if tracer.depends(t) and not tracer.converting_now:
                path, line = _user_line()
                warnings.warn_explicit(
                    f"Converting a tensor to {target} might cause the trace to be incorrect. We "
                    f"can't record the data flow of Python values, so this value will be treated "
                    f"as a constant in the future. This means that the trace might not generalize "
                    f"to other inputs!", TracerWarning, path, line)
            outer, tracer.converting_now = tracer.converting_now, True   # float() calls item()
            try:
                return original(t, *args, **kwargs)
            finally:
                tracer.converting_now = outer
        return convert


def _scoped_call(call: Callable, graph) -> Callable:
    """``Module.__call__`` that records the module's ops under its name scope, as PyTorch's
    traced graphs do: ``Sequential/Linear[0]/MatMul`` (class, then ``[attribute]``)."""
    stack: list = []

    def scoped(module, *args, **kwargs):
        name = type(module).__name__
        if stack:
            key = next((k for k, m in stack[-1]._modules.items() if m is module), None)
            name = name if key is None else f"{name}[{key}]"
        stack.append(module)
        try:
            with graph.name_scope(name, check=False):   # PyTorch's spelling, not TF's pattern
                return call(module, *args, **kwargs)
        finally:
            stack.pop()
    return scoped


class _Patched:
    """Install the tracer: the engine hook, in-place rebinding and the conversion warnings."""

    def __init__(self, tracer: _Tracer):
        self.tracer = tracer
        self.saved: list[tuple[Any, str, Any]] = []

    def _set(self, owner: Any, name: str, value: Any) -> None:
        self.saved.append((owner, name, getattr(owner, name)))
        setattr(owner, name, value)

    def __enter__(self) -> None:
        tracer = self.tracer

        def traced_inplace(t: Tensor, op, other) -> Tensor:
            """``t op= other`` as a recorded op whose node ``t`` then stands for."""
            result = engine.binary(op, t, other)
            rebase(t, result)
            tracer.rebased(t, result)
            return t
        self._set(methods, "_inplace", traced_inplace)
        for method in _CONVERSIONS:
            self._set(Tensor, method, tracer.converting(method, getattr(Tensor, method)))
        self._set(engine, "TRACER", tracer)
        self._set(Module, "__call__", _scoped_call(Module.__call__, tracer.graph))

    def __exit__(self, *exc) -> None:
        for owner, name, value in reversed(self.saved):
            setattr(owner, name, value)


# --- the traced function --------------------------------------------------------------------

def _leaves(out: Any, tracer: _Tracer, flat: list) -> Callable[[list], Any]:
    """Output tensors' symbols into ``flat``; a function rebuilding the structure from values."""
    if isinstance(out, Tensor):
        i = len(flat)
        flat.append(tracer.lookup(out))
        return lambda vals: vals[i]
    if isinstance(out, (list, tuple)):
        parts = [_leaves(o, tracer, flat) for o in out]
        return lambda vals: type(out)(p(vals) for p in parts)
    if isinstance(out, dict):
        items = [(k, _leaves(v, tracer, flat)) for k, v in out.items()]
        return lambda vals: {k: p(vals) for k, p in items}
    raise TracingError(f"Only tensors, lists, tuples of tensors, or dictionary of tensors can be "
                       f"output from traced functions (got {type(out).__name__}).")


class _TracedOp:
    """Stands in for a registry op in a tape node: its gradient is the traced graph's VJP."""

    name = "DifferentiableGraph"

    def __init__(self, traced: "TracedFunction", index: int):
        self.traced, self.index = traced, index

    def vjp(self, i: int, F, g, saved: dict, attrs: dict):
        if saved.get("g") is not g:   # one VJP run per backward visit, shared by all inputs
            if isinstance(g, Tensor):  # create_graph=True: the VJP is recorded, differentiable
                saved["grads"] = self.traced.recorded_vjp(saved["tensors"], g, self.index,
                                                          saved["out_specs"])
            else:
                gys = [np.zeros(s, d) for s, d in saved["out_specs"]]
                gys[self.index] = np.asarray(g, dtype=gys[self.index].dtype)
                saved["grads"] = self.traced.cf.vjp(tuple(saved["inputs"]), gys)
            saved["g"] = g
        return saved["grads"][i]


_NODE = node_class("DifferentiableGraphBackward")


class TracedFunction:
    """The recorded graph, compiled once; calling it runs the plan (no Python of ``fn``)."""

    def __init__(self, fn: Callable, cf: ConcreteFunction, n_inputs: int, params: list[Tensor],
                 rebuild: Callable[[list], Any]):
        self.python_function = fn
        self.cf = cf
        self.n_inputs = n_inputs
        self.params = params
        self._rebuild = rebuild
        self._vjp: tuple | None = None
        self.__name__ = fn if isinstance(fn, str) else getattr(fn, "__name__", type(fn).__name__)

    @property
    def graph(self) -> "sg.Graph":
        """The recorded staticgraph Graph (``print(traced.graph)``)."""
        return self.cf.graph

    @property
    def code(self) -> str:
        """The generated Python source of the compiled plan."""
        return self.cf.code

    def __call__(self, *inputs: Any) -> Any:
        if len(inputs) != self.n_inputs:
            raise TypeError(f"{self.__name__}() was traced with {self.n_inputs} inputs, "
                            f"got {len(inputs)}")
        tensors = [x if isinstance(x, Tensor) else make(np.asarray(x)) for x in [*inputs, *self.params]]
        arrays = tuple(t._data for t in tensors)
        flat = self.cf(*arrays)
        outs = [np.asarray(v) for v in flat]
        if STATE.enabled and any(t._rg for t in tensors):
            wrapped = self._record(tensors, arrays, outs)
        else:
            wrapped = [make(v) for v in outs]
        return self._rebuild(wrapped)

    def _record(self, tensors: list[Tensor], arrays: tuple, outs: list) -> list[Tensor]:
        """One tape node per float output, all sharing the traced graph's VJP."""
        parents = tuple((t.grad_fn or t._accum or t._accumulator()) if t._rg else None
                        for t in tensors)
        specs = [(v.shape, v.dtype) for v in outs]
        result = []
        for k, v in enumerate(outs):
            if v.dtype.kind != "f":
                result.append(make(v))
                continue
            node = _NODE.__new__(_NODE)
            node.op, node.attrs, node.parents = _TracedOp(self, k), {}, parents
            node.saved = {"inputs": list(arrays), "tensors": tensors, "out_specs": specs}
            node.versions, node.frees, node.out_vc = [], True, None
            node.seq, node.hooks, node.retained = next_seq(), None, None
            result.append(make(v, True, node))
        return result

    def recorded_vjp(self, tensors: list[Tensor], g: Tensor, index: int, specs: list) -> list:
        """The gradient for each input of a call, given the gradient ``g`` of output ``index``,
        computed by the VJP's own traced function so that it is recorded (second order)."""
        if self._vjp is None:
            floats, where, cf = self.cf.vjp_function()
            fn = None if cf is None else TracedFunction(
                f"vjp of {self.__name__}", cf, len(cf.inputs), [], lambda outs: outs)
            self._vjp = (floats, where, fn)
        floats, where, fn = self._vjp
        if fn is None:
            return [None] * len(tensors)
        gys = [g if k == index else make(np.zeros(*specs[k])) for k in floats]
        outs = fn(*tensors, *gys)
        return [None if w is None else outs[w] for w in where]

    def __repr__(self) -> str:
        return f"<dyngraph.jit traced {self.__name__}: {len(self.graph.get_operations())} ops>"


def trace(func: Callable, example_inputs: Any) -> TracedFunction:
    """Run ``func(*example_inputs)`` once, recording its ops into a compiled static graph.

    ``example_inputs``: a tensor or a tuple of tensors (as ``torch.jit.trace``).
    Input dims are left unknown (None) in the graph, so other batch sizes run;
    everything Python decided during the run is frozen into the graph.
    """
    import staticgraph as sg  # only when tracing: importing dyngraph stays light
    from staticgraph.control.function import ConcreteFunction
    examples = example_inputs if isinstance(example_inputs, tuple) else (example_inputs,)
    examples = tuple(x if isinstance(x, Tensor) else make(np.asarray(x)) for x in examples)
    graph = sg.Graph()
    tracer = _Tracer(graph)
    with graph.as_default():
        inputs = [sg.placeholder(x._data.dtype, [None] * x._data.ndim, name=f"input_{i}")
                  for i, x in enumerate(examples)]
    probes = [make(x._data.copy()) for x in examples]   # fresh tensors: fn cannot alias our inputs
    for p, sym in zip(probes, inputs):
        tracer.bind(p, sym, dependent=True)
    with no_grad(), _Patched(tracer):
        out = func(*probes)
    flat: list[sg.Tensor] = []
    rebuild = _leaves(out, tracer, flat)
    names = [f"input_{i}" for i in range(len(inputs))] + [f"param_{i}" for i in range(len(tracer.params))]
    with graph.as_default():
        flat = [sg.identity(t) if t in inputs or t in tracer.param_syms else t for t in flat]
    cf = ConcreteFunction(graph, names, [*inputs, *tracer.param_syms], out, flat, lambda v: v)
    return TracedFunction(func, cf, len(examples), tracer.params, rebuild)
