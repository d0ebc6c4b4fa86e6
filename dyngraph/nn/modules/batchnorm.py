"""``torch.nn.modules.batchnorm``: BatchNorm1d, BatchNorm2d."""
from ..layers import BatchNorm1d, BatchNorm2d

__all__ = ["BatchNorm1d", "BatchNorm2d"]
