"""``Optimizer``: parameter groups, per-parameter state, ``state_dict``/``load_state_dict``.

    param_groups = [{"params": [w, b], "lr": 0.1, "momentum": 0.9, ...},   # group options
                    {"params": [emb], "lr": 0.01, ...}]                    # override defaults
    state        = {w: {"momentum_buffer": Tensor}, ...}                    # keyed by parameter

A ``state_dict`` names parameters by their position across the groups (0, 1,
2...), exactly as PyTorch's, so it can be saved with ``torch.save`` (plain
dicts, tensors and numbers: no pickle) and loaded into a fresh optimizer built
over the same parameters.  Updates run outside any graph, all or nothing (see
:meth:`Optimizer.step`), and bump the parameters' version counters.
"""
from __future__ import annotations

import copy
import inspect
import numbers
import sys
import warnings
from typing import Callable, Iterable

import numpy as np

from ..grad_mode import enable_grad, no_grad
from ..tensor import Tensor, make

__all__ = ["Optimizer", "required"]


class _Required:
    def __repr__(self) -> str:
        return "<required parameter>"


required = _Required()


def _unshared_refs() -> int:
    """What ``sys.getrefcount`` says of a tensor's array that nothing else holds, read as
    :func:`_write` reads it (the tensor's slot and one local): measured, not assumed."""
    t = make(np.empty(0))
    old = t._data
    return sys.getrefcount(old)


_UNSHARED = _unshared_refs()


def _write(t: Tensor, value) -> None:
    """Give ``t`` its new value: the new array itself when nothing else holds the old one, else
    written into the old array, which a view, another tensor or a caller shares and must see
    change (as PyTorch's in-place update shows it) -- unless it is read-only (numpy's, shared
    with ``from_numpy``), which nobody can change: replaced too.  Cannot fail."""
    old = t._data
    if (old.__class__ is np.ndarray and (old.base is not None or sys.getrefcount(old) > _UNSHARED)
            and old.flags.writeable):
        old[...] = value
    else:
        t._data, t._sref = value, None


_NO_STATE: dict = {}   # the state of a parameter that has none yet (read only)


class Optimizer:
    """Base class: subclasses give ``defaults`` and ``_update(data, grad, state, group)``,
    which returns the parameter's new array and the state entries it changes (new arrays)."""

    # State entries that are 0-dim numbers rather than arrays shaped like the parameter
    # (``step`` everywhere; ASGD's ``eta``/``mu``, NAdam's ``mu_product``): what a loaded
    # state dict must hold under those keys.
    _scalar_state: tuple[str, ...] = ("step",)
    # PyTorch's words for what ``capturable=True`` needs on a supported device, and which
    # devices those are (its CPU refusal, raised by ``step``).
    _capturable_subject = "params and state_steps"
    _capturable_devices = ("cuda", "xpu", "hpu", "privateuseone", "xla")

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
        """Add a group; options it does not set come from the optimizer's defaults.

        Its parameters may come with names (``model.named_parameters()``, PyTorch 2.6+): then
        the group keeps them as ``param_names``, and every group must have them."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        params = [params] if isinstance(params, Tensor) else list(params)
        names = [p[0] for p in params if isinstance(p, tuple)]
        if names:
            if len(names) != len(params):
                raise ValueError("all optimizer params should be with/without names. Some param "
                                 "names are missing")
            params = [p[1] for p in params]
        for group in self.param_groups:
            if ("param_names" in group) != bool(names):
                raise ValueError(f"all optimizer param groups should be with/without names. "
                                 f"cannot add param group {'with' if names else 'without'} names "
                                 f"to the optimizer")
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
        if names:
            group["param_names"] = names
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
        """One update of every parameter that has a gradient; ``closure`` re-evaluates the loss.

        All or nothing: every new value (parameters and state) is computed first, changing
        nothing, and only then written -- so a step that raises (``np.seterr(all="raise")``
        meeting an overflow, a gradient of the wrong shape) leaves every parameter and the
        optimizer's state as they were.  A parameter listed twice is updated twice."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        for p, (data, changes, count) in self._new_values().items():   # then write them all
            state = self.state.setdefault(p, {})
            for key, value in changes.items():
                t = state.get(key)
                if t is None:
                    state[key] = make(value)
                else:
                    _write(t, value)
            _write(p, data)
            p._vc[0] += count
        return loss

    def _new_values(self) -> dict:
        """``p -> [its new array, {state key: new value}, updates]`` for every parameter with
        a gradient, computed without changing anything."""
        new: dict = {}
        for group in self.param_groups:
            if group.get("capturable") or group.get("differentiable"):
                self._refuse_flags(group)
            for p in group["params"]:
                if p.grad is None:
                    continue
                g = p.grad._data
                if group.get("maximize"):
                    g = -g
                done = new.get(p)
                if done is None:
                    new[p] = [*self._update(p._data, g, self.state.get(p, _NO_STATE), group), 1]
                else:   # listed again: this update starts from the one before
                    state = {**self.state.get(p, _NO_STATE),
                             **{k: make(v) for k, v in done[1].items()}}
                    data, changes = self._update(done[0], g, state, group)
                    new[p] = [data, {**done[1], **changes}, done[2] + 1]
        return new

    def _refuse_flags(self, group: dict) -> None:
        """What PyTorch's CPU step does with these flags, before anything changes:
        ``capturable`` (CUDA graphs) is refused for CPU parameters, and ``differentiable``
        runs the update under autograd, where changing a leaf that requires grad in place
        is an error.  Only parameters with a gradient are looked at, as PyTorch."""
        with_grad = [p for p in group["params"] if p.grad is not None]
        if group.get("capturable") and with_grad:
            raise AssertionError(f"If capturable=True, {self._capturable_subject} must be on "
                                 f"supported devices: {list(self._capturable_devices)}.")
        if group.get("differentiable") and any(p.requires_grad for p in with_grad):
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                               "operation.")

    def _update(self, data: np.ndarray, g: np.ndarray, state: dict, group: dict) -> tuple:
        """``(new data, {state key: new value})`` for a parameter holding ``data`` with gradient
        ``g``; changes nothing (``state``: the parameter's state tensors, read only)."""
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
        """Restore options and state saved by :meth:`state_dict` -- all of them, or (on any
        error) none.

        PyTorch's checks and wording for the groups (their number and sizes), and its casts
        (every state tensor but ``step`` to its parameter's dtype).  Beyond PyTorch, which
        loads them and fails inside the next ``step()`` (``The size of tensor a (3) must
        match the size of tensor b (4)``, ``unsupported operand type(s) for /: 'str' and
        'float'``): every state entry but ``step`` must be a tensor of its parameter's
        shape, ``step`` a whole number of steps, and each option the kind of value this
        optimizer's is (a number, a flag, a tuple as long) and one its constructor accepts.
        Anything that does not fit raises ``ValueError`` naming the parameter or group and
        the key.
        """
        if not isinstance(state_dict, dict):
            raise ValueError(f"loaded state dict is a {type(state_dict).__name__}, not a dict")
        groups = _saved_groups(state_dict, self.param_groups)
        by_index = {i: p for mine, saved in zip(self.param_groups, groups)
                    for i, p in zip(saved["params"], mine["params"])}
        saved_state = state_dict.get("state")
        if saved_state is None:
            raise ValueError("loaded state dict has no 'state'")
        if not isinstance(saved_state, dict):
            raise ValueError(f"loaded state dict's 'state' is a {type(saved_state).__name__}, "
                             f"not a dict")
        state = {}
        for key, values in saved_state.items():
            index = _parameter_index(key)
            if index in by_index:
                state[by_index[index]] = self._restored_state(values, by_index[index], index)
        options = [_saved_options(mine, saved, i)
                   for i, (mine, saved) in enumerate(zip(self.param_groups, groups))]
        for i, (mine, saved) in enumerate(zip(self.param_groups, options)):
            self._check_options({**mine, **saved}, i)
        for mine, saved in zip(self.param_groups, options):   # everything checked: apply
            mine.update(saved)
        self.state = state

    def _restored_state(self, values, p: Tensor, index: int) -> dict:
        """Parameter ``index``'s saved state as this optimizer keeps it: ``step`` a float32
        count, the other scalar entries 0-dim tensors and every other entry a tensor of the
        parameter's shape, each cast to its dtype (as PyTorch casts) in its own memory."""
        if not isinstance(values, dict):
            raise ValueError(f"loaded state dict: the state of parameter {index} is a "
                             f"{type(values).__name__}, not a dict")
        return {key: _restored_step(value, index) if key == "step" else
                _restored_scalar(key, value, p, index) if key in self._scalar_state else
                _restored_buffer(key, value, p, index) for key, value in values.items()}

    def _check_options(self, options: dict, i: int) -> None:
        """The constructor's own checks on group ``i``'s loaded options (a beta of 1.0 or a
        negative lr_decay divides by zero in ``step()``, where PyTorch finds out): a throwaway
        optimizer is built with them.  A constructor that takes other arguments than the
        options (a ``TypeError``) is not second-guessed."""
        takes = inspect.signature(type(self).__init__).parameters
        kwargs = {k: v for k, v in options.items() if k in takes and k not in ("self", "params")}
        try:
            type(self)([make(np.zeros(1, np.float32))], **kwargs)
        except ValueError as e:
            raise ValueError(f"loaded state dict: parameter group {i}: {e}") from None
        except TypeError:
            pass

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__} ("]
        for i, group in enumerate(self.param_groups):
            if i:
                lines.append("")
            lines.append(f"Parameter Group {i}")
            lines += [f"    {k}: {group[k]}" for k in sorted(group) if k != "params"]
        return "\n".join(lines) + "\n)"


def _saved_groups(state_dict: dict, groups: list[dict]) -> list[dict]:
    """The saved param groups, refused unless they match ``groups`` one to one (PyTorch's
    wording for their number and sizes) and list distinct parameter indices."""
    saved = state_dict.get("param_groups")
    if saved is None:
        raise ValueError("loaded state dict has no 'param_groups'")
    if not isinstance(saved, list) or not all(isinstance(g, dict) and isinstance(
            g.get("params"), list) for g in saved):
        raise ValueError("loaded state dict's 'param_groups' is not a list of dicts with a "
                         "'params' list each")
    if len(saved) != len(groups):
        raise ValueError("loaded state dict has a different number of parameter groups")
    for mine, group in zip(groups, saved):
        if len(mine["params"]) != len(group["params"]):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
    seen = set()
    for i, group in enumerate(saved):
        for index in group["params"]:
            if type(index) is not int or index in seen:
                raise ValueError(f"parameter group {i} lists {index!r} among its params; "
                                 f"expected parameter indices, each once")
            seen.add(index)
    return saved


def _parameter_index(key) -> int | None:
    """A state key as the parameter index it names (an int, or its decimal text)."""
    if type(key) is int:
        return key
    if isinstance(key, str) and key.isdecimal():
        return int(key)
    raise ValueError(f"loaded state dict's state key {key!r} is not a parameter index")


def _restored_step(value, index: int) -> Tensor:
    """``step`` as a float32 0-dim tensor (PyTorch keeps it so), once it is a count."""
    number = value._data if isinstance(value, Tensor) else value
    if isinstance(number, np.ndarray) and number.size == 1:
        number = number.reshape(())[()]
    if (not isinstance(number, numbers.Real) or isinstance(number, (bool, np.bool_))
            or not float(number).is_integer() or number < 0):
        raise ValueError(f"loaded state dict has step {value!r} for parameter {index}; expected "
                         f"a whole number of steps, at least 0")
    return make(np.array(number, np.float32))


def _restored_scalar(key, value, p: Tensor, index: int) -> Tensor:
    """A 0-dim state entry (ASGD's ``eta``, NAdam's ``mu_product``) in ``p``'s dtype."""
    number = value._data if isinstance(value, Tensor) else value
    if isinstance(number, np.ndarray) and number.size == 1:
        number = number.reshape(())[()]
    if not isinstance(number, numbers.Real) or isinstance(number, (bool, np.bool_)):
        raise ValueError(f"loaded state dict has {key} {value!r} for parameter {index}; "
                         f"expected a number")
    return make(np.array(number, dtype=p.np_dtype))


def _restored_buffer(key, value, p: Tensor, index: int) -> Tensor:
    """A state tensor shaped like ``p``, copied and cast to its dtype (as PyTorch casts)."""
    if not isinstance(value, Tensor):
        raise ValueError(f"loaded state dict has {key} of type {type(value).__name__} for "
                         f"parameter {index}; expected a tensor")
    if value.shape != p.shape:
        raise ValueError(f"loaded state dict has {key} of shape {value.shape} for parameter "
                         f"{index}, which has shape {p.shape}")
    return make(np.array(value._data, dtype=p.np_dtype, copy=True))


def _saved_options(mine: dict, saved: dict, i: int) -> dict:
    """Group ``i``'s saved options (``params`` aside), each the kind of value ``mine`` holds."""
    options = {}
    for key, value in saved.items():
        if key == "params":
            continue
        if key in mine and not _same_kind(mine[key], value):
            raise ValueError(f"loaded state dict: option {key!r} of parameter group {i} is "
                             f"{value!r}; expected {_kind(mine[key])} like {mine[key]!r}")
        options[key] = copy.deepcopy(value) if isinstance(value, (list, dict)) else value
    return options


def _same_kind(mine, saved) -> bool:
    """Whether option value ``saved`` can stand where ``mine`` does."""
    if mine is None:     # foreach=None may become True, LBFGS's line_search_fn a name
        return isinstance(saved, (bool, str)) or saved is None
    if isinstance(mine, bool):
        return isinstance(saved, bool) or saved is None
    if isinstance(mine, numbers.Real):
        return isinstance(saved, numbers.Real) and not isinstance(saved, bool)
    if isinstance(mine, (tuple, list)):
        return (isinstance(saved, (tuple, list)) and len(saved) == len(mine)
                and all(map(_same_kind, mine, saved)))
    return True


def _kind(value) -> str:
    if isinstance(value, bool) or value is None:
        return "a flag"
    if isinstance(value, numbers.Real):
        return "a number"
    return f"{len(value)} numbers" if isinstance(value, (tuple, list)) else "a value"


def check(value: float, name: str, low: float = 0.0) -> None:
    if not value >= low:
        raise ValueError(f"Invalid {name}: {value}")
