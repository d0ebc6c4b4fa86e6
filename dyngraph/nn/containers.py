"""Containers: Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict.

They register what they hold under the keys PyTorch uses (``"0"``, ``"1"``...
for lists), so state-dict keys match PyTorch's.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Iterable, Iterator

from .module import Module, Parameter

__all__ = ["Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]


def _index(i: int, n: int, what: str) -> int:
    if not -n <= i < n:
        raise IndexError(f"index {i} is out of range")
    return i % n


class Sequential(Module):
    """Modules applied one after the other (``Sequential(OrderedDict(...))`` names them)."""

    def __init__(self, *modules):
        super().__init__()
        if len(modules) == 1 and isinstance(modules[0], OrderedDict):
            for name, m in modules[0].items():
                self.add_module(name, m)
        else:
            for i, m in enumerate(modules):
                self.add_module(str(i), m)

    def forward(self, input):
        for m in self._modules.values():
            input = m(input)
        return input

    def __getitem__(self, i):
        if isinstance(i, slice):
            return Sequential(OrderedDict(list(self._modules.items())[i]))
        return list(self._modules.values())[_index(i, len(self), "Sequential")]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def append(self, module: Module) -> "Sequential":
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules) -> "Sequential":
        for m in modules:
            self.append(m)
        return self

    def insert(self, index: int, module: Module) -> "Sequential":
        items = list(self._modules.values())
        items.insert(index, module)
        self._modules.clear()
        for i, m in enumerate(items):
            self.add_module(str(i), m)
        return self


class ModuleList(Module):
    """A list of modules, registered (their parameters belong to the owner)."""

    def __init__(self, modules: Iterable[Module] | None = None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return ModuleList(list(self._modules.values())[i])
        return self._modules[str(_index(i, len(self), "ModuleList"))]

    def __setitem__(self, i: int, module: Module) -> None:
        self.add_module(str(_index(i, len(self), "ModuleList")), module)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def append(self, module: Module) -> "ModuleList":
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> "ModuleList":
        for m in modules:
            self.append(m)
        return self

    __iadd__ = extend

    def insert(self, index: int, module: Module) -> None:
        items = list(self._modules.values())
        items.insert(index, module)
        self._modules.clear()
        for m in items:
            self.append(m)

    def forward(self, *args, **kwargs):
        raise NotImplementedError("ModuleList is a container: call its modules, not the list")

    def __repr__(self) -> str:
        """Runs of identical children print once, as PyTorch's ``(0-1): 2 x Linear(...)``."""
        if not self._modules:
            return "ModuleList()"
        reprs = [repr(m) for m in self._modules.values()]
        lines, start = [], 0
        for i in range(1, len(reprs) + 1):
            if i == len(reprs) or reprs[i] != reprs[start]:
                body = reprs[start].replace("\n", "\n  ")
                head = f"({start})" if i - start == 1 else f"({start}-{i - 1}): {i - start} x"
                lines.append(f"{head}: {body}" if i - start == 1 else f"{head} {body}")
                start = i
        return "ModuleList(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    """A dict of modules, registered under their keys."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def pop(self, key: str) -> Module:
        return self._modules.pop(key)

    def update(self, modules) -> None:
        for key, m in (modules.items() if hasattr(modules, "items") else modules):
            self.add_module(key, m)


class ParameterList(Module):
    """A list of parameters, registered under ``"0"``, ``"1"``..."""

    def __init__(self, values: Iterable | None = None):
        super().__init__()
        for v in values or ():
            self.append(v)

    def __getitem__(self, i: int) -> Parameter:
        return self._parameters[str(_index(i, len(self), "ParameterList"))]

    def __setitem__(self, i: int, value) -> None:
        setattr(self, str(_index(i, len(self), "ParameterList")), _as_parameter(value))

    def __len__(self) -> int:
        return len(self._parameters)

    def __iter__(self) -> Iterator[Parameter]:
        return iter(self._parameters.values())

    def append(self, value) -> "ParameterList":
        setattr(self, str(len(self)), _as_parameter(value))
        return self

    def extend(self, values: Iterable) -> "ParameterList":
        for v in values:
            self.append(v)
        return self

    def extra_repr(self) -> str:
        return "\n".join(f"  ({k}): Parameter containing: [{p.dtype} of size "
                         f"{'x'.join(map(str, p.shape))}]" for k, p in self._parameters.items())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.extra_repr()})"


class ParameterDict(Module):
    """A dict of parameters, registered under their keys."""

    def __init__(self, parameters=None):
        super().__init__()
        for key, v in (parameters.items() if hasattr(parameters, "items") else parameters or ()):
            self[key] = v

    def __getitem__(self, key: str) -> Parameter:
        return self._parameters[key]

    def __setitem__(self, key: str, value) -> None:
        setattr(self, key, _as_parameter(value))

    def __len__(self) -> int:
        return len(self._parameters)

    def __iter__(self) -> Iterator[str]:
        return iter(self._parameters)

    def __contains__(self, key: str) -> bool:
        return key in self._parameters

    def keys(self):
        return self._parameters.keys()

    def items(self):
        return self._parameters.items()

    def values(self):
        return self._parameters.values()


def _as_parameter(value) -> Parameter:
    return value if isinstance(value, Parameter) else Parameter(value)
