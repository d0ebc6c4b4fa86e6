"""``torch.utils``: ``data`` (datasets and loaders); ``dyngraph.utils.tensorboard`` is imported
on demand, like PyTorch's."""
from . import data

__all__ = ["data"]
