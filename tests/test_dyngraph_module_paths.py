"""The module paths programs import from, as PyTorch 2.13 lays them out.

``MODULE_OF`` is each class's ``__module__`` under PyTorch 2.13 (recorded); importing the class
from that path (``torch`` -> ``dyngraph``) must give the very object ``dyngraph.nn`` has.
"""
from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import dyngraph as torch

MODULE_OF = {
    "torch.nn.modules.module": ["Module"],
    "torch.nn.modules.linear": ["Linear", "Identity"],
    "torch.nn.modules.flatten": ["Flatten", "Unflatten"],
    "torch.nn.modules.activation": ["ELU", "GELU", "Hardtanh", "LeakyReLU", "LogSoftmax", "ReLU",
                                    "ReLU6", "Sigmoid", "SiLU", "Softmax", "Softplus", "Tanh"],
    "torch.nn.modules.loss": ["BCELoss", "BCEWithLogitsLoss", "CrossEntropyLoss", "HuberLoss",
                              "KLDivLoss", "L1Loss", "MSELoss", "NLLLoss", "SmoothL1Loss"],
    "torch.nn.modules.container": ["ModuleDict", "ModuleList", "ParameterDict", "ParameterList",
                                   "Sequential"],
    "torch.nn.modules.conv": ["Conv1d", "Conv2d", "ConvTranspose2d"],
    "torch.nn.modules.pooling": ["AdaptiveAvgPool2d", "AvgPool1d", "AvgPool2d", "MaxPool1d",
                                 "MaxPool2d"],
    "torch.nn.modules.dropout": ["Dropout"],
    "torch.nn.modules.batchnorm": ["BatchNorm1d", "BatchNorm2d"],
    "torch.nn.modules.normalization": ["LayerNorm"],
    "torch.nn.modules.sparse": ["Embedding"],
    "torch.nn.modules.rnn": ["GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "RNNBase", "RNNCell",
                             "RNNCellBase"],
    "torch.nn.modules": ["Linear", "LSTM", "Module", "Sequential", "Embedding"],
    "torch.nn.parameter": ["Parameter"],
}

OTHER_PATHS = {  # module path -> {name: the object's dotted path in dyngraph}
    "torch.utils.data.dataloader": {"DataLoader": "utils.data.DataLoader",
                                    "default_collate": "utils.data.default_collate"},
    "torch.utils.data.dataset": {n: f"utils.data.{n}" for n in (
        "Dataset", "TensorDataset", "Subset", "ConcatDataset", "random_split")},
    "torch.utils.data.sampler": {n: f"utils.data.{n}" for n in (
        "Sampler", "SequentialSampler", "RandomSampler", "BatchSampler")},
    "torch.optim.optimizer": {"Optimizer": "optim.Optimizer"},
    "torch.optim.lr_scheduler": {"StepLR": "optim.lr_scheduler.StepLR"},
    "torch.nn.utils.rnn": {"pad_sequence": "nn.utils.rnn.pad_sequence"},
    "torch.autograd.variable": {"Variable": "autograd.Variable"},
}


def _resolve(dotted: str):
    value = torch
    for part in dotted.split("."):
        value = getattr(value, part)
    return value


@pytest.mark.parametrize("path", sorted(MODULE_OF))
def test_nn_classes_import_from_pytorchs_module_paths(path):
    module = importlib.import_module(path.replace("torch", "dyngraph", 1))
    for name in MODULE_OF[path]:
        assert getattr(module, name) is getattr(torch.nn, name), (path, name)


@pytest.mark.parametrize("path", sorted(OTHER_PATHS))
def test_data_optim_autograd_module_paths(path):
    module = importlib.import_module(path.replace("torch", "dyngraph", 1))
    for name, dotted in OTHER_PATHS[path].items():
        assert getattr(module, name) is _resolve(dotted), (path, name)


def test_module_paths_reachable_after_a_plain_import_and_loss_bases_subclassable():
    assert torch.nn.modules.rnn.LSTM is torch.nn.LSTM            # no explicit submodule import
    from dyngraph.nn.modules.loss import _Loss, _WeightedLoss

    class Scaled(_Loss):
        def forward(self, a, b):
            return torch.nn.functional.mse_loss(a, b, reduction=self.reduction) * 2

    assert Scaled(reduction="sum")(torch.ones(2), torch.zeros(2)).item() == 4.0
    assert issubclass(torch.nn.BCELoss, _WeightedLoss)


def test_importing_a_submodule_first_works_in_a_fresh_process():
    """``from torch.nn.modules.linear import Linear`` as a program's first line (import order)."""
    code = ("from dyngraph.nn.modules.linear import Linear\nimport dyngraph.nn.modules.rnn as r\n"
            "import dyngraph\nassert Linear is dyngraph.nn.Linear and r.GRU is dyngraph.nn.GRU")
    subprocess.run([sys.executable, "-c", code], check=True)
