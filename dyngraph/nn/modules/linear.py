"""``torch.nn.modules.linear``: Linear, Identity and NonDynamicallyQuantizableLinear."""
from ..module import Identity, Linear, NonDynamicallyQuantizableLinear

__all__ = ["Identity", "Linear", "NonDynamicallyQuantizableLinear"]
