"""``torch.nn._reduction``: the pre-1.0 loss keywords ``size_average=`` / ``reduce=``.

Old programs (the classic VAE's ``binary_cross_entropy(recon, x, size_average=False)``) still
pass them; PyTorch resolves them to a ``reduction=`` with a deprecation warning, and so do
every functional loss and every loss module here, through this one rule.
"""
from __future__ import annotations

import warnings

__all__ = ["legacy_get_string"]

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
