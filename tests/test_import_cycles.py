"""The packages' imports form no cycle, and the engines stay apart.

Only what runs when a module is imported counts: top-level ``import`` / ``from``
statements, also inside top-level ``if`` / ``try`` / ``with`` blocks, but not
under ``if TYPE_CHECKING:`` and not inside functions (an import in a function
body runs when it is called, after every module has loaded).

``from pkg import name`` is an edge to ``pkg.name`` when that is a module, else
to ``pkg`` itself (its ``__init__``).  A submodule's implicit import of its
parent package is not an edge: Python always runs the parent first.

Function bodies count too, package by package (:data:`CHECKED`): an import
moved into a function to dodge a cycle still is the cycle (one module needs
the other loaded first), only hidden until the call.  So in a checked package
no cycle runs through function-body imports either (only ``if TYPE_CHECKING:``
imports, which never run, are left out), and an import runs later than at
module level only when it must: an optional dependency, or a module that
imports one, or networkx (see :data:`LAZY`); each says why on (or just above) its line.

The engines never import each other at module level.  ``dyngraph.jit`` is the
one bridge (it turns a trace into a staticgraph graph); it too imports
staticgraph only when a trace is made, so the check allows it but does not need it.
Counting function bodies too, only the bridge and the two modules exporting the
graph it traced import the other engine at all.

A failure of the cycle check names the groups of modules that import each other (Tarjan).
"""
from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("common", "dyngraph", "staticgraph", "comparisons")
BRIDGES = {"dyngraph.jit"}
"""Modules allowed to import the other engine at module level (see their docstrings)."""
BRIDGE_USERS = {"dyngraph.jit", "dyngraph.onnx", "dyngraph.utils.tensorboard.writer"}
"""Modules that import the other engine at all: the bridge, and the two that hand the graph it
traced to staticgraph's exporters (in a function body, when asked to export)."""
CHECKED = ("common", "dyngraph", "staticgraph")
"""The packages whose imports in function bodies must form no cycle either (comparisons, the
benchmark harness on top of everything, is held to the module-level check only)."""
LAZY = {
    "onnx": "optional extra [onnx]",
    "onnxruntime": "optional extra [onnx]",
    "tensorboard": "optional extra [tensorboard]",
    "dask": "optional extra [distributed]",
    "distributed": "optional extra [distributed] (dask.distributed)",
    "staticgraph.client.distributed": "imports dask at its top: loaded when Session(target=<dask>) "
                                      "asks for it (staticgraph/client/targets.py)",
    "networkx": "a dependency, but ~0.5 s to import: loaded when a graph is exported to it",
    "numba": "a dependency, but ~0.3 s to import: the compiled random-stream kernels, loaded "
             "on the first "
             "large draw (common/fastpath.py)",
    "matplotlib": "optional extra [plots]: graphs drawn for a notebook or a picture file "
                  "(common/display.py)",
    "scipy": "a dependency, but ~0.3 s to import: the LAPACK kernels numpy lacks (LU, "
             "triangular solves, expm; common/ops/decompositions.py), loaded on first use",
    "common.display": "imports networkx (and matplotlib when drawing): loaded when a notebook "
                      "displays a Graph or a tape (_repr_svg_)",
    "staticgraph.compiler.simd": "imports numba and llvmlite: loaded when a fused kernel that "
                                 "sums is compiled (staticgraph/compiler/fuse.py)",
}
"""What a checked package may import later than at module level (a module or a package prefix),
and why.  The other engine is the one more: dyngraph's :data:`BRIDGE_USERS` import staticgraph
when a trace is made or exported."""
FORBIDDEN = {"dyngraph": ("staticgraph",), "staticgraph": ("dyngraph",),
             "common": ("dyngraph", "staticgraph", "comparisons")}
"""What each package must not import at module level (the registry sits below both engines)."""


def _modules(root: Path, packages) -> dict[str, tuple[Path, bool]]:
    """Dotted module name -> (file, is a package ``__init__``)."""
    found = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING"
            or isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _top_level_imports(body: list[ast.stmt]):
    """The import statements that run when the module body runs."""
    for stmt in body:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            yield stmt
        elif isinstance(stmt, ast.If):
            if not _is_type_checking(stmt.test):
                yield from _top_level_imports(stmt.body)
            yield from _top_level_imports(stmt.orelse)
        elif isinstance(stmt, ast.Try):
            for block in (stmt.body, stmt.orelse, stmt.finalbody, *(h.body for h in stmt.handlers)):
                yield from _top_level_imports(block)
        elif isinstance(stmt, ast.With):
            yield from _top_level_imports(stmt.body)


def _targets(module: str, is_package: bool, stmt: ast.stmt, known) -> list[str]:
    """The modules one import statement imports (for ``from``, per imported name)."""
    if isinstance(stmt, ast.Import):
        return [alias.name for alias in stmt.names]
    if stmt.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[:len(base) - (stmt.level - 1)]
        origin = ".".join(base + ([stmt.module] if stmt.module else []))
    else:
        origin = stmt.module
    return [f"{origin}.{alias.name}" if f"{origin}.{alias.name}" in known else origin
            for alias in stmt.names]


def _runtime_imports(node: ast.AST):
    """Every import statement that can run: all of them but those under ``if TYPE_CHECKING:``."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.Import, ast.ImportFrom)):
            yield child
        elif isinstance(child, ast.If) and _is_type_checking(child.test):
            for stmt in child.orelse:
                yield from _runtime_imports(ast.Module(body=[stmt], type_ignores=[]))
        else:
            yield from _runtime_imports(child)


def module_imports(root: Path, packages, everywhere: bool = False) -> dict[str, set[str]]:
    """Module -> every module it imports at module level (or anywhere), other packages' too."""
    return _imports(root, tuple(packages))[everywhere]


def lazy_imports(root: Path, packages) -> dict[str, set[str]]:
    """Module -> every module it imports later than at module level (in a function body...)."""
    return _imports(root, tuple(packages))[2]


@functools.lru_cache(maxsize=None)
def _imports(root: Path, packages: tuple) -> tuple[dict, dict, dict]:
    """The maps of :func:`module_imports` (module level, anywhere) and of
    :func:`lazy_imports`, from one parse of each file."""
    modules = _modules(root, packages)
    top_level: dict[str, set[str]] = {}
    anywhere: dict[str, set[str]] = {}
    lazy: dict[str, set[str]] = {}
    for name, (path, is_package) in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        top = list(_top_level_imports(tree.body))
        runtime = list(_runtime_imports(tree))
        at_top = set(map(id, top))
        for found, statements in ((top_level, top), (anywhere, runtime),
                                  (lazy, [n for n in runtime if id(n) not in at_top])):
            found[name] = {t for stmt in statements
                           for t in _targets(name, is_package, stmt, modules) if t != name}
    return top_level, anywhere, lazy


def import_graph(imports: dict[str, set[str]]) -> dict[str, set[str]]:
    """Only the edges between the modules looked at."""
    return {name: {t for t in targets if t in imports} for name, targets in imports.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle as ``[a, b, ..., a]``, or None (iterative depth-first search)."""
    state: dict[str, int] = {}                     # 1: on the current path, 2: done
    for start in sorted(graph):
        if start in state:
            continue
        path, stack = [start], [iter(sorted(graph[start]))]
        state[start] = 1
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            elif nxt not in state:
                state[nxt] = 1
                path.append(nxt)
                stack.append(iter(sorted(graph[nxt])))
    return None


def cross_imports(imports: dict[str, set[str]], allowed=BRIDGES) -> list[str]:
    """``a -> b`` for every import a package must not make (``allowed`` modules aside)."""
    return [f"{name} -> {target}" for name in sorted(imports) if name not in allowed
            for target in sorted(imports[name])
            if target.split(".")[0] in FORBIDDEN.get(name.split(".")[0], ())]


def test_no_module_level_import_cycle():
    cycle = find_cycle(import_graph(module_imports(ROOT, PACKAGES)))
    assert cycle is None, "module-level import cycle: " + " -> ".join(cycle)


def _lazy_allowed(module: str, target: str) -> bool:
    if module in BRIDGE_USERS and target.split(".")[0] == "staticgraph":
        return True
    return any(target == name or target.startswith(name + ".") for name in LAZY)


def unexplained_lazy_imports(root: Path, package: str) -> list[str]:
    """``a -> b`` for every import in ``package`` that runs later than at module level (in a
    function body...) and is not of a module :data:`LAZY` allows."""
    return [f"{name} -> {target}"
            for name, targets in sorted(lazy_imports(root, [package]).items())
            for target in sorted(targets) if not _lazy_allowed(name, target)]


@pytest.mark.parametrize("package", CHECKED)
def test_no_import_cycle_even_through_function_bodies(package):
    graph = import_graph(module_imports(ROOT, [package], everywhere=True))
    cycle = find_cycle(graph)
    groups = "; ".join(f"{len(g)} modules: {', '.join(g)}" for g in strongly_connected(graph))
    assert cycle is None, ("import cycle (function bodies included): " + " -> ".join(cycle)
                           + f"\nmodules importing each other: {groups}")


@pytest.mark.parametrize("package", CHECKED)
def test_only_optional_dependencies_are_imported_late(package):
    """Everything else goes at the top of the file, where a reader (and the cycle check) sees it."""
    assert unexplained_lazy_imports(ROOT, package) == []


def test_a_late_import_says_why():
    """Each allowed late import carries a comment on its line (the reason, for the next reader)."""
    silent = []
    for package in CHECKED:
        for name, (path, is_package) in _modules(ROOT, (package,)).items():
            lines = path.read_text(encoding="utf-8").splitlines()
            tree = ast.parse("\n".join(lines), str(path))
            at_top = set(map(id, _top_level_imports(tree.body)))
            silent += [f"{path.relative_to(ROOT)}:{n.lineno}" for n in _runtime_imports(tree)
                       if id(n) not in at_top and "#" not in lines[n.end_lineno - 1]
                       and "#" not in lines[n.lineno - 2]]   # (or on the line above)
    assert silent == []


def test_engines_do_not_import_each_other():
    assert cross_imports(module_imports(ROOT, PACKAGES)) == []


def test_only_the_jit_bridge_and_its_exporters_reach_the_other_engine():
    assert cross_imports(module_imports(ROOT, PACKAGES, everywhere=True), BRIDGE_USERS) == []


def test_the_jit_bridge_is_documented_as_such():
    doc = ast.get_docstring(ast.parse((ROOT / "dyngraph" / "jit.py").read_text(encoding="utf-8")))
    assert "the one bridge between the two engines" in doc


# --- the checks can fail ------------------------------------------------------------------


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def test_a_cycle_is_found_and_named(tmp_path):
    root = _package(tmp_path, {
        "pkg/__init__.py": "from .a import f\n",
        "pkg/a.py": "from .b import g\ndef f(): pass\n",
        "pkg/b.py": "import os\nfrom pkg import c\n",
        "pkg/c.py": "from . import a\n",
    })
    graph = import_graph(module_imports(root, ["pkg"]))
    assert graph["pkg"] == {"pkg.a"} and graph["pkg.b"] == {"pkg.c"}
    assert find_cycle(graph) == ["pkg.a", "pkg.b", "pkg.c", "pkg.a"]


def test_a_name_from_a_package_init_is_an_edge_to_the_init(tmp_path):
    root = _package(tmp_path, {
        "pkg/__init__.py": "from .sub import x\ny = 1\n",
        "pkg/sub/__init__.py": "from .leaf import x\n",
        "pkg/sub/leaf.py": "from ... import pkg\nfrom .. import y\nx = 1\n",
    })
    assert find_cycle(import_graph(module_imports(root, ["pkg"]))) == ["pkg", "pkg.sub", "pkg.sub.leaf", "pkg"]


@pytest.mark.parametrize("import_b_to_a, cycle", [
    # not run when the module is imported: no edge
    ("if TYPE_CHECKING:\n    from . import a\n", None),
    ("import typing\nif typing.TYPE_CHECKING:\n    from . import a\n", None),
    ("def late():\n    from . import a\n", None),
    ("class K:\n    def m(self):\n        from .a import f\n", None),
    # run inside top-level blocks: an edge
    ("try:\n    from . import a\nexcept ImportError:\n    pass\n", ["pkg.a", "pkg.b", "pkg.a"]),
    ("if True:\n    pass\nelse:\n    from . import a\n", ["pkg.a", "pkg.b", "pkg.a"]),
    ("import contextlib\nwith contextlib.suppress(ImportError):\n    import pkg.a\n",
     ["pkg.a", "pkg.b", "pkg.a"]),
])
def test_only_imports_run_at_import_time_are_edges(tmp_path, import_b_to_a, cycle):
    root = _package(tmp_path, {"pkg/__init__.py": "", "pkg/a.py": "from .b import g\n",
                               "pkg/b.py": "g = 1\n" + import_b_to_a})
    assert find_cycle(import_graph(module_imports(root, ["pkg"]))) == cycle


def test_a_cycle_through_a_function_body_is_found(tmp_path):
    root = _package(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/tensor.py": "def backward():\n    from .autograd import run\n    return run()\n",
        "pkg/autograd.py": "from .tensor import backward\nimport json\n"
                           "def run():\n    import onnx\n    return 1\n",
    })
    assert find_cycle(import_graph(module_imports(root, ["pkg"]))) is None
    assert find_cycle(import_graph(module_imports(root, ["pkg"], everywhere=True))) == [
        "pkg.autograd", "pkg.tensor", "pkg.autograd"]
    assert lazy_imports(root, ["pkg"]) == {
        "pkg": set(), "pkg.tensor": {"pkg.autograd"}, "pkg.autograd": {"onnx"}}
    assert unexplained_lazy_imports(root, "pkg") == ["pkg.tensor -> pkg.autograd"]


def test_a_type_checking_import_is_no_edge_even_anywhere(tmp_path):
    root = _package(tmp_path, {
        "pkg/__init__.py": "", "pkg/a.py": "from .b import g\n",
        "pkg/b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import A\n"
                    "else:\n    import json\ng = 1\n",
    })
    assert find_cycle(import_graph(module_imports(root, ["pkg"], everywhere=True))) is None
    assert module_imports(root, ["pkg"], everywhere=True)["pkg.b"] == {"typing", "json"}
    assert lazy_imports(root, ["pkg"])["pkg.b"] == set()


def test_late_imports_allowed_are_the_optional_ones(tmp_path):
    root = _package(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/a.py": "def f():\n    import onnx.checker\n    import networkx as nx\n"
                    "    from dask import delayed\n    import json\n    from . import b\n",
        "pkg/b.py": "class K:\n    import tensorboard\n",
    })
    assert unexplained_lazy_imports(root, "pkg") == ["pkg.a -> json", "pkg.a -> pkg.b"]
    assert _lazy_allowed("dyngraph.jit", "staticgraph.framework.build")
    assert not _lazy_allowed("dyngraph.tensor", "staticgraph")


def test_an_engine_importing_the_other_is_reported(tmp_path):
    root = _package(tmp_path, {
        "dyngraph/__init__.py": "", "dyngraph/jit.py": "import staticgraph\n",
        "dyngraph/ops.py": "from staticgraph.build import apply\n",
        "staticgraph/__init__.py": "", "staticgraph/build.py": "def apply(): pass\n",
        "staticgraph/late.py": "def f():\n    import dyngraph\n",
        "common/__init__.py": "from dyngraph import ops\n",
    })
    imports = module_imports(root, ["dyngraph", "staticgraph", "common"])
    assert cross_imports(imports) == ["common -> dyngraph.ops", "dyngraph.ops -> staticgraph.build"]
    everywhere = module_imports(root, ["dyngraph", "staticgraph", "common"], everywhere=True)
    assert cross_imports(everywhere, {"dyngraph.jit"}) == [
        "common -> dyngraph.ops", "dyngraph.ops -> staticgraph.build", "staticgraph.late -> dyngraph"]


# --- naming the modules that import each other ------------------------------------------


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import each other (directly or around a cycle), largest first;
    a module on no cycle is in no group (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            nxt = next(targets, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))
    return sorted(groups, key=lambda g: (-len(g), g))


def test_strongly_connected_groups_are_found(tmp_path):
    root = _package(tmp_path, {
        "pkg/__init__.py": "", "pkg/a.py": "from .b import g\n",
        "pkg/b.py": "def g():\n    from . import a\n", "pkg/c.py": "from . import a\n",
        "pkg/d.py": "def f():\n    from .c import x\n    import pkg.a\n",
    })
    graph = import_graph(module_imports(root, ["pkg"], everywhere=True))
    assert strongly_connected(graph) == [["pkg.a", "pkg.b"]]
    assert lazy_imports(root, ["pkg"])["pkg.d"] == {"pkg.c", "pkg.a"}
