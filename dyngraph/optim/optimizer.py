"""``Optimizer``: parameter groups, per-parameter state, ``state_dict``/``load_state_dict``.

    param_groups = [{"params": [w, b], "lr": 0.1, "momentum": 0.9, ...},   # group options
                    {"params": [emb], "lr": 0.01, ...}]                    # override defaults
    state        = {w: {"momentum_buffer": Tensor}, ...}                    # keyed by parameter

A ``state_dict`` names parameters by their position across the groups (0, 1,
2...), exactly as PyTorch's, so it can be saved with ``torch.save`` (plain
dicts, tensors and numbers: no pickle) and loaded into a fresh optimizer built
over the same parameters.  Updates run on the parameters' arrays in place,
outside any graph, and bump their version counters.
"""
from __future__ import annotations

import copy
import warnings
from typing import Callable, Iterable

import numpy as np

from ..grad_mode import no_grad
from ..tensor import Tensor, make

__all__ = ["Optimizer", "required"]


class _Required:
    def __repr__(self) -> str:
        return "<required parameter>"


required = _Required()


class Optimizer:
    """Base class: subclasses give ``defaults`` and ``_update(p, grad, state, group)``."""

    def __init__(self, params: Iterable, defaults: dict):
        self.defaults = defaults
        self.state: dict = {}
        self.param_groups: list[dict] = []
        if isinstance(params, Tensor):
            raise TypeError(f"params argument given to the optimizer should be an iterable of "
                            f"Tensors or dicts, but got torch.{params.dtype.legacy}")
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for g in groups:
            self.add_param_group(g)

    def add_param_group(self, param_group: dict) -> None:
        """Add a group; options it does not set come from the optimizer's defaults."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        params = [params] if isinstance(params, Tensor) else list(params)
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is "
                                f"{type(p).__module__}.{type(p).__name__}")
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        if len({id(p) for p in params}) != len(params):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in "
                          "future, this will cause an error; see github.com/pytorch/pytorch/issues/"
                          "40967 for more information", UserWarning, stacklevel=3)
        group = dict(param_group, params=params)  # the group's own options first, as PyTorch
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            group.setdefault(name, default)
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        for group in self.param_groups:
            for p in group["params"]:
                if set_to_none:
                    p.grad = None
                elif p.grad is not None:
                    p.grad.detach_()
                    p.grad.zero_()

    @no_grad()
    def step(self, closure: Callable | None = None):
        """One update of every parameter that has a gradient; ``closure`` re-evaluates the loss."""
        loss = None
        if closure is not None:
            from ..grad_mode import enable_grad
            with enable_grad():
                loss = closure()
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                g = p.grad._data
                if group.get("maximize"):
                    g = -g
                self._update(p, g, self.state.setdefault(p, {}), group)
                p._vc[0] += 1
        return loss

    def _update(self, p: Tensor, g: np.ndarray, state: dict, group: dict) -> None:
        raise NotImplementedError

    # --- saving and restoring --------------------------------------------------------

    def state_dict(self) -> dict:
        """``{"state": {index: {...}}, "param_groups": [{options..., "params": [index...]}]}``."""
        index, groups = {}, []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            packed["params"] = [index.setdefault(id(p), len(index)) for p in group["params"]]
            groups.append(packed)
        state = {index[id(p)]: dict(s) for p, s in self.state.items() if id(p) in index and s}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore options and state saved by :meth:`state_dict` (all checks before any change)."""
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        for mine, saved in zip(self.param_groups, groups):
            if len(mine["params"]) != len(saved["params"]):
                raise ValueError("loaded state dict contains a parameter group that doesn't match "
                                 "the size of optimizer's group")
        by_index = {i: p for mine, saved in zip(self.param_groups, groups)
                    for i, p in zip(saved["params"], mine["params"])}
        state = {}
        for key, values in state_dict["state"].items():
            p = by_index.get(int(key))
            if p is not None:
                state[p] = {k: _restore(v, p, k) for k, v in values.items()}
        for mine, saved in zip(self.param_groups, groups):
            for k, v in saved.items():
                if k != "params":
                    mine[k] = copy.deepcopy(v) if isinstance(v, (list, dict)) else v
        self.state = state

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__} ("]
        for i, group in enumerate(self.param_groups):
            if i:
                lines.append("")
            lines.append(f"Parameter Group {i}")
            lines += [f"    {k}: {group[k]}" for k in sorted(group) if k != "params"]
        return "\n".join(lines) + "\n)"


def _restore(value, p: Tensor, key: str):
    """A saved state value as this optimizer keeps it: own memory, the parameter's float dtype."""
    if isinstance(value, Tensor):
        data = np.array(value._data, copy=True)
        if key != "step" and data.dtype.kind == "f":
            data = data.astype(p._data.dtype)
        return make(data)
    return copy.deepcopy(value)


def step_count(state: dict) -> int:
    """Advance and return the ``"step"`` counter (a float32 0-dim tensor, as PyTorch keeps it)."""
    step = state.get("step")
    if step is None:
        step = state["step"] = make(np.array(0.0, np.float32))
    step._data = step._data + np.float32(1)
    return int(step._data)


def buffer(state: dict, key: str, p: Tensor, fill: float = 0.0) -> np.ndarray:
    """The state array ``key`` (created shaped like ``p`` on first use)."""
    t = state.get(key)
    if t is None:
        t = state[key] = make(np.full_like(p._data, fill))
    return t._data


def check(value: float, name: str, low: float = 0.0) -> None:
    if not value >= low:
        raise ValueError(f"Invalid {name}: {value}")
