"""``torch.nn.modules.activation``: the activation modules (MultiheadAttention too, as torch)."""
from ..activation import (ELU, GELU, Hardtanh, LeakyReLU, LogSoftmax, MultiheadAttention, ReLU,
                          ReLU6, Sigmoid, SiLU, Softmax, Softplus, Tanh)

__all__ = ["ELU", "GELU", "Hardtanh", "LeakyReLU", "LogSoftmax", "MultiheadAttention", "ReLU",
           "ReLU6", "Sigmoid", "SiLU", "Softmax", "Softplus", "Tanh"]

from ..layers_more import Hardshrink, PReLU, Softshrink  # noqa: E402

__all__ += ["Hardshrink", "PReLU", "Softshrink"]
