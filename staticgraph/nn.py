"""``tf.nn``: activations, softmaxes and cross-entropies, the layer functions (conv, pooling,
normalization, dropout...), ``rnn_cell`` and the RNN drivers -- names only; the code lives in
``ops/nn_ops.py``, ``ops/nn_layers.py``, ``ops/rnn_cell.py``, ``ops/rnn.py`` and (sampled losses, candidate
samplers) ``ops/candidate_sampling_ops.py``."""
from .ops.candidate_sampling_ops import *  # noqa: F403
from .ops.candidate_sampling_ops import __all__ as _sampled_all
from .ops.nn_ops import *  # noqa: F403
from .ops.nn_ops import __all__ as _nn_all

__all__ = [*_nn_all, *_sampled_all]
