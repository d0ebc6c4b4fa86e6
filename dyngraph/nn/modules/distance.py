"""``torch.nn.modules.distance``: PairwiseDistance."""
from ..layers_more import PairwiseDistance

__all__ = ["PairwiseDistance"]
