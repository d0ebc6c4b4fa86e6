"""A PyTorch program (only ``import torch``); its output under PyTorch 2 is in error_paths.expected."""
import torch
import torch.nn as nn
from torch.utils.data import ConcatDataset, DataLoader, Subset, TensorDataset, random_split


def e(f):
    """The builtin exception class and the message (dyngraph may append the user's file:line)."""
    try:
        print("OK", f())
    except Exception as ex:
        kind = next(c.__name__ for c in type(ex).__mro__ if c.__module__ == "builtins")
        print(kind, str(ex).split(" (in ")[0].splitlines()[0])


ds = TensorDataset(torch.arange(5.))
e(lambda: DataLoader(ds, batch_size=0))
e(lambda: DataLoader(ds, shuffle=True, sampler=[0, 1]))
e(lambda: [b for b in DataLoader(ds, batch_size=None)][:2])
e(lambda: len(ConcatDataset([ds, ds])))
e(lambda: ConcatDataset([ds, ds])[7])
e(lambda: Subset(ds, [4, 0])[0])
e(lambda: next(iter(DataLoader([torch.ones(2), torch.ones(3)], batch_size=2))))
e(lambda: TensorDataset(torch.ones(3), torch.ones(4)))
e(lambda: random_split(ds, [3, 3]))
e(lambda: [len(s) for s in random_split(range(10), [0.5, 0.3, 0.2])])
e(lambda: [list(b[0].shape) for b in DataLoader(ds, batch_size=2, drop_last=True)])
e(lambda: next(iter(DataLoader([{"a": 1.5, "b": [1, 2]}] * 2, batch_size=2))))


class TwoIn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y):
        return x * y

    @staticmethod
    def backward(ctx, g):
        return g


x = torch.ones(2, requires_grad=True)
e(lambda: TwoIn.apply(x, x).sum().backward())


class Saves(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * 2

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * x


y = x * 1
z = Saves.apply(y)
with torch.no_grad():
    y.add_(1)
e(lambda: z.sum().backward())


class Setup(torch.autograd.Function):
    @staticmethod
    def forward(x, k):
        return x * k

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.k = inputs[1]

    @staticmethod
    def backward(ctx, g):
        return g * ctx.k, None


x.grad = None
Setup.apply(x, 3.0).sum().backward()
print(x.grad)
e(lambda: torch.optim.SGD([x * 2], lr=0.1))
e(lambda: torch.optim.SGD([{'params': [x]}, {'params': [x]}], lr=0.1))
e(lambda: torch.optim.SGD(x, lr=0.1))
e(lambda: torch.optim.SGD([], lr=0.1))
e(lambda: torch.optim.SGD([x], lr=-1))
e(lambda: torch.optim.SGD([x], lr=0.1, nesterov=True))
e(lambda: torch.optim.Adam([x], betas=(1.0, 0.9)))
print(torch.optim.SGD([{'params': [x]}]).param_groups[0]["lr"])
o = torch.optim.SGD([x], lr=0.1)
e(lambda: o.load_state_dict(torch.optim.SGD([x, torch.ones(1, requires_grad=True)], lr=0.1).state_dict()))
e(lambda: o.load_state_dict(torch.optim.SGD([{'params': [x]}, {'params': [torch.ones(1, requires_grad=True)]}], lr=0.1).state_dict()))
e(lambda: torch.optim.lr_scheduler.StepLR(o, 2, last_epoch=3))
e(lambda: nn.init.xavier_uniform_(torch.empty(3)))
e(lambda: nn.init.kaiming_normal_(torch.empty(2, 2), mode='fan_avg'))
e(lambda: nn.init.calculate_gain('foo'))
e(lambda: nn.Linear(2, 2).to(torch.int64))
m = nn.Linear(2, 2)


def set_weight():
    m.weight = torch.ones(2, 2)


e(set_weight)
e(lambda: m.register_buffer('a.b', torch.ones(1)))
e(lambda: m.register_buffer('c', 3))
e(lambda: nn.Module().forward(1))
e(lambda: torch.autograd.functional.vjp(lambda x: x * 2, torch.ones(2)))
e(lambda: torch.randint(5))
o = torch.optim.SGD([x], lr=1.0)
x.grad = torch.ones(2)
o.zero_grad(set_to_none=False)
print(x.grad)
o.zero_grad()
print(x.grad)
with torch.inference_mode():
    print(torch.is_inference_mode_enabled(), (x * 2).requires_grad)
print(torch.is_inference_mode_enabled())


@torch.no_grad()
def evaluate():
    return (x * 2).requires_grad


print(evaluate(), torch.is_grad_enabled())


class WrongShape(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return torch.ones(3)


e(lambda: WrongShape.apply(torch.ones(2, requires_grad=True)).sum().backward())
