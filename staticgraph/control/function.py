"""``function``: trace a Python function into a graph once per input signature (like ``tf.function``).

::

    f(np.ones(3, np.float32))        signature: x -> float32[3]
      cache miss: new Graph; Placeholder "x"; call the (autograph-converted)
                  Python function on the placeholder -> output Tensors;
                  compile the plan once                       (a "trace")
      cache hit:  plan.fn(x)  -- no Python of the user's function runs at all

A numpy array or numpy scalar becomes a placeholder of its dtype and shape
(or of the ``input_signature``'s :class:`TensorSpec`, which may have None
dims).  A plain Python value (int, float, bool, str, None, ...) is part of the
signature *by value* and is baked into the graph as a constant, as in
TensorFlow: calling with ``n=3`` then ``n=4`` traces twice.  Retracing many
times in a row is reported with a :class:`RetracingWarning` naming the
argument whose signature changed.

Called from inside a graph with that graph's tensors (TF1 code calling a
``tf.function`` on its placeholders), the function builds into the caller's
graph instead, under a ``PartitionedCall`` name scope (TF adds a
``PartitionedCall`` op; the inlined body computes the same and differentiates
like any other nodes)::

    with g.as_default():
        x = tf.placeholder(tf.float32, [3])
        y = f(x)                          # Tensor("PartitionedCall/add:0", ...)

Gradients: :meth:`ConcreteFunction.value_and_gradients` adds
``gradients(outputs, placeholders)`` nodes to the concrete graph (once) and
compiles a second plan that returns the outputs and d(sum of outputs)/d(input).
"""
from __future__ import annotations

import inspect
import types
import warnings
from typing import Any, Callable

import numpy as np

from common.shapes import fmt_shape

from ..framework import dtypes as _dtypes
from ..framework.build import constant, convert_to_tensor
from ..compiler.pipeline import Executable, compile_plan
from .gradients import gradients
from ..framework.graph import Graph, Operation, SubGraph, Tensor, entered_graph, get_default_graph
from ..framework.kinds import SessionState, handle_variable, is_stateful
from ..ops.core_ops import identity
from ..util.nest import LITERAL, flatten_with_rebuild
from ..framework.shape import TensorShape
from ..framework.sources import placeholder, placeholder_with_default
from ..autograph.conversion import convert

__all__ = ["function", "Function", "ConcreteFunction", "TensorSpec", "RetracingWarning"]

RETRACE_WINDOW = 5
"""TF warns when 5 traces happen within a short run of calls (FREQUENT_TRACING_WARNING_THRESHOLD)."""
_MAX_CALLS_IN_WINDOW = 10


class RetracingWarning(UserWarning):
    """A ``function`` traced again and again: each trace builds and compiles a new graph."""


class TensorSpec:
    """The dtype and (partially known) shape of a tensor argument: ``TensorSpec([None, 3], tf.float32)``."""

    __slots__ = ("shape", "dtype", "name")

    def __init__(self, shape: Any, dtype: Any = _dtypes.float32, name: str | None = None):
        self.shape = TensorShape(shape)
        self.dtype = _dtypes.as_dtype(dtype)
        self.name = name

    def is_compatible_with(self, value: np.ndarray) -> bool:
        return value.dtype == self.dtype._np and self.shape.is_compatible_with(value.shape)

    def __eq__(self, other: Any) -> bool:
        return (isinstance(other, TensorSpec) and self.shape.dims_tuple == other.shape.dims_tuple
                and self.dtype is other.dtype)

    def __hash__(self) -> int:
        return hash((self.shape.dims_tuple, self.dtype))

    def __repr__(self) -> str:
        return f"TensorSpec(shape={self.shape}, dtype=tf.{self.dtype.name}, name={self.name!r})"


# --- signatures --------------------------------------------------------------------------

def _is_tensor_value(v: Any) -> bool:
    return isinstance(v, (np.ndarray, np.generic))


def _arg_key(v: Any) -> Any:
    """A hashable image of one argument: tensors by dtype/shape, Python values by value."""
    if _is_tensor_value(v):
        return ("tensor", v.dtype, v.shape)
    if isinstance(v, TensorSpec):
        return ("tensor", v.dtype._np, v.shape.dims_tuple)
    if isinstance(v, (list, tuple)):
        return (type(v).__name__, tuple(_arg_key(x) for x in v))
    if isinstance(v, dict):
        return ("dict", tuple((k, _arg_key(v[k])) for k in sorted(v)))
    try:
        hash(v)
    except TypeError:
        return ("object", id(v))
    return ("python", type(v).__name__, v)


def _describe_key(key: Any) -> str:
    kind = key[0]
    if kind == "tensor":
        return f"{np.dtype(key[1]).name}{fmt_shape(key[2])}"
    if kind == "python":
        return f"the Python {key[1]} {key[2]!r}"
    return f"a {kind}"


class _Arg:
    """Converts/validates one fed argument (the compiled plan's inline guard calls it on a miss)."""

    __slots__ = ("name", "dtype", "shape")

    def __init__(self, name: str, dtype: np.dtype, shape: tuple | None):
        self.name, self.dtype, self.shape = name, np.dtype(dtype), shape

    def __call__(self, value: Any) -> np.ndarray:
        a = np.asarray(value, dtype=self.dtype)
        if not TensorShape(self.shape).is_compatible_with(a.shape):
            raise ValueError(f"argument '{self.name}' has shape {a.shape}, the concrete function "
                             f"was traced for shape {TensorShape(self.shape)}")
        return a


# --- concrete functions ------------------------------------------------------------------

class FuncGraph(SubGraph):
    """A traced function's graph (TF's ``FuncGraph``).

    A tensor of the graph the function was traced from (or of one enclosing it) used in
    the body is captured as a placeholder, as a loop body captures it, instead of being
    refused; a call with such captures builds into the caller's graph (TF 1 graph mode
    adds the function's ops there too).  Variables made in the body stay in this graph.
    Ops that use the same variable run in the order the body made them (TF's automatic
    control dependencies): each gets a control input on the previous one.
    """

    is_control_flow_graph = False

    def __init__(self, outer: Graph):
        super().__init__(outer, "function")
        self._last_use: dict[str, Operation] = {}

    def create_op(self, *args: Any, **kwargs: Any) -> Operation:
        op = super().create_op(*args, **kwargs)
        used = {v for t in op.inputs if t.dtype == _dtypes.resource and (v := _variable(t))}
        after = [self._last_use[v] for v in used if v in self._last_use]
        if after:
            op.control_inputs = tuple(dict.fromkeys([*op.control_inputs, *after]))
        for v in used:
            self._last_use[v] = op
        return op


def _variable(handle: Tensor) -> str | None:
    """The variable a resource tensor stands for, or None (a TensorArray's, say)."""
    try:
        return handle_variable(handle)
    except TypeError:
        return None


def _output(value: Any):
    """An output of the traced function: a tensor (Python values become constants); None stays."""
    if value is None:
        return LITERAL
    return value if isinstance(value, Tensor) else constant(value)


class ConcreteFunction:
    """One traced graph: placeholders for the tensor arguments, outputs, a compiled plan."""

    def __init__(self, graph: Graph, names: list[str], inputs: list[Tensor | None],
                 structured_outputs: Any, outputs: list[Tensor], rebuild: Callable[[list], Any]):
        self.graph = graph
        self.arg_names = names
        self.inputs = [t for t in inputs if t is not None]
        self._tensor_args = [i for i, t in enumerate(inputs) if t is not None]
        self.structured_outputs = structured_outputs
        self.outputs = outputs
        self._rebuild = rebuild
        self._guards = [_Arg(names[i], inputs[i].np_dtype, inputs[i]._shape) for i in self._tensor_args]
        self._exe = self._compile(outputs)
        self._grad_exe: Executable | None = None
        self._grads: list[Tensor | None] = []
        self._vjp: tuple | None = None
        self._vjp_graph: tuple | None = None

    def _compile(self, fetches: list[Tensor], feeds: tuple = (), guards: tuple = ()) -> Executable:
        return compile_plan(fetches, [*self.inputs, *feeds], SessionState(), "list",
                            guards=[*self._guards, *guards])

    @property
    def code(self) -> str:
        """The generated Python source of the compiled plan (``print(cf.code)``)."""
        return self._exe.source

    @property
    def n_steps(self) -> int:
        """Steps (kernel calls) in the compiled plan: what remains after pruning and the passes."""
        return len(self._exe.plan.steps)

    def _values(self, args: tuple) -> list:
        return [args[i] for i in self._tensor_args]

    def _run(self, exe: Executable, values: list) -> list:
        try:
            return exe.fn(*values)
        except Exception as e:  # noqa: BLE001  (re-raised naming the node that failed)
            exe.reraise(e)

    def __call__(self, *args: Any) -> Any:
        """Run the compiled plan on the tensor arguments (Python arguments were baked in)."""
        return self._rebuild(self._run(self._exe, self._values(args)))

    def value_and_gradients(self, *args: Any) -> tuple[Any, list]:
        """``(outputs, grads)``: grads[i] is d(sum of all outputs)/d(argument i), None if none.

        Python (non-tensor) arguments and arguments the outputs do not depend
        on get None.  The gradient nodes are added to ``self.graph`` once.
        """
        if self._grad_exe is None:
            with self.graph.as_default():
                floats = [t for t in self.outputs if t.dtype.is_floating]
                self._grads = gradients(floats, self.inputs) if floats and self.inputs else \
                    [None] * len(self.inputs)
            wanted = [g for g in self._grads if g is not None]
            self._grad_exe = self._compile([*self.outputs, *wanted])
        vals = self._run(self._grad_exe, self._values(args))
        n, found = len(self.outputs), iter(vals[len(self.outputs):])
        per_input = [None if g is None else next(found) for g in self._grads]
        grads: list = [None] * len(args)
        for i, g in zip(self._tensor_args, per_input):
            grads[i] = g
        return self._rebuild(vals[:n]), grads

    def vjp(self, args: tuple, grad_outputs: list) -> list:
        """Vector-Jacobian product: d(sum_k <grad_outputs[k], outputs[k]>)/d(each argument).

        ``grad_outputs`` has one array per flat output (ignored for non-float
        outputs).  Built once: a placeholder per float output fed as ``grad_ys``.
        """
        if self._vjp is None:
            floats, gys, grads = self._vjp_nodes()
            guards = tuple(_Arg(f"grad_outputs[{k}]", g.np_dtype, g._shape) for k, g in zip(floats, gys))
            present = [g for g in grads if g is not None]
            exe = self._compile(present, tuple(gys), guards) if present else None
            self._vjp = (floats, grads, exe)
        floats, grads, exe = self._vjp
        found = iter(self._run(exe, [*self._values(args), *(grad_outputs[k] for k in floats)])
                     if exe else ())
        out: list = [None] * len(args)
        for i, g in zip(self._tensor_args, grads):
            out[i] = None if g is None else next(found)
        return out

    def _vjp_nodes(self) -> tuple[list[int], list[Tensor], list[Tensor | None]]:
        """``(float output positions, a grad_y placeholder for each, per input its gradient
        node or None)``, added to the graph once."""
        if self._vjp_graph is None:
            floats = [k for k, t in enumerate(self.outputs) if t.dtype.is_floating]
            with self.graph.as_default():
                gys = [placeholder(self.outputs[k].dtype, self.outputs[k].shape, name="grad_y")
                       for k in floats]
                grads = gradients([self.outputs[k] for k in floats], self.inputs, grad_ys=gys) \
                    if floats and self.inputs else [None] * len(self.inputs)
            self._vjp_graph = (floats, gys, grads)
        return self._vjp_graph

    def vjp_function(self) -> tuple[list[int], list[int | None], "ConcreteFunction | None"]:
        """The VJP as a concrete function of its own, so it can be differentiated again.

        Its inputs are this function's inputs then one ``grad_y`` per float
        output; its outputs are the input gradients that exist.  Returns
        ``(float output positions, per input: its gradient's output position or
        None, the function or None when no input has a gradient)``.
        """
        floats, gys, grads = self._vjp_nodes()
        present = [g for g in grads if g is not None]
        where, k = [], 0
        for g in grads:
            where.append(None if g is None else k)
            k += g is not None
        if not present:
            return floats, where, None
        names = [f"input_{i}" for i in range(len(self.inputs))] + [f"grad_y_{k}" for k in floats]
        return floats, where, ConcreteFunction(self.graph, names, [*self.inputs, *gys], None,
                                               present, lambda v: v)

    def count_ops(self, *types: str) -> int:
        """How many nodes of these types (e.g. "While", "StatelessWhile") the traced graph has."""
        return sum(op.type in types for op in self.graph.get_operations())

    def count_kinds(self, *kinds: str) -> int:
        """How many nodes of these kinds the graph has: ``count_kinds("StatelessWhile")`` counts
        the loops the function made, not their gradients (kind ``WhileGrad``, which TF and
        :meth:`count_ops` type as loops too)."""
        return sum(op.kind in kinds for op in self.graph.get_operations())

    def __repr__(self) -> str:
        sig = ", ".join(f"{n}: {t.dtype.name}{list(t.shape)}" for n, t in
                        zip([self.arg_names[i] for i in self._tensor_args], self.inputs))
        return f"<ConcreteFunction ({sig}) with {len(self.graph.get_operations())} ops>"


# --- the decorator ------------------------------------------------------------------------

class Function:
    """A Python function that runs as compiled graphs, one per input signature."""

    def __init__(self, fn: Callable, input_signature: list | tuple | None = None,
                 autograph: bool = True):
        self.python_function = fn
        self.input_signature = None if input_signature is None else tuple(input_signature)
        self.autograph = autograph
        self._sig = inspect.signature(fn)
        simple = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        self._n_simple = len(self._sig.parameters) if all(
            p.kind in simple for p in self._sig.parameters.values()) else -1
        self._converted: Callable | None = None
        self._cache: dict[Any, ConcreteFunction] = {}
        self._last_key: tuple | None = None
        self._calls_per_trace: list[int] = []
        self.trace_count = 0
        self.__name__ = getattr(fn, "__name__", "function")
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn

    def __get__(self, obj: Any, objtype: type | None = None) -> Any:
        """As a method: ``self`` is a Python argument, so each instance gets its own traces."""
        return self if obj is None else types.MethodType(self, obj)

    def experimental_get_tracing_count(self) -> int:
        """TF's name for :attr:`trace_count`."""
        return self.trace_count

    # --- calling ----------------------------------------------------------------------
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        building = entered_graph() is not None   # TF: a call while a graph is built adds to it
        if len(args) == self._n_simple and not kwargs and self.input_signature is None \
                and not building:
            cf = self._cache.get(tuple(map(_arg_key, args)))   # the hot path: all positional
            if cf is not None:
                self._calls_per_trace[-1] += 1
                return cf(*args)
        graph_tensors = _graph_tensors((args, kwargs))
        if graph_tensors or building:
            return self._build_into(graph_tensors, args, kwargs)
        names, values = self._bind(args, kwargs)
        cf = self._concrete(names, values)
        if cf.graph.captures:   # the body uses tensors of the default graph: build there
            return self._build_into([], args, kwargs)
        return cf(*values)

    def value_and_gradients(self, *args: Any, **kwargs: Any) -> tuple[Any, list]:
        """Outputs and d(sum of outputs)/d(each argument) through the compiled graph."""
        names, values = self._bind(args, kwargs)
        return self._concrete(names, values).value_and_gradients(*values)

    def get_concrete_function(self, *args: Any, **kwargs: Any) -> ConcreteFunction:
        """The traced graph for these arguments (values or :class:`TensorSpec`), tracing if needed."""
        names, values = self._bind(args, kwargs, specs_ok=True)
        return self._concrete(names, values)

    def _bind(self, args: tuple, kwargs: dict, specs_ok: bool = False) -> tuple[list[str], tuple]:
        """Arguments in parameter order, named (``*args`` items as ``args_0``, ``args_1``...)."""
        if self.input_signature is not None and not args and not kwargs:
            args = self.input_signature
        try:
            bound = self._sig.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self.__name__}(): {e}") from None
        bound.apply_defaults()
        names, values = [], []
        for name, v in bound.arguments.items():
            kind = self._sig.parameters[name].kind
            if kind is inspect.Parameter.VAR_POSITIONAL:
                names += [f"*{name}_{i}" for i in range(len(v))]
                values += list(v)
            elif kind is inspect.Parameter.VAR_KEYWORD:
                raise TypeError(f"{self.__name__}: **{name} arguments are not supported; "
                                f"pass them as named parameters")
            else:
                names.append(name)
                values.append(v)
        if self.input_signature is not None:
            values = self._conform(names, values, specs_ok)
        elif not specs_ok and any(isinstance(v, TensorSpec) for v in values):
            raise TypeError("TensorSpec arguments are only accepted by get_concrete_function")
        return names, tuple(values)

    def _conform(self, names: list[str], values: list, specs_ok: bool) -> list:
        """Arguments converted to the input_signature's dtypes (shapes must be compatible)."""
        sig = self.input_signature
        if len(values) != len(sig):
            raise TypeError(f"{self.__name__} has an input_signature of {len(sig)} tensors, "
                            f"got {len(values)} arguments")
        out = []
        for name, v, spec in zip(names, values, sig):
            if isinstance(v, TensorSpec) and specs_ok:
                out.append(spec)
                continue
            a = np.asarray(v, dtype=spec.dtype._np) if not isinstance(v, TensorSpec) else None
            if a is None or not spec.shape.is_compatible_with(a.shape) or (
                    _is_tensor_value(v) and np.asarray(v).dtype != spec.dtype._np):
                got = repr(v) if a is None else f"{np.asarray(v).dtype.name}{list(np.shape(v))}"
                raise TypeError(f"Python inputs incompatible with input_signature: argument "
                                f"'{name}' is {got}, expected {spec}")
            out.append(a)
        return out

    def _build_into(self, tensors: list, args: tuple, kwargs: dict) -> Any:
        """Called with graph tensors, or while a graph is built: build the function's body
        into that graph, inlined."""
        graph = _caller_graph(tensors) if tensors else get_default_graph()
        if self._converted is None:
            self._converted = self._convert()
        start = len(graph._ops)
        with graph.as_default(), graph.name_scope("PartitionedCall"):
            if self.input_signature is not None:
                args, kwargs = self._signature_args(args, kwargs), {}
            result = self._converted(*args, **kwargs)
            leaves: list[Tensor] = []
            rebuild = flatten_with_rebuild(result, _output, leaves)
            effects = _effects(graph, start)
            if effects:   # TF's automatic control dependencies: a result runs them all
                with graph.control_dependencies(effects):
                    leaves = [identity(t) if isinstance(t, Tensor) else t for t in leaves]
        return rebuild(leaves)

    def _signature_args(self, args: tuple, kwargs: dict) -> tuple:
        """The arguments of a call built into a graph, checked against the input_signature;
        a Python or numpy value becomes a tensor of its spec (dtype, and the spec's looser
        static shape, as the traced function sees it in TF)."""
        names, values = [], []
        for name, v in self._sig.bind(*args, **kwargs).arguments.items():
            names.append(name)
            values.append(v)
        if len(values) != len(self.input_signature):
            raise TypeError(f"{self.__name__} has an input_signature of "
                            f"{len(self.input_signature)} tensors, got {len(values)} arguments")
        out = []
        for name, v, spec in zip(names, values, self.input_signature):
            if not _graph_tensors([v]):
                try:
                    v = placeholder_with_default(convert_to_tensor(v, dtype=spec.dtype),
                                                 spec.shape.dims_tuple, name=name)
                except (TypeError, ValueError):
                    pass   # refused just below, in the signature's words
            dtype, shape = getattr(v, "dtype", None), getattr(v, "_shape", None)
            if dtype is not spec.dtype or not spec.shape.is_compatible_with(
                    TensorShape(shape)):
                raise TypeError(f"Python inputs incompatible with input_signature: argument "
                                f"'{name}' is {v!r}, expected {spec}")
            out.append(v)
        return tuple(out)

    # --- tracing ----------------------------------------------------------------------
    def _key(self, values: tuple) -> tuple:
        if self.input_signature is not None:
            return ("signature",)
        return tuple(_arg_key(v) for v in values)

    def _concrete(self, names: list[str], values: tuple) -> ConcreteFunction:
        key = self._key(values)
        cf = self._cache.get(key)
        if cf is None:
            cf = self._cache[key] = self._trace(names, values)
            self._note_trace(names, key)
        elif self._calls_per_trace:
            self._calls_per_trace[-1] += 1
        return cf

    def _trace(self, names: list[str], values: tuple) -> ConcreteFunction:
        if self._converted is None:
            self._converted = self._convert()
        self.trace_count += 1
        graph = FuncGraph(get_default_graph())
        with graph.as_default():
            kinds = self.input_signature or values
            inputs = [self._placeholder(n, v) for n, v in zip(names, kinds)]
            call = [v if t is None else t for t, v in zip(inputs, values)]
            result = self._call_python(names, call)
            leaves: list[Tensor] = []
            rebuild = flatten_with_rebuild(result, _output, leaves)
        return ConcreteFunction(graph, names, inputs, result, leaves, rebuild)

    def _call_python(self, names: list[str], values: list) -> Any:
        """Call the (converted) Python function with the placeholders in place of the tensors."""
        positional, keyword = [], {}
        for n, v in zip(names, values):
            kind = self._sig.parameters[n].kind if n in self._sig.parameters else None
            if kind is inspect.Parameter.KEYWORD_ONLY:
                keyword[n] = v
            else:                      # positional parameters and ``*args`` items, in order
                positional.append(v)
        return self._converted(*positional, **keyword)

    @staticmethod
    def _placeholder(name: str, v: Any) -> Tensor | None:
        if isinstance(v, TensorSpec):
            return placeholder(v.dtype, v.shape, name=name.lstrip("*"))
        if isinstance(v, np.ndarray | np.generic):
            return placeholder(v.dtype, v.shape, name=name.lstrip("*"))
        return None

    def _convert(self) -> Callable:
        if not self.autograph:
            return self.python_function
        fn = self.python_function
        if isinstance(fn, types.MethodType):              # a bound method: convert its function
            return types.MethodType(convert(fn.__func__), fn.__self__)
        return convert(fn)

    def _note_trace(self, names: list[str], key: tuple) -> None:
        """Count calls per trace; warn when the last few traces came in quick succession."""
        previous, self._last_key = self._last_key, key
        self._calls_per_trace.append(1)
        recent = self._calls_per_trace[-RETRACE_WINDOW:]
        if previous is None or len(recent) < RETRACE_WINDOW or sum(recent) > _MAX_CALLS_IN_WINDOW:
            return
        changed = [f"'{n}' ({_describe_key(a)} -> {_describe_key(b)})"
                   for n, a, b in zip(names, previous, key) if a != b]
        warnings.warn(
            f"{len(recent)} out of the last {sum(recent)} calls to {self.python_function} "
            f"triggered function retracing (traces so far: {self.trace_count}); this one because "
            f"argument {', '.join(changed) or '(the argument structure)'} changed. Tracing is "
            f"expensive: it rebuilds and recompiles the graph. Pass numpy arrays instead of Python "
            f"numbers that change, or give an input_signature with None dims for shapes that vary.",
            RetracingWarning, stacklevel=4)

    def __repr__(self) -> str:
        return f"<staticgraph.function {self.__name__} (traced {self.trace_count}x)>"


_NOT_EFFECTS = frozenset({"ReadVariableOp", "VarHandleOp", "VarIsInitializedOp"})


def _effects(graph: Graph, start: int) -> list[Operation]:
    """The stateful ops a call built into ``graph`` made from op ``start`` on, except reads
    and the making of variables (TF lifts those out of the function: a variable's initializer
    runs when the user runs it, not with every call)."""
    made = graph._ops[start:]
    inits = {v.initializer for key in ("variables", "local_variables")
             for v in graph.get_collection(key) if getattr(v, "initializer", None) in made}
    return [op for op in made if is_stateful(op) and op.kind not in _NOT_EFFECTS
            and op not in inits]


def _graph_tensors(values: Any) -> list:
    """The staticgraph tensors (or variables) among ``values``, searched through lists,
    tuples and dicts: the arguments that make a call build into their graph."""
    found = []
    stack = [values]
    while stack:
        v = stack.pop()
        if isinstance(v, Tensor) or hasattr(v, "_as_graph_element"):
            found.append(v)
        elif isinstance(v, (list, tuple)):
            stack.extend(v)
        elif isinstance(v, dict):
            stack.extend(v.values())
    return found


def _caller_graph(tensors: list) -> Graph:
    """The default graph when the tensors belong to it or to a graph enclosing it (a loop
    body calling the function captures them), else the tensors' own graph."""
    default = get_default_graph()
    homes = {t.graph if isinstance(t, Tensor) else t._as_graph_element().graph for t in tensors}
    g = default
    while g is not None:
        if g in homes:
            return default
        g = getattr(g, "outer", None)
    return next(iter(homes))


def function(fn: Callable | None = None, input_signature: list | tuple | None = None,
             autograph: bool = True) -> Any:
    """``@function`` or ``function(fn, input_signature=[TensorSpec([None], tf.float32)])``.

    With ``autograph`` (default) Python ``while``/``if``/``for i in range(n)``/
    ``for x in tensor`` on symbolic tensors become ``while_loop``/``cond``, with
    ``break``/``continue`` (see :mod:`.autograph`).
    """
    if fn is None:
        return lambda f: Function(f, input_signature, autograph)
    return Function(fn, input_signature, autograph)
