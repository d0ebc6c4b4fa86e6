"""``torch.optim``: optimizers with parameter groups and state dicts, and ``lr_scheduler``."""
from . import lr_scheduler
from .algorithms import (ASGD, SGD, Adadelta, Adagrad, Adam, Adamax, AdamW, NAdam, RAdam, RMSprop,
                         Rprop)
from .lbfgs import LBFGS
from .optimizer import Optimizer

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax",
           "NAdam", "RAdam", "ASGD", "Rprop", "LBFGS", "lr_scheduler"]
