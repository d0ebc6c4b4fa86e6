"""``torch.utils``: ``data`` (datasets and loaders); ``dyngraph.utils.tensorboard`` is imported
on demand, like PyTorch's."""
from . import data  # noqa: F401

__all__ = ["data"]
