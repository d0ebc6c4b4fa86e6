"""A PyTorch program (only ``import torch``); its output under PyTorch 2 is in linalg_helpers.expected."""
import torch
x = torch.arange(9.).reshape(3, 3)
print(x.tril(), torch.tril(x, -1), torch.triu(x, 1), x.new_zeros(2).dtype, x.new_tensor([1, 2]).dtype, x.new_full((2,), 3).dtype, x.new_ones(2, 2).shape, x.new_empty(3).shape)
print(torch.isnan(torch.tensor([1., float('nan')])), torch.isinf(torch.tensor([1., float('inf')])), torch.isfinite(torch.tensor([1., float('inf')])), torch.log2(torch.tensor([8.])), torch.log10(torch.tensor([100.])), torch.dot(torch.tensor([1., 2]), torch.tensor([3., 4])), torch.outer(torch.tensor([1., 2]), torch.tensor([3., 4])), torch.mv(x, torch.ones(3)), torch.diag(torch.tensor([1., 2])), torch.diag(x), torch.diagonal(x), torch.trace(x))
y = torch.ones(3, requires_grad=True)
print(torch.log2(y).grad_fn.name(), torch.dot(y, y).grad_fn.name(), torch.outer(y, y).grad_fn.name(), torch.mv(x, y).grad_fn.name(), x.contiguous() is x, x.is_contiguous(), x.t().is_contiguous(), x.t().contiguous().is_contiguous(), torch.diag(y).grad_fn.name(), torch.trace(torch.outer(y, y)).grad_fn.name(), x.expand_as(torch.zeros(2, 3, 3)).shape, torch.exp2(torch.tensor([3.])), torch.clamp_min(torch.tensor([-1., 2.]), 0), torch.get_default_dtype())
z = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
(torch.trace(z @ z) + z.tril().sum() * 2 + torch.diag(z).sum() + torch.log2(z).sum()).backward()
print(z.grad)
