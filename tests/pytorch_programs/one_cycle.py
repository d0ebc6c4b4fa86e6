"""A PyTorch program (only ``import torch``): OneCycleLR with SGD momentum and Adam beta1."""
import torch
p = torch.nn.Parameter(torch.ones(1))
for make, kw in [(lambda: torch.optim.SGD([p], lr=0.1, momentum=0.9), {}),
                 (lambda: torch.optim.Adam([p], lr=0.1), dict(anneal_strategy="linear")),
                 (lambda: torch.optim.SGD([p], lr=0.1, momentum=0.9), dict(three_phase=True))]:
    opt = make()
    s = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=10, **kw)
    out = []
    for _ in range(10):
        opt.step()
        s.step()
        g = opt.param_groups[0]
        out.append((round(s.get_last_lr()[0], 6), round(g.get("momentum", g.get("betas", (0,))[0]), 6)))
    print(out)
try:
    s.step()
except ValueError as e:
    print(e)
try:
    torch.optim.lr_scheduler.OneCycleLR(torch.optim.Adagrad([p]), max_lr=1.0, total_steps=5)
except ValueError as e:
    print(e)
