"""``torch.nn``: Module and its containers, layers, activations, losses, init, utils."""
from . import functional, init  # noqa: F401
from .activation import (ELU, GELU, Hardtanh, LeakyReLU, LogSoftmax, ReLU, ReLU6, Sigmoid, SiLU,
                         Softmax, Softplus, Tanh)
from .containers import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .loss import (BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, HuberLoss, KLDivLoss, L1Loss,
                   MSELoss, NLLLoss, SmoothL1Loss)
from .modules import Flatten, Identity, Linear, Module, Parameter, Unflatten
from . import utils  # noqa: F401,E402

__all__ = ["Module", "Parameter", "Linear", "Identity", "Flatten", "Unflatten", "Sequential",
           "ModuleList", "ModuleDict", "ParameterList", "ParameterDict", "ReLU", "ReLU6",
           "LeakyReLU", "GELU", "ELU", "Softplus", "SiLU", "Hardtanh", "Tanh", "Sigmoid",
           "Softmax", "LogSoftmax", "CrossEntropyLoss", "NLLLoss", "MSELoss", "L1Loss", "BCELoss",
           "BCEWithLogitsLoss", "SmoothL1Loss", "HuberLoss", "KLDivLoss", "functional", "init",
           "utils"]
