"""AutoGraph: Python ``while``/``if``/``for`` on tensors become graph control flow (``break``/``continue`` too).

::

    source --inspect.getsource--> AST --Converter--> AST with helper calls
           --compile (same file name and line numbers)--> code object
           --FunctionType(code, fn's globals, fn's closure cells + _ag__)--> converted fn

The converted function is compiled under the original file name with the
original line numbers, so build errors and graph nodes' creation sites point
at the user's lines.  It shares the original's globals and closure cells, so
names it reads stay live.  What cannot be converted (no source, lambdas,
async/generator functions) runs unconverted, with a warning when it matters.
"""
from __future__ import annotations

import ast
import functools
import inspect
import sysconfig
import textwrap
import types
import warnings
from typing import Any, Callable

from . import runtime
from .analysis import declared
from .transformer import RUNTIME, CallWrapper, Converter

__all__ = ["convert", "to_code", "call", "AutoGraphWarning", "AG"]

_FACTORY = "_ag_factory"


class AutoGraphWarning(UserWarning):
    """AutoGraph could not convert a function; it runs as written (Python control flow at trace time)."""


def _parse(fn: Callable) -> ast.FunctionDef | None:
    try:
        source = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError):
        return None
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    node = tree.body[0] if tree.body else None
    return node if isinstance(node, ast.FunctionDef) and node.name == fn.__name__ else None


def _convert_tree(fn: Callable) -> ast.Module | None:
    """The converted function wrapped in a factory whose parameters are its free variables."""
    fdef = _parse(fn)
    if fdef is None:
        return None
    code = fn.__code__
    first = code.co_firstlineno
    conv = Converter(code.co_filename, first, declared(fdef))
    fdef.decorator_list = []
    fdef.body = conv.block(fdef.body, set())
    calls = CallWrapper()
    fdef.body = [calls.visit(s) for s in fdef.body]
    if not conv.converted and not calls.wrapped:
        return None
    params = [*code.co_freevars, RUNTIME]
    factory = ast.FunctionDef(
        name=_FACTORY, args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p in params],
                                          vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                                          defaults=[]),
        body=[fdef, ast.Return(value=ast.Name(id=fdef.name, ctx=ast.Load()))],
        decorator_list=[], returns=None,
        **({"type_params": []} if "type_params" in ast.FunctionDef._fields else {}))
    ast.copy_location(factory, fdef)
    ast.copy_location(factory.body[1], fdef)
    module = ast.fix_missing_locations(ast.Module(body=[factory], type_ignores=[]))
    ast.increment_lineno(module, first - 1)
    return module


_CODE: dict[types.CodeType, tuple[types.CodeType, str] | None] = {}
"""Converted code per original code object (None: nothing to convert); functions are rebuilt."""


def _converted_code(fn: types.FunctionType) -> tuple[types.CodeType, str] | None:
    if fn.__code__ not in _CODE:
        made = _convert_tree(fn)
        if made is None:
            _CODE[fn.__code__] = None
        else:
            namespace: dict = {}
            exec(compile(made, fn.__code__.co_filename, "exec"), fn.__globals__, namespace)
            inner = next(c for c in namespace[_FACTORY].__code__.co_consts
                         if isinstance(c, types.CodeType) and c.co_name == fn.__name__)
            _CODE[fn.__code__] = inner, ast.unparse(made.body[0].body[0])
    return _CODE[fn.__code__]


def _skipped(fn: Callable, quiet: bool) -> str | None:
    """Why ``fn`` runs unconverted (None: convert it); warns unless ``quiet``."""
    if getattr(fn, "__name__", "") == "<lambda>" or not isinstance(fn, types.FunctionType):
        return "not a def"
    if inspect.isgeneratorfunction(fn) or inspect.iscoroutinefunction(fn):
        why = (f"AutoGraph does not convert generator/async function {fn.__qualname__}; it runs "
               f"as written.")
    elif hasattr(fn, "__wrapped__"):
        why = (f"AutoGraph does not convert {fn.__qualname__}: it is wrapped by another "
               f"decorator, whose behaviour converting the inner source would drop; it runs as "
               f"written. Put @function outermost and the control flow in an undecorated function.")
    elif _parse(fn) is None:
        why = (f"AutoGraph could not read the source of {fn.__qualname__}; it runs as written "
               f"(Python if/while on a tensor will fail).")
    else:
        return None
    if not quiet:
        warnings.warn(why, AutoGraphWarning, stacklevel=4)
    return why


def convert(fn: Callable, quiet: bool = False) -> Callable:
    """``fn`` with its tensor-dependent control flow converted (or ``fn`` itself if none).

    Functions it calls are converted when called (see :func:`call`).
    """
    if (fn.__code__ not in _CODE if isinstance(fn, types.FunctionType) else True) and \
            _skipped(fn, quiet):
        return fn
    made = _converted_code(fn)
    if made is None:
        return fn
    inner, source = made
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    cells[RUNTIME] = types.CellType(AG)
    new = types.FunctionType(inner, fn.__globals__, fn.__name__, fn.__defaults__,
                             tuple(cells[n] for n in inner.co_freevars))
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__qualname__, new.__doc__, new.__module__ = fn.__qualname__, fn.__doc__, fn.__module__
    new.__wrapped__ = fn
    new.__ag_source__ = source
    return new


def to_code(fn: Callable) -> str:
    """The converted source of ``fn`` (like ``tf.autograph.to_code``); ``fn``'s own if unchanged."""
    converted = convert(fn)
    return getattr(converted, "__ag_source__", None) or textwrap.dedent(inspect.getsource(fn))


# --- calls: user functions called from converted code are converted too ----------------------

_LIBRARIES = ("staticgraph", "dyngraph", "common", "numpy", "networkx")


@functools.cache
def _installed() -> tuple[str, ...]:
    """Where the standard library and installed packages live.

    Asked on first use, not at import: expanding sysconfig's path templates costs ~10 ms,
    more than the rest of autograph's import.
    """
    paths = sysconfig.get_paths()
    return tuple({paths[k] for k in ("stdlib", "purelib", "platlib")})


def _user_function(f: Any) -> bool:
    return (isinstance(f, types.FunctionType) and f.__name__ != "<lambda>"
            and (f.__module__ or "").partition(".")[0] not in _LIBRARIES
            and not f.__code__.co_filename.startswith(_installed()))


def call(f: Callable, *args: Any, **kwargs: Any) -> Any:
    """``f(*args, **kwargs)``, with ``f`` converted first if it is the user's own function."""
    if _user_function(f):
        f = convert(f, quiet=True)
    elif isinstance(f, types.MethodType) and _user_function(f.__func__):
        f = types.MethodType(convert(f.__func__, quiet=True), f.__self__)
    return f(*args, **kwargs)


AG = types.SimpleNamespace(**{name: getattr(runtime, name) for name in runtime.__all__}, call=call)
"""What converted code calls its helpers through (``_ag__.while_stmt``, ``_ag__.call``...): the
runtime's helpers and :func:`call`, which converts the functions converted code calls (so it
lives here, with :func:`convert`, not in the runtime)."""
