"""Which variables a statement reads and writes, and what the converter must refuse.

A converted loop body or branch becomes a nested function whose parameters
and results are the *loop variables* (or branch outputs):

    assigned in the body  AND  (read in the body or test  OR  read after the statement)

"Read after" is approximated by "read anywhere later in the function, or
anywhere in an enclosing loop" (the back edge): it may keep a variable that a
true liveness analysis would drop, never the reverse.
"""
from __future__ import annotations

import ast
from typing import Iterable

__all__ = ["assigned", "reads", "exposed", "jumps", "unsupported", "declared"]

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef,
           ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _nodes(trees: Iterable[ast.AST], into_scopes: bool) -> Iterable[ast.AST]:
    """Nodes in source order; ``into_scopes=False`` stops at nested functions/classes/comprehensions."""
    stack = list(reversed(list(trees)))
    while stack:
        node = stack.pop()
        yield node
        if not into_scopes and isinstance(node, _SCOPES):
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


def assigned(trees: Iterable[ast.AST]) -> list[str]:
    """Names bound by these statements in *this* scope, in order of first binding."""
    out: dict[str, None] = {}
    for node in _nodes(trees, into_scopes=False):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            out.setdefault(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.setdefault(node.name)
    return list(out)


def reads(trees: Iterable[ast.AST]) -> set[str]:
    """Names read anywhere in these statements (nested functions included: they may run later)."""
    names = set()
    for node in _nodes(trees, into_scopes=True):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            names.add(node.id)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def exposed(stmts: list[ast.stmt]) -> set[str]:
    """Names a block may read before assigning them: what flows into it from before.

    A name assigned by a plain top-level assignment before any read is not
    exposed (``y = x * 2`` at the top of a loop body: the previous iteration's
    ``y`` is never read), so a loop does not carry its per-iteration temporaries.
    """
    killed: set[str] = set()
    out: set[str] = set()
    for s in stmts:
        out |= reads([s]) - killed
        if isinstance(s, (ast.Assign, ast.AnnAssign)):
            killed |= set(assigned([s]))
    return out


def jumps(body: list[ast.stmt]) -> set[str]:
    """``"break"``/``"continue"`` statements that belong to the loop owning ``body``
    (not to a loop nested in it, nor to nested functions)."""
    found: set[str] = set()
    stack = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Break):
            found.add("break")
        elif isinstance(node, ast.Continue):
            found.add("continue")
        elif not isinstance(node, (*_SCOPES, ast.For, ast.While, ast.AsyncFor)):
            stack.extend(ast.iter_child_nodes(node))
    return found


def _line(node: ast.AST, first_line: int) -> int:
    return node.lineno + first_line - 1


def declared(fdef: ast.FunctionDef) -> set[str]:
    """Names the function declares ``global`` or ``nonlocal`` (not in nested functions)."""
    return {n for node in _nodes(fdef.body, into_scopes=False)
            if isinstance(node, (ast.Global, ast.Nonlocal)) for n in node.names}


def unsupported(stmt: ast.While | ast.If | ast.For, first_line: int,
                outer: set[str] = frozenset()) -> str | None:
    """Why ``stmt`` must stay a Python statement (None if it can be converted).

    ``break``/``continue`` count only for a loop's own body (not nested loops);
    ``return``/``yield`` anywhere outside nested functions.
    """
    is_loop = not isinstance(stmt, ast.If)
    if is_loop and stmt.orelse:
        return ("the loop has an `else:` clause; move that code after the loop, guarded by a "
                "variable set in the body")
    body = [*stmt.body, *([] if is_loop else stmt.orelse)]
    for node in _nodes(body, into_scopes=False):
        line = _line(node, first_line) if hasattr(node, "lineno") else None
        if isinstance(node, (ast.Return, ast.Yield, ast.YieldFrom)):
            kind = "return" if isinstance(node, ast.Return) else "yield"
            return (f"it contains `{kind}` (line {line}); assign the result to a variable in "
                    f"every branch/iteration and {kind} it after the statement")
        if isinstance(node, (ast.Break, ast.Continue)) and _owner_is(body, node, stmt):
            kind = "break" if isinstance(node, ast.Break) else "continue"
            fix = ("fold the exit condition into the loop test (while cond and not done:)"
                   if kind == "break" else "wrap the rest of the body in an if instead")
            return f"it contains `{kind}` (line {line}); {fix}"
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            return (f"it declares {', '.join(node.names)} {type(node).__name__.lower()} (line "
                    f"{line}); keep the value in a local variable")
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.id in outer:
            return (f"it assigns '{node.id}' (line {line}), declared global/nonlocal; keep the "
                    f"value in a local variable and assign '{node.id}' after the statement")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id == "super" and not node.args:
            return (f"it calls super() without arguments (line {line}), which cannot find its "
                    f"class inside the generated function; call it before the statement or "
                    f"write super(ClassName, self)")
        if isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, ast.Store):
            return (f"it assigns to `{ast.unparse(node)}` (line {line}): graph control flow only "
                    f"carries plain variables (an item or attribute would be written once, at "
                    f"trace time); keep the value in a variable and store it after the statement")
    return None


def _owner_is(body: list[ast.stmt], target: ast.AST, stmt: ast.AST) -> bool:
    """Whether ``target`` (break/continue) belongs to ``stmt``: no loop in between."""
    def search(nodes, inside_loop: bool) -> bool | None:
        for n in nodes:
            if n is target:
                return not inside_loop
            if isinstance(n, _SCOPES):
                continue
            nested = inside_loop or isinstance(n, (ast.For, ast.While, ast.AsyncFor))
            found = search(list(ast.iter_child_nodes(n)), nested)
            if found is not None:
                return found
        return None
    return bool(search(body, False))
