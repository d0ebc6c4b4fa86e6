"""A PyTorch program (only ``import torch``): in-place scatter/masked_fill/index_put and index assignment."""
import torch
x = torch.zeros(3, 4)
idx = torch.tensor([0, 2, 3])
print(x.scatter_(1, idx.unsqueeze(1), 1.0))
print(x.masked_fill_(x > 0, 5))
print(x.index_put_((torch.tensor([0, 1]),), torch.tensor(7.)))
y = torch.tensor([1, 2, 3])
y[y > 1] = 0
print(y)
w = torch.zeros(2, 3, requires_grad=True)
buf = torch.zeros(3)
buf[0] = (w * 2).sum()
print(buf.requires_grad, buf.grad_fn.name())
buf.sum().backward()
print(w.grad)
z = torch.tensor([5, 7])
print(z // 0 if False else z % 3, torch.tensor([1, 2]) % 1.5)
