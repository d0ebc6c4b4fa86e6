"""``torch.nn.modules.dropout``: Dropout."""
from ..layers import Dropout

__all__ = ["Dropout"]
