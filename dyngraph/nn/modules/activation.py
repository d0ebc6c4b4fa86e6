"""``torch.nn.modules.activation``: the activation modules (MultiheadAttention too, as torch)."""
from ..activation import (ELU, GELU, Hardtanh, LeakyReLU, LogSoftmax, MultiheadAttention, ReLU,
                          ReLU6, Sigmoid, SiLU, Softmax, Softplus, Tanh)

__all__ = ["ELU", "GELU", "Hardtanh", "LeakyReLU", "LogSoftmax", "MultiheadAttention", "ReLU",
           "ReLU6", "Sigmoid", "SiLU", "Softmax", "Softplus", "Tanh"]
