"""``torch.nn.modules``: the paths programs import from (``from torch.nn.modules.rnn import LSTM``).

Each submodule here is a thin re-export, named as PyTorch names the file that defines the
class; the classes themselves live in :mod:`dyngraph.nn` (``module.py``, ``layers.py``,
``rnn.py``, ...), so ``dyngraph.nn.modules.linear.Linear is dyngraph.nn.Linear``.  Nothing in
:mod:`dyngraph.nn` imports this package: it sits on top, and the package ``__init__`` loads it
last so ``torch.nn.modules.rnn`` works after a plain ``import torch``, as in PyTorch.
"""
from . import (activation, batchnorm, container, conv, dropout, flatten, linear, loss, module,
               normalization, pooling, rnn, sparse, transformer)
from .activation import *  # noqa: F403
from .batchnorm import *  # noqa: F403
from .container import *  # noqa: F403
from .conv import *  # noqa: F403
from .dropout import *  # noqa: F403
from .flatten import *  # noqa: F403
from .linear import *  # noqa: F403
from .loss import *  # noqa: F403
from .module import *  # noqa: F403
from .normalization import *  # noqa: F403
from .pooling import *  # noqa: F403
from .rnn import *  # noqa: F403
from .sparse import *  # noqa: F403
from .transformer import *  # noqa: F403

__all__ = sorted(name for part in (activation, batchnorm, container, conv, dropout, flatten,
                                   linear, loss, module, normalization, pooling, rnn, sparse,
                                   transformer)
                 for name in part.__all__)

from . import channelshuffle, distance, fold  # noqa: E402
from .channelshuffle import *  # noqa: F403,E402
from .distance import *  # noqa: F403,E402
from .fold import *  # noqa: F403,E402

__all__ = sorted({*__all__, *channelshuffle.__all__, *distance.__all__, *fold.__all__})
