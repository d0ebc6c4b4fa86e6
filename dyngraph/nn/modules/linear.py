"""``torch.nn.modules.linear``: Linear, Identity and NonDynamicallyQuantizableLinear."""
from ..module import Identity, Linear, NonDynamicallyQuantizableLinear

__all__ = ["Identity", "Linear", "NonDynamicallyQuantizableLinear"]

from ..layers_more import Bilinear  # noqa: E402

__all__ += ["Bilinear"]
