"""``torch.nn.utils``: helpers around modules (``rnn``: variable-length batches)."""
from . import rnn  # noqa: F401

__all__ = ["rnn"]
