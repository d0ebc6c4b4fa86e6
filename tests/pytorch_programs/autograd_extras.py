"""A PyTorch program (only ``import torch``); its output under PyTorch 2 is in autograd_extras.expected."""
import torch
import numpy as np
class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        y = x.exp() * k
        ctx.save_for_backward(y)
        ctx.k = k
        print("needs", ctx.needs_input_grad)
        return y
    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * y, None
x = torch.tensor([0.5, 1.0], dtype=torch.float64, requires_grad=True)
y = Exp.apply(x, 2.0)
print(type(y.grad_fn).__name__, y)
g, = torch.autograd.grad(y.sum(), x, create_graph=True)
print(g, g.requires_grad)
g2, = torch.autograd.grad(g.sum(), x)
print(g2)
class Split(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.mark_non_differentiable
        return x * 2, x * 3, (x > 0.7)
    @staticmethod
    def backward(ctx, a, b, c):
        return a * 2 + b * 3
a, b, c = Split.apply(x)
print(a.requires_grad, c.requires_grad)
(a.sum() + b.sum() * 2).backward()
print(x.grad)
x.grad = None
a, b, c = Split.apply(x)
b.sum().backward(); print(x.grad)
try:
    y = Exp.apply(x, 2.0); y.sum().backward(); y.sum().backward()
except RuntimeError as e: print("RuntimeError", str(e)[:60])
F = torch.autograd.functional
f = lambda x: torch.stack([x[0] * x[1], x[0].sin()])
xx = torch.tensor([1.0, 2.0])
print(F.jacobian(f, xx))
print(F.hessian(lambda x: (x ** 3).sum() * x[0], xx))
print(F.vjp(f, xx, torch.tensor([1.0, 1.0])))
print(F.jvp(f, xx, torch.tensor([1.0, 0.5])))
print(F.jacobian(lambda a, b: a * b, (xx, torch.tensor([3.0, 4.0]))))
print(F.hvp(lambda x: (x ** 3).sum(), xx, torch.tensor([1.0, 1.0])))
print(torch.autograd.gradcheck(torch.sin, (torch.tensor([0.1, 0.2], dtype=torch.float64, requires_grad=True),)))
print(torch.autograd.gradcheck(lambda x: Exp.apply(x, 2.0), (torch.tensor([0.1, 0.2], dtype=torch.float64, requires_grad=True),)))
class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x): return x * 2
    @staticmethod
    def backward(ctx, g): return g * 3
try: torch.autograd.gradcheck(Bad.apply, (torch.tensor([0.1], dtype=torch.float64, requires_grad=True),))
except RuntimeError as e: print(type(e).__name__, str(e).splitlines()[0])
w = torch.tensor([1.0, 2.0], requires_grad=True)
z = (w * 2).exp()
seen = []
h = z.grad_fn.register_prehook(lambda go: seen.append(go[0].tolist()))
h2 = z.grad_fn.register_hook(lambda gi, go: (gi[0] * 10,))
z.sum().backward()
print(seen, w.grad)
