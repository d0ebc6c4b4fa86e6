"""A thin `tensorflow.python.*` for running TensorFlow's own unit tests on a backend.

TensorFlow's tests import TF's internal modules (`from tensorflow.python.ops import
array_ops`) and subclass `test.TestCase`.  This adapter answers those imports with
*fake modules* whose attributes are looked up, by name, in a backend's public
`compat.v1` API: `staticgraph` itself, or real TensorFlow's `tf.compat.v1` (then
`tf`), so that the same test file can be run on both and the two results compared.

Nothing here is installed as `tensorflow`: a test file is executed with its own
`__import__`, which hands out the fake modules for every `tensorflow...` name.  So
real TensorFlow can be the backend in the same process without a name clash.

Graph mode only: every test method runs in a fresh default graph; the test-mode
decorators (`run_deprecated_v1`, `run_in_graph_and_eager_modes`, ...) run the body
once, in that graph.  A test that needs eager execution or TF internals is *set
aside* (`unittest.SkipTest` whose reason starts with ``set aside:``).
"""
from __future__ import annotations

import builtins
import contextlib
import functools
import os
import re
import sys
import tempfile
import types
import unittest
import unittest.mock
from typing import Any, Callable, Iterable

import numpy as np

SET_ASIDE = "set aside: "


class SetAside(unittest.SkipTest):
    """A test needs something outside graph-mode public API (eager, TF internals)."""

    def __init__(self, reason: str) -> None:
        super().__init__(SET_ASIDE + reason)


class MissingName(AttributeError):
    """A name a test uses that the backend's public API does not have."""


# --------------------------------------------------------------------------- backend

class Backend:
    """The public API a run uses: `v1` (the compat.v1 surface), then `v2` as a fallback."""

    def __init__(self, name: str) -> None:
        self.name = name
        if name == "tf":
            import tensorflow as real_tf  # the peers venv only
            real_tf.compat.v1.disable_eager_execution()
            self.namespaces = [real_tf.compat.v1, real_tf]
            self.v1 = real_tf.compat.v1
        elif name == "staticgraph":
            import staticgraph
            self.namespaces = [staticgraph]
            self.v1 = staticgraph
        else:
            raise ValueError(f"unknown backend {name!r}: 'staticgraph' or 'tf'")

    def lookup(self, paths: Iterable[str], attr: str, where: str) -> Any:
        """`attr` from the first namespace path (e.g. 'nn', '' for the top) that has it."""
        for root in self.namespaces:
            for path in paths:
                obj = root
                try:
                    for part in filter(None, path.split(".")):
                        obj = getattr(obj, part)
                    return getattr(obj, attr)
                except AttributeError:
                    continue
        raise MissingName(f"{self.name} has no {where}.{attr}")


BACKEND: Backend | None = None


def backend() -> Backend:
    assert BACKEND is not None, "call adapter.use_backend(name) first"
    return BACKEND


# ------------------------------------------------------------------- fake modules

# Where a TF-internal module's names live in the public API, most specific first.
NAMESPACES: dict[str, list[str]] = {
    "constant_op": [""], "dtypes": ["dtypes", "", "dtypes.experimental"], "ops": ["", "compat.v1"],
    "array_ops": ["", "linalg", "math"], "array_ops_stack": [""],
    "math_ops": ["", "math", "linalg"], "nn_ops": ["nn"], "nn": ["nn"],
    "nn_impl": ["nn"], "gradients_impl": [""], "gradients": [""], "variables": [""],
    "variable_v1": [""], "ref_variable": [""], "resource_variable_ops": [""],
    "state_ops": [""], "clip_ops": [""], "random_ops": ["random", ""],
    "embedding_ops": ["nn"], "errors_impl": ["errors"], "errors": ["errors"],
    "tensor_shape": [""], "while_loop": [""], "cond": [""],
    "control_flow_ops": [""], "init_ops": ["initializers", ""],
    "gradient_descent": ["train"], "momentum": ["train"], "adam": ["train"],
    "session": [""], "indexed_slices": [""], "tensor": [""], "sparse_tensor": [""],
    "tensor_spec": [""], "tensor_array_ops": [""], "variable_scope": [""],
    "check_ops": ["debugging", ""], "def_function": [""], "backprop": [""],
    "context": [""], "tf_logging": ["logging"], "nest": ["nest"],
    "control_flow_v2_toggles": [""], "unconnected_gradients": [""], "map_fn": [""],
    "functional_ops": [""],
    "control_flow_case": [""], "control_flow_switch_case": [""], "control_flow_assert": [""],
    "logging_ops": [""],
    "linalg_ops": ["linalg", ""], "script_ops": [""], "importer": [""],
    # the variable, saver and conv test files (issue #30's second batch)
    "saver": ["train"], "training_util": ["train"], "checkpoint_management": ["train"],
    "graph_io": ["train"], "py_checkpoint_reader": ["train"], "partitioned_variables": [""],
    "data_flow_ops": ["", "queue"], "queue_runner_impl": ["train", "train.queue_runner"],
    "sparse_ops": ["sparse", ""], "custom_gradient": [""], "resource_variables_toggle": [""],
    "wrap_function": [""], "tensor_util": [""], "gfile": ["gfile"], "file_io": ["gfile"],
    "summary": ["summary"], "config": ["config"], "dataset_ops": ["data"],
}

# Names whose public spelling differs from the internal one: (module, name) -> path.
RENAMES: dict[tuple[str, str], str] = {
    ("variables", "VariableV1"): "Variable",
    ("variable_v1", "VariableV1"): "Variable",
    ("ref_variable", "RefVariable"): "Variable",
    ("resource_variable_ops", "ResourceVariable"): "Variable",
    ("resource_variable_ops", "BaseResourceVariable"): "Variable",
    ("gradient_descent", "GradientDescentOptimizer"): "train.GradientDescentOptimizer",
    ("momentum", "MomentumOptimizer"): "train.MomentumOptimizer",
    ("adam", "AdamOptimizer"): "train.AdamOptimizer",
    ("def_function", "function"): "function",
    ("context", "executing_eagerly"): "executing_eagerly",
    ("gradients_impl", "gradients"): "gradients",
    ("array_ops", "placeholder"): "placeholder",
    ("math_ops", "reduce_euclidean_norm"): "math.reduce_euclidean_norm",
    ("embedding_ops", "embedding_lookup"): "nn.embedding_lookup",
    ("state_ops", "variable_op"): "Variable",
    ("tensor", "Tensor"): "Tensor",
    ("array_ops", "squeeze_v2"): "squeeze",
    ("nn_ops", "sparse_softmax_cross_entropy_with_logits_v2"):
    "nn.sparse_softmax_cross_entropy_with_logits",
    ("tensor_util", "constant_value"): "get_static_value",
    ("tensor_util", "MakeNdarray"): "make_ndarray",
    ("file_io", "file_exists"): "io.gfile.exists", ("file_io", "delete_file"): "io.gfile.remove",
    ("file_io", "list_directory"): "io.gfile.listdir",
    ("file_io", "recursive_create_dir"): "io.gfile.makedirs",
    ("file_io", "get_matching_files"): "io.gfile.glob", ("file_io", "rename"): "io.gfile.rename",
    ("py_checkpoint_reader", "NewCheckpointReader"): "train.NewCheckpointReader",
    ("dataset_ops", "Dataset"): "data.Dataset", ("dataset_ops", "DatasetV2"): "data.Dataset",
}


def _eager_only(*_a: Any, **_k: Any) -> Any:
    raise SetAside("needs eager execution")


class _InternalMeta(type):
    """The type of a TF-internal stand-in: calling it sets the test aside.

    A class, not a function, so that a test file can still *load* when it
    subclasses an internal (`class E(extension_type.ExtensionType)`) or reads an
    internal's attribute at module level (`saver_pb2.SaverDef.V1` as a default
    argument): only the tests that really use it are set aside.
    """

    _what = "?"
    _missing = False  # a public name the backend lacks (MissingName), not an internal

    def _refuse(cls) -> Any:
        if cls._missing:
            raise MissingName(cls._what)
        raise SetAside(f"uses TF internals ({cls._what})")

    def __call__(cls, *_a: Any, **_k: Any) -> Any:
        if _LOADING:  # module level (a class attribute): an inert stand-in, refused on use
            return _internal(f"{cls._what}()", cls._missing)
        return cls._refuse()

    def __getattr__(cls, attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        if cls._missing and not _LOADING:
            return cls._refuse()
        return _internal(f"{cls._what}.{attr}", cls._missing)


_LOADING = False  # True while a test file's module body runs (load_test_file)


def _internal(what: str, missing: bool = False) -> Any:
    return _InternalMeta("Internal", (), {"_what": what, "_missing": missing})


class FakeModule(types.ModuleType):
    """`tensorflow.python.<pkg>.<short>`: attributes come from the backend on demand."""

    def __init__(self, fullname: str) -> None:
        super().__init__(fullname)
        self.__path__: list[str] = []  # a package too: `from x.y import z`
        self._short = fullname.rsplit(".", 1)[-1]

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        if not _is_leaf(self.__name__):
            return fake_module(self.__name__ + "." + attr)
        if attr.startswith("_"):
            return _internal(f"{self.__name__}.{attr}")
        local = LOCAL.get(self._short, {})
        if attr in local:
            return local[attr]
        if (self._short, attr) in LIVE:
            return LIVE[self._short, attr]()
        if self._short.startswith("gen_"):
            raise SetAside(f"uses a generated op wrapper ({self._short}.{attr})")
        rename = RENAMES.get((self._short, attr))
        if rename:
            path, _, name = rename.rpartition(".")
            return backend().lookup([path], name, self.__name__)
        paths = NAMESPACES.get(self._short)
        if paths is None:
            return _internal(f"{self.__name__}.{attr}")
        try:
            return backend().lookup(paths, attr, self._short)
        except MissingName as missing:
            if self._short == "dtypes":   # in a file's dtype list: fails where it is used
                return MissingDType(str(missing))
            if _LOADING:  # a module-level base class or default: fails where it is used
                return _internal(str(missing), missing=True)
            raise


class MissingDType:
    """A name the backend lacks (a dtype, a function), standing in until it is used."""

    def __init__(self, message: str) -> None:
        self._message = message

    def __getattr__(self, attr: str) -> Any:
        if attr == "as_numpy_dtype":  # in a module-level list of numpy types
            return self
        raise MissingName(self._message)

    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        return id(self)

    def __call__(self, *_a: Any, **_k: Any) -> Any:
        raise MissingName(self._message)


_MODULES: dict[str, types.ModuleType] = {}
TEST_DIRS: list[str] = []  # where `tensorflow.python.kernel_tests...` files are read from


def fake_module(fullname: str) -> types.ModuleType:
    """The fake module for a `tensorflow...` name, a cached test file for kernel_tests."""
    if fullname not in _MODULES:
        short = fullname.rsplit(".", 1)[-1]
        source = _find_test_file(short) if ".kernel_tests." in fullname else None
        _MODULES[fullname] = load_test_file(source, fullname) if source else FakeModule(fullname)
    return _MODULES[fullname]


def _find_test_file(short: str) -> str | None:
    for folder in TEST_DIRS:
        candidate = os.path.join(folder, short + ".py")
        if os.path.exists(candidate):
            return candidate
    return None


# Packages below `tensorflow.python.<pkg>` that test files import modules from.
SUBPACKAGES = {"tensorflow.python.compiler.xla", "tensorflow.python.compiler.xla.experimental",
               "tensorflow.python.ops.ragged", "tensorflow.python.ops.linalg",
               "tensorflow.python.ops.numpy_ops", "tensorflow.python.ops.signal",
               "tensorflow.python.data.ops", "tensorflow.python.data.experimental",
               "tensorflow.python.data.experimental.ops"}


def _is_leaf(fullname: str) -> bool:
    """A module whose attributes are API names (not a package of modules)."""
    return (fullname.count(".") >= 3 and ".kernel_tests" not in fullname
            and fullname not in SUBPACKAGES)


def _import(name: str, globals: Any = None, locals: Any = None,
            fromlist: Any = (), level: int = 0) -> Any:
    """`__import__` for test files: `tensorflow...` names get fake modules."""
    if level or not (name == "tensorflow" or name.startswith("tensorflow.")):
        return builtins.__import__(name, globals, locals, fromlist, level)
    parts = name.split(".")
    for i in range(1, len(parts) + 1):
        parent = fake_module(".".join(parts[:i]))
        if i > 1:
            object.__setattr__(fake_module(".".join(parts[:i - 1])), parts[i - 1], parent)
    if not _is_leaf(name):
        for attr in fromlist or ():
            object.__setattr__(fake_module(name), attr, fake_module(name + "." + attr))
    return fake_module(name) if fromlist else fake_module(parts[0])


def load_test_file(path: str, modname: str) -> types.ModuleType:
    """Execute a TF test file with the fake `tensorflow` imports; return its module."""
    module = types.ModuleType(modname)
    module.__file__ = path
    module.__dict__["__builtins__"] = dict(vars(builtins), __import__=_import)
    sys.modules[modname] = module  # absl.parameterized looks classes' modules up
    with open(path, encoding="utf-8") as handle:
        code = compile(handle.read(), path, "exec")
    global _LOADING
    loading, _LOADING = _LOADING, True
    try:
        exec(code, module.__dict__)
    finally:
        _LOADING = loading
    return module


def use_backend(name: str) -> Backend:
    global BACKEND
    BACKEND = Backend(name)
    return BACKEND


# ------------------------------------------------------------- the numeric helpers

def _is_tensor(x: Any) -> bool:
    v1 = backend().v1
    return isinstance(x, (v1.Tensor, v1.Variable)) or type(x).__name__ in (
        "ResourceVariable", "RefVariable", "IndexedSlices", "Operation")


def _session() -> Any:
    sess = backend().v1.get_default_session()
    if sess is None:
        raise RuntimeError("no default session (adapter: evaluate outside a session)")
    return sess


def _as_reals(a: np.ndarray) -> np.ndarray:
    """A flat array's values as reals, a complex one's as (real, imag) pairs -- how TF's
    gradient checker treats a complex tensor: as a vector of twice as many reals."""
    a = np.ascontiguousarray(a).ravel()
    return a.view(a.real.dtype) if a.dtype.kind == "c" else a


def _jacobians(f_or_y: Any, xs: list[Any], x_values: list[np.ndarray], delta: float,
               y_value_shape: Any = None, extra_feed: dict | None = None) -> tuple[list, list]:
    """Theoretical (backprop) and numerical (central difference) Jacobians of y in xs.

    Each Jacobian has shape (x.size, y.size), as TF's gradient checkers return them; a
    complex x or y counts twice (real and imaginary parts, interleaved), as TF's do.
    """
    tf = backend().v1
    y = f_or_y
    sess = _session()
    feed_base = dict(extra_feed or {})
    for x, v in zip(xs, x_values):
        feed_base[x] = v
    y_val = np.asarray(sess.run(y, feed_dict=feed_base))
    dy = tf.placeholder(y.dtype, shape=y_val.shape)
    grads = tf.gradients(y, xs, grad_ys=dy)
    y_size = _as_reals(y_val).size
    theoretical, numerical = [], []
    for i, (x, xv) in enumerate(zip(xs, x_values)):
        xv = np.asarray(xv)
        x_size = _as_reals(xv).size
        jt = np.zeros((x_size, y_size), dtype=np.float64)
        for j in range(y_size):
            onehot = np.zeros(y_val.shape, dtype=y_val.dtype)
            _as_reals(onehot)[j] = 1   # (a view: writes into onehot)
            if grads[i] is None:
                continue
            g = sess.run(grads[i], feed_dict={**feed_base, dy: onehot})
            if type(g).__name__ == "IndexedSlicesValue":
                dense = np.zeros(xv.shape, dtype=xv.dtype)
                np.add.at(dense, g.indices, g.values)
                g = dense
            jt[:, j] = _as_reals(np.asarray(g, dtype=xv.dtype)).astype(np.float64)
        jn = np.zeros_like(jt)
        flat = xv.copy()
        parts = _as_reals(flat)
        wide = np.result_type(y_val.dtype, np.float64)   # differences in float64 (complex128)
        for k in range(x_size):
            orig = parts[k]
            parts[k] = orig + delta
            plus = np.asarray(sess.run(y, feed_dict={**feed_base, x: flat}), dtype=wide)
            parts[k] = orig - delta
            minus = np.asarray(sess.run(y, feed_dict={**feed_base, x: flat}), dtype=wide)
            parts[k] = orig
            jn[k, :] = _as_reals((plus - minus) / (2 * delta)).astype(np.float64)
        theoretical.append(jt)
        numerical.append(jn)
    return theoretical, numerical


def compute_gradient(x: Any, x_shape: Any, y: Any, y_shape: Any, x_init_value: Any = None,
                     delta: float = 1e-3, init_targets: Any = None,
                     extra_feed_dict: dict | None = None) -> Any:
    """TF1's `gradient_checker.compute_gradient`: (theoretical, numerical) Jacobians."""
    xs = list(x) if isinstance(x, (list, tuple)) else [x]
    shapes = x_shape if isinstance(x, (list, tuple)) else [x_shape]
    inits = (x_init_value if isinstance(x, (list, tuple)) else [x_init_value]) \
        if x_init_value is not None else [None] * len(xs)
    if init_targets is not None:
        _session().run(init_targets)
    values = []
    for xi, shape, init in zip(xs, shapes, inits):
        if init is None:
            dtype = np.dtype(backend().v1.as_dtype(xi.dtype).as_numpy_dtype)
            init = np.random.random_sample(shape).astype(dtype)
        values.append(np.asarray(init))
    theo, num = _jacobians(y, xs, values, delta, extra_feed=extra_feed_dict)
    pairs = list(zip(theo, num))
    return pairs if isinstance(x, (list, tuple)) else pairs[0]


def compute_gradient_error(x: Any, x_shape: Any, y: Any, y_shape: Any,
                           x_init_value: Any = None, delta: float = 1e-3,
                           init_targets: Any = None, extra_feed_dict: dict | None = None
                           ) -> float:
    grad = compute_gradient(x, x_shape, y, y_shape, x_init_value, delta, init_targets,
                            extra_feed_dict)
    pairs = grad if isinstance(grad, list) else [grad]
    return max((float(np.max(np.abs(t - n))) if t.size else 0.0) for t, n in pairs)


def compute_gradient_v2(f: Callable[..., Any], x: list, delta: float | None = None
                        ) -> tuple[tuple, tuple]:
    """`gradient_checker_v2.compute_gradient` in graph mode: placeholders for `x`."""
    tf = backend().v1
    values = [np.asarray(v) if not _is_tensor(v) else _session().run(v) for v in x]
    xs = [tf.placeholder(tf.as_dtype(v.dtype), shape=v.shape) for v in values]
    y = f(*xs)
    if delta is None:
        delta = 1e-3 if values[0].dtype in (np.float16,) else 1e-3
    theo, num = _jacobians(y, xs, values, delta)
    return tuple(theo), tuple(num)


def max_error(grad1: Iterable[np.ndarray], grad2: Iterable[np.ndarray]) -> float:
    error = 0.0
    for a, b in zip(grad1, grad2):
        if np.size(a):
            error = max(error, float(np.max(np.abs(np.asarray(a) - np.asarray(b)))))
    return error


# ---------------------------------------------------------- test_util, test.TestCase

def _graph_mode(fn: Callable[..., Any] | None = None, *a: Any, **k: Any) -> Any:
    """A test-mode decorator: graph mode is the only mode here, so run the body as is."""
    if fn is None or not callable(fn) or isinstance(fn, str):
        return lambda f: f
    return fn


def _set_aside_decorator(reason: str) -> Callable[..., Any]:
    def decorator(fn: Any = None, *a: Any, **k: Any) -> Any:
        def wrap(f: Callable[..., Any]) -> Callable[..., Any]:
            @functools.wraps(f)
            def skipped(self: Any, *args: Any, **kwargs: Any) -> None:
                raise SetAside(reason)
            return skipped
        if callable(fn) and not isinstance(fn, str):
            return wrap(fn)
        return wrap
    return decorator


@contextlib.contextmanager
def _null_context(*_a: Any, **_k: Any) -> Any:
    yield


# ------------------------------------------------ control flow v1/v2 (TF's test_util)
# TF 2.21 runs with control flow v2 on (`control_flow_util.ENABLE_CONTROL_FLOW_V2`, which
# `disable_eager_execution` leaves on), so TF's decorators reduce to: `with_control_flow_v2`
# returns the class as is, `disable_control_flow_v2(reason)` only marks a method (read by
# `with_control_flow_v2` when v2 is off), `enable_control_flow_v2` runs a method with v2 on.

def _disable_control_flow_v2(_reason: str) -> Callable[..., Any]:
    def mark(fn: Callable[..., Any]) -> Callable[..., Any]:
        fn._disable_control_flow_v2 = True  # type: ignore[attr-defined]
        return fn
    return mark


def _enable_control_flow_v2(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def with_v2(*args: Any, **kwargs: Any) -> Any:
        v1 = backend().v1
        was = v1.control_flow_v2_enabled()
        v1.enable_control_flow_v2()
        try:
            return fn(*args, **kwargs)
        finally:
            if not was:
                v1.disable_control_flow_v2()
    return with_v2


def _with_control_flow_v2(cls: type) -> type:
    if backend().v1.control_flow_v2_enabled():
        return cls


def _while_v2(cond: Callable[..., Any], body: Callable[..., Any], loop_vars: Any,
              shape_invariants: Any = None, parallel_iterations: int = 10,
              maximum_iterations: Any = None, name: str | None = None,
              return_same_structure: bool = True, back_prop: bool = True) -> Any:
    """`while_v2.while_loop` (its own argument order and defaults) as the public v1 call."""
    return backend().v1.while_loop(
        cond, body, loop_vars, shape_invariants=shape_invariants,
        parallel_iterations=parallel_iterations, back_prop=back_prop, name=name,
        maximum_iterations=maximum_iterations, return_same_structure=return_same_structure)


def _cond_v2(pred: Any, true_fn: Callable[..., Any], false_fn: Callable[..., Any],
             name: str = "cond") -> Any:
    """`cond_v2.cond_v2`: the public cond, keeping a branch's structure as is (strict)."""
    return backend().v1.cond(pred, true_fn, false_fn, strict=True, name=name)


def _indexed_case(branch_index: Any, branch_fns: Any, name: str = "indexed_case",
                  lower_using_switch_merge: Any = None) -> Any:
    """`cond_v2.indexed_case`: the public `switch_case`."""
    return backend().v1.switch_case(branch_index, branch_fns, name=name)
    for name, value in list(vars(cls).items()):
        if (callable(value) and name.startswith("test")
                and not getattr(value, "_disable_control_flow_v2", False)):
            setattr(cls, name + "WithControlFlowV2", _enable_control_flow_v2(value))
    return cls


class TestCase(unittest.TestCase):
    """`tf.test.TestCase` in graph mode: a fresh graph per test, sessions on it."""

    def setUp(self) -> None:
        super().setUp()
        tf = backend().v1
        self._graph_ctx = tf.Graph().as_default()
        self._graph_ctx.__enter__()
        self._cached: Any = None
        np.random.seed(0)

    def tearDown(self) -> None:
        if self._cached is not None:
            self._cached.close()
        self._graph_ctx.__exit__(None, None, None)
        super().tearDown()

    # sessions -----------------------------------------------------------------
    @contextlib.contextmanager
    def session(self, graph: Any = None, config: Any = None, use_gpu: bool = True,
                force_gpu: bool = False) -> Any:
        tf = backend().v1
        sess = tf.Session(graph=graph or tf.get_default_graph(), config=config)
        with sess, sess.as_default():
            yield sess

    @contextlib.contextmanager
    def cached_session(self, graph: Any = None, config: Any = None,
                       use_gpu: bool = True, force_gpu: bool = False) -> Any:
        tf = backend().v1
        graph = graph or tf.get_default_graph()
        if self._cached is None or self._cached.graph is not graph:
            if self._cached is not None:
                self._cached.close()
            self._cached = tf.Session(graph=graph, config=config)
        with self._cached.as_default():
            yield self._cached

    test_session = cached_session

    def evaluate(self, tensors: Any) -> Any:
        tf = backend().v1
        sess = tf.get_default_session()
        if sess is None:
            with self.cached_session() as cached:
                return cached.run(tensors)
        return sess.run(tensors)

    def get_temp_dir(self) -> str:
        return tempfile.mkdtemp()

    def checkedThread(self, target: Callable[..., Any], args: tuple = (),
                      kwargs: dict | None = None) -> Any:
        raise SetAside("uses TF's checkedThread")

    # assertions ---------------------------------------------------------------
    def _nd(self, a: Any) -> np.ndarray:
        if _is_tensor(a):
            a = self.evaluate(a)
        if not isinstance(a, np.ndarray):
            a = np.array(a)
        return a

    def assertAllEqual(self, a: Any, b: Any, msg: str | None = None) -> None:
        a, b = self._nd(a), self._nd(b)
        self.assertEqual(a.shape, b.shape,
                         f"Shape mismatch: expected {a.shape}, got {b.shape}. {msg or ''}")
        same = a == b
        if a.dtype.kind == "f":
            same = np.logical_or(same, np.logical_and(np.isnan(a), np.isnan(b)))
        if not np.all(same):
            np.testing.assert_array_equal(a, b, err_msg=msg or "")

    def assertNotAllEqual(self, a: Any, b: Any, msg: str | None = None) -> None:
        a, b = self._nd(a), self._nd(b)
        if a.shape == b.shape and np.all(a == b):
            self.fail(msg or "Expected unequal arrays")

    def _close(self, a: Any, b: Any, rtol: float, atol: float, msg: Any) -> None:
        if isinstance(a, dict) and isinstance(b, dict):
            self.assertEqual(sorted(map(str, a)), sorted(map(str, b)))
            for key in a:
                self._close(a[key], b[key], rtol, atol, msg)
            return
        if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
            try:
                na, nb = self._nd(a), self._nd(b)
                if na.dtype != object and nb.dtype != object:
                    return self._close(na, nb, rtol, atol, msg)
            except (ValueError, TypeError):
                pass
            self.assertEqual(len(a), len(b), msg)
            for x, y in zip(a, b):
                self._close(x, y, rtol, atol, msg)
            return
        a, b = self._nd(a), self._nd(b)
        self.assertEqual(a.shape, b.shape,
                         f"Shape mismatch: expected {a.shape}, got {b.shape}.")
        if not np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True):
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=msg or "",
                                       equal_nan=True)

    def assertAllClose(self, a: Any, b: Any, rtol: float = 1e-6, atol: float = 1e-6,
                       msg: str | None = None) -> None:
        self._close(a, b, rtol, atol, msg)

    def assertAllCloseAccordingToType(self, a: Any, b: Any, rtol: float = 1e-6,
                                      atol: float = 1e-6, float_rtol: float = 1e-6,
                                      float_atol: float = 1e-6, half_rtol: float = 1e-3,
                                      half_atol: float = 1e-3, bfloat16_rtol: float = 1e-2,
                                      bfloat16_atol: float = 1e-2, msg: str | None = None
                                      ) -> None:
        a, b = self._nd(a), self._nd(b)
        names = {a.dtype.name, b.dtype.name}
        if names & {"float32", "complex64"}:
            rtol, atol = max(rtol, float_rtol), max(atol, float_atol)
        if "float16" in names:
            rtol, atol = max(rtol, half_rtol), max(atol, half_atol)
        if "bfloat16" in names:
            rtol, atol = max(rtol, bfloat16_rtol), max(atol, bfloat16_atol)
        self._close(a, b, rtol, atol, msg)

    def assertArrayNear(self, farray1: Any, farray2: Any, err: float,
                        msg: str | None = None) -> None:
        self.assertEqual(len(farray1), len(farray2), msg)
        for f1, f2 in zip(farray1, farray2):
            self.assertNear(float(f1), float(f2), err, msg)

    def assertNear(self, f1: float, f2: float, err: float, msg: str | None = None) -> None:
        self.assertTrue(f1 == f2 or abs(f1 - f2) <= err,
                        f"{f1} != {f2} +/- {err}{' (' + msg + ')' if msg else ''}")

    def assertNDArrayNear(self, ndarray1: Any, ndarray2: Any, err: float,
                          msg: str | None = None) -> None:
        self.assertTrue(np.linalg.norm(np.asarray(ndarray1) - np.asarray(ndarray2)) <= err,
                        msg)

    def assertShapeEqual(self, input_a: np.ndarray, input_b: Any, msg: str | None = None
                         ) -> None:
        self.assertAllEqual(np.array(input_a.shape),
                            np.array(input_b.get_shape().as_list()), msg)

    def assertDTypeEqual(self, target: Any, expected_dtype: Any) -> None:
        self.assertEqual(np.asarray(target).dtype, np.dtype(expected_dtype))

    def assertAllInRange(self, target: Any, lower: float, upper: float,
                         open_lower_bound: bool = False, open_upper_bound: bool = False
                         ) -> None:
        t = self._nd(target)
        self.assertTrue(np.all(t > lower if open_lower_bound else t >= lower))
        self.assertTrue(np.all(t < upper if open_upper_bound else t <= upper))

    def assertAllGreaterEqual(self, a: Any, comparison_target: float) -> None:
        self.assertGreaterEqual(np.min(self._nd(a)), comparison_target)

    def assertAllLessEqual(self, a: Any, comparison_target: float) -> None:
        self.assertLessEqual(np.max(self._nd(a)), comparison_target)

    def assertAllGreater(self, a: Any, comparison_target: float) -> None:
        self.assertGreater(np.min(self._nd(a)), comparison_target)

    def assertAllLess(self, a: Any, comparison_target: float) -> None:
        self.assertLess(np.max(self._nd(a)), comparison_target)

    def assertStartsWith(self, actual: str, expected_start: str, msg: str | None = None
                         ) -> None:
        self.assertTrue(actual.startswith(expected_start), msg or
                        f"{actual!r} does not start with {expected_start!r}")

    def assertDeviceEqual(self, device1: str, device2: str, msg: str | None = None) -> None:
        self.assertEqual(str(device1 or ""), str(device2 or ""), msg)

    def assertProtoEquals(self, *_a: Any, **_k: Any) -> None:
        raise SetAside("compares protocol buffers")

    @contextlib.contextmanager
    def assertRaisesWithPredicateMatch(self, exception_type: Any,
                                       expected_err_re_or_predicate: Any) -> Any:
        """TF's: an exception of the type whose message matches (or predicate holds)."""
        if callable(expected_err_re_or_predicate):
            predicate = expected_err_re_or_predicate
        else:
            def predicate(e: BaseException) -> bool:
                text = e.message if hasattr(e, "message") else str(e)
                return re.search(expected_err_re_or_predicate, str(text)) is not None
        try:
            yield
        except unittest.SkipTest:
            raise
        except exception_type as e:
            if not predicate(e):
                raise AssertionError(
                    f"[wrong message] Exception of type {type(e).__name__}: {e}") from e
            return
        except Exception as e:
            raise AssertionError(
                f"[wrong exception type] expected {exception_type}, got "
                f"{type(e).__name__}: {e}") from e
        raise AssertionError(f"[nothing raised] {exception_type} not raised")

    def assertRaisesOpError(self, expected_err_re_or_predicate: Any) -> Any:
        return self.assertRaisesWithPredicateMatch(
            backend().v1.errors.OpError, expected_err_re_or_predicate)

    def assertRaisesIncompatibleShapesError(self, exception_type: Any = None) -> Any:
        return self.assertRaisesWithPredicateMatch(
            exception_type or backend().v1.errors.InvalidArgumentError,
            r"Incompatible shapes|Dimensions must be equal|required broadcastable shapes")

    def assertRaisesRegex(self, expected_exception: Any, expected_regex: Any,
                          *args: Any, **kwargs: Any) -> Any:
        if args:
            with self.assertRaisesWithPredicateMatch(expected_exception, expected_regex):
                return args[0](*args[1:], **kwargs)
        return self.assertRaisesWithPredicateMatch(expected_exception, expected_regex)

    def assertRaises(self, expected_exception: Any, *args: Any, **kwargs: Any) -> Any:
        if args:
            with self.assertRaisesWithPredicateMatch(expected_exception, lambda e: True):
                return args[0](*args[1:], **kwargs)
        return self.assertRaisesWithPredicateMatch(expected_exception, lambda e: True)


def _relayout(to_channels_first: bool) -> Callable[[Any], Any]:
    """`test_util.NHWCToNCHW` / `NCHWToNHWC`: move the channel axis (a tensor or a list)."""
    def convert(x: Any) -> Any:
        rank = len(x.shape) if _is_tensor(x) else len(x)
        if to_channels_first:
            order = [0, rank - 1] + list(range(1, rank - 1))
        else:
            order = [0] + list(range(2, rank)) + [1]
        if _is_tensor(x):
            return backend().v1.transpose(x, order)
        return [x[i] for i in order]
    return convert


class Benchmark:
    """`tf.test.Benchmark`: benchmarks are not tests."""


LOCAL: dict[str, dict[str, Any]] = {
    "test": {
        "TestCase": TestCase, "Benchmark": Benchmark, "main": lambda *a, **k: None,
        "is_gpu_available": lambda *a, **k: False, "is_built_with_cuda": lambda: False,
        "is_built_with_gpu_support": lambda: False, "is_built_with_rocm": lambda: False,
        "skipUnless": unittest.skipUnless, "skipIf": unittest.skipIf,
        "mock": unittest.mock, "gpu_device_name": lambda: "",
        "get_temp_dir": tempfile.gettempdir,
        "disable_with_predicate": lambda pred, skip_message: unittest.skipIf(pred(),
                                                                             skip_message),
        "compute_gradient": compute_gradient,
        "compute_gradient_error": compute_gradient_error,
        "disable_with_predicate": lambda pred, skip_message="": unittest.skipIf(pred(),
                                                                                skip_message),
    },
    "test_util": {
        "run_deprecated_v1": _graph_mode, "run_v1_only": _graph_mode,
        "deprecated_graph_mode_only": _graph_mode,
        "run_in_graph_and_eager_modes": _graph_mode,
        "run_all_in_graph_and_eager_modes": _graph_mode,
        "run_all_in_deprecated_graph_mode_only": _graph_mode,
        "with_eager_op_as_function": _graph_mode, "disable_xla": _graph_mode,
        "disable_tfrt": _graph_mode, "disable_mlir_bridge": _graph_mode,
        "run_without_tensor_float_32": _graph_mode, "run_with_all_saved_model_formats":
        _graph_mode, "xla_allow_fallback": _graph_mode, "for_all_test_methods":
        lambda decorator, *a, **k: (lambda cls: cls),
        "run_v2_only": _set_aside_decorator("runs in TF2 (eager) mode only"),
        "run_gpu_only": _set_aside_decorator("needs a GPU"),
        "run_cuda_only": _set_aside_decorator("needs a GPU"),
        "use_gpu": _null_context, "force_gpu": _null_context, "force_cpu": _null_context,
        "device": _null_context,
        "is_gpu_available": lambda *a, **k: False, "IsMklEnabled": lambda: False,
        "is_xla_enabled": lambda: False, "GpuSupportsHalfMatMulAndConv": lambda: False,
        "TensorFlowTestCase": TestCase,
        "disable_control_flow_v2": _disable_control_flow_v2,
        "enable_control_flow_v2": _enable_control_flow_v2,
        "with_control_flow_v2": _with_control_flow_v2,
        "enable_output_all_intermediates": _graph_mode,
        "build_as_function_and_v1_graph": _graph_mode,
        "enable_quantized_dtypes_training": _graph_mode,
        "run_all_without_tensor_float_32": lambda *a, **k: (lambda cls: cls),
        "deterministic_ops": _null_context,
        "NHWCToNCHW": _relayout(True), "NCHWToNHWC": _relayout(False),
    },
    "gradient_checker": {"compute_gradient": compute_gradient,
                         "compute_gradient_error": compute_gradient_error},
    "gradient_checker_v2": {"compute_gradient": compute_gradient_v2,
                            "max_error": max_error},
    "context": {"eager_mode": _eager_only, "graph_mode": _null_context,
                "context": _internal("eager context")},
    "tf2": {"enabled": lambda: False},
    "while_v2": {"while_loop": _while_v2},
    "cond_v2": {"cond_v2": _cond_v2, "indexed_case": _indexed_case},
    "control_flow_ops": {"XLAControlFlowContext": _internal("an XLA control-flow context")},
    "saver": {"BaseSaverBuilder": _internal("saver.BaseSaverBuilder")},
    "compat": {"as_bytes": lambda s, encoding="utf-8": s.encode(encoding)
               if isinstance(s, str) else bytes(s),
               "as_str": lambda s, encoding="utf-8": s.decode(encoding)
               if isinstance(s, bytes) else str(s)},
}

# Module attributes read at each access (they follow a backend switch made during a test).
LIVE: dict[tuple[str, str], Callable[[], Any]] = {
    ("control_flow_util", "ENABLE_CONTROL_FLOW_V2"):
        lambda: backend().v1.control_flow_v2_enabled(),
}
