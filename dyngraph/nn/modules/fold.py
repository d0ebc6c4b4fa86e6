"""``torch.nn.modules.fold``: Fold and Unfold."""
from ..layers_more import Fold, Unfold

__all__ = ["Fold", "Unfold"]
