"""The AST rewrite: ``while``/``if``/``for i in range(...)`` -> calls of the runtime helpers.

::

    while x < n:                     def _ag_test_1(x):
        x = x * 2                        return x < n
                            ->       def _ag_body_1(x):
                                         x = x * 2
                                         return (x,)
                                     (x,) = _ag__.while_stmt(_ag_test_1, _ag_body_1,
                                             (_ag__.ld(lambda: x),), ('x',), (True,), 'f.py:3')

The nested functions read every other variable through Python closures, so
only the variables the statement changes travel through parameters and
results.  Statements the converter cannot express (``break``, ``return``
inside, item assignment...) stay Python, with their test wrapped in
``_ag__.py_test`` so a *tensor* test fails at trace time with the reason.
Nested function definitions are left alone.
"""
from __future__ import annotations

import ast
import itertools
from typing import Sequence

from .analysis import assigned, reads, unsupported

__all__ = ["Converter", "CallWrapper", "RUNTIME"]

RUNTIME = "_ag__"
"""The name under which converted code sees :mod:`.runtime` (a closure cell, not a global)."""


def _name(id_: str, store: bool = False) -> ast.Name:
    return ast.Name(id=id_, ctx=ast.Store() if store else ast.Load())


def _helper(fn: str, *args: ast.expr) -> ast.Call:
    return ast.Call(func=ast.Attribute(value=_name(RUNTIME), attr=fn, ctx=ast.Load()),
                    args=list(args), keywords=[])


def _const_tuple(values: Sequence) -> ast.Tuple:
    return ast.Tuple(elts=[ast.Constant(v) for v in values], ctx=ast.Load())


def _def(name: str, params: Sequence[str], body: list[ast.stmt]) -> ast.FunctionDef:
    args = ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p in params], vararg=None,
                         kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    extra = {"type_params": []} if "type_params" in ast.FunctionDef._fields else {}
    return ast.FunctionDef(name=name, args=args, body=body, decorator_list=[], returns=None, **extra)


def _current(names: Sequence[str]) -> ast.Tuple:
    """``(_ag__.ld(lambda: a), ...)``: each variable's value, UNDEFINED if it has none yet."""
    thunks = [ast.Lambda(args=_def("_", [], []).args, body=_name(n)) for n in names]
    return ast.Tuple(elts=[_helper("ld", t) for t in thunks], ctx=ast.Load())


def _assign_result(names: Sequence[str], call: ast.expr) -> ast.stmt:
    if not names:
        return ast.Expr(value=call)
    return ast.Assign(targets=[ast.Tuple(elts=[_name(n, True) for n in names], ctx=ast.Store())],
                      value=call)


def _returning(body: list[ast.stmt], names: Sequence[str]) -> list[ast.stmt]:
    return [*body, ast.Return(value=ast.Tuple(elts=[_name(n) for n in names], ctx=ast.Load()))]


def _logical(test: ast.expr) -> ast.expr:
    """``a and b`` / ``a or b`` / ``not a`` in a test -> runtime helpers (tensors can't be bool()ed).

    The right operand becomes a thunk, so Python values keep their short circuit.
    """
    if isinstance(test, ast.BoolOp):
        fn = "and_" if isinstance(test.op, ast.And) else "or_"
        values = [_logical(v) for v in test.values]
        out = values[0]
        for v in values[1:]:
            out = _helper(fn, out, ast.Lambda(args=_def("_", [], []).args, body=v))
        return out
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _helper("not_", _logical(test.operand))
    return test


def _is_range_loop(s: ast.stmt) -> bool:
    it = s.iter if isinstance(s, ast.For) else None
    return (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"
            and 1 <= len(it.args) <= 3 and not it.keywords and isinstance(s.target, ast.Name))


class Converter:
    """Rewrites one function body; ``converted`` counts the statements it rewrote.

    ``declared``: the function's ``global``/``nonlocal`` names (a converted
    statement must not assign them: its body becomes a nested function).
    """

    def __init__(self, filename: str, first_line: int, declared: set[str] = frozenset()):
        self.filename = filename
        self.first_line = first_line
        self.declared = declared
        self.converted = 0
        self._ids = itertools.count(1)

    def _where(self, node: ast.AST) -> ast.Constant:
        return ast.Constant(f"{self.filename}:{node.lineno + self.first_line - 1}")

    # --- blocks -------------------------------------------------------------------------
    def block(self, stmts: list[ast.stmt], live_after: set[str]) -> list[ast.stmt]:
        """Convert each statement, knowing what is read after it."""
        out: list[ast.stmt] = []
        for i, s in enumerate(stmts):
            new = self.statement(s, reads(stmts[i + 1:]) | live_after)
            out.extend(ast.copy_location(n, s) if n is not s else n for n in new)
        return out

    def statement(self, s: ast.stmt, after: set[str]) -> list[ast.stmt]:
        if isinstance(s, ast.While):
            return self.while_(s, after)
        if isinstance(s, ast.If):
            return self.if_(s, after)
        if _is_range_loop(s):
            return self.for_range(s, after)
        if isinstance(s, (ast.For, ast.AsyncFor)):
            s.body = self.block(s.body, after | reads([s]))
            s.orelse = self.block(s.orelse, after)
        elif isinstance(s, (ast.With, ast.AsyncWith)):
            s.body = self.block(s.body, after)
        elif isinstance(s, ast.Try):
            s.body = self.block(s.body, after)
            for h in s.handlers:
                h.body = self.block(h.body, after)
            s.orelse, s.finalbody = self.block(s.orelse, after), self.block(s.finalbody, after)
        return [s]

    def _keep_python(self, s: ast.While | ast.If | ast.For, reason: str,
                     after: set[str]) -> list[ast.stmt]:
        """Leave ``s`` as Python; a tensor test raises AutoGraphError with ``reason``."""
        self.converted += 1
        loop_live = after | reads([s]) if not isinstance(s, ast.If) else after
        if isinstance(s, ast.For):
            s.iter.args = [_helper("py_test", a, ast.Constant(reason), self._where(s))
                           for a in s.iter.args]
        else:
            s.test = _helper("py_test", s.test, ast.Constant(reason), self._where(s))
        s.body = self.block(s.body, loop_live)
        s.orelse = self.block(s.orelse, after)
        return [s]

    # --- while ---------------------------------------------------------------------------
    def while_(self, s: ast.While, after: set[str]) -> list[ast.stmt]:
        reason = unsupported(s, self.first_line, self.declared)
        if reason:
            return self._keep_python(s, reason, after)
        self.converted += 1
        k = next(self._ids)
        in_test, in_body = reads([s.test]), reads(s.body)
        names = [n for n in assigned(s.body) if n in in_test or n in in_body or n in after]
        needed = [n in in_test or n in after for n in names]
        body = self.block(s.body, after | in_test | in_body)
        test_fn = _def(f"_ag_test_{k}", names, [ast.Return(value=_logical(s.test))])
        body_fn = _def(f"_ag_body_{k}", names, _returning(body, names))
        call = _helper("while_stmt", _name(test_fn.name), _name(body_fn.name), _current(names),
                       _const_tuple(names), _const_tuple(needed), self._where(s))
        return [test_fn, body_fn, _assign_result(names, call)]

    # --- if ------------------------------------------------------------------------------
    def if_(self, s: ast.If, after: set[str]) -> list[ast.stmt]:
        reason = unsupported(s, self.first_line, self.declared)
        if reason:
            return self._keep_python(s, reason, after)
        self.converted += 1
        k = next(self._ids)
        inside = reads(s.body) | reads(s.orelse)
        names = [n for n in assigned([*s.body, *s.orelse]) if n in inside or n in after]
        live = [n in after for n in names]
        fns = [_def(f"_ag_{label}_{k}", names,
                    _returning(self.block(branch, after), names) if branch else
                    _returning([], names))
               for label, branch in (("then", s.body), ("else", s.orelse))]
        call = _helper("if_stmt", _logical(s.test), _name(fns[0].name), _name(fns[1].name),
                       _current(names), _const_tuple(names), _const_tuple(live), self._where(s))
        return [*fns, _assign_result(names, call)]

    # --- for i in range(...) -------------------------------------------------------------
    def for_range(self, s: ast.For, after: set[str]) -> list[ast.stmt]:
        reason = unsupported(s, self.first_line, self.declared)
        if reason:
            return self._keep_python(s, reason, after)
        self.converted += 1
        k = next(self._ids)
        index = s.target.id
        in_body = reads(s.body)
        names = [n for n in assigned(s.body) if n != index and (n in in_body or n in after)]
        needed = [n in after for n in names]
        body = self.block(s.body, after | in_body | {index})
        body_fn = _def(f"_ag_for_{k}", [index, *names], _returning(body, names))
        args = ast.Tuple(elts=s.iter.args, ctx=ast.Load())
        call = _helper("for_range", s.iter.func, args, _name(body_fn.name), _current(names),
                       _const_tuple(names), _const_tuple(needed), self._where(s))
        last = f"_ag_index_{k}"
        result = _assign_result([*names, last], call)
        keep_index = ast.If(test=ast.Compare(left=_name(last), ops=[ast.IsNot()],
                                             comparators=[ast.Constant(None)]),
                            body=[ast.Assign(targets=[_name(index, True)], value=_name(last))],
                            orelse=[])
        return [body_fn, result, *([keep_index] if index in after else [])]


_FRAME_SENSITIVE = frozenset({"super", "locals", "globals", "vars", "eval", "exec", "dir"})


class CallWrapper(ast.NodeTransformer):
    """``f(a, k=b)`` -> ``_ag__.call(f, a, k=b)``: called user functions are converted too.

    Runs after :class:`Converter`: it enters the generated ``_ag_*`` bodies
    (they hold the user's statements) but not the user's own nested functions,
    lambdas or classes; builtins that read their caller's frame stay direct.
    """

    def __init__(self):
        self.wrapped = 0

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        return self.generic_visit(node) if node.name.startswith("_ag_") else node

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        return node

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        f = node.func
        if (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == RUNTIME) \
                or (isinstance(f, ast.Name) and f.id in _FRAME_SENSITIVE):
            return node
        self.wrapped += 1
        return ast.Call(func=ast.Attribute(value=_name(RUNTIME), attr="call", ctx=ast.Load()),
                        args=[f, *node.args], keywords=node.keywords)
