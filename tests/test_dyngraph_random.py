"""Random numbers: seeding behaviour, Generator streams, distributions (fixed seeds, loose bounds)."""
from __future__ import annotations

import numpy as np
import pytest

import dyngraph as torch


def test_manual_seed_repeats_draws_and_returns_the_default_generator():
    g = torch.manual_seed(123)
    assert g is torch.default_generator and g.initial_seed() == 123
    a = torch.randn(5)
    torch.manual_seed(123)
    assert torch.equal(a, torch.randn(5))
    assert not torch.equal(a, torch.randn(5))


def test_a_generator_object_is_a_stream_of_its_own():
    g = torch.Generator().manual_seed(7)
    torch.manual_seed(0)
    a = torch.rand(3, generator=g)
    torch.rand(100)  # draws from the default stream do not move g
    b = torch.rand(3, generator=g)
    g.manual_seed(7)
    assert torch.equal(torch.rand(3, generator=g), a) and torch.equal(torch.rand(3, generator=g), b)


def test_generator_state_round_trips():
    g = torch.Generator().manual_seed(1)
    state = g.get_state()
    assert state.dtype == torch.uint8
    a = torch.randn(4, generator=g)
    g.set_state(state)
    assert torch.equal(torch.randn(4, generator=g), a)
    s = torch.get_rng_state()
    x = torch.rand(2)
    torch.set_rng_state(s)
    assert torch.equal(torch.rand(2), x)


def test_shapes_and_dtypes_as_pytorch():
    torch.manual_seed(0)
    assert torch.randn(2, 3).shape == (2, 3) and torch.randn([2, 3]).shape == (2, 3)
    assert torch.rand(()).shape == () and torch.rand(3).dtype == torch.float32
    assert torch.rand(2, dtype=torch.float64).dtype == torch.float64
    assert torch.randint(0, 10, (4,)).dtype == torch.int64 and torch.randint(5, (2, 2)).shape == (2, 2)
    assert torch.randperm(5).sort().values.tolist() == [0, 1, 2, 3, 4]
    assert torch.normal(0., 1., size=(2,)).shape == (2,)
    assert torch.normal(torch.zeros(3), torch.ones(3)).shape == (3,)
    assert torch.bernoulli(torch.full((3,), 0.5)).dtype == torch.float32
    assert torch.multinomial(torch.tensor([0.2, 0.8]), 4, replacement=True).dtype == torch.int64
    assert torch.multinomial(torch.tensor([[0.2, 0.8, 0.], [1, 1, 1]]), 2).shape == (2, 2)
    y = torch.zeros(2, 3)
    assert torch.rand_like(y).shape == (2, 3) and torch.randint_like(y, 5).dtype == torch.float32


def test_refusals_use_pytorch_wording():
    with pytest.raises(RuntimeError, match="cannot sample n_sample > prob_dist.size\\(-1\\) samples "
                                           "without replacement"):
        torch.multinomial(torch.tensor([0.2, 0.8]), 4)
    with pytest.raises(NotImplementedError, match="\"check_uniform_bounds\" not implemented for 'Long'"):
        torch.rand(2, dtype=torch.int64)
    with pytest.raises(RuntimeError, match="random_ expects 'from' to be less than 'to'"):
        torch.randint(5, 5, (2,))


def test_distributions():
    torch.manual_seed(0)
    n = torch.randn(20000)
    assert abs(n.mean().item()) < 0.05 and abs(n.std().item() - 1) < 0.05
    u = torch.rand(20000)
    assert 0 <= u.min().item() and u.max().item() < 1 and abs(u.mean().item() - 0.5) < 0.02
    r = torch.randint(3, 7, (20000,))
    assert sorted(set(r.tolist())) == [3, 4, 5, 6]
    b = torch.bernoulli(torch.full((20000,), 0.3))
    assert abs(b.mean().item() - 0.3) < 0.02
    m = torch.multinomial(torch.tensor([1.0, 3.0]), 20000, replacement=True)
    assert abs(m.float().mean().item() - 0.75) < 0.02
    nm = torch.normal(5.0, 2.0, size=(20000,))
    assert abs(nm.mean().item() - 5) < 0.1 and abs(nm.std().item() - 2) < 0.1
    no_repeat = torch.multinomial(torch.ones(10), 10)
    assert sorted(no_repeat.tolist()) == list(range(10))


def test_in_place_draws():
    torch.manual_seed(0)
    v = torch.empty(10000)
    assert v.normal_(2.0, 0.5) is v and abs(v.mean().item() - 2) < 0.05
    v.uniform_(-1, 1)
    assert v.abs().max().item() <= 1 and abs(v.mean().item()) < 0.05
    v.bernoulli_(0.25)
    assert set(np.unique(v.numpy())) <= {0.0, 1.0}
    assert v.fill_(2.0).tolist()[:2] == [2.0, 2.0] and v.zero_().sum().item() == 0
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        torch.zeros(2, requires_grad=True).normal_()
