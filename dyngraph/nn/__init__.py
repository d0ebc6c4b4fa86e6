"""A small ``torch.nn``: Module, Parameter, Linear, activations, Sequential, layers, recurrent
layers, functional, utils."""
from . import functional, utils  # noqa: F401
from .layers import (AdaptiveAvgPool2d, AvgPool1d, AvgPool2d, BatchNorm1d, BatchNorm2d, Conv1d,
                     Conv2d, ConvTranspose2d, Dropout, Embedding, Flatten, LayerNorm, MaxPool1d,
                     MaxPool2d)
from .modules import Linear, Module, Parameter, ReLU, Sequential, Sigmoid, Tanh
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase

__all__ = ["Module", "Parameter", "Linear", "ReLU", "Tanh", "Sigmoid", "Sequential", "functional",
           "Conv1d", "Conv2d", "ConvTranspose2d", "MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d",
           "AdaptiveAvgPool2d", "Dropout", "BatchNorm1d", "BatchNorm2d", "LayerNorm", "Embedding",
           "Flatten", "utils", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell", "RNNBase", "RNN",
           "LSTM", "GRU"]
