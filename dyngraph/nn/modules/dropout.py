"""``torch.nn.modules.dropout``: Dropout."""
from ..layers import Dropout

__all__ = ["Dropout"]

from ..layers_more import AlphaDropout, Dropout1d, Dropout2d, Dropout3d, FeatureAlphaDropout  # noqa: E402

__all__ += ["AlphaDropout", "Dropout1d", "Dropout2d", "Dropout3d", "FeatureAlphaDropout"]
