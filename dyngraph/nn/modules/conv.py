"""``torch.nn.modules.conv``: the convolutions."""
from ..layers import Conv1d, Conv2d, ConvTranspose2d

__all__ = ["Conv1d", "Conv2d", "ConvTranspose2d"]

from ..layers_more import Conv3d, ConvTranspose1d, ConvTranspose3d  # noqa: E402

__all__ += ["Conv3d", "ConvTranspose1d", "ConvTranspose3d"]
