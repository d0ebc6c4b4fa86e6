"""A PyTorch program (only ``import torch``): SequentialLR (warm-up then cosine) and step(epoch)."""
import torch
p = torch.nn.Parameter(torch.ones(1))
opt = torch.optim.SGD([p], lr=0.1)
warm = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=3)
cos = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=5, eta_min=0.001)
seq = torch.optim.lr_scheduler.SequentialLR(opt, [warm, cos], milestones=[3])
lrs = [round(seq.get_last_lr()[0], 6)]
for _ in range(10):
    opt.step()
    seq.step()
    lrs.append(round(seq.get_last_lr()[0], 6))
print(lrs)
opt = torch.optim.SGD([p], lr=1.0)
a = torch.optim.lr_scheduler.ExponentialLR(opt, 0.5)
b = torch.optim.lr_scheduler.StepLR(opt, 2, 0.1)
seq = torch.optim.lr_scheduler.SequentialLR(opt, [a, b], milestones=[2])
lrs = []
for _ in range(6):
    opt.step()
    seq.step()
    lrs.append(round(opt.param_groups[0]["lr"], 6))
print(lrs)
s = torch.optim.lr_scheduler.StepLR(torch.optim.SGD([p], lr=1.0), 2, 0.5)
s.step(5)
print(s.get_last_lr())
try:
    torch.optim.lr_scheduler.SequentialLR(opt, [a, b], milestones=[1, 2])
except ValueError as e:
    print(e)
