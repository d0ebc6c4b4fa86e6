"""``torch.backends``: the switches seeding boilerplate sets (``cudnn.deterministic = True``).

They are accepted and remembered; dyngraph runs on numpy on the CPU, where every
op is already deterministic, so none of them changes a result.
"""
from __future__ import annotations

from types import SimpleNamespace

__all__ = ["cudnn", "mps", "mha", "use_deterministic_algorithms",
           "are_deterministic_algorithms_enabled"]

cudnn = SimpleNamespace(deterministic=False, benchmark=False, enabled=True,
                        is_available=lambda: False)
mps = SimpleNamespace(is_available=lambda: False, is_built=lambda: False)

_DETERMINISTIC = [False]


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Accepted (every dyngraph op is deterministic); remembered for the query below."""
    _DETERMINISTIC[0] = bool(mode)


def are_deterministic_algorithms_enabled() -> bool:
    return _DETERMINISTIC[0]


_MHA_FASTPATH = [True]


def _set_fastpath_enabled(value: bool) -> None:
    _MHA_FASTPATH[0] = bool(value)


mha = SimpleNamespace(get_fastpath_enabled=lambda: _MHA_FASTPATH[0],
                      set_fastpath_enabled=_set_fastpath_enabled)
"""``torch.backends.mha``: whether Transformer inference may take PyTorch's fast path.  Its
one visible effect here: ``TransformerEncoder``'s zeros at padded positions (nn/transformer.py)."""
