"""Seeded random draws, long and interleaved: every value must be PyTorch's, bit for bit.

Each line names a draw and prints its dtype, shape, the SHA-256 of its bytes and its first
values.  float64 draws that go through libm's log/sin/cos/tan/exp (normal, exponential,
log-normal, Cauchy) are hashed after rounding to float32: their float64 bits are glibc's on
the machine that recorded this file, and numpy's own log/sin on AVX-512 machines may move
the last float64 bit, never the float32 one.
"""
import hashlib

import numpy as np
import torch

F = torch.nn.functional


def show(name, t):
    a = np.ascontiguousarray(t.detach().numpy() if hasattr(t, "detach") else np.asarray(t))
    head = a.reshape(-1)[:3].tolist()
    print(name, a.dtype, tuple(a.shape), hashlib.sha256(a.tobytes()).hexdigest()[:16], head)


def libm64(name, t):
    show(name + " (as float32)", t.float())


# --- the engine: seeding, raw words, state ----------------------------------------------------
for seed in (0, 1, 123456789, 2**40 + 5, -7, 2**64 - 1):
    torch.manual_seed(seed)
    print("seed", seed, torch.initial_seed())
    show("  rand", torch.rand(5000))
    show("  state", torch.get_rng_state())
print("Generator()", torch.Generator().initial_seed())
show("Generator() rand", torch.rand(1000, generator=torch.Generator()))

# --- every kernel, several dtypes and sizes, interleaved on one stream -------------------------
torch.manual_seed(2024)
for dtype in (torch.float16, torch.float32, torch.float64):
    show(f"rand {dtype}", torch.rand(3001, dtype=dtype))
    show(f"uniform_(0, 0.37) {dtype}", torch.empty(999, dtype=dtype).uniform_(0, 0.37))
    show(f"uniform_(-0.37, 0.37) {dtype}", torch.empty(999, dtype=dtype).uniform_(-0.37, 0.37))
    show(f"uniform_(-0.37, 1.13) {dtype}", torch.empty(999, dtype=dtype).uniform_(-0.37, 1.13))
    show(f"uniform_(3.7, 9.13) {dtype}", torch.empty(999, dtype=dtype).uniform_(3.7, 9.13))
    for size in (1, 2, 7, 15, 16, 17, 31, 32, 33, 100, 1000, 4099):
        draw = show if dtype != torch.float64 else libm64
        draw(f"randn({size}) {dtype}", torch.randn(size, dtype=dtype))
        draw(f"normal_({size}, -1.5, 0.3) {dtype}",
             torch.empty(size, dtype=dtype).normal_(-1.5, 0.3))
    show(f"randint {dtype}", torch.randint(-3, 9, (500,), dtype=dtype))
    show(f"random_() {dtype}", torch.empty(500, dtype=dtype).random_())
    show(f"bernoulli_(0.25) {dtype}", torch.empty(777, dtype=dtype).bernoulli_(0.25))
    if dtype != torch.float16:
        draw = show if dtype != torch.float64 else libm64
        draw(f"exponential_(2.5) {dtype}", torch.empty(777, dtype=dtype).exponential_(2.5))
        draw(f"geometric_(0.3) {dtype}", torch.empty(777, dtype=dtype).geometric_(0.3))
        draw(f"log_normal_(0.2, 0.5) {dtype}", torch.empty(333, dtype=dtype).log_normal_(0.2, 0.5))
        draw(f"cauchy_(0.1, 2) {dtype}", torch.empty(333, dtype=dtype).cauchy_(0.1, 2.0))
show("randn(100000)", torch.randn(100_000))
show("rand(100000)", torch.rand(100_000))
show("strided normal_", torch.empty(8, 6)[:, ::2].normal_())
torch.randn(3)
show("after randn(3) the second of a pair waits in the state", torch.get_rng_state())
show("  and the next randn(5) starts with it", torch.randn(5))

# --- integers ------------------------------------------------------------------------------
for low, high in ((0, 10), (-5, 5), (0, 2**28 - 1), (0, 2**28), (-5, 2**31 - 1), (-2**40, 2**40)):
    show(f"randint({low}, {high})", torch.randint(low, high, (2000,)))
for dtype in (torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64, torch.bool):
    show(f"random_() {dtype}", torch.empty(1000, dtype=dtype).random_())
    if dtype != torch.bool:
        show(f"random_(3, 100) {dtype}", torch.empty(1000, dtype=dtype).random_(3, 100))
        show(f"random_(7) {dtype}", torch.empty(1000, dtype=dtype).random_(7))
for n in (0, 1, 2, 10, 1000, 5000, 40000):
    show(f"randperm({n})", torch.randperm(n))
show("randperm(7, float32)", torch.randperm(7, dtype=torch.float32))

# --- tensor-parameter draws --------------------------------------------------------------------
p = torch.tensor([0.1, 0.5, 0.2, 0.2])
show("multinomial 50, replacement", torch.multinomial(p, 50, replacement=True))
show("multinomial 3 of 4", torch.multinomial(p, 3))
show("multinomial 1", torch.multinomial(p, 1, replacement=True))
rows = torch.tensor([[0.1, 0.5, 0.2, 0.2], [3.0, 0.0, 1.0, 1.0]])
show("multinomial 2-D 700, replacement", torch.multinomial(rows, 700, replacement=True))
show("multinomial 2-D 2", torch.multinomial(rows, 2))
show("multinomial float64", torch.multinomial(p.double(), 99, replacement=True))
show("bernoulli(p)", torch.bernoulli(torch.linspace(0, 1, 1001)))
show("bernoulli(p float64)", torch.bernoulli(torch.full((500,), 0.4, dtype=torch.float64)))
show("bernoulli(x, 0.7)", torch.bernoulli(torch.zeros(500), 0.7))
show("bernoulli_(p tensor)", torch.empty(30, 4).bernoulli_(torch.tensor([0.1, 0.5, 0.9, 0.3])))
mean, std = torch.arange(40.0), torch.arange(1.0, 41.0) / 20
show("normal(mean, std)", torch.normal(mean, std))
show("normal(mean, 2.0)", torch.normal(mean, 2.0))
show("normal(3.0, std)", torch.normal(3.0, std))
show("normal(3.0, 2.0, size)", torch.normal(3.0, 2.0, size=(6, 7)))
show("poisson", torch.poisson(torch.tensor([0.5, 3.0, 9.99, 10.0, 12.0, 40.0, 0.0, 150.0] * 20)))
show("rand_like", torch.rand_like(torch.zeros(3, 4, dtype=torch.float64)))
show("randn_like", torch.randn_like(torch.zeros(5, 7)))
show("randint_like", torch.randint_like(torch.zeros(40), 3, 9))

# --- Generator objects, states ---------------------------------------------------------------
g = torch.Generator().manual_seed(5)
show("g rand", torch.rand(100, generator=g))
show("default stream unaffected", torch.rand(3))
show("g randn", torch.randn(20, generator=g))
show("g randperm", torch.randperm(50, generator=g))
state = g.get_state()
show("g state", state)
a = torch.randn(7, generator=g)
g.set_state(state)
show("after set_state", torch.randn(7, generator=g) - a)
h = torch.Generator()
h.set_state(torch.get_rng_state())
show("a Generator in the default's state", torch.randn(9, generator=h))
show("and the default itself", torch.randn(9))
show("clone_state", torch.rand(4, generator=g.clone_state()))
show("the original", torch.rand(4, generator=g))

# --- nn.init and every layer's reset_parameters -------------------------------------------------
torch.manual_seed(7)
nn = torch.nn
for layer in (nn.Linear(20, 7), nn.Linear(3, 2, bias=False), nn.Conv1d(2, 4, 5), nn.Conv2d(3, 5, 3),
              nn.Conv2d(4, 6, 3, groups=2), nn.ConvTranspose2d(3, 4, 2), nn.Embedding(10, 3),
              nn.Embedding(10, 3, padding_idx=2), nn.BatchNorm1d(4), nn.LayerNorm(5),
              nn.RNN(3, 4), nn.LSTM(4, 5, num_layers=2, bidirectional=True), nn.GRU(3, 6),
              nn.RNNCell(3, 4), nn.LSTMCell(2, 3), nn.GRUCell(3, 4)):
    for name, param in layer.named_parameters():
        show(f"{type(layer).__name__} {name}", param)
w = torch.empty(30, 40)
for name, fill in (("xavier_uniform_", lambda: nn.init.xavier_uniform_(w, gain=nn.init.calculate_gain("relu"))),
                   ("xavier_normal_", lambda: nn.init.xavier_normal_(w)),
                   ("kaiming_uniform_", lambda: nn.init.kaiming_uniform_(w, mode="fan_out", nonlinearity="relu")),
                   ("kaiming_normal_", lambda: nn.init.kaiming_normal_(w, a=0.1)),
                   ("uniform_", lambda: nn.init.uniform_(w, -0.3, 0.8)),
                   ("normal_", lambda: nn.init.normal_(w, 0.1, 0.02)),
                   ("normal_ small", lambda: nn.init.normal_(torch.empty(3, 2), 0.1, 0.02)),
                   ("trunc_normal_", lambda: nn.init.trunc_normal_(torch.empty(200, 50), std=0.02)),
                   ("trunc_normal_ far tail", lambda: nn.init.trunc_normal_(torch.empty(300, 40), std=0.5,
                                                                            a=1.0, b=3.0))):
    show(name, fill())

# --- dropout ---------------------------------------------------------------------------------
x = torch.ones(64, 40)
for p in (0.1, 0.5, 0.9):
    show(f"F.dropout p={p}", F.dropout(x, p))
show("F.dropout p=0 (no draw)", F.dropout(x, 0.0))
show("F.dropout p=1 (no draw)", F.dropout(x, 1.0))
show("F.dropout eval (no draw)", F.dropout(x, 0.5, training=False))
show("nn.Dropout", nn.Dropout(0.3)(torch.ones(5, 7)))
show("inplace", F.dropout(torch.ones(50), 0.5, inplace=True))
show("after dropout", torch.rand(3))

# --- data: DataLoader shuffling, samplers, random_split ----------------------------------------
data = torch.utils.data.TensorDataset(torch.arange(23.0))
loader = torch.utils.data.DataLoader(data, batch_size=5, shuffle=True)
for epoch in range(3):
    show(f"DataLoader shuffle epoch {epoch}", torch.cat([b[0] for b in loader]))
show("after the loader", torch.rand(3))
g = torch.Generator().manual_seed(3)
show("DataLoader with a generator", torch.cat([b[0] for b in torch.utils.data.DataLoader(
    data, batch_size=4, shuffle=True, generator=g)]))
show("no shuffle still draws the base seed", torch.cat([b[0] for b in torch.utils.data.DataLoader(data)]))
show("after", torch.rand(3))
a, b = torch.utils.data.random_split(data, [0.7, 0.3])
show("random_split fractions", a.indices + b.indices)
a, b = torch.utils.data.random_split(data, [10, 13], generator=torch.Generator().manual_seed(1))
show("random_split lengths, generator", a.indices)
sampler = torch.utils.data.RandomSampler(data, replacement=True, num_samples=70)
show("RandomSampler replacement", list(sampler))
show("RandomSampler num_samples", list(torch.utils.data.RandomSampler(data, num_samples=50)))
show("final state", torch.get_rng_state())
