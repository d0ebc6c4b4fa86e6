"""A PyTorch program (only ``import torch``); its output under PyTorch 2 is in schedules_and_misc.expected."""
import torch
import torch.nn.functional as F

torch.backends.cudnn.deterministic = True
torch.backends.cudnn.benchmark = False
torch.use_deterministic_algorithms(True)
print(torch.are_deterministic_algorithms_enabled())
p = torch.nn.Parameter(torch.ones(2))
opt = torch.optim.SGD([{"params": [p]}, {"params": [torch.nn.Parameter(torch.ones(1))], "lr": 0.5}], lr=1.0)
plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=1, cooldown=1, min_lr=[0.1, 0.2])
for metric in [1.0, 0.9, 0.95, 0.97, 0.99, 0.98, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]:
    plateau.step(metric)
    print(metric, plateau.get_last_lr(), plateau.num_bad_epochs, plateau.best)
mx = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="max", threshold=0.1, threshold_mode="abs", patience=0)
for metric in [1.0, 1.05, 1.2]:
    mx.step(metric)
    print(mx.get_last_lr())
a = torch.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]], requires_grad=True)
b = torch.tensor([[1.0, 0.0, 1.0], [1.0, 1.0, 1.0]])
c = F.cosine_similarity(a, b)
print(c)
c.sum().backward()
print(a.grad)
print(F.normalize(torch.tensor([[3.0, 4.0]])), F.cosine_similarity(torch.ones(3), torch.ones(3), dim=0))
x = torch.randn(3, 4, requires_grad=True)
t = torch.tensor([0, 1, 2])
y = torch.rand(3, 4)
for r in ['mean', 'sum', 'none']:
    print(r, [f.grad_fn.name() for f in [
        F.cross_entropy(x, t, reduction=r), F.cross_entropy(x, t, weight=torch.ones(4), reduction=r),
        F.nll_loss(x, t, reduction=r), F.mse_loss(x, y, reduction=r),
        F.binary_cross_entropy(x.sigmoid(), y, reduction=r),
        F.binary_cross_entropy_with_logits(x, y, reduction=r), F.smooth_l1_loss(x, y, reduction=r),
        F.huber_loss(x, y, reduction=r)]])
x = torch.tensor([[0., 1.], [2., 0.]])
print(torch.where(x > 0))
u = torch.tensor([3, 1, 2, 3, 1])
print(torch.unique(u), torch.unique(u, return_counts=True), torch.unique(u, return_inverse=True),
      torch.tensor([2., 1., 2.]).unique())
p = torch.nn.Parameter(torch.ones(1))
o = torch.optim.SGD([p], lr=0.3)
s = torch.optim.lr_scheduler.LinearLR(o, start_factor=0.25, total_iters=4)
lrs = []
for _ in range(7):
    o.step()
    s.step()
    lrs.append(round(s.get_last_lr()[0], 6))
print(o.param_groups[0]['initial_lr'], lrs)
import copy
t = torch.ones(2, requires_grad=True)
(t * 2).sum().backward()
c = copy.deepcopy(t)
print(c.grad, c.requires_grad, c is t)
q = torch.nn.Parameter(torch.ones(2))
(q * 2).sum().backward()
c = copy.deepcopy(q)
print(type(c).__name__, c.grad, torch.equal(c, q), c is q)
net = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.ReLU())
twin = copy.deepcopy(net)
with torch.no_grad():
    twin[0].weight.add_(1)
print(torch.allclose(twin[0].weight - 1, net[0].weight), twin[0].weight is net[0].weight)
try:
    copy.deepcopy(t * 2)
except RuntimeError as e:
    print(str(e)[:70])
w = torch.nn.Parameter(torch.ones(2))
v = torch.nn.Parameter(torch.ones(1))
for make in [lambda g: torch.optim.SGD(g, lr=0.1), lambda g: torch.optim.Adam(g),
             lambda g: torch.optim.AdamW(g), lambda g: torch.optim.RMSprop(g),
             lambda g: torch.optim.Adagrad(g)]:
    opt = make([{"params": [w], "weight_decay": 0.01}, {"params": [v], "lr": 0.5}])
    w.grad, v.grad = torch.ones(2), torch.ones(1)
    opt.step()
    sd = opt.state_dict()
    print(type(opt).__name__, sd["param_groups"], sorted(sd["state"].get(0, {})))
    print(opt)
