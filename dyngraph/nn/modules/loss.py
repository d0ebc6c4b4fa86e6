"""``torch.nn.modules.loss``: the loss modules, and ``_Loss`` / ``_WeightedLoss``, the bases
programs subclass for their own losses."""
from ..loss import (_Loss, _WeightedLoss, BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, HuberLoss,
                    KLDivLoss, L1Loss, MSELoss, NLLLoss, SmoothL1Loss)

__all__ = ["BCELoss", "BCEWithLogitsLoss", "CrossEntropyLoss", "HuberLoss", "KLDivLoss", "L1Loss",
           "MSELoss", "NLLLoss", "SmoothL1Loss"]

from ..loss_more import CosineEmbeddingLoss, CTCLoss, GaussianNLLLoss, HingeEmbeddingLoss, MarginRankingLoss, MultiLabelMarginLoss, MultiLabelSoftMarginLoss, MultiMarginLoss, PoissonNLLLoss, SoftMarginLoss, TripletMarginLoss, TripletMarginWithDistanceLoss  # noqa: E402

__all__ += ["CosineEmbeddingLoss", "CTCLoss", "GaussianNLLLoss", "HingeEmbeddingLoss", "MarginRankingLoss", "MultiLabelMarginLoss", "MultiLabelSoftMarginLoss", "MultiMarginLoss", "PoissonNLLLoss", "SoftMarginLoss", "TripletMarginLoss", "TripletMarginWithDistanceLoss"]
