"""``torch.nn.modules.sparse``: Embedding."""
from ..layers import Embedding

__all__ = ["Embedding"]
