"""A PyTorch program (only ``import torch``); its output under PyTorch 2 is in data_optim_losses.expected."""
import torch
from torch.utils.data import default_collate, DataLoader, TensorDataset, random_split
import numpy as np
print(default_collate([(1, 2.0, True, 'a'), (3, 4.0, False, 'b')]))
print(default_collate([{'x': torch.ones(2), 'y': 1}, {'x': torch.zeros(2), 'y': 2}]))
print(default_collate([[1,2],[3,4]]), default_collate([np.ones(2), np.zeros(2)]), default_collate([np.float32(1.5), np.float32(2)]))
ds=TensorDataset(torch.arange(10.), torch.arange(10))
print(len(DataLoader(ds, batch_size=3)), len(DataLoader(ds, batch_size=3, drop_last=True)), next(iter(DataLoader(ds,batch_size=4))))
a,b=random_split(ds,[0.7,0.3], generator=torch.Generator().manual_seed(0)); print(len(a),len(b), type(a).__name__)
print(ds[2])
# optimizers
def run(make_opt, steps=3):
    p = torch.nn.Parameter(torch.tensor([1.0, -2.0, 3.0])); q = torch.nn.Parameter(torch.tensor([0.5, 0.25]))
    o = make_opt([{'params': [p]}, {'params': [q], 'lr': 0.05}])
    for k in range(steps):
        o.zero_grad()
        loss = (p ** 2).sum() + (q ** 3).sum() * (k + 1)
        loss.backward()
        o.step()
    return [round(v, 5) for v in p.tolist() + q.tolist()]
O = torch.optim
print(run(lambda g: O.SGD(g, lr=0.1)))
print(run(lambda g: O.SGD(g, lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)))
print(run(lambda g: O.SGD(g, lr=0.1, momentum=0.9, dampening=0.1)))
print(run(lambda g: O.Adam(g, lr=0.1, weight_decay=0.1)))
print(run(lambda g: O.Adam(g, lr=0.1, amsgrad=True)))
print(run(lambda g: O.AdamW(g, lr=0.1)))
print(run(lambda g: O.RMSprop(g, lr=0.01)))
print(run(lambda g: O.RMSprop(g, lr=0.01, momentum=0.9, centered=True, weight_decay=0.1)))
print(run(lambda g: O.Adagrad(g, lr=0.1, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.1)))
p = torch.nn.Parameter(torch.ones(2))
o = O.SGD([p], lr=1.0)
for S in [lambda: O.lr_scheduler.StepLR(o, 2, 0.5), lambda: O.lr_scheduler.ExponentialLR(o, 0.9), lambda: O.lr_scheduler.CosineAnnealingLR(o, 4, 0.1), lambda: O.lr_scheduler.LambdaLR(o, lambda e: 1/(e+1)), lambda: O.lr_scheduler.MultiStepLR(o, [1, 3], 0.5)]:
    for g in o.param_groups: g['lr'] = 1.0; g.pop('initial_lr', None)
    s = S(); lrs = []
    for _ in range(10):
        o.step(); s.step(); lrs.append(round(s.get_last_lr()[0], 6))
    print(type(s).__name__, lrs)
print(sorted(k for k in s.state_dict() if not k.startswith('_')))
x = torch.tensor([[1., 2.], [3., 4.]])
for ln in [torch.nn.CrossEntropyLoss(), torch.nn.CrossEntropyLoss(label_smoothing=0.1), torch.nn.CrossEntropyLoss(weight=torch.tensor([0.3, 0.7]), ignore_index=1, reduction='sum')]:
    print(ln(x, torch.tensor([0, 1])).item())
print(torch.nn.CrossEntropyLoss(label_smoothing=0.2, weight=torch.tensor([0.3, 0.7]))(x, torch.tensor([0, 1])).item())
print(torch.nn.CrossEntropyLoss()(x, torch.tensor([[0.2, 0.8], [1.0, 0.0]])).item(), torch.nn.CrossEntropyLoss(label_smoothing=0.1, reduction='none')(x, torch.tensor([[0.2, 0.8], [1.0, 0.0]])))
print(torch.nn.NLLLoss(reduction='none')(x.log_softmax(1), torch.tensor([1, 0])))
y = torch.tensor([0.2, 0.9]); t = torch.tensor([0., 1.])
print([round(v.item(), 5) for v in (torch.nn.BCELoss()(y, t), torch.nn.BCEWithLogitsLoss(pos_weight=torch.tensor([2.0, 3.0]))(y, t), torch.nn.MSELoss()(y, t), torch.nn.L1Loss(reduction='sum')(y, t))])
print(torch.nn.SmoothL1Loss(beta=0.5)(y * 3, t).item(), torch.nn.HuberLoss(delta=0.5)(y * 3, t).item(), torch.nn.KLDivLoss(reduction='batchmean')(x.log_softmax(1), torch.tensor([[0.5, 0.5], [0.0, 1.0]])).item())
x3 = torch.randn(2, 3, 4); t3 = torch.tensor([[0, 1, 2, 1], [2, 2, 0, 0]])
print(torch.nn.functional.cross_entropy(torch.arange(24.).reshape(2, 3, 4) / 10, t3).item())
