"""``torch.nn.modules.normalization``: LayerNorm."""
from ..layers import LayerNorm

__all__ = ["LayerNorm"]
