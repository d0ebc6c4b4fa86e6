"""A small ``torch.nn``: Module, Parameter, Linear, activations, Sequential, layers, functional."""
from . import functional  # noqa: F401
from .layers import (AdaptiveAvgPool2d, AvgPool1d, AvgPool2d, BatchNorm1d, BatchNorm2d, Conv1d,
                     Conv2d, ConvTranspose2d, Dropout, Embedding, Flatten, LayerNorm, MaxPool1d,
                     MaxPool2d)
from .modules import Linear, Module, Parameter, ReLU, Sequential, Sigmoid, Tanh

__all__ = ["Module", "Parameter", "Linear", "ReLU", "Tanh", "Sigmoid", "Sequential", "functional",
           "Conv1d", "Conv2d", "ConvTranspose2d", "MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d",
           "AdaptiveAvgPool2d", "Dropout", "BatchNorm1d", "BatchNorm2d", "LayerNorm", "Embedding",
           "Flatten"]
