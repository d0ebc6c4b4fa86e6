"""``torch.nn.functional.ctc_loss``: the connectionist temporal classification loss
(Graves et al. 2006), computed as ATen's CPU kernel computes it.

The forward pass is the alpha recursion over the blank-extended target ``l'`` (length
``2L + 1``), in log space::

    alpha[0, 0] = lp[0, blank]     alpha[0, 1] = lp[0, l'1]
    alpha[t, s] = logsumexp(alpha[t-1, s], alpha[t-1, s-1], alpha[t-1, s-2] if l's != blank
                            and l's != l'(s-2)) + lp[t, l's]
    nll = -logsumexp(alpha[T-1, 2L], alpha[T-1, 2L-1])

Why a custom autograd Function and not a registry op: ATen's gradient for ``log_probs`` is
``exp(lp) - exp(log(alpha*beta) + nll - lp)``, the gradient with respect to the *logits* under
an assumed ``log_softmax`` (the form every CTC implementation uses), not the derivative with
respect to ``log_probs`` itself; a registry op must pass the finite-difference check of its
gradient, which this one by design does not.  So it lives here, eager only, with PyTorch's
gradient; like ATen's, it has no second derivative.

>>> import dyngraph as torch
>>> lp = torch.full((1, 1, 2), 0.5).log()
>>> round(ctc_loss(lp, torch.tensor([[1]]), [1], [1]).item(), 4)
0.6931
"""
from __future__ import annotations

import numpy as np

from .. import creation, functions as _f
from ..autograd.function import Function
from ._reduction import check_reduction

__all__ = ["ctc_loss"]


def _logsumexp(*terms: np.ndarray) -> np.ndarray:
    """Elementwise log-sum-exp of same-shaped arrays (``-inf`` entries contribute nothing)."""
    stacked = np.stack(terms)
    top = stacked.max(0)
    safe = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return np.log(np.exp(stacked - safe).sum(0)) + safe


def _shifted(a: np.ndarray, k: int) -> np.ndarray:
    """``a`` moved ``k`` places right (left for negative ``k``), ``-inf`` coming in."""
    out = np.full_like(a, -np.inf)
    if k >= 0:
        out[k:] = a[:len(a) - k]
    else:
        out[:len(a) + k] = a[-k:]
    return out


def _extended(target: np.ndarray, blank: int) -> np.ndarray:
    ext = np.full(2 * len(target) + 1, blank, np.int64)
    ext[1::2] = target
    return ext


def _skip_allowed(ext: np.ndarray, blank: int) -> np.ndarray:
    """Where ``alpha[t-1, s-2]`` may be skipped over (a label differing from the one before)."""
    allowed = np.zeros(len(ext), bool)
    allowed[2:] = (ext[2:] != blank) & (ext[2:] != ext[:-2])
    return allowed


def _alpha(lp: np.ndarray, ext: np.ndarray, skip: np.ndarray, steps: int) -> np.ndarray:
    """``(steps, 2L+1)`` log-alphas of one sequence (``lp`` its ``(T, C)`` log-probabilities)."""
    s_len = len(ext)
    alpha = np.full((steps, s_len), -np.inf)
    alpha[0, 0] = lp[0, ext[0]]
    if s_len > 1:
        alpha[0, 1] = lp[0, ext[1]]
    for t in range(1, steps):
        prev = alpha[t - 1]
        one, two = _shifted(prev, 1), np.where(skip, _shifted(prev, 2), -np.inf)
        alpha[t] = _logsumexp(prev, one, two) + lp[t, ext]
    return alpha


def _beta(lp: np.ndarray, ext: np.ndarray, skip: np.ndarray, steps: int) -> np.ndarray:
    """The backward recursion: ``beta[t, s]`` includes ``lp[t, l's]``, as ATen's."""
    s_len = len(ext)
    beta = np.full((steps, s_len), -np.inf)
    beta[steps - 1, s_len - 1] = lp[steps - 1, ext[s_len - 1]]
    if s_len > 1:
        beta[steps - 1, s_len - 2] = lp[steps - 1, ext[s_len - 2]]
    skip_ahead = np.zeros_like(skip)                          # s may jump to s+2
    skip_ahead[:-2] = skip[2:]
    for t in range(steps - 2, -1, -1):
        nxt = beta[t + 1]
        one, two = _shifted(nxt, -1), np.where(skip_ahead, _shifted(nxt, -2), -np.inf)
        beta[t] = _logsumexp(nxt, one, two) + lp[t, ext]
    return beta


class _CTC(Function):
    """Per-sequence negative log-likelihoods ``(N,)`` of ``log_probs`` ``(T, N, C)``."""

    @staticmethod
    def forward(ctx, log_probs, targets: list, input_lengths: list, blank: int,
                zero_infinity: bool):
        lp_all = log_probs.detach().numpy().astype(np.float64)
        c = lp_all.shape[2]
        nll = np.zeros(lp_all.shape[1])
        grad = np.zeros_like(lp_all)
        for b, (target, steps) in enumerate(zip(targets, input_lengths)):
            lp = lp_all[:steps, b]
            ext = _extended(target, blank)
            skip = _skip_allowed(ext, blank)
            if steps == 0:
                nll[b] = 0.0 if len(target) == 0 else np.inf
                continue
            alpha = _alpha(lp, ext, skip, steps)
            tail = alpha[steps - 1, -2:] if len(ext) > 1 else alpha[steps - 1, -1:]
            nll[b] = -_logsumexp(*tail)
            if zero_infinity and np.isinf(nll[b]):
                nll[b] = 0.0
                continue
            beta = _beta(lp, ext, skip, steps)
            both = np.full((steps, c), -np.inf)
            for s, label in enumerate(ext):
                both[:, label] = _logsumexp(both[:, label], alpha[:, s] + beta[:, s])
            with np.errstate(over="ignore", invalid="ignore"):
                grad[:steps, b] = np.exp(lp) - np.exp(both + nll[b] - lp)
        ctx.grad = grad.astype(log_probs.np_dtype)
        return creation.as_tensor(nll.astype(log_probs.np_dtype))

    @staticmethod
    def backward(ctx, grad_nll):
        g = ctx.grad * grad_nll.detach().numpy()[None, :, None]
        return creation.as_tensor(g), None, None, None, None


def _lengths(v, name: str) -> list[int]:
    if isinstance(v, (list, tuple)):
        return [int(e) for e in v]
    return [int(e) for e in np.asarray(v._data).reshape(-1)]


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank: int = 0,
             reduction: str = "mean", zero_infinity: bool = False):
    """The negative log-likelihood of ``targets`` under the alignments of ``log_probs``
    ``(T, N, C)`` (or ``(T, C)``); ``targets`` padded ``(N, S)`` or concatenated.  ``mean``
    divides each sequence's loss by its target length, then averages."""
    check_reduction(reduction)
    unbatched = log_probs.dim() == 2
    lp = _f.unsqueeze(log_probs, 1) if unbatched else log_probs
    in_lens, tgt_lens = _lengths(input_lengths, "input_lengths"), _lengths(target_lengths,
                                                                           "target_lengths")
    n = lp.shape[1]
    if len(in_lens) != n:
        raise RuntimeError(f"input_lengths must be of size batch_size, but got "
                           f"{len(in_lens)} and {n}")
    if len(tgt_lens) != n:
        raise RuntimeError(f"target_lengths must be of size batch_size, but got "
                           f"{len(tgt_lens)} and {n}")
    tg = np.asarray(targets._data).astype(np.int64)
    if unbatched:
        tg = tg.reshape(1, -1)
    seqs = []
    offset = 0
    for b in range(n):
        if tg.ndim == 1:
            seqs.append(tg[offset:offset + tgt_lens[b]])
            offset += tgt_lens[b]
        else:
            if tgt_lens[b] > tg.shape[1]:
                raise RuntimeError(f"Expected tensor to have size at least {tgt_lens[b]} at "
                                   f"dimension 1, but got size {tg.shape[1]} for argument #2 "
                                   f"'targets' (while checking arguments for ctc_loss_cpu)")
            seqs.append(tg[b, :tgt_lens[b]])
        if in_lens[b] > lp.shape[0]:
            raise RuntimeError(f"Expected input_lengths to have value at most {lp.shape[0]}, "
                               f"but got value {in_lens[b]} (while checking arguments for "
                               f"ctc_loss_cpu)")
    nll = _CTC.apply(lp, seqs, in_lens, blank, zero_infinity)
    if reduction == "none":
        return _f.squeeze(nll, 0) if unbatched else nll
    if reduction == "sum":
        return _f.sum(nll)
    per = creation.as_tensor(np.maximum(np.asarray(tgt_lens), 1).astype(log_probs.np_dtype))
    return _f.mean(_f.div(nll, per))
