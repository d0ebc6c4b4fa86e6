"""The AST rewrite: ``while``/``if``/``for`` -> calls of the runtime helpers.

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
results.  ``for x in xs`` becomes ``_ag__.for_stmt`` (a graph loop over the
first dimension when ``xs`` is a tensor).

``break`` and ``continue`` become flags first, as TF's AutoGraph does: the
statements after a possible jump run under ``if not (continue_ or break_):``
and the loop test gains ``and not break_``::

    while x < n:                    break_1 = False
        if x > m:                   while x < n and not break_1:
            break          ->           if x > m:
        x = x * 2                           break_1 = True
                                        if not break_1:
                                            x = x * 2

Statements the converter cannot express (``return`` inside a loop or an if,
item assignment...) stay Python, with their test wrapped in ``_ag__.py_test``
so a *tensor* test fails at trace time with the reason.  Nested function
definitions are left alone.
"""
from __future__ import annotations

import ast
import copy
import itertools
from typing import Sequence

from .analysis import assigned, exposed, jumps, reads, unsupported

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


def _not_any(flags: Sequence[str]) -> ast.expr:
    """``not (a or b)``: no jump has happened in this iteration (``_logical`` makes it graph-safe)."""
    inner = _name(flags[0]) if len(flags) == 1 else ast.BoolOp(op=ast.Or(),
                                                                 values=[_name(f) for f in flags])
    return ast.UnaryOp(op=ast.Not(), operand=inner)


def _set(flag: str, like: ast.AST) -> ast.stmt:
    return ast.copy_location(ast.Assign(targets=[_name(flag, True)], value=ast.Constant(True)), like)


def _guard(stmts: list[ast.stmt], brk: str | None, cont: str | None) -> tuple[list[ast.stmt], bool]:
    """``break``/``continue`` -> setting their flag; what follows a possible jump runs only
    if no flag is set.  Returns the new statements and whether they may jump."""
    flags = [f for f in (cont, brk) if f]
    out: list[ast.stmt] = []
    for i, s in enumerate(stmts):
        if isinstance(s, (ast.Break, ast.Continue)):
            out.append(_set(brk if isinstance(s, ast.Break) else cont, s))
            return out, True                  # the rest of this block never runs
        may_jump = False
        if isinstance(s, ast.If):
            s.body, a = _guard(s.body, brk, cont)
            s.orelse, b = _guard(s.orelse, brk, cont)
            may_jump = a or b
        elif isinstance(s, (ast.With, ast.AsyncWith)):
            s.body, may_jump = _guard(s.body, brk, cont)
        out.append(s)
        if may_jump:
            rest, _ = _guard(stmts[i + 1:], brk, cont)
            if rest:
                out.append(ast.copy_location(ast.If(test=_not_any(flags), body=rest, orelse=[]),
                                             rest[0]))
            return out, True
    return out, False


def _exposed(loop: ast.While | ast.For) -> set[str]:
    """What a loop's body reads from the previous iteration (as written by the user)."""
    found = getattr(loop, "ag_exposed", None)
    return exposed(loop.body) if found is None else found


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
        if isinstance(s, (ast.While, ast.For)) and not s.orelse and jumps(s.body) and \
                not getattr(s, "ag_lowered", False) and \
                not (isinstance(s, ast.For) and not isinstance(s.target, ast.Name)):
            return self.lower_jumps(s, after)
        if isinstance(s, ast.While):
            return self.while_(s, after)
        if isinstance(s, ast.If):
            return self.if_(s, after)
        if _is_range_loop(s):
            return self.for_range(s, after)
        if isinstance(s, ast.For) and isinstance(s.target, ast.Name):
            return self.for_iter(s, after)
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
        loop = ast.Constant(not isinstance(s, ast.If))
        if _is_range_loop(s):
            s.iter.args = [_helper("py_test", a, ast.Constant(reason), self._where(s), loop)
                           for a in s.iter.args]
        elif isinstance(s, ast.For):
            s.iter = _helper("py_test", s.iter, ast.Constant(reason), self._where(s), loop)
        else:
            s.test = _helper("py_test", s.test, ast.Constant(reason), self._where(s), loop)
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
        body = self.block(s.body, after | in_test | _exposed(s))
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

    # --- break / continue --------------------------------------------------------------
    def lower_jumps(self, s: ast.While | ast.For, after: set[str]) -> list[ast.stmt]:
        """The loop with its ``break``/``continue`` turned into flags, then converted."""
        k = next(self._ids)
        kinds = jumps(s.body)
        brk = f"_ag_break_{k}" if "break" in kinds else None
        cont = f"_ag_continue_{k}" if "continue" in kinds else None
        s.ag_lowered = True
        body, _ = _guard(copy.deepcopy(s.body), brk, cont)
        if jumps(body):              # a jump inside try: stays Python (refused on a tensor)
            return self.statement(s, after)
        s.ag_exposed = exposed(s.body)     # liveness of the body as written, before the guards
        if cont:
            body.insert(0, ast.copy_location(
                ast.Assign(targets=[_name(cont, True)], value=ast.Constant(False)), s.body[0]))
        s.body = body
        prelude = []
        if brk:
            prelude.append(ast.copy_location(
                ast.Assign(targets=[_name(brk, True)], value=ast.Constant(False)), s))
            if isinstance(s, ast.While):
                s.test = ast.BoolOp(op=ast.And(), values=[s.test, _not_any([brk])])
            else:
                s.ag_break = brk                # for loops: an extra test per iteration
        return prelude + self.statement(s, after)

    def _extra_test(self, s: ast.For, k: int, names: list[str]) -> tuple[list[ast.stmt], ast.expr]:
        """``for`` with a break flag: the function telling whether to go on (None: always)."""
        brk = getattr(s, "ag_break", None)
        if brk is None:
            return [], ast.Constant(None)
        fn = _def(f"_ag_extra_{k}", names, [ast.Return(value=_logical(_not_any([brk])))])
        return [fn], _name(fn.name)

    def _loop_names(self, s: ast.For, exclude: str, after: set[str]) -> tuple[list[str], list[bool]]:
        in_body = reads(s.body)
        brk = getattr(s, "ag_break", None)
        names = [n for n in assigned(s.body) if n != exclude and (n in in_body or n in after
                                                                     or n == brk)]
        return names, [n in after or n == brk for n in names]

    # --- for i in range(...) and for x in xs ---------------------------------------------
    def for_range(self, s: ast.For, after: set[str]) -> list[ast.stmt]:
        """``for i in range(...)``: a graph loop if a bound is a tensor."""
        bounds = ast.Tuple(elts=s.iter.args, ctx=ast.Load())
        return self._for(s, after, "for_range", [s.iter.func, bounds], [], "_ag_index_",
                         ast.Constant(None))

    def for_iter(self, s: ast.For, after: set[str]) -> list[ast.stmt]:
        """``for x in xs``: a graph loop over the first dimension if ``xs`` is a tensor."""
        undefined = ast.Attribute(value=_name(RUNTIME), attr="UNDEFINED", ctx=ast.Load())
        return self._for(s, after, "for_stmt", [s.iter], [ast.Constant(s.target.id in after)],
                         "_ag_item_", undefined)

    def _for(self, s: ast.For, after: set[str], helper: str, lead: list[ast.expr],
             trail: list[ast.expr], last_prefix: str, unset: ast.expr) -> list[ast.stmt]:
        """Both ``for`` forms: the body as a function, one runtime ``helper`` call (``lead``
        arguments first, ``trail`` last), and the loop variable's last value assigned back
        when code after the loop reads it (``unset``: the helper ran no iteration)."""
        reason = unsupported(s, self.first_line, self.declared)
        if reason:
            return self._keep_python(s, reason, after)
        self.converted += 1
        k = next(self._ids)
        target = s.target.id
        names, needed = self._loop_names(s, target, after)
        flag = [getattr(s, "ag_break", None)] if hasattr(s, "ag_break") else []
        body = self.block(s.body, after | _exposed(s) | {target, *flag})
        body_fn = _def(f"_ag_for_{k}", [target, *names], _returning(body, names))
        extra_fns, extra = self._extra_test(s, k, names)
        call = _helper(helper, *lead, extra, _name(body_fn.name), _current(names),
                       _const_tuple(names), _const_tuple(needed), self._where(s), *trail)
        last = f"{last_prefix}{k}"
        result = _assign_result([*names, last], call)
        keep_target = ast.If(test=ast.Compare(left=_name(last), ops=[ast.IsNot()],
                                              comparators=[unset]),
                             body=[ast.Assign(targets=[_name(target, True)], value=_name(last))],
                             orelse=[])
        return [*extra_fns, body_fn, result, *([keep_target] if target in after else [])]


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
