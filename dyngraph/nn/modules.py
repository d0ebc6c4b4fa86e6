"""Modules: objects that own parameters and compute ``forward`` when called."""
from __future__ import annotations

import math
from collections import OrderedDict
from typing import Iterator

import numpy as np

from .. import creation
from ..grad_mode import no_grad
from ..printing import tensor_repr
from ..tensor import Tensor, init_slots
from . import functional as F

__all__ = ["Parameter", "Module", "Linear", "ReLU", "Tanh", "Sigmoid", "Sequential"]


class Parameter(Tensor):
    """A leaf tensor a Module registers as one of its parameters (requires grad by default)."""

    __slots__ = ()

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True):
        t = object.__new__(cls)
        init_slots(t, np.zeros(0, np.float32) if data is None else data._data, False, None)
        t.requires_grad = requires_grad
        return t

    def __init__(self, data=None, requires_grad: bool = True):
        pass

    def __repr__(self) -> str:
        return "Parameter containing:\n" + tensor_repr(self)

    __str__ = __repr__


class Module:
    """Base class: assigning a Parameter or Module attribute registers it."""

    def __init__(self):
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent", set())
        object.__setattr__(self, "training", True)

    def __setattr__(self, name: str, value) -> None:
        if isinstance(value, Parameter):
            self._parameters[name] = value
        elif isinstance(value, Module):
            self._modules[name] = value
        elif name in self._buffers:
            self._buffers[name] = value
        object.__setattr__(self, name, value)

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """State that is not a parameter (running statistics): saved in ``state_dict``
        unless ``persistent=False``, never returned by ``parameters()``."""
        self._buffers[name] = tensor
        if not persistent:
            self._non_persistent.add(name)
        object.__setattr__(self, name, tensor)

    def named_buffers(self, prefix: str = "") -> Iterator[tuple[str, Tensor]]:
        for name, b in self._buffers.items():
            if b is not None:
                yield prefix + name, b
        for mname, m in self._modules.items():
            yield from m.named_buffers(prefix + mname + ".")

    def buffers(self) -> Iterator[Tensor]:
        for _, b in self.named_buffers():
            yield b

    def _state_entries(self, prefix: str = "") -> Iterator[tuple[str, Tensor]]:
        """PyTorch's state_dict order: each module's parameters, then its buffers, then children."""
        for name, p in self._parameters.items():
            if p is not None:
                yield prefix + name, p
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent:
                yield prefix + name, b
        for mname, m in self._modules.items():
            yield from m._state_entries(prefix + mname + ".")

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must define forward()")

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def named_parameters(self, prefix: str = "") -> Iterator[tuple[str, Parameter]]:
        seen = set()
        for name, p in self._parameters.items():
            if id(p) not in seen:
                seen.add(id(p))
                yield prefix + name, p
        for mname, m in self._modules.items():
            for name, p in m.named_parameters(prefix + mname + "."):
                if id(p) not in seen:
                    seen.add(id(p))
                    yield name, p

    def parameters(self) -> Iterator[Parameter]:
        for _, p in self.named_parameters():
            yield p

    def state_dict(self) -> "OrderedDict[str, Tensor]":
        """Parameters and persistent buffers by dotted name, detached (sharing memory, as PyTorch's)."""
        return OrderedDict((name, p.detach()) for name, p in self._state_entries())

    def load_state_dict(self, state_dict: dict, strict: bool = True):
        """Copy ``state_dict`` into the parameters: all of them or, on any error, none."""
        from ..serialization import load_state_dict
        return load_state_dict(self, state_dict, strict)

    def children(self) -> Iterator["Module"]:
        return iter(self._modules.values())

    def zero_grad(self, set_to_none: bool = True) -> None:
        for p in self.parameters():
            if set_to_none:
                p.grad = None
            elif p.grad is not None:
                p.grad.zero_()

    def train(self, mode: bool = True) -> "Module":
        object.__setattr__(self, "training", mode)
        for m in self._modules.values():
            m.train(mode)
        return self

    def eval(self) -> "Module":
        return self.train(False)

    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        if not self._modules:
            return f"{type(self).__name__}({self.extra_repr()})"
        lines = [f"  ({name}): " + repr(m).replace("\n", "\n  ") for name, m in self._modules.items()]
        return f"{type(self).__name__}(\n" + "\n".join(lines) + "\n)"


class Linear(Module):
    """``y = x @ weight.T + bias``, initialised uniform in +-1/sqrt(in_features) as PyTorch."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        bound = 1.0 / math.sqrt(in_features)
        with no_grad():
            self.weight = Parameter(creation.rand(out_features, in_features) * (2 * bound) - bound)
            self.bias = (Parameter(creation.rand(out_features) * (2 * bound) - bound)
                         if bias else None)

    def forward(self, input: Tensor) -> Tensor:
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class _Activation(Module):
    fn = staticmethod(F.relu)

    def forward(self, input: Tensor) -> Tensor:
        return self.fn(input)


class ReLU(_Activation):
    fn = staticmethod(F.relu)


class Tanh(_Activation):
    fn = staticmethod(F.tanh)


class Sigmoid(_Activation):
    fn = staticmethod(F.sigmoid)


class Sequential(Module):
    """Modules applied one after the other."""

    def __init__(self, *modules: Module):
        super().__init__()
        for i, m in enumerate(modules):
            setattr(self, str(i), m)

    def forward(self, input):
        for m in self._modules.values():
            input = m(input)
        return input

    def __getitem__(self, i: int) -> Module:
        return list(self._modules.values())[i]

    def __len__(self) -> int:
        return len(self._modules)
