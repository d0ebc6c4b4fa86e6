"""``LBFGS``: limited-memory BFGS over all parameters as one flat vector, driven by a closure.

    optimizer = torch.optim.LBFGS(model.parameters(), lr=0.8, line_search_fn="strong_wolfe")
    def closure():
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        return loss
    optimizer.step(closure)      # up to max_iter iterations, max_eval closure calls

PyTorch's algorithm (itself minFunc's, by way of Lua torch's ``optim``): each iteration
takes the two-loop recursion's direction over the last ``history_size`` curvature pairs,
then either a fixed step of ``lr`` or a strong-Wolfe line search (cubic interpolation,
bracketing, then zoom).  Where PyTorch computes with 0-dim float32 tensors (dot products,
the step ``t`` once it came out of one, ``ro``, ``H_diag``) this module computes with
``np.float32`` scalars, and where it uses Python floats (the loss) so does this one: the
same roundings, so the same decisions in the line search.

The state is PyTorch's (``func_evals``, ``n_iter``, ``d``, ``t``, ``old_dirs``, ``old_stps``,
``ro``, ``al``, ``H_diag``, ``prev_flat_grad``, ``prev_loss``), kept under the first
parameter, so ``state_dict()`` has PyTorch's structure and a PyTorch one loads.  Beyond
PyTorch: a step that raises (the closure failing, an unknown ``line_search_fn``) leaves the
parameters and the state as they were.
"""
from __future__ import annotations

import copy
import numbers
from typing import Callable

import numpy as np

from ..grad_mode import enable_grad, no_grad
from ..tensor import Tensor, make
from .optimizer import Optimizer, _write, check

__all__ = ["LBFGS"]


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimiser of the cubic through ``(x1, f1)``, ``(x2, f2)`` with slopes ``g1``,
    ``g2``, clamped to ``bounds`` (default: between the points); their midpoint when the
    cubic has no minimum."""
    xmin_bound, xmax_bound = bounds if bounds is not None else (min(x1, x2), max(x1, x2))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square >= 0:
        d2 = np.sqrt(d2_square)
        if x1 <= x2:
            min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(min_pos, xmin_bound), xmax_bound)
    return (xmin_bound + xmax_bound) / 2.0


def _strong_wolfe(obj_func: Callable, x, t, d: np.ndarray, f: float, g: np.ndarray, gtd,
                  c1: float = 1e-4, c2: float = 0.9, tolerance_change: float = 1e-9,
                  max_ls: int = 25):
    """A step ``t`` along ``d`` meeting the strong Wolfe conditions (sufficient decrease
    ``c1``, curvature ``c2``): grow ``t`` until an interval brackets one, then shrink the
    interval by cubic interpolation ("zoom").  Returns ``(loss, flat grad, t, evaluations)``
    at the chosen point; ``obj_func(x, t, d)`` evaluates the loss and gradient at ``x + t*d``."""
    d_norm = np.abs(d).max()
    g = g.copy()
    f_new, g_new = obj_func(x, t, d)
    ls_func_evals = 1
    gtd_new = g_new.dot(d)
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    ls_iter = 0
    while ls_iter < max_ls:   # bracketing
        if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev):
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        min_step = t + 0.01 * (t - t_prev)   # extrapolate, between 1.01x and 10x the step
        max_step = t * 10
        tmp = t
        t = _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new,
                               bounds=(min_step, max_step))
        t_prev, f_prev, g_prev, gtd_prev = tmp, f_new, g_new.copy(), gtd_new
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
    if ls_iter == max_ls:
        bracket, bracket_f, bracket_g = [0, t], [f, f_new], [g, g_new]

    insuf_progress = False
    low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:   # zoom
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0],
                               bracket[1], bracket_f[1], bracket_gtd[1])
        # a point too close to the bracket's ends twice running (or outside it) moves to
        # 0.1 of the bracket's length from the nearer end
        eps = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - t, t - min(bracket)) < eps:
            if insuf_progress or t >= max(bracket) or t <= min(bracket):
                if abs(t - max(bracket)) < abs(t - min(bracket)):
                    t = max(bracket) - eps
                else:
                    t = min(bracket) + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
        if f_new > (f + c1 * t * gtd) or f_new >= bracket_f[low_pos]:
            bracket[high_pos], bracket_f[high_pos] = t, f_new   # not low enough: new high
            bracket_g[high_pos], bracket_gtd[high_pos] = g_new.copy(), gtd_new
            low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0:
                bracket[high_pos], bracket_f[high_pos] = bracket[low_pos], bracket_f[low_pos]
                bracket_g[high_pos] = bracket_g[low_pos]
                bracket_gtd[high_pos] = bracket_gtd[low_pos]
            bracket[low_pos], bracket_f[low_pos] = t, f_new   # the new point: new low
            bracket_g[low_pos], bracket_gtd[low_pos] = g_new.copy(), gtd_new
    return bracket_f[low_pos], bracket_g[low_pos], bracket[low_pos], ls_func_evals


# How each state entry is stored: a Tensor (``d``, ``prev_flat_grad``; 0-dim for the
# float32 scalars), a list of them (``old_dirs``, ``old_stps``, ``ro``, ``al``), or a number.
_VECTORS = ("d", "prev_flat_grad")
_LISTS = ("old_dirs", "old_stps", "ro", "al")


def _stored(value):
    """A working value as PyTorch's state holds it: arrays and float32 scalars as tensors."""
    if isinstance(value, (np.ndarray, np.floating)):
        return make(np.array(value))
    if isinstance(value, list):
        return [_stored(v) for v in value]
    return value


def _working(value):
    """A state value as this module computes with it (the inverse of :func:`_stored`)."""
    if isinstance(value, Tensor):
        data = value._data
        return data[()] if data.ndim == 0 else data.copy()
    if isinstance(value, list):
        return [_working(v) for v in value]
    return value


class LBFGS(Optimizer):
    """L-BFGS (Nocedal's two-loop recursion) with an optional strong-Wolfe line search; one
    parameter group; ``step(closure)`` runs up to ``max_iter`` iterations."""

    def __init__(self, params, lr: float = 1, max_iter: int = 20, max_eval: int | None = None,
                 tolerance_grad: float = 1e-7, tolerance_change: float = 1e-9,
                 history_size: int = 100, line_search_fn: str | None = None):
        check(lr, "learning rate")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        super().__init__(params, dict(lr=lr, max_iter=max_iter, max_eval=max_eval,
                                      tolerance_grad=tolerance_grad,
                                      tolerance_change=tolerance_change,
                                      history_size=history_size, line_search_fn=line_search_fn))
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    # --- the parameters as one flat vector ----------------------------------------

    def _gather_flat_grad(self) -> np.ndarray:
        return np.concatenate([np.zeros(p._data.size, p.np_dtype) if p.grad is None
                               else p.grad._data.ravel() for p in self._params])

    def _add_grad(self, step_size, update: np.ndarray) -> None:
        """``p += step_size * update[slice of p]`` for every parameter."""
        offset = 0
        for p in self._params:
            n = p._data.size
            piece = update[offset:offset + n].reshape(p._data.shape)
            _write(p, p._data + np.asarray(step_size, p.np_dtype) * piece)
            p._vc[0] += 1
            offset += n

    def _set_param(self, values: list[np.ndarray]) -> None:
        for p, value in zip(self._params, values):
            _write(p, value.copy())
            p._vc[0] += 1

    def _directional_evaluate(self, closure: Callable, x: list, t, d: np.ndarray):
        """Loss and flat gradient at ``x + t*d``; the parameters are ``x`` again after."""
        self._add_grad(t, d)
        loss = float(closure())
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    # --- the step ------------------------------------------------------------------

    @no_grad()
    def step(self, closure: Callable):
        """Up to ``max_iter`` L-BFGS iterations; returns the loss the first closure call gave.

        All or nothing: if anything raises, the parameters and the state are put back as
        they were before the step (PyTorch leaves them wherever the failure found them)."""
        saved_params = [p._data.copy() for p in self._params]
        saved_state = {p: copy.copy(s) for p, s in self.state.items()}
        try:
            return self._step(enable_grad()(closure))
        except BaseException:
            self._set_param(saved_params)
            self.state = saved_state
            raise

    def _step(self, closure: Callable):
        group = self.param_groups[0]
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]

        stored = self.state.setdefault(self._params[0], {})
        state = {key: _working(value) for key, value in stored.items()}
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        orig_loss = closure()
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        if np.abs(flat_grad).max() <= tolerance_grad:   # already optimal
            self._store(state)
            return orig_loss

        d, t = state.get("d"), state.get("t")
        old_dirs, old_stps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        H_diag, prev_flat_grad = state.get("H_diag"), state.get("prev_flat_grad")
        prev_loss = state.get("prev_loss")
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1

            # the descent direction
            if state["n_iter"] == 1:
                d = -flat_grad
                old_dirs, old_stps, ro, H_diag = [], [], [], 1
            else:
                y = flat_grad - prev_flat_grad
                s = d * np.asarray(t, d.dtype)
                ys = y.dot(s)
                if ys > 1e-10:   # a curvature pair worth keeping
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    H_diag = ys / y.dot(y)
                num_old = len(old_dirs)
                al = state.setdefault("al", [None] * history_size)
                q = -flat_grad
                for i in range(num_old - 1, -1, -1):
                    al[i] = old_stps[i].dot(q) * ro[i]
                    q = q + (-al[i]) * old_dirs[i]
                d = r = q * np.asarray(H_diag, q.dtype)
                for i in range(num_old):
                    be_i = old_dirs[i].dot(r) * ro[i]
                    r += (al[i] - be_i) * old_stps[i]
            prev_flat_grad = flat_grad.copy()
            prev_loss = loss

            # the step length
            if state["n_iter"] == 1:
                t = min(1.0, 1.0 / np.abs(flat_grad).sum()) * lr
            else:
                t = lr
            gtd = flat_grad.dot(d)
            if gtd > -tolerance_change:   # no descent left along d
                break

            ls_func_evals = 0
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = [p._data.copy() for p in self._params]

                def obj_func(x, t, d):
                    return self._directional_evaluate(closure, x, t, d)

                loss, flat_grad, t, ls_func_evals = _strong_wolfe(
                    obj_func, x_init, t, d, loss, flat_grad, gtd, max_ls=max_eval - current_evals)
                self._add_grad(t, d)
                opt_cond = np.abs(flat_grad).max() <= tolerance_grad
            else:
                self._add_grad(t, d)
                opt_cond = False
                if n_iter != max_iter:   # the last iteration's loss is not needed
                    loss = float(closure())
                    flat_grad = self._gather_flat_grad()
                    opt_cond = np.abs(flat_grad).max() <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals

            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if np.abs(d * np.asarray(t, d.dtype)).max() <= tolerance_change:   # no progress
                break
            if abs(loss - prev_loss) < tolerance_change:
                break

        state.update(d=d, t=t, old_dirs=old_dirs, old_stps=old_stps, ro=ro, H_diag=H_diag,
                     prev_flat_grad=prev_flat_grad, prev_loss=prev_loss)
        self._store(state)
        return orig_loss

    def _store(self, state: dict) -> None:
        self.state[self._params[0]] = {key: _stored(value) for key, value in state.items()}

    # --- loading -------------------------------------------------------------------

    def _restored_state(self, values, p: Tensor, index: int) -> dict:
        """PyTorch's LBFGS state (under the first parameter): counts, the flat vectors, the
        history lists and the scalars, each checked for its kind and length; tensors are
        copied and cast to the parameter's dtype, as PyTorch casts them."""
        if not isinstance(values, dict):
            raise ValueError(f"loaded state dict: the state of parameter {index} is a "
                             f"{type(values).__name__}, not a dict")
        size = sum(q._data.size for q in self._params)

        def vector(key, v):
            if not isinstance(v, Tensor) or v._data.shape != (size,):
                raise ValueError(f"loaded state dict has {key} {v!r}; expected a tensor of "
                                 f"the {size} parameters' values")
            return make(np.array(v._data, p.np_dtype))

        def scalar(key, v, allow_none=False):
            if v is None and allow_none:
                return None
            if isinstance(v, Tensor) and v._data.size == 1:
                return make(np.array(v._data.reshape(()), p.np_dtype))
            if isinstance(v, numbers.Real) and not isinstance(v, bool):
                return v
            raise ValueError(f"loaded state dict has {key} {v!r}; expected a number")

        restored = {}
        for key, v in values.items():
            if key in ("func_evals", "n_iter"):
                if type(v) is not int or v < 0:
                    raise ValueError(f"loaded state dict has {key} {v!r}; expected a count")
                restored[key] = v
            elif key in _VECTORS:
                restored[key] = vector(key, v)
            elif key in _LISTS:
                if not isinstance(v, list):
                    raise ValueError(f"loaded state dict has {key} of type "
                                     f"{type(v).__name__}; expected a list")
                item = vector if key in ("old_dirs", "old_stps") else (
                    lambda k, x: scalar(k, x, allow_none=key == "al"))
                restored[key] = [item(key, x) for x in v]
            elif key in ("t", "H_diag", "prev_loss"):
                restored[key] = scalar(key, v, allow_none=True)
            else:
                raise ValueError(f"loaded state dict has {key!r} in the LBFGS state; "
                                 f"expected PyTorch's LBFGS state entries")
        if len(restored.get("old_dirs", [])) != len(restored.get("old_stps", [])) or \
                len(restored.get("old_dirs", [])) != len(restored.get("ro", [])):
            raise ValueError("loaded state dict has old_dirs, old_stps and ro of different "
                             "lengths")
        return restored
