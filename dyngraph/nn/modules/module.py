"""``torch.nn.modules.module``: Module, the base of every layer (it lives in :mod:`dyngraph.nn.module`)."""
from ..module import Module

__all__ = ["Module"]
