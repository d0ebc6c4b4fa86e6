"""seeded: a seeded PyTorch training script prints what PyTorch 2.13 printed, digit for digit.

Run: ``python -m comparisons.seeded``.

The script seeds, draws its data with ``randn``, initialises an MLP, shuffles with a
``DataLoader`` and trains through ``Dropout`` -- every one of those draws comes from the
seeded generator.  dyngraph's generator is PyTorch's (the same Mersenne Twister words, read
by the same kernels, transformed by the same float operations), so with only the import
changed the script prints PyTorch's initial weights, PyTorch's batch order and PyTorch's
losses.  The right column was printed by PyTorch 2.13.0 (CPU); what is left to differ is
the arithmetic of training itself (BLAS sums in another order: ~1e-7 in a loss), below the
four decimals printed.
"""
from __future__ import annotations

from .sidebyside import compare_printed, facts, heading, parse_args, run_seed, say

__all__ = ["main", "SCRIPT", "PYTORCH_PRINTED"]

SCRIPT = """import torch

torch.manual_seed(0)
x = torch.randn(96, 8)
y = (x[:, :4].sum(dim=1) > x[:, 4:].sum(dim=1)).long()
data = torch.utils.data.TensorDataset(x, y)
loader = torch.utils.data.DataLoader(data, batch_size=16, shuffle=True)
model = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Dropout(0.2),
                            torch.nn.Linear(32, 2))
print(model[0].weight[0, :4])
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for epoch in range(3):
    losses = []
    for xb, yb in loader:
        loss = torch.nn.functional.cross_entropy(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(f"{loss.item():.4f}")
    print(f"epoch {epoch}: last labels {yb[:5].tolist()}  losses {' '.join(losses)}")
"""

PYTORCH_PRINTED = """\
tensor([-0.2713, -0.1033,  0.1160, -0.3097], grad_fn=<SliceBackward0>)
epoch 0: last labels [0, 1, 1, 1, 0]  losses 0.8413 0.6520 0.5909 0.5201 0.6076 0.4747
epoch 1: last labels [0, 1, 0, 1, 1]  losses 0.4831 0.3828 0.2978 0.4143 0.3177 0.3217
epoch 2: last labels [0, 0, 1, 1, 0]  losses 0.2420 0.2686 0.2986 0.1847 0.1822 0.1277"""
"""``python script.py`` under PyTorch 2.13.0+cpu (x86-64, AMD: bernoulli without MKL)."""


def run() -> list[str]:
    """The script's output lines with ``import torch`` turned into ``import dyngraph as torch``."""
    return run_seed(SCRIPT, "dyngraph", "torch").splitlines()


def main(argv: list[str] | None = None) -> None:
    parse_args(argv, __doc__)
    print(__doc__.strip().splitlines()[0])
    heading("the script (PyTorch 2, unchanged but for the import)")
    print(SCRIPT)
    ours, theirs = run(), PYTORCH_PRINTED.splitlines()
    heading("what it printed: dyngraph, then PyTorch 2.13 (recorded)")
    facts([compare_printed(ours, theirs, "dyngraph", "PyTorch 2.13", "PyTorch"),
           "Drawn from the seeded generator, in PyTorch's order: 768 normals (x), the "
           "Linear layers' kaiming-uniform weights and biases, then per epoch two 64-bit "
           "seeds (the loader's base seed, and the seed of the fresh Generator whose "
           "randperm(96) is the shuffle) and per step a dropout mask (bernoulli_(0.8): two "
           "words per value)."])
    say("Any other seeded program does the same: dyngraph.random reproduces PyTorch's CPU "
        "kernels (see dyngraph/random.py).")


if __name__ == "__main__":
    main()
