"""``torch.nn.modules.flatten``: Flatten and Unflatten."""
from ..layers import Flatten
from ..module import Unflatten

__all__ = ["Flatten", "Unflatten"]
