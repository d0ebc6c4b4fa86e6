"""``torch.nn``: Module and its containers, layers, activations, losses, init, utils."""
from . import functional, init, utils
from .activation import (ELU, GELU, Hardtanh, LeakyReLU, LogSoftmax, MultiheadAttention, ReLU,
                         ReLU6, Sigmoid, SiLU, Softmax, Softplus, Tanh)
from .containers import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .layers import (AdaptiveAvgPool2d, AvgPool1d, AvgPool2d, BatchNorm1d, BatchNorm2d, Conv1d,
                     Conv2d, ConvTranspose2d, Dropout, Embedding, Flatten, LayerNorm, MaxPool1d,
                     MaxPool2d)
from .activation import (CELU, GLU, SELU, Hardsigmoid, Hardswish, LogSigmoid, Mish, RReLU,
                         Softmin, Softsign, Tanhshrink, Threshold)
from .normalization import (GroupNorm, InstanceNorm1d, InstanceNorm2d, PixelShuffle,
                            PixelUnshuffle, RMSNorm, Upsample, UpsamplingBilinear2d,
                            UpsamplingNearest2d)
from .loss import (BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, HuberLoss, KLDivLoss, L1Loss,
                   MSELoss, NLLLoss, SmoothL1Loss)
from .module import Identity, Linear, Module, NonDynamicallyQuantizableLinear, Unflatten
from .parameter import Parameter
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
from .transformer import (Transformer, TransformerDecoder, TransformerDecoderLayer,
                          TransformerEncoder, TransformerEncoderLayer)
from .layers_more import (AdaptiveAvgPool1d, AdaptiveAvgPool3d, AdaptiveMaxPool1d,
                          AdaptiveMaxPool2d, AdaptiveMaxPool3d, AlphaDropout, AvgPool3d, Bilinear,
                          ChannelShuffle, Conv3d, ConvTranspose1d, ConvTranspose3d, Dropout1d,
                          Dropout2d, Dropout3d, EmbeddingBag, FeatureAlphaDropout, Fold,
                          FractionalMaxPool2d, FractionalMaxPool3d, Hardshrink, LocalResponseNorm,
                          MaxPool3d, MaxUnpool1d, MaxUnpool2d, MaxUnpool3d, PairwiseDistance,
                          PReLU, Softshrink, Unfold)
from .layers_more import __all__ as _layers_more_all
from .loss_more import (CosineEmbeddingLoss, CTCLoss, GaussianNLLLoss, HingeEmbeddingLoss,
                        MarginRankingLoss, MultiLabelMarginLoss, MultiLabelSoftMarginLoss,
                        MultiMarginLoss, PoissonNLLLoss, SoftMarginLoss, TripletMarginLoss,
                        TripletMarginWithDistanceLoss)
from .loss_more import __all__ as _loss_more_all
from . import modules, parameter  # torch.nn.modules.rnn & co., torch.nn.parameter.Parameter

__all__ = ["Module", "Parameter", "Linear", "Identity", "Flatten", "Unflatten", "Sequential",
           "ModuleList", "ModuleDict", "ParameterList", "ParameterDict", "ReLU", "ReLU6",
           "LeakyReLU", "GELU", "ELU", "Softplus", "SiLU", "Hardtanh", "Tanh", "Sigmoid",
           "Softmax", "LogSoftmax", "CrossEntropyLoss", "NLLLoss", "MSELoss", "L1Loss", "BCELoss",
           "BCEWithLogitsLoss", "SmoothL1Loss", "HuberLoss", "KLDivLoss", "Conv1d", "Conv2d",
           "ConvTranspose2d", "MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d",
           "AdaptiveAvgPool2d", "Dropout", "BatchNorm1d", "BatchNorm2d", "LayerNorm", "Embedding",
           "Flatten", "functional", "init", "utils", "RNNCellBase", "RNNCell", "LSTMCell",
           "GRUCell", "RNNBase", "RNN", "LSTM", "GRU", "MultiheadAttention",
           "NonDynamicallyQuantizableLinear", "Transformer", "TransformerEncoder",
           "TransformerDecoder", "TransformerEncoderLayer", "TransformerDecoderLayer", "modules",
           "parameter", "LogSigmoid", "Softsign", "Tanhshrink", "Mish", "Hardswish", "Hardsigmoid",
           "SELU", "CELU", "GLU", "Softmin", "Threshold", "RReLU", "GroupNorm", "InstanceNorm1d",
           "InstanceNorm2d", "RMSNorm", "Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d",
           "PixelShuffle", "PixelUnshuffle", *_layers_more_all, *_loss_more_all]
