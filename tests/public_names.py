"""Every public name of both packages, by namespace, so a reshuffle of modules can prove it kept them.

A namespace is a package's root and, recursively, each module its ``__all__`` names
(``staticgraph.nn``, ``staticgraph.compat.v1``, ``dyngraph.nn.functional``, ...), reached by the
shortest path.  For each it records every public name ``dir()`` shows with its kind (module,
class, function, other).  A module that is only an implementation detail -- one of the package's
own modules that the namespace's ``__all__`` does not name, present because importing a submodule
binds it on its parent -- is left out: where the code lives is not part of the API.

``python -m tests.public_names --write`` regenerates ``tests/fixtures/public_names.json``
(only after a deliberate change to the public API); ``tests/test_public_names.py`` compares.
"""
from __future__ import annotations

import argparse
import importlib
import inspect
import json
import types
from collections import deque
from pathlib import Path

PACKAGES = ("staticgraph", "dyngraph")
FIXTURE = Path(__file__).resolve().parent / "fixtures" / "public_names.json"


def _own(value: object) -> bool:
    return isinstance(value, types.ModuleType) and value.__name__.split(".")[0] in PACKAGES


def _kind(value: object) -> str:
    if isinstance(value, types.ModuleType):
        return "module"
    if inspect.isclass(value):
        return "class"
    if inspect.isroutine(value):
        return "function"
    return "other"


def public_names() -> dict[str, dict[str, str]]:
    """Namespace path -> {public name: kind}, breadth first from each package root."""
    found: dict[str, dict[str, str]] = {}
    visited: set[int] = set()
    queue = deque((name, importlib.import_module(name)) for name in PACKAGES)
    while queue:
        path, module = queue.popleft()
        if id(module) in visited:
            continue
        visited.add(id(module))
        exported = set(getattr(module, "__all__", ()))
        names = {}
        for name in sorted(dir(module)):
            if name.startswith("_"):
                continue
            value = getattr(module, name)
            if _own(value):
                if name not in exported:
                    continue                          # an implementation module, not API
                queue.append((f"{path}.{name}", value))
            names[name] = _kind(value)
        found[path] = names
    return dict(sorted(found.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"rewrite {FIXTURE.name}")
    args = parser.parse_args()
    names = public_names()
    if args.write:
        FIXTURE.write_text(json.dumps(names, indent=1, sort_keys=True) + "\n")
    print(f"{len(names)} namespaces, {sum(map(len, names.values()))} names")


if __name__ == "__main__":
    main()
