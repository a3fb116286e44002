"""Every nn layer class, one idea per file as in torch/nn/modules."""

from .activation import LogSoftmax, ReLU, Sigmoid, Softmax, Tanh
from .batchnorm import BatchNorm1d, BatchNorm2d
from .container import ModuleDict, ModuleList, Sequential
from .conv import Conv2d, ConvTranspose2d
from .dropout import Dropout
from .flatten import Flatten
from .linear import Identity, Linear
from .loss import BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, MSELoss, NLLLoss
from .module import Module
from .pooling import MaxPool2d

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
]
