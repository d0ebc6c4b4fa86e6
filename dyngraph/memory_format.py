"""torch's ``memory_format`` and ``layout`` objects (``torch.channels_last``, ``torch.strided``...).

A dyngraph tensor is always a dense, row-major numpy array: ``layout`` is always ``strided``,
and a memory format changes how torch lays the same values out, never the values or the shape.
So ``.to(memory_format=...)``, ``.contiguous(...)``, ``.clone(...)``, ``.float(...)`` accept
them with torch's checks (``channels_last`` needs a rank-4 tensor) and keep row-major memory.
"""
from __future__ import annotations

__all__ = ["memory_format", "layout", "contiguous_format", "preserve_format", "channels_last",
           "channels_last_3d", "strided"]


class memory_format:  # noqa: N801  (torch's class name)
    """One of torch's memory formats; ``rank`` is the rank it requires (None: any)."""

    def __init__(self, name: str, rank: int | None = None) -> None:
        self.name, self.rank = name, rank

    def __repr__(self) -> str:
        return f"torch.{self.name}"


class layout:  # noqa: N801
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"torch.{self.name}"


contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last", 4)
channels_last_3d = memory_format("channels_last_3d", 5)
strided = layout("strided")


def check_memory_format(fmt, rank: int, fname: str) -> None:
    """torch's refusals: not a memory format (TypeError), or the wrong rank (RuntimeError)."""
    if fmt is None:
        return
    if not isinstance(fmt, memory_format):
        kind = "torch.layout" if isinstance(fmt, layout) else type(fmt).__name__
        raise TypeError(f"{fname}(): argument 'memory_format' must be torch.memory_format, "
                        f"not {kind}")
    if fmt.rank is not None and rank != fmt.rank:
        raise RuntimeError(f"required rank {fmt.rank} tensor to use {fmt.name} format")
