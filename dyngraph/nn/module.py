"""Modules: objects that own parameters (and buffers) and compute ``forward`` when called.

A Module keeps three ordered registries -- ``_parameters``, ``_buffers``,
``_modules`` -- filled by attribute assignment (a Parameter, a Module) or by
``register_buffer``; everything else (``named_parameters``, ``state_dict``,
``to``, ``apply``...) walks them in that order, as PyTorch does, so dotted
state-dict keys (``"0.weight"``) match PyTorch's.
"""
from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Mapping
from typing import Callable, Iterator, NamedTuple

import numpy as np

from ..device import check_device
from ..dtypes import get_default_dtype, np_dtype_of
from ..grad_mode import no_grad
from ..node import RemovableHandle
from ..tensor import Tensor, make
from . import functional as F
from . import init
from .parameter import Parameter

__all__ = ["Parameter", "Module", "Linear", "NonDynamicallyQuantizableLinear", "Identity",
           "Unflatten"]  # Flatten: nn/layers.py


def _typename(value) -> str:
    """``torch.typename``: ``torch.FloatTensor`` for tensors, the class name otherwise."""
    return f"torch.{value.dtype.legacy}" if isinstance(value, Tensor) else type(value).__name__


class IncompatibleKeys(NamedTuple):
    """What ``load_state_dict`` returns (non-strict loads report what did not match)."""

    missing_keys: list
    unexpected_keys: list

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return (f"_IncompatibleKeys(missing_keys={self.missing_keys}, "
                f"unexpected_keys={self.unexpected_keys})")


class Module:
    """Base class: assigning a Parameter or Module attribute registers it.

    >>> class Net(Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.fc = Linear(2, 1)
    >>> [name for name, _ in Net().named_parameters()]
    ['fc.weight', 'fc.bias']
    """

    def __init__(self):
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent_buffers_set", set())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "_forward_hooks", [])
        object.__setattr__(self, "_forward_pre_hooks", [])
        object.__setattr__(self, "training", True)

    def __setattr__(self, name: str, value) -> None:
        d = self.__dict__
        if isinstance(value, (Parameter, Module)):
            if "_parameters" not in d:
                raise AttributeError("cannot assign parameters or modules before Module.__init__() "
                                     "call")
            for registry in (d["_parameters"], d["_buffers"], d["_modules"]):
                registry.pop(name, None)
            (d["_parameters"] if isinstance(value, Parameter) else d["_modules"])[name] = value
        elif name in d.get("_parameters", ()):
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                f"(torch.nn.Parameter or None expected)")
            d["_parameters"][name] = None
        elif name in d.get("_modules", ()):
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                                f"(torch.nn.Module or None expected)")
            d["_modules"][name] = None
        elif name in d.get("_buffers", ()):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{type(value).__name__}' as buffer '{name}' "
                                f"(torch.Tensor or None expected)")
            d["_buffers"][name] = value
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        for registry in (self._parameters, self._buffers, self._modules):
            registry.pop(name, None)
        self._non_persistent_buffers_set.discard(name)
        object.__delattr__(self, name)

    # --- registration ------------------------------------------------------------------

    def register_parameter(self, name: str, param: "Parameter | None") -> None:
        if param is None:
            object.__setattr__(self, name, None)
            return
        if not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{type(param).__name__}' object to parameter '{name}' "
                            f"(torch.nn.Parameter or None required)")
        setattr(self, name, param)

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """A tensor that is state but not a parameter (running means, step counters); a
        ``persistent=False`` one is left out of ``state_dict``."""
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{type(tensor).__name__}' object to buffer '{name}' "
                            f"(torch Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)
        object.__setattr__(self, name, tensor)

    def add_module(self, name: str, module: "Module | None") -> None:
        self._modules[name] = module
        object.__setattr__(self, name, module)

    register_module = add_module

    # --- calling ----------------------------------------------------------------------

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required '
                                  f'"forward" function')

    def __call__(self, *args, **kwargs):
        for hook in self._forward_pre_hooks:
            new = hook(self, args)
            if new is not None:
                args = new if isinstance(new, tuple) else (new,)
        out = self.forward(*args, **kwargs)
        for hook in self._forward_hooks:
            new = hook(self, args, out)
            if new is not None:
                out = new
        return out

    def register_forward_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(module, inputs, output)`` after each forward; may return a new output."""
        self._forward_hooks.append(hook)
        return RemovableHandle(self._forward_hooks, hook)

    def register_forward_pre_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(module, inputs)`` before each forward; may return new inputs."""
        self._forward_pre_hooks.append(hook)
        return RemovableHandle(self._forward_pre_hooks, hook)

    # --- walking the tree ---------------------------------------------------------------

    def named_modules(self, memo=None, prefix: str = "", remove_duplicate: bool = True):
        memo = set() if memo is None else memo
        if remove_duplicate and id(self) in memo:
            return
        memo.add(id(self))
        yield prefix, self
        for name, m in self._modules.items():
            if m is not None:
                yield from m.named_modules(memo, prefix + ("." if prefix else "") + name,
                                           remove_duplicate)

    def modules(self) -> Iterator["Module"]:
        for _, m in self.named_modules():
            yield m

    def named_children(self) -> Iterator[tuple[str, "Module"]]:
        seen = set()
        for name, m in self._modules.items():
            if m is not None and id(m) not in seen:
                seen.add(id(m))
                yield name, m

    def children(self) -> Iterator["Module"]:
        for _, m in self.named_children():
            yield m

    def _named(self, registry: str, prefix: str, recurse: bool, remove_duplicate: bool = True):
        """Each module's members in ``registry``, dotted; a shared one once, where first met
        (every time with ``remove_duplicate=False``), as PyTorch's ``_named_members``."""
        seen = set()
        mods = (self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse
                else [(prefix, self)])
        for mprefix, m in mods:
            for name, v in getattr(m, registry).items():
                if v is not None and id(v) not in seen:
                    if remove_duplicate:
                        seen.add(id(v))
                    yield (mprefix + "." if mprefix else "") + name, v

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, "Parameter"]]:
        return self._named("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator["Parameter"]:
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        return self._named("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def get_submodule(self, target: str) -> "Module":
        m = self
        for part in target.split(".") if target else []:
            if part not in m._modules:
                raise AttributeError(f"{type(m).__name__} has no attribute `{part}`")
            m = m._modules[part]
        return m

    def apply(self, fn: Callable[["Module"], None]) -> "Module":
        """``fn`` on every submodule (children first), then on this module."""
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    # --- state ------------------------------------------------------------------------

    def state_dict(self, destination=None, prefix: str = "", keep_vars: bool = False):
        """Parameters and persistent buffers by dotted name, detached (sharing memory)."""
        out = OrderedDict() if destination is None else destination
        for name, p in self._parameters.items():
            if p is not None:
                out[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                out[prefix + name] = b if keep_vars else b.detach()
        for name, m in self._modules.items():
            if m is not None:
                m.state_dict(out, prefix + name + ".", keep_vars)
        return out

    def load_state_dict(self, state_dict: dict, strict: bool = True,
                        assign: bool = False) -> IncompatibleKeys:
        """Copy ``state_dict``'s values into this module's parameters -- all of them or none.

        PyTorch's checks and wording (missing/unexpected keys when ``strict``, size
        mismatches always), but every check runs before the first copy, so a
        refused state dict leaves the module exactly as it was (PyTorch may have
        copied some parameters by the time it raises).
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        own = self.state_dict(keep_vars=True)  # parameters and persistent buffers
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        errors = []
        if strict and missing:
            errors.append("Missing key(s) in state_dict: "
                          + ", ".join(f'"{k}"' for k in missing) + ". ")
        if strict and unexpected:
            errors.append("Unexpected key(s) in state_dict: "
                          + ", ".join(f'"{k}"' for k in unexpected) + ". ")
        for name, p in own.items():
            value = state_dict.get(name)
            if name not in state_dict:
                continue
            if not isinstance(value, Tensor):
                errors.append(f'While copying the parameter named "{name}", expected '
                              "torch.Tensor or Tensor-like object from checkpoint but received "
                              f"{type(value)}")
            elif value.shape != p.shape:
                errors.append(f"size mismatch for {name}: copying a param with shape {value.shape} "
                              f"from checkpoint, the shape in current model is {p.shape}.")
            elif not np.can_cast(value.np_dtype, p.np_dtype, "same_kind"):
                errors.append(f"dtype mismatch for {name}: cannot copy a {value.dtype} param from "
                              f"checkpoint into the {p.dtype} param of the current model.")
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                               + "\n\t".join(errors))
        with no_grad():
            for name, p in own.items():
                if name in state_dict:
                    p.copy_(state_dict[name])
        return IncompatibleKeys(missing, unexpected)

    def zero_grad(self, set_to_none: bool = True) -> None:
        for p in self.parameters():
            if set_to_none:
                p.grad = None
            elif p.grad is not None:
                p.grad.zero_()

    def requires_grad_(self, requires_grad: bool = True) -> "Module":
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def train(self, mode: bool = True) -> "Module":
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        object.__setattr__(self, "training", mode)
        for m in self.children():
            m.train(mode)
        return self

    def eval(self) -> "Module":
        return self.train(False)

    def to(self, *args, **kwargs) -> "Module":
        """Cast floating parameters and buffers (``to(torch.float64)``); devices: the CPU only."""
        dtype = kwargs.get("dtype")
        check_device(kwargs.get("device"))
        for a in args:
            if isinstance(a, Tensor):
                dtype = a.dtype
            elif isinstance(a, str) or type(a).__name__ == "device":
                check_device(a)
            elif a is not None:
                dtype = a
        target = np_dtype_of(dtype)
        if target is not None:
            if target.kind != "f":
                raise TypeError(f"nn.Module.to only accepts floating point or complex dtypes, "
                                f"but got desired dtype={dtype}")
            self._cast(target)
        return self

    def _cast(self, target: np.dtype) -> None:
        with no_grad():
            for t in list(self.parameters()) + list(self.buffers()):
                if t._data.dtype.kind == "f" and t._data.dtype != target:
                    t._data, t._sref = t._data.astype(target), None
                    t._vc[0] += 1
                    if t._grad is not None:
                        t._grad = None

    def float(self) -> "Module":
        self._cast(np.dtype(np.float32))
        return self

    def double(self) -> "Module":
        self._cast(np.dtype(np.float64))
        return self

    def half(self) -> "Module":
        self._cast(np.dtype(np.float16))
        return self

    def cpu(self) -> "Module":
        return self

    def cuda(self, device=None) -> "Module":
        check_device("cuda")
        return self

    # --- printing ---------------------------------------------------------------------

    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        if not self._modules:
            return f"{type(self).__name__}({extra})"
        lines = ([extra] if extra else []) + [
            f"({name}): " + repr(m).replace("\n", "\n  ") for name, m in self._modules.items()]
        return f"{type(self).__name__}(\n  " + "\n  ".join(lines) + "\n)"

class Linear(Module):
    """``y = x @ weight.T + bias``, initialised as PyTorch's (kaiming-uniform, a=sqrt(5)).

    Both weight and bias end up uniform on +-1/sqrt(in_features).
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device=None,
                 dtype=None):
        super().__init__()
        check_device(device)
        self.in_features, self.out_features = in_features, out_features
        dt = np_dtype_of(dtype) or get_default_dtype().np
        self.weight = Parameter(make(np.empty((out_features, in_features), dt)))
        self.register_parameter("bias", Parameter(make(np.empty(out_features, dt)))
                                if bias else None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.in_features
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class NonDynamicallyQuantizableLinear(Linear):
    """``Linear`` under another name: ``MultiheadAttention.out_proj`` (PyTorch keeps the class
    so that dynamic quantization leaves the projection alone; here only the name matters)."""


class Identity(Module):
    """Returns its input (accepts and ignores any constructor arguments, as PyTorch's)."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Unflatten(Module):
    def __init__(self, dim: int, unflattened_size):
        super().__init__()
        self.dim, self.unflattened_size = dim, tuple(unflattened_size)

    def forward(self, input: Tensor) -> Tensor:
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
