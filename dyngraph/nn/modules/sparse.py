"""``torch.nn.modules.sparse``: Embedding."""
from ..layers import Embedding

__all__ = ["Embedding"]

from ..layers_more import EmbeddingBag  # noqa: E402

__all__ += ["EmbeddingBag"]
