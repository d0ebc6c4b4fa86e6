"""``tf.variable_scope`` and ``tf.get_variable``: variables named by scope, shared by name.

Two scopes run side by side, as in TF::

    name_scope      prefixes OP names         "layer_1/MatMul"   (unique per graph)
    variable_scope  prefixes get_variable     "layer/w"          (+ opens a name scope too)

``get_variable("w")`` looks ``<scope>/w`` up in the graph's variable store:
created when absent, returned when present -- and which of the two is allowed
is the scope's ``reuse``: ``None``/``False`` create only ("already exists,
disallowed"), ``True`` reuse only ("does not exist"), ``AUTO_REUSE`` either.
Reuse is inherited by sub-scopes.  Variables are made by the public
``Variable(...)`` constructor, their initial value built under
``<scope>/w/Initializer/``.

>>> import staticgraph as tf
>>> with tf.variable_scope("layer"):
...     w = tf.get_variable("w", [2, 3])
>>> w.name
'layer/w:0'
"""
from __future__ import annotations

import contextlib
import enum
import functools
import inspect
import threading

from ..framework import dtypes as _dtypes
from ..framework.build import convert_to_tensor, is_tensor
from ..framework.graph import Graph, get_default_graph
from ..framework.graph_keys import GraphKeys
from .initializers import GlorotUniform, Zeros
from .partitioned_variables import (PartitionedVariable, call_partitioner, iter_slices,
                                    piece_initializer)
from ..framework.shape import TensorShape
from .variables import (CREATORS, _root, local_variables, Variable, VariableAggregation,
                        VariableSynchronization, variables_initializer)

__all__ = ["AUTO_REUSE", "VariableScope", "variable_scope", "get_variable", "get_variable_scope",
           "get_local_variable", "local_variables_initializer", "VariableSynchronization",
           "VariableAggregation", "no_regularizer", "variable_creator_scope"]


class _ReuseMode(enum.Enum):
    """``AUTO_REUSE``: create a variable when absent, return it when present."""
    AUTO_REUSE = 1


AUTO_REUSE = _ReuseMode.AUTO_REUSE

_SCOPE_STORE = ("__varscope",)  # tuple keys, as TF: not listed by get_all_collection_keys
_VAR_STORE = ("__variable_store",)


def no_regularizer(_):
    """A regularizer that adds no loss: turns a scope's regularizer off for a variable."""
    return None


def _check_getter(custom_getter) -> None:
    if custom_getter is not None and not callable(custom_getter):
        raise ValueError(f"Passed a custom_getter which is not callable: {custom_getter}")


def _chain_getters(inner, outer):
    """A scope's custom getter wrapping its parent's (TF: the inner one runs first, and its
    ``getter`` argument runs the outer one, which gets the true getter)."""
    if outer is None or inner is None:
        return inner if outer is None else outer
    return lambda getter, *args, **kwargs: inner(functools.partial(outer, getter), *args, **kwargs)


class VariableScope:
    """What ``get_variable`` reads: the name prefix, reuse mode, defaults for new variables
    (initializer, regularizer, dtype, constraint, caching device, custom getter)."""

    def __init__(self, reuse, name: str = "", initializer=None, regularizer=None, dtype=None,
                 name_scope: str = "", caching_device=None, partitioner=None,
                 custom_getter=None, use_resource=None, constraint=None):
        _check_getter(custom_getter)
        self._reuse, self._name, self._initializer = reuse, name, initializer
        self._regularizer, self._dtype, self._name_scope = regularizer, dtype, name_scope
        self._caching_device, self._partitioner = caching_device, partitioner
        self._custom_getter, self._use_resource = custom_getter, use_resource
        self._constraint = constraint

    name = property(lambda self: self._name)
    original_name_scope = property(lambda self: self._name_scope)
    reuse = property(lambda self: self._reuse)
    initializer = property(lambda self: self._initializer)
    regularizer = property(lambda self: self._regularizer)
    dtype = property(lambda self: self._dtype or _dtypes.float32)
    caching_device = property(lambda self: self._caching_device)
    partitioner = property(lambda self: self._partitioner)
    custom_getter = property(lambda self: self._custom_getter)
    use_resource = property(lambda self: self._use_resource)
    constraint = property(lambda self: self._constraint)

    def _inherit(self, name: str, reuse, name_scope: str) -> "VariableScope":
        """A scope with this one's defaults under another name (a sub-scope, a re-entry)."""
        return VariableScope(reuse, name, self._initializer, self._regularizer, self._dtype,
                             name_scope, self._caching_device, self._partitioner,
                             self._custom_getter, self._use_resource, self._constraint)

    def set_caching_device(self, caching_device) -> None:
        self._caching_device = caching_device

    def set_partitioner(self, partitioner) -> None:
        self._partitioner = partitioner

    def set_custom_getter(self, custom_getter) -> None:
        _check_getter(custom_getter)
        self._custom_getter = custom_getter

    def get_collection(self, name: str) -> list:
        """The collection's items whose name starts with this scope's ``name/``."""
        scope = self._name + "/" if self._name else None
        return get_default_graph().get_collection(name, scope)

    def trainable_variables(self) -> list:
        return self.get_collection(GraphKeys.TRAINABLE_VARIABLES)

    def global_variables(self) -> list:
        return self.get_collection(GraphKeys.GLOBAL_VARIABLES)

    def local_variables(self) -> list:
        return self.get_collection(GraphKeys.LOCAL_VARIABLES)

    def reuse_variables(self) -> None:
        """From now on, ``get_variable`` in this scope returns existing variables."""
        self._reuse = True

    def set_initializer(self, initializer) -> None:
        self._initializer = initializer

    def set_regularizer(self, regularizer) -> None:
        self._regularizer = regularizer

    def set_dtype(self, dtype) -> None:
        self._dtype = dtype

    def get_variable(self, name: str, shape=None, dtype=None, initializer=None, regularizer=None,
                     reuse=None, trainable=None, collections=None, caching_device=None,
                     partitioner=None, validate_shape=True, use_resource=None,
                     custom_getter=None, constraint=None,
                     synchronization=VariableSynchronization.AUTO,
                     aggregation=VariableAggregation.NONE):
        """``<scope>/<name>``, through the custom getters of the call and of the scopes."""
        _check_getter(custom_getter)
        full = f"{self._name}/{name}" if self._name else name
        reuse = self._reuse if reuse is None else reuse
        if reuse is False:
            reuse = None   # TF passes a reuse of False on as None (create only)
        defaults = dict(
            initializer=self._initializer if initializer is None else initializer,
            regularizer=self._regularizer if regularizer is None else regularizer,
            caching_device=self._caching_device if caching_device is None else caching_device,
            partitioner=self._partitioner if partitioner is None else partitioner,
            constraint=self._constraint if constraint is None else constraint)
        if dtype is None and not (defaults["initializer"] is not None
                                  and not callable(defaults["initializer"])):
            dtype = self._dtype or _dtypes.float32
        getter = _chain_getters(custom_getter, self._custom_getter)
        graph = get_default_graph()
        with graph.name_scope(None):   # what a getter builds is named from the root (TF)
            kwargs = dict(name=full, shape=shape, dtype=dtype, reuse=reuse, trainable=trainable,
                          collections=collections, validate_shape=validate_shape,
                          use_resource=use_resource, synchronization=synchronization,
                          aggregation=aggregation, **defaults)
            if getter is None:
                return _true_getter(**kwargs)
            return getter(_true_getter, **kwargs)

    def __repr__(self) -> str:
        return f"<tf.VariableScope '{self._name}' reuse={self._reuse}>"


def _true_getter(name: str, shape=None, dtype=None, initializer=None, regularizer=None,
                 reuse=None, trainable=None, collections=None, caching_device=None,
                 partitioner=None, validate_shape=True, use_resource=None, constraint=None,
                 synchronization=VariableSynchronization.AUTO,
                 aggregation=VariableAggregation.NONE) -> Variable:
    """The getter at the end of every custom getter chain: the graph's variable store."""
    if trainable is None:
        trainable = synchronization != VariableSynchronization.ON_READ
    store = _store()
    if (partitioner is not None and not (isinstance(shape, (list, tuple)) and not shape)) or (
            reuse is True and partitioner is None and name in store.partitioned):
        return store.get_partitioned(name, shape, dtype, initializer, regularizer, reuse,
                                     trainable, collections, validate_shape, caching_device,
                                     constraint, partitioner)   # (a scalar is never cut: TF)
    return store.get(name, shape, dtype, initializer, regularizer, reuse, trainable,
                     collections, validate_shape, caching_device, constraint, synchronization,
                     aggregation)


class _ScopeStore(threading.local):
    """Per graph and per thread: the current VariableScope, how often each scope name was opened.

    Thread-local as TF's: a thread that enters ``variable_scope("foo")`` while another
    thread is inside its own ``"foo"`` gets ``foo``, not ``foo/foo`` (each thread starts at
    the root scope; the variables themselves are shared through the graph's store).
    """

    def __init__(self):
        super().__init__()
        self.current = VariableScope(False)
        self.counts: dict[str, int] = {}

    def open(self, name: str) -> None:
        self.counts[name] = self.counts.get(name, 0) + 1

    def close_subscopes(self, name: str) -> None:
        prefix = name + "/"
        for k in self.counts:
            if k.startswith(prefix):
                self.counts[k] = 0

    def unique(self, prefix: str) -> str:
        """``prefix``, or ``prefix_1``, ``prefix_2``... not yet opened in the current scope."""
        base = f"{self.current.name}/{prefix}" if self.current.name else prefix
        if not self.counts.get(base):
            return prefix
        i = 1
        while self.counts.get(f"{base}_{i}"):
            i += 1
        return f"{prefix}_{i}"


def _graph_single(graph: Graph, key: str, make):
    ref = graph.get_collection_ref(key)
    if not ref:
        ref.append(make())
    return ref[0]


def _scopes(graph: Graph | None = None) -> _ScopeStore:
    """The scope state of the outermost graph: a loop body shares it, as TF's function graphs
    share their outer graph's variable scopes."""
    return _graph_single(_root(graph or get_default_graph()), _SCOPE_STORE, _ScopeStore)


class _VarStore:
    """Per graph: every variable ``get_variable`` created, by full name."""

    def __init__(self):
        self.vars: dict[str, Variable] = {}
        self.partitioned: dict[str, PartitionedVariable] = {}

    def get_partitioned(self, name, shape, dtype, initializer, regularizer, reuse, trainable,
                        collections, validate_shape, caching_device, constraint,
                        partitioner) -> PartitionedVariable:
        """A variable cut into pieces ``<name>/part_<i>`` by ``partitioner`` (see
        :mod:`.partitioned_variables`): made, or found again with the same cut (TF's checks
        and words)."""
        if partitioner is not None and not callable(partitioner):
            raise ValueError(f"Partitioner must be callable, but received: {partitioner}")
        if name in self.vars:
            raise ValueError(f"A partitioner was provided, but an unpartitioned version of the "
                             f"variable was found: {name}.  Perhaps a variable of the same name "
                             f"was already created without partitioning?")
        dtype = _dtypes.float32 if dtype is None else _dtypes.as_dtype(dtype)
        shape = TensorShape(shape)
        if is_tensor(initializer):
            shape = shape.merge_with(convert_to_tensor(initializer).shape)
        partitions = None   # (reused without a partitioner: whatever cut it has, TF)
        if not reuse or partitioner is not None:
            partitions = call_partitioner(partitioner, shape, dtype)
        found = self.partitioned.get(name)
        if found is not None:
            if reuse is False or reuse is None:
                raise ValueError(f"Partitioned variable with name {name} already exists. Did you "
                                 f"mean to set reuse=True or reuse=tf.AUTO_REUSE in VarScope?")
            if not shape.is_compatible_with(found.get_shape()):
                raise ValueError(f"Trying to reuse partitioned variable {name}, but specified "
                                 f"shape {shape} and found shape {found.get_shape()}.")
            if partitions is not None and found._get_partitions() != partitions:
                raise ValueError(f"Trying to reuse partitioned variable {name}, but specified "
                                 f"partitions {partitions} and found partitions "
                                 f"{found._get_partitions()}.")
            return found
        if reuse is True:
            raise ValueError(f"PartitionedVariable {name} does not exist, or was not created with "
                             f"tf.get_variable(). Did you mean to set reuse=False or "
                             f"reuse=tf.AUTO_REUSE in VarScope?")
        full = shape.as_list()
        pieces = []
        for i, (offset, piece_shape) in enumerate(iter_slices(full, partitions)):
            piece = f"{name}/part_{i}"
            with get_default_graph().name_scope(None), \
                    get_default_graph().name_scope(piece + "/PartitionedInitializer"):
                init = (None if initializer is None else
                        piece_initializer(initializer, offset, piece_shape, full))
            var = self.get(piece, piece_shape if init is None or callable(init) else None,
                           dtype if init is None or callable(init) else None, init,
                           regularizer, reuse, trainable, collections, validate_shape,
                           caching_device, constraint)
            var._set_save_slice_info(Variable.SaveSliceInfo(name, full, offset, piece_shape))
            pieces.append(var)
        self.partitioned[name] = PartitionedVariable(name, shape, pieces[0].dtype.base_dtype,
                                                     pieces, partitions)
        return self.partitioned[name]

    def get(self, name, shape, dtype, initializer, regularizer, reuse, trainable, collections,
            validate_shape, caching_device=None, constraint=None,
            synchronization=VariableSynchronization.AUTO,
            aggregation=VariableAggregation.NONE) -> Variable:
        from_value = initializer is not None and not callable(initializer)
        if shape is not None and from_value:
            raise ValueError("If initializer is a constant, do not specify shape.")
        if from_value and dtype is not None:
            value_dtype = convert_to_tensor(initializer).dtype.base_dtype
            if _dtypes.as_dtype(dtype) != value_dtype:
                raise ValueError(f"Initializer type '{value_dtype}' and explicit dtype "
                                 f"'{_dtypes.as_dtype(dtype)}' don't match.")
        if dtype is not None:
            dtype = _dtypes.as_dtype(dtype)
        elif not from_value:
            dtype = _dtypes.float32   # (a value's own dtype is the variable's: Variable's rule)
        shape = None if shape is None else TensorShape(shape)
        if f"{name}/part_0" in self.vars:
            raise ValueError(f"No partitioner was provided, but a partitioned version of the "
                             f"variable was found: {name}/part_0. Perhaps a variable of the same "
                             f"name was already created with partitioning?")
        found = self.vars.get(name)
        if found is not None:
            if reuse is False or reuse is None:
                raise ValueError(f"Variable {name} already exists, disallowed. Did you mean to set "
                                 f"reuse=True or reuse=tf.AUTO_REUSE in VarScope?")
            if shape is not None and not shape.is_compatible_with(found.shape):
                raise ValueError(f"Trying to share variable {name}, but specified shape "
                                 f"{_tuple_str(shape)} and found shape {_tuple_str(found.shape)}.")
            if dtype is not None and dtype != found.dtype.base_dtype:   # (ref: float32_ref)
                raise ValueError(f"Trying to share variable {name}, but specified dtype "
                                 f"{dtype.name} and found dtype {found.dtype.base_dtype.name}.")
            return found
        if reuse is True:
            raise ValueError(f"Variable {name} does not exist, or was not created with "
                             f"tf.get_variable(). Did you mean to set reuse=tf.AUTO_REUSE in VarScope?")
        v = self._create(name, shape, dtype, initializer, from_value, trainable, collections,
                         validate_shape, caching_device, constraint, synchronization, aggregation)
        self.vars[name] = v
        if regularizer is not None:
            graph = get_default_graph()
            with graph.name_scope(name + "/Regularizer/"):
                loss = regularizer(v)
            if loss is not None:
                graph.add_to_collection(GraphKeys.REGULARIZATION_LOSSES, loss)
        return v

    @staticmethod
    def _create(name, shape, dtype, initializer, from_value, trainable, collections,
                validate_shape, caching_device=None, constraint=None,
                synchronization=VariableSynchronization.AUTO,
                aggregation=VariableAggregation.NONE) -> Variable:
        if initializer is None:
            if shape is None:
                raise ValueError(f"Variable {name} did not get an initializer, so its `shape` "
                                 f"argument must be specified.")
            if dtype.is_floating:
                initializer = GlorotUniform()
            elif dtype.is_integer or dtype.is_bool or dtype == _dtypes.string:
                initializer = Zeros()
            else:
                raise ValueError(f"An initializer for variable {name} of {dtype.name} is required")
        if from_value:
            initial, var_dtype = initializer, None
        elif shape is None and _takes_no_arguments(initializer):
            initial, var_dtype = initializer, None   # ``initializer=lambda: [2]`` (TF)
        else:
            if isinstance(initializer, type):
                initializer = initializer()
            if shape is None or not shape.is_fully_defined():
                raise ValueError("The initializer passed is not valid. It should be a callable "
                                 "with no arguments and the shape should not be provided or an "
                                 "instance of `tf.keras.initializers.*' and `shape` should be "
                                 "fully defined.")
            dims = shape.as_list()

            def initial():  # Variable builds it under "<name>/Initializer/"
                return initializer(dims, dtype=dtype)
            var_dtype = dtype
        trainable = True if trainable is None else bool(trainable)
        collections = list(collections) if collections is not None else [GraphKeys.GLOBAL_VARIABLES]
        if trainable and GraphKeys.TRAINABLE_VARIABLES not in collections:
            collections.append(GraphKeys.TRAINABLE_VARIABLES)
        root = _root(get_default_graph())
        with root.name_scope(None), get_default_graph().name_scope(None):  # names ignore op scopes
            return Variable(initial, trainable=trainable, name=name, dtype=var_dtype,
                            validate_shape=validate_shape, collections=collections,
                            caching_device=caching_device, constraint=constraint,
                            synchronization=synchronization, aggregation=aggregation)


def _takes_no_arguments(fn) -> bool:
    """Can ``fn`` be called with no arguments (a lambda with none, or only defaults)?"""
    if isinstance(fn, type):
        return False
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return all(p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
               for p in params)


def _tuple_str(shape: TensorShape) -> str:
    dims = tuple(shape.as_list())
    return str(dims)


def _store(graph: Graph | None = None) -> _VarStore:
    return _graph_single(_root(graph or get_default_graph()), _VAR_STORE, _VarStore)


def get_variable_scope() -> VariableScope:
    """The VariableScope ``get_variable`` uses now (the root scope has the name ``""``)."""
    return _scopes().current


def get_variable(name: str, shape=None, dtype=None, initializer=None, regularizer=None,
                 trainable=None, collections=None, caching_device=None, partitioner=None,
                 validate_shape=True, use_resource=None, custom_getter=None, constraint=None,
                 synchronization=VariableSynchronization.AUTO,
                 aggregation=VariableAggregation.NONE):
    """The variable ``<scope>/<name>``: created, or shared when the scope reuses."""
    return get_variable_scope().get_variable(
        name, shape, dtype, initializer, regularizer, None, trainable, collections,
        caching_device, partitioner, validate_shape, use_resource, custom_getter, constraint,
        synchronization, aggregation)


def get_local_variable(name: str, shape=None, dtype=None, initializer=None, collections=None,
                       **kwargs) -> Variable:
    """A non-trainable variable in ``LOCAL_VARIABLES`` (not in ``global_variables()``)."""
    collections = list(collections or []) + [GraphKeys.LOCAL_VARIABLES]
    return get_variable(name, shape, dtype, initializer, trainable=False,
                        collections=collections, **kwargs)


class variable_scope:  # noqa: N801  (TF's name)
    """``with tf.variable_scope("layer", reuse=tf.AUTO_REUSE) as scope:`` (see module docstring).

    ``name_or_scope``: a string (a sub-scope of the current one), a VariableScope
    (re-entered exactly, wherever we are), or None with ``default_name`` (made
    unique: ``dense``, ``dense_1``...).
    """

    def __init__(self, name_or_scope, default_name: str | None = None, values=None,
                 initializer=None, regularizer=None, caching_device=None, partitioner=None,
                 custom_getter=None, reuse=None, dtype=None, use_resource=None, constraint=None,
                 auxiliary_name_scope: bool = True):
        if name_or_scope is None and default_name is None:
            raise TypeError("If default_name is None then name_or_scope is required")
        if not (reuse is True or reuse is False or reuse is None or reuse is AUTO_REUSE):
            raise ValueError("The reuse parameter must be True or False or None.")
        if name_or_scope is not None and not isinstance(name_or_scope, (str, VariableScope)):
            raise TypeError("VariableScope: name_or_scope must be a string or VariableScope.")
        if name_or_scope is None and reuse:
            raise ValueError("reuse=True cannot be used without a name_or_scope")
        if not isinstance(auxiliary_name_scope, bool):
            raise TypeError(f"The auxiliary_name_scope must be `True` or `False`, while get "
                            f"{auxiliary_name_scope}")
        _check_getter(custom_getter)
        self._name_or_scope, self._default_name = name_or_scope, default_name
        self._initializer, self._regularizer = initializer, regularizer
        self._reuse, self._dtype, self._aux = reuse, dtype, auxiliary_name_scope
        self._caching_device, self._partitioner = caching_device, partitioner
        self._custom_getter, self._use_resource = custom_getter, use_resource
        self._constraint = constraint
        self._stack: contextlib.ExitStack | None = None

    def __enter__(self) -> VariableScope:
        graph = get_default_graph()
        store = _scopes(graph)
        stack = contextlib.ExitStack()
        given = self._name_or_scope
        if not self._aux:
            current = graph._name_stack
            name_scope = stack.enter_context(graph.name_scope(current + "/" if current else None))
        else:
            part = given.name.split("/")[-1] if isinstance(given, VariableScope) else \
                (given if given is not None else self._default_name)
            if part:
                name_scope = stack.enter_context(graph.name_scope(part))
            else:  # the root scope: op names stay where they are (TF)
                name_scope = graph._name_stack + "/" if graph._name_stack else ""
        old = store.current
        if isinstance(given, VariableScope):
            new = given._inherit(given.name, self._reuse if self._reuse else given.reuse,
                                 given.original_name_scope)
            store.open(new.name)
            saved_counts = dict(store.counts)  # restored on exit (TF: counts after opening)
        else:
            part = given if given is not None else store.unique(self._default_name)
            full = f"{old.name}/{part}" if old.name else part
            new = old._inherit(full, self._reuse or old.reuse, name_scope)
            store.open(new.name)
            saved_counts = None
        if self._initializer is not None:
            new.set_initializer(self._initializer)
        if self._regularizer is not None:
            new.set_regularizer(self._regularizer)
        if self._dtype is not None:
            new.set_dtype(self._dtype)
        if self._caching_device is not None:
            new.set_caching_device(self._caching_device)
        if self._partitioner is not None:
            new.set_partitioner(self._partitioner)
        if self._use_resource is not None:
            new._use_resource = self._use_resource
        if self._constraint is not None:
            new._constraint = self._constraint
        if self._custom_getter is not None:
            new.set_custom_getter(_chain_getters(self._custom_getter, new.custom_getter))
        store.current = new

        def restore():
            if saved_counts is not None:
                store.counts = saved_counts
            else:
                store.close_subscopes(new.name)
            store.current = old
        stack.callback(restore)
        self._stack, self._entered = stack, new
        return new

    def __exit__(self, *exc) -> None:
        if _scopes().current is not self._entered:   # a scope entered inside is still open
            raise RuntimeError("Improper nesting of variable_scope.")
        stack, self._stack = self._stack, None
        stack.close()


def local_variables_initializer():
    """One op initializing every variable in ``LOCAL_VARIABLES`` (``get_local_variable``'s)."""
    return variables_initializer(local_variables(), name="init")


@contextlib.contextmanager
def variable_creator_scope(variable_creator):
    """Every variable made inside (``tf.Variable``, ``get_variable``) is made by
    ``variable_creator(next_creator, **kwargs)``, which may change the arguments, call
    ``next_creator(**kwargs)`` (the enclosing scope's creator, or the constructor) or return
    a variable of its own (TF's ``tf.compat.v1.variable_creator_scope``)."""
    creators = _root(get_default_graph()).get_collection_ref(CREATORS)
    creators.append(variable_creator)
    try:
        yield
    finally:
        del creators[len(creators) - 1 - creators[::-1].index(variable_creator)]   # this block's
