"""Every nn layer class, one idea per file as in torch/nn/modules."""

from .activation import (
    ELU,
    GELU,
    Hardsigmoid,
    Hardswish,
    Hardtanh,
    LeakyReLU,
    LogSigmoid,
    LogSoftmax,
    Mish,
    ReLU,
    ReLU6,
    Sigmoid,
    SiLU,
    Softmax,
    Softplus,
    Softsign,
    Tanh,
)
from .attention import MultiheadAttention  # transformer layers
from .batchnorm import BatchNorm1d, BatchNorm2d, LazyBatchNorm1d, LazyBatchNorm2d
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .conv import Conv2d, ConvTranspose2d, LazyConv2d
from .conv1d import Conv1d  # nn pieces the courses use
from .dropout import Dropout
from .flatten import Flatten, Unflatten
from .lazy import LazyModuleMixin
from .linear import Identity, LazyLinear, Linear
from .loss import BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, MSELoss, NLLLoss
from .module import Module
from .normalization import GroupNorm, LayerNorm
from .pooling import (
    AdaptiveAvgPool2d,
    AdaptiveMaxPool2d,
    AvgPool1d,
    AvgPool2d,
    MaxPool1d,
    MaxPool2d,
)

# recurrent layers (issue 21)
from .rnn import GRU, LSTM, RNN, RNNBase
from .rnn_cell import GRUCell, LSTMCell, RNNCell, RNNCellBase
from .sparse import Embedding
from .transformer import Transformer
from .transformer_decoder import TransformerDecoder, TransformerDecoderLayer
from .transformer_encoder import TransformerEncoder, TransformerEncoderLayer
from .upsample import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d  # resizing

__all__ = [
    "BCELoss",
    "BCEWithLogitsLoss",
    "BatchNorm1d",
    "BatchNorm2d",
    "Conv2d",
    "ConvTranspose2d",
    "CrossEntropyLoss",
    "Dropout",
    "Flatten",
    "Identity",
    "Linear",
    "LogSoftmax",
    "MSELoss",
    "MaxPool2d",
    "Module",
    "ModuleDict",
    "ModuleList",
    "NLLLoss",
    "ReLU",
    "Sequential",
    "Sigmoid",
    "Softmax",
    "Tanh",
    # layers, activations, pooling, lazy modules (issue 21)
    "AdaptiveAvgPool2d",
    "AdaptiveMaxPool2d",
    "AvgPool1d",
    "AvgPool2d",
    "ELU",
    "Embedding",
    "GELU",
    "GroupNorm",
    "Hardsigmoid",
    "Hardswish",
    "Hardtanh",
    "LayerNorm",
    "LazyBatchNorm1d",
    "LazyBatchNorm2d",
    "LazyConv2d",
    "LazyLinear",
    "LazyModuleMixin",
    "LeakyReLU",
    "LogSigmoid",
    "MaxPool1d",
    "Mish",
    "ParameterDict",
    "ParameterList",
    "ReLU6",
    "SiLU",
    "Softplus",
    "Softsign",
    "Unflatten",
    # recurrent layers (issue 21)
    "GRU",
    "GRUCell",
    "LSTM",
    "LSTMCell",
    "RNN",
    "RNNBase",
    "RNNCell",
    "RNNCellBase",
    # nn pieces the courses use
    "Conv1d",
    # transformer layers
    "MultiheadAttention",
    "Transformer",
    "TransformerDecoder",
    "TransformerDecoderLayer",
    "TransformerEncoder",
    "TransformerEncoderLayer",
    # resizing (F.interpolate)
    "Upsample",
    "UpsamplingBilinear2d",
    "UpsamplingNearest2d",
]
