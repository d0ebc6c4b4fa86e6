"""Run-time assertions as graph ops: ``tf.Assert``, ``tf.assert_equal``, ``tf.debugging.assert_*``.

An assertion is an ``Assert`` node (it has no output): run it, or make other
ops wait on it with ``control_dependencies``; when its condition is false it
raises ``InvalidArgumentError`` with TF's text::

    assertion failed: [Condition x < y did not hold element-wise:] [x (x:0) = ] [1 9] [y (...)] [5]

When both operands' values are fixed when the graph is built, the check runs
now, as TF's does, and a failure raises at the user's line.

>>> import staticgraph as tf
>>> x = tf.placeholder(tf.int32, [None])
>>> tf.assert_positive(x).type
'Assert'
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..framework.build import convert_to_tensor
from ..framework.errors import InvalidArgumentError
from ..framework.error_text import at_node
from ..framework.graph import Operation, Tensor, get_default_graph, name_scope
from ..framework.kinds import _pass_through, _summary, defkind
from .core_ops import cast, equal, greater, greater_equal, less, less_equal, logical_not, not_equal, \
    reduce_sum
from .array_ops import constant_value, rank as _rank
from ..framework.sources import no_op
from ..framework import dtypes as _dtypes

__all__ = ["Assert", "assert_equal", "assert_none_equal", "assert_less", "assert_less_equal",
           "assert_greater", "assert_greater_equal", "assert_positive", "assert_negative",
           "assert_non_negative", "assert_non_positive", "assert_rank", "assert_type",
           "assert_scalar", "check_numerics", "assert_all_finite"]


def _all(condition: Tensor) -> Tensor:
    """``all(condition)`` from existing ops: no element is False (True for an empty tensor)."""
    return equal(reduce_sum(cast(logical_not(condition), "int32")), 0)


def Assert(condition, data, summarize=None, name=None) -> Operation:  # noqa: N802  (TF's name)
    """An op that fails with ``data`` (tensors and strings) printed when ``condition`` is False."""
    with name_scope(name, "Assert"):
        cond = convert_to_tensor(condition)
        template, tensors = [], []
        for d in data:
            if isinstance(d, str):
                template.append(d)
            else:
                template.append(None)
                tensors.append(convert_to_tensor(d))
        return get_default_graph().create_op(
            "Assert", (cond, *tensors), {"template": tuple(template), "summarize": summarize or 3},
            [], name="Assert")


def _format(value: Any, summarize: int) -> str:
    """A value as TF's assertion message shows it: ``[1 -7]``, at most ``summarize`` items."""
    a = np.asarray(value)
    if a.ndim == 0:
        return str(a.item() if a.dtype.kind != "O" else a.item())
    if a.ndim == 1:
        items = [str(v) for v in a[:summarize].tolist()]
        return "[" + " ".join(items) + ("..." if a.size > summarize else "") + "]"
    return "[" + " ".join(_format(row, summarize) for row in a[:summarize]) + \
        ("..." if len(a) > summarize else "") + "]"


def _lower_assert(op: Operation, ctx):
    template, summarize = op.attrs["template"], op.attrs["summarize"]

    def kernel(cond, *values):
        if not bool(np.all(cond)):
            parts = iter(values)
            items = " ".join(f"[{t}]" if t is not None else _summary(next(parts), summarize)
                             for t in template)
            raise InvalidArgumentError(None, op, at_node(f"assertion failed: {items}", op.name)
                                       + f"\n  created at {op.site}")
    return kernel


defkind("Assert", _lower_assert, stateful=True, attrs=("template", "summarize"))


def _binary_assert(default: str, compare, symbol: str, x, y, data, summarize, message, name):
    with name_scope(name, default):
        x = convert_to_tensor(x)
        y = convert_to_tensor(y, dtype=x.dtype, name="y") if not isinstance(y, Tensor) else y
        if data is None:
            data = [f"Condition x {symbol} y did not hold element-wise:",
                    f"x ({x.name}) = ", x, f"y ({y.name}) = ", y]
        if message is not None:
            data = [message, *data]
        _check_now(x, y, symbol)
        return Assert(_all(compare(x, y)), data, summarize)


_NUMPY = {"==": np.equal, "!=": np.not_equal, "<": np.less, "<=": np.less_equal,
          ">": np.greater, ">=": np.greater_equal}


def _check_now(x: Tensor, y: Tensor, symbol: str) -> None:
    """Both values fixed at build time: check now (TF raises here, not at run time)."""
    xv, yv = constant_value(x), constant_value(y)
    if xv is None or yv is None or np.all(_NUMPY[symbol](xv, yv)):
        return
    raise InvalidArgumentError(None, None, f"Condition x {symbol} y did not hold element-wise:\n"
                                           f"x ({x.name}) = \n{_format(xv, 3)}\n"
                                           f"y ({y.name}) = \n{_format(yv, 3)}")


def assert_equal(x, y, data=None, summarize=None, message=None, name=None) -> Operation:
    return _binary_assert("assert_equal", equal, "==", x, y, data, summarize, message, name)


def assert_none_equal(x, y, data=None, summarize=None, message=None, name=None) -> Operation:
    return _binary_assert("assert_none_equal", not_equal, "!=", x, y, data, summarize, message, name)


def assert_less(x, y, data=None, summarize=None, message=None, name=None) -> Operation:
    return _binary_assert("assert_less", less, "<", x, y, data, summarize, message, name)


def assert_less_equal(x, y, data=None, summarize=None, message=None, name=None) -> Operation:
    return _binary_assert("assert_less_equal", less_equal, "<=", x, y, data, summarize, message, name)


def assert_greater(x, y, data=None, summarize=None, message=None, name=None) -> Operation:
    return _binary_assert("assert_greater", greater, ">", x, y, data, summarize, message, name)


def assert_greater_equal(x, y, data=None, summarize=None, message=None, name=None) -> Operation:
    return _binary_assert("assert_greater_equal", greater_equal, ">=", x, y, data, summarize,
                          message, name)


def _sign_assert(default: str, compare, symbol: str, x, data, summarize, message, name):
    with name_scope(name, default):
        x = convert_to_tensor(x)
        if data is None:
            data = [f"Condition x {symbol} 0 did not hold element-wise:", f"x ({x.name}) = ", x]
        data = [f"{message}.  " if message else "", *data]  # TF: "[] [...]", "[msg.  ] [...]"
        return Assert(_all(compare(x, 0)), data, summarize)


def assert_positive(x, data=None, summarize=None, message=None, name=None) -> Operation:
    return _sign_assert("assert_positive", greater, ">", x, data, summarize, message, name)


def assert_negative(x, data=None, summarize=None, message=None, name=None) -> Operation:
    return _sign_assert("assert_negative", less, "<", x, data, summarize, message, name)


def assert_non_negative(x, data=None, summarize=None, message=None, name=None) -> Operation:
    return _sign_assert("assert_non_negative", greater_equal, ">=", x, data, summarize, message, name)


def assert_non_positive(x, data=None, summarize=None, message=None, name=None) -> Operation:
    return _sign_assert("assert_non_positive", less_equal, "<=", x, data, summarize, message, name)


def assert_rank(x, rank, message=None, name=None) -> Operation:
    """``x`` has rank ``rank``: checked now when the rank is known (a ValueError, as TF), else
    at run time."""
    with name_scope(name, "assert_rank"):
        x = convert_to_tensor(x)
        prefix = f"{message}.  " if message else ""
        if x.ndim is not None:
            if x.ndim != int(rank):
                raise ValueError(f"{prefix}Tensor {x.name} must have rank {int(rank)}.  Received "
                                 f"rank {x.ndim}, shape {x.shape}")
            return no_op(name="static_checks_determined_all_ok")
        return Assert(equal(_rank(x), int(rank)),
                      [prefix, f"Tensor {x.name} must have rank", int(rank), "Received shape: ",
                       x], None)


def assert_type(tensor, tf_type, message=None, name=None):
    """``tensor``'s dtype is ``tf_type`` (a build-time check: TypeError otherwise)."""
    t = convert_to_tensor(tensor)
    want = _dtypes.as_dtype(tf_type)
    if t.dtype != want:
        prefix = f"{message}.  " if message else ""
        raise TypeError(f"{prefix}{t.name} must be of type {want!r}; got {t.dtype!r}")
    return no_op(name=name or "statically_determined_correct_type")


def assert_scalar(tensor, name=None, message=None):
    """``tensor`` is a scalar (rank 0, known now); returns it."""
    t = convert_to_tensor(tensor)
    if t.ndim != 0:
        prefix = f"{message}.  " if message else ""
        raise ValueError(f"{prefix}Expected scalar shape for {t.name}, saw shape: {t.shape}.")
    return t


def check_numerics(tensor, message, name=None) -> Tensor:
    """``tensor`` unchanged, or an ``InvalidArgumentError`` (``"<message> : Tensor had NaN
    values"``) when it holds a NaN or an infinity at run time."""
    x = convert_to_tensor(tensor)
    op = get_default_graph().create_op("CheckNumerics", (x,), {"message": str(message)},
                                       [(x._shape, x.np_dtype)], name=name or "CheckNumerics")
    return op.outputs[0]


def assert_all_finite(t, msg, name=None) -> Tensor:
    """TF1's ``verify_tensor_all_finite``: ``check_numerics`` under its other name."""
    return check_numerics(t, msg, name=name or "VerifyFinite")


def _lower_check_numerics(op: Operation, ctx):
    message = op.attrs["message"]

    def kernel(x):
        if x.dtype.kind == "f" and not np.isfinite(x).all():
            what = "NaN" if np.isnan(x).any() else "Inf"
            raise InvalidArgumentError(None, op, at_node(f"{message} : Tensor had {what} values",
                                                         op.name) + f"\n  created at {op.site}")
        return x
    return kernel


defkind("CheckNumerics", _lower_check_numerics, gradient=_pass_through, stateful=True,
        attrs=("message",))
