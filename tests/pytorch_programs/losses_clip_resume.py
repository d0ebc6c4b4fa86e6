"""A PyTorch program (only ``import torch``); its output under PyTorch 2 is in losses_clip_resume.expected."""
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F


def e(f):
    """The builtin exception class and the message (dyngraph may append the user's file:line)."""
    try:
        print("OK", f())
    except Exception as ex:
        kind = next(c.__name__ for c in type(ex).__mro__ if c.__module__ == "builtins")
        print(kind, str(ex).split(" (in ")[0])


x = torch.tensor([[1., 2.], [3., 4.]])
e(lambda: F.cross_entropy(x, torch.tensor([0, -100]), reduction='none'))
e(lambda: F.cross_entropy(x, torch.tensor([0, -100])))
e(lambda: F.cross_entropy(x[0], torch.tensor(1)))
e(lambda: F.cross_entropy(x, torch.tensor([1, 1]), weight=torch.tensor([1., 2.]), label_smoothing=0.3,
                          reduction='none'))
e(lambda: F.cross_entropy(x, torch.tensor([1, -100]), label_smoothing=0.3))
e(lambda: F.nll_loss(x, torch.tensor([1, 0]), reduction='none'))
e(lambda: F.binary_cross_entropy(torch.tensor([0., 1.]), torch.tensor([1., 0.])))
e(lambda: F.kl_div(torch.tensor([-1., -2.]), torch.tensor([-0.5, -1.]), log_target=True, reduction='sum'))
e(lambda: F.one_hot(torch.tensor([0, 2]), 4))
e(lambda: F.one_hot(torch.tensor([0, 5]), 4))
e(lambda: F.cross_entropy(x, torch.tensor([0., 1, 2])))
e(lambda: F.cross_entropy(x, torch.tensor([[0], [1]])))
e(lambda: F.cross_entropy(x, torch.tensor([0, 1, 1])))
e(lambda: F.cross_entropy(x, torch.tensor([0, 7])))
e(lambda: F.cross_entropy(x, torch.tensor([0, 1], dtype=torch.int32)))
e(lambda: F.cross_entropy(x, torch.tensor([0, 1]), reduction='bad'))
e(lambda: F.binary_cross_entropy(torch.rand(3), torch.rand(3, 1)))
e(lambda: F.binary_cross_entropy_with_logits(torch.rand(3), torch.rand(3, 1)))
e(lambda: F.binary_cross_entropy(torch.tensor([1.5]), torch.tensor([1.])))
e(lambda: F.mse_loss(torch.ones(3), torch.ones(4)))
e(lambda: F.cross_entropy(x, torch.softmax(x, 1).long()))

p = nn.Parameter(torch.zeros(3))
p.grad = torch.tensor([3., 4., 12.])
print(nn.utils.clip_grad_norm_([p], 1.0), p.grad)
p.grad = torch.tensor([3., -4., 12.])
nn.utils.clip_grad_value_([p], 2.0)
print(p.grad)
p.grad = torch.tensor([3., -4., 12.])
print(nn.utils.clip_grad_norm_(p, 5.0, norm_type='inf'), p.grad)


def model():
    m = nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 1))
    with torch.no_grad():
        for i, q in enumerate(m.parameters()):
            q.copy_(torch.linspace(-0.5, 0.5, q.numel()).reshape(q.shape) * (i + 1))
    return m


def train(m, opt, sched, steps):
    data = torch.tensor([[0.5, -1.0], [1.5, 2.0], [-1.0, 0.3]])
    target = torch.tensor([[1.0], [-1.0], [0.5]])
    for _ in range(steps):
        opt.zero_grad()
        loss = nn.MSELoss()(m(data), target)
        loss.backward()
        opt.step()
        sched.step()
    return round(loss.item(), 6)


def make(m):
    opt = torch.optim.Adam([{"params": m[0].parameters()},
                            {"params": m[2].parameters(), "lr": 0.05, "weight_decay": 0.01}], lr=0.01)
    return opt, torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)


straight = model()
opt, sched = make(straight)
print("straight", train(straight, opt, sched, 3), train(straight, opt, sched, 3))

first = model()
opt, sched = make(first)
print("first half", train(first, opt, sched, 3))
path = os.path.join(tempfile.mkdtemp(), "ckpt.pt")
torch.save({"model": first.state_dict(), "optimizer": opt.state_dict(),
            "scheduler": sched.state_dict(), "epoch": 3}, path)
ckpt = torch.load(path)
resumed = model()
opt2, sched2 = make(resumed)
resumed.load_state_dict(ckpt["model"])
opt2.load_state_dict(ckpt["optimizer"])
sched2.load_state_dict(ckpt["scheduler"])
print("resumed", ckpt["epoch"], train(resumed, opt2, sched2, 3), [g["lr"] for g in opt2.param_groups])
print(all(torch.equal(a, b) for a, b in zip(straight.parameters(), resumed.parameters())))
print(sorted(opt2.state_dict()["state"][0].keys()), opt2.state_dict()["param_groups"][1]["params"])
