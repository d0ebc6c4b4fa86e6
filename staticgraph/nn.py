"""``tf.nn``: activations, softmaxes and cross-entropies, the layer functions (conv, pooling,
normalization, dropout...), ``rnn_cell`` and the RNN drivers -- names only; the code lives in
``ops/nn_ops.py``, ``ops/nn_layers.py``, ``ops/rnn_cell.py`` and ``ops/rnn.py``."""
from .ops.nn_ops import *  # noqa: F403
from .ops.nn_ops import __all__  # noqa: F401
