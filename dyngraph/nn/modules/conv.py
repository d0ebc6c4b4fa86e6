"""``torch.nn.modules.conv``: the convolutions."""
from ..layers import Conv1d, Conv2d, ConvTranspose2d

__all__ = ["Conv1d", "Conv2d", "ConvTranspose2d"]
