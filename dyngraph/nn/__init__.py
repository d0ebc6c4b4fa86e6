"""A small ``torch.nn``: Module, Parameter, Linear, ReLU, Tanh, Sequential, functional."""
from . import functional  # noqa: F401
from .modules import Linear, Module, Parameter, ReLU, Sequential, Sigmoid, Tanh

__all__ = ["Module", "Parameter", "Linear", "ReLU", "Tanh", "Sigmoid", "Sequential", "functional"]
