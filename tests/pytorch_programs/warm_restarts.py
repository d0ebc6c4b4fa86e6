"""A PyTorch program (only ``import torch``): CosineAnnealingWarmRestarts, per epoch and per batch."""
import torch
p = torch.nn.Parameter(torch.ones(1))
for kw in [dict(T_0=3), dict(T_0=2, T_mult=2, eta_min=0.01)]:
    opt = torch.optim.SGD([p], lr=1.0)
    s = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, **kw)
    lrs = [round(s.get_last_lr()[0], 6)]
    for _ in range(9):
        opt.step()
        s.step()
        lrs.append(round(s.get_last_lr()[0], 6))
    print(lrs)
opt = torch.optim.SGD([p], lr=1.0)
s = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2)
out = []
for epoch in range(3):
    for i in range(4):
        s.step(epoch + i / 4)
        out.append(round(s.get_last_lr()[0], 6))
print(out, s.T_i, round(float(s.T_cur), 4), s.last_epoch)
