"""A small ``torch.nn``: Module, Parameter, Linear, ReLU, Tanh, Sequential, functional."""
from . import functional, utils  # noqa: F401
from .modules import Linear, Module, Parameter, ReLU, Sequential, Sigmoid, Tanh
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase

__all__ = ["Module", "Parameter", "Linear", "ReLU", "Tanh", "Sigmoid", "Sequential", "functional",
           "utils", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell", "RNNBase", "RNN", "LSTM", "GRU"]
