"""``torch.optim``: optimizers with parameter groups and state dicts, and ``lr_scheduler``."""
from . import lr_scheduler
from .algorithms import SGD, Adagrad, Adam, AdamW, RMSprop
from .optimizer import Optimizer

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "lr_scheduler"]
