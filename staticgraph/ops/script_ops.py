"""``tf.py_func`` / ``tf.numpy_function``: a node that calls a Python function when it runs.

The function receives the inputs' values as numpy arrays and returns arrays of the
declared ``Tout`` dtypes (checked, with TF's words, when the node runs).  The node is
stateful -- never folded, merged or dropped, run once per ``Session.run`` that needs it --
and has no gradient, as TF's ``PyFunc``.  It holds Python code, so a graph containing one
cannot be serialized (``tf.to_json`` names the node); TF's exported GraphDefs cannot run
one outside the process that built it either.

Exceptions raised by the function become TF's errors: ``ValueError``/``TypeError`` ->
``InvalidArgumentError``, ``StopIteration`` -> ``OutOfRangeError``, ``NotImplementedError``
-> ``UnimplementedError``, others -> ``UnknownError``.

>>> import numpy as np, staticgraph as tf
>>> y = tf.py_func(lambda a: a * 2, [tf.constant([1.0, 2.0])], tf.float32)
>>> with tf.Session() as s:
...     s.run(y)
array([2., 4.], dtype=float32)
"""
from __future__ import annotations

import itertools
from typing import Callable

import numpy as np

from ..framework import dtypes as _dtypes
from ..framework import errors
from ..framework.build import convert_to_tensor
from ..framework.error_text import at_node
from ..framework.graph import Operation, get_default_graph
from ..framework.kinds import defkind

__all__ = ["py_func", "numpy_function"]

_TOKENS = itertools.count()  # TF names each registered function pyfunc_<n>, process-wide

_ERRORS = ((StopIteration, errors.OutOfRangeError), ((ValueError, TypeError), errors.InvalidArgumentError),
           (NotImplementedError, errors.UnimplementedError), (MemoryError, errors.ResourceExhaustedError))


def _tf_name(dtype: np.dtype) -> str:
    return _dtypes._TF_NAMES.get(np.dtype(dtype).name, np.dtype(dtype).name)


def _lower(op: Operation, ctx):
    func, token = op.attrs["func"], op.attrs["token"]
    wanted = [t.dtype._np for t in op.outputs]
    created = f"\n  created at {op.site}"

    def kernel(*values):
        try:
            result = func(*values)
        except Exception as e:  # noqa: BLE001  (every exception becomes TF's error class)
            cls = next((c for kinds, c in _ERRORS if isinstance(e, kinds)), errors.UnknownError)
            raise cls(None, op, at_node(f"{type(e).__name__}: {e}", op.name) + created) from e
        result = list(result) if isinstance(result, (list, tuple)) else [result]
        if len(result) != len(wanted):
            raise errors.InvalidArgumentError(
                None, op, at_node(f"{token} returns {len(result)} values, but expects to see "
                                  f"{len(wanted)} values.", op.name) + created)
        out = []
        for i, (value, dtype) in enumerate(zip(result, wanted)):
            value = np.asarray(value)
            if value.dtype != dtype:
                raise errors.InvalidArgumentError(
                    None, op, at_node(f"{i}-th value returned by {token} is "
                                      f"{_tf_name(value.dtype)}, but expects {_tf_name(dtype)}",
                                      op.name) + created)
            out.append(value)
        return tuple(out) if len(out) != 1 else out[0]
    return kernel


def _not_differentiable(op: Operation, out_grads: list, wanted: list[bool]) -> list:
    """No gradient flows through the Python function (TF: ``NotDifferentiable("PyFunc")``)."""
    return [None] * len(op.inputs)


defkind("PyFunc", _lower, gradient=_not_differentiable, stateful=True, attrs=("func", "token"))
defkind("PyFuncStateless", _lower, gradient=_not_differentiable, stateful=True,
        attrs=("func", "token"))


def py_func(func: Callable, inp, Tout, stateful: bool = True, name: str | None = None):  # noqa: N803
    """A node computing ``func(*values of inp)``: one tensor if ``Tout`` is a dtype, else a list."""
    multi = isinstance(Tout, (list, tuple))
    dtypes = [_dtypes.as_dtype(d) for d in (Tout if multi else [Tout])]
    inputs = [convert_to_tensor(x) for x in inp]
    op = get_default_graph().create_op(
        "PyFunc" if stateful else "PyFuncStateless", inputs,
        {"func": func, "token": f"pyfunc_{next(_TOKENS)}"},
        [(None, d) for d in dtypes], name=name)
    return list(op.outputs) if multi else op.outputs[0]


def numpy_function(func: Callable, inp, Tout, stateful: bool = True, name: str | None = None):  # noqa: N803
    """TF 2's name for :func:`py_func` (same node, same semantics)."""
    return py_func(func, inp, Tout, stateful, name)
