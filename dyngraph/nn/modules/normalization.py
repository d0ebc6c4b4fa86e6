"""``torch.nn.modules.normalization``: LayerNorm."""
from ..layers import LayerNorm

__all__ = ["LayerNorm"]

from ..layers_more import LocalResponseNorm  # noqa: E402

__all__ += ["LocalResponseNorm"]
