"""``torch.nn.modules.channelshuffle``: ChannelShuffle."""
from ..layers_more import ChannelShuffle

__all__ = ["ChannelShuffle"]
