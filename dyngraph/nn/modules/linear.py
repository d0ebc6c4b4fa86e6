"""``torch.nn.modules.linear``: Linear and Identity."""
from ..module import Identity, Linear

__all__ = ["Identity", "Linear"]
