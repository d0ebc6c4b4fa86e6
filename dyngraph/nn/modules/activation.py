"""``torch.nn.modules.activation``: the activation modules."""
from ..activation import (ELU, GELU, Hardtanh, LeakyReLU, LogSoftmax, ReLU, ReLU6, Sigmoid, SiLU,
                          Softmax, Softplus, Tanh)

__all__ = ["ELU", "GELU", "Hardtanh", "LeakyReLU", "LogSoftmax", "ReLU", "ReLU6", "Sigmoid",
           "SiLU", "Softmax", "Softplus", "Tanh"]
