"""``torch.nn._reduction``: the pre-1.0 loss keywords ``size_average=`` / ``reduce=``.

Old programs (the classic VAE's ``binary_cross_entropy(recon, x, size_average=False)``) still
pass them; PyTorch resolves them to a ``reduction=`` with a deprecation warning, and so do
every functional loss and every loss module here, through this one rule.
"""
from __future__ import annotations

import warnings

from .. import functions as _f

__all__ = ["legacy_get_string", "resolve", "apply_reduction", "check_reduction", "REDUCTIONS"]

LEGACY_WARNING = ("size_average and reduce args will be deprecated, please use reduction='{}' "
                  "instead.")


def legacy_get_string(size_average: bool | None, reduce: bool | None,
                      emit_warning: bool = True) -> str:
    """The ``reduction`` the legacy pair means: ``reduce=False`` -> ``'none'``, else
    ``size_average=False`` -> ``'sum'``, else ``'mean'`` (None counts as True).  The warning is
    attributed to the loss that called this, as PyTorch's ``stacklevel=2``."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    result = "mean" if size_average and reduce else "sum" if reduce else "none"
    if emit_warning:
        warnings.warn(LEGACY_WARNING.format(result), UserWarning, stacklevel=2)
    return result


REDUCTIONS = ("none", "mean", "sum")


def check_reduction(reduction: str) -> None:
    if reduction not in REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")


def apply_reduction(loss, reduction: str):
    """A pointwise loss reduced as ``reduction`` says (PyTorch's ``apply_loss_reduction``)."""
    if reduction == "mean":
        return _f.mean(loss)
    if reduction == "sum":
        return _f.sum(loss)
    if reduction == "none":
        return loss
    raise ValueError(f"{reduction} is not a valid value for reduction")


def resolve(size_average: bool | None, reduce: bool | None, reduction: str) -> str:
    """``reduction``, or what the legacy pair means when either is given (with the warning,
    attributed to the loss that called this, as :func:`legacy_get_string`'s)."""
    if size_average is None and reduce is None:
        return reduction
    result = legacy_get_string(size_average, reduce, emit_warning=False)
    warnings.warn(LEGACY_WARNING.format(result), UserWarning, stacklevel=2)
    return result
