"""nn.init and Linear's default init (distributions, fixed seeds), DataLoader shuffling and seeding."""
from __future__ import annotations

import math

import numpy as np
import pytest

import dyngraph as torch
from dyngraph import nn
from dyngraph.utils.data import DataLoader, RandomSampler, TensorDataset


def test_linear_default_init_is_uniform_within_one_over_sqrt_fan_in():
    torch.manual_seed(0)
    lin = nn.Linear(400, 300)
    bound = 1 / math.sqrt(400)
    w, b = lin.weight.detach().numpy(), lin.bias.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.02 * bound  # uniform(-a, a) has std a/sqrt(3)
    assert lin.weight.dtype == torch.float32 and lin.weight.requires_grad
    assert nn.Linear(2, 3, dtype=torch.float64).weight.dtype == torch.float64


def test_the_seed_fixes_the_initial_weights():
    torch.manual_seed(3)
    a = nn.Linear(4, 4).weight.detach().clone()
    torch.manual_seed(3)
    assert torch.equal(a, nn.Linear(4, 4).weight.detach())


@pytest.mark.parametrize("init,std", [
    (lambda w: nn.init.xavier_uniform_(w), math.sqrt(2 / (200 + 100))),
    (lambda w: nn.init.xavier_normal_(w, gain=2.0), 2 * math.sqrt(2 / (200 + 100))),
    (lambda w: nn.init.kaiming_uniform_(w, nonlinearity="relu"), math.sqrt(2 / 100)),
    (lambda w: nn.init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu"), math.sqrt(2 / 200)),
    (lambda w: nn.init.normal_(w, 0.0, 0.02), 0.02),
    (lambda w: nn.init.uniform_(w, -0.3, 0.3), 0.3 / math.sqrt(3)),
    (lambda w: nn.init.trunc_normal_(w, std=0.5, a=-0.5, b=0.5), 0.5 * 0.5377)])
def test_initialisers_have_pytorch_spreads(init, std):
    torch.manual_seed(0)
    w = torch.empty(200, 100)
    assert init(w) is w
    assert abs(w.std().item() - std) < 0.03 * std and abs(w.mean().item()) < 0.05 * std


def test_constant_zeros_ones_eye_orthogonal():
    w = torch.empty(3, 5)
    assert nn.init.constant_(w, 0.5).tolist()[0] == [0.5] * 5
    assert nn.init.zeros_(w).sum().item() == 0 and nn.init.ones_(w).sum().item() == 15
    assert torch.equal(nn.init.eye_(w), torch.eye(3, 5))
    q = nn.init.orthogonal_(torch.empty(4, 6), gain=2.0).numpy()
    np.testing.assert_allclose(q @ q.T, 4 * np.eye(4), atol=1e-5)
    assert nn.init.calculate_gain("leaky_relu", 0.2) == pytest.approx(1.3867504905630728)


def test_init_works_on_parameters_that_require_grad():
    lin = nn.Linear(3, 3)
    nn.init.zeros_(lin.bias)
    assert lin.bias.tolist() == [0.0] * 3 and lin.bias.requires_grad and lin.bias.is_leaf


def test_shuffling_is_a_new_order_each_epoch_and_follows_the_seed():
    ds = TensorDataset(torch.arange(20))
    loader = DataLoader(ds, batch_size=5, shuffle=True)
    torch.manual_seed(0)
    first = [b[0].tolist() for b in loader]
    second = [b[0].tolist() for b in loader]
    assert first != second and sorted(sum(first, [])) == list(range(20))
    torch.manual_seed(0)
    assert [b[0].tolist() for b in loader] == first
    g = torch.Generator().manual_seed(5)
    own = DataLoader(ds, batch_size=20, shuffle=True, generator=g)
    order = next(iter(own))[0].tolist()
    g.manual_seed(5)
    assert next(iter(own))[0].tolist() == order


def test_samplers_collate_fn_and_lengths():
    ds = TensorDataset(torch.arange(7.), torch.arange(7))
    assert len(DataLoader(ds, batch_size=3)) == 3 and len(DataLoader(ds, batch_size=3, drop_last=True)) == 2
    pairs = DataLoader(ds, batch_size=4, collate_fn=lambda batch: len(batch))
    assert list(pairs) == [4, 3]
    sampler = RandomSampler(ds, replacement=True, num_samples=50, generator=torch.Generator().manual_seed(0))
    assert len(list(sampler)) == 50 and set(sampler) <= set(range(7))
    with pytest.raises(ValueError, match="num_samples should be a positive integer value"):
        RandomSampler(ds, num_samples=0)
    with pytest.raises(ValueError, match="batch_sampler option is mutually exclusive"):
        DataLoader(ds, batch_size=2, batch_sampler=[[0, 1]])
    custom = DataLoader(ds, batch_sampler=[[0, 6], [3]])
    assert [b[1].tolist() for b in custom] == [[0, 6], [3]]


def test_a_plain_dataset_subclass_and_numpy_samples():
    class Squares(torch.utils.data.Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return {"x": np.array([i, i * i], dtype=np.float32), "label": i % 2}
    batch = next(iter(DataLoader(Squares(), batch_size=4)))
    assert batch["x"].shape == (4, 2) and batch["x"].dtype == torch.float32
    assert batch["label"].tolist() == [0, 1, 0, 1] and batch["label"].dtype == torch.int64
