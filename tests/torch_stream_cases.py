"""Seeded programs written once against the PyTorch surface, run on PyTorch 2.13 and on dyngraph.

Each case is a function of the ``torch`` module -- PyTorch itself when
``tests/fixtures/record_torch_streams.py`` records what it computes, ``dyngraph`` when
``tests/test_dyngraph_tutorial_surface.py`` checks that we compute the same bits -- returning
the arrays to compare.  They cover what a seeded tutorial draws beyond ``rand``/``randn``:
every ``torch.nn.init`` initialiser, ``random_split``, shuffled ``DataLoader`` orders and
samplers, and draws under ``set_default_dtype(torch.float64)``.
"""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

__all__ = ["CASES", "APPROXIMATE"]

CASES: dict[str, Callable[[Any], list[np.ndarray]]] = {}

APPROXIMATE = {"init_orthogonal": "the QR is numpy's LAPACK, not PyTorch's: the same normal "
                                  "sample, a Q equal to float32 rounding"}
"""Cases whose values are not PyTorch's bits, and why; the test checks them to a tolerance."""


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def _init_runs(torch, recipes) -> list[np.ndarray]:
    """Each recipe on a float32 (7, 5) tensor, a float64 (5, 7) one and a (4, 2, 3, 3) kernel."""
    torch.manual_seed(0)
    out = []
    for fn in recipes:
        for t in (torch.empty(7, 5), torch.empty(5, 7, dtype=torch.float64),
                  torch.empty(4, 2, 3, 3)):
            if t.dim() == 4 and fn.__name__ in ("eye", "sparse"):
                continue
            out.append(fn(t).numpy().copy())
    return out


@case
def init_elementwise(torch):
    init = torch.nn.init
    def uniform(t): return init.uniform_(t, -0.3, 0.7)
    def normal(t): return init.normal_(t, 1.0, 0.2)
    def constant(t): return init.constant_(t, 0.3)
    def eye(t): return init.eye_(t)
    return _init_runs(torch, [uniform, normal, constant, init.ones_, init.zeros_, eye])


@case
def init_fan_based(torch):
    init = torch.nn.init
    def xavier_uniform(t): return init.xavier_uniform_(t, gain=init.calculate_gain("tanh"))
    def kaiming_a5(t): return init.kaiming_uniform_(t, a=math.sqrt(5))
    def kaiming_out_relu(t): return init.kaiming_uniform_(t, mode="fan_out", nonlinearity="relu")
    def kaiming_normal_out(t): return init.kaiming_normal_(t, mode="fan_out", nonlinearity="relu")
    def kaiming_leaky(t): return init.kaiming_normal_(t, a=0.2, nonlinearity="leaky_relu")
    return _init_runs(torch, [xavier_uniform, init.xavier_normal_, init.kaiming_uniform_,
                              kaiming_a5, kaiming_out_relu, init.kaiming_normal_,
                              kaiming_normal_out, kaiming_leaky])


@case
def init_truncated_sparse_dirac(torch):
    init = torch.nn.init
    def trunc(t): return init.trunc_normal_(t, std=0.02)
    def trunc_ab(t): return init.trunc_normal_(t, 0.5, 1.0, 0.0, 1.0)
    def sparse(t): return init.sparse_(t, 0.5)
    out = _init_runs(torch, [trunc, trunc_ab, sparse])
    g = torch.Generator().manual_seed(7)
    out.append(init.sparse_(torch.empty(6, 4), 0.3, 0.1, generator=g).numpy())
    out += [init.dirac_(torch.empty(4, 2, 3, 3)).numpy(), init.dirac_(torch.empty(4, 2, 3, 3), 2).numpy(),
            init.dirac_(torch.empty(2, 2, 3)).numpy(), init.dirac_(torch.empty(2, 3, 3, 3, 3)).numpy()]
    return out


@case
def init_orthogonal(torch):
    return _init_runs(torch, [torch.nn.init.orthogonal_])


@case
def random_split_streams(torch):
    data = torch.utils.data
    out = [np.array(s.indices) for s in data.random_split(range(10), [7, 3],
                                                        generator=torch.Generator().manual_seed(42))]
    out += [np.array(s.indices) for s in data.random_split(
        range(10), [0.5, 0.3, 0.2], generator=torch.Generator().manual_seed(1))]
    out += [np.array(s.indices) for s in data.random_split(
        range(7), [0.5, 0.5], generator=torch.Generator().manual_seed(1))]
    torch.manual_seed(3)
    out += [np.array(s.indices) for s in data.random_split(range(10), [5, 5])]
    return out


@case
def loader_orders(torch):
    data = torch.utils.data
    ds = data.TensorDataset(torch.arange(20.).view(10, 2), torch.arange(10))
    torch.manual_seed(0)
    out = []
    for _ in range(2):  # two epochs: each pass draws its own order (and a base seed)
        out += [b[1].numpy() for b in data.DataLoader(ds, batch_size=4, shuffle=True)]
    out += [b[1].numpy() for b in data.DataLoader(ds, batch_size=4, shuffle=True, drop_last=True)]
    out += [b[1].numpy() for b in data.DataLoader(ds, batch_size=3, shuffle=True,
                                                  generator=torch.Generator().manual_seed(5))]
    sampler = data.RandomSampler(ds, generator=torch.Generator().manual_seed(2))
    out += [b[1].numpy() for b in data.DataLoader(ds, batch_sampler=data.BatchSampler(sampler, 4, False))]
    out.append(np.array(list(data.RandomSampler(ds, replacement=True, num_samples=5,
                                                generator=torch.Generator().manual_seed(2)))))
    out.append(torch.randn(3).numpy())   # the default stream after all that
    return out


@case
def default_dtype_float64(torch):
    torch.set_default_dtype(torch.float64)
    try:
        torch.manual_seed(0)
        out = [torch.rand(3).numpy(), torch.randn(20).numpy(), torch.nn.Linear(3, 2).weight.detach().numpy(),
               torch.tensor([1.5, 2]).numpy(), (torch.tensor([1, 2]) / 3).numpy(),
               torch.zeros(2).numpy(), torch.arange(3.).numpy(), torch.Tensor([1, 2]).numpy()]
    finally:
        torch.set_default_dtype(torch.float32)
    return out
