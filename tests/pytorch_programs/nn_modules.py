"""A PyTorch program (only ``import torch``); its output under PyTorch 2 is in nn_modules.expected."""
import torch
nn = torch.nn
m = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.ModuleList([nn.Linear(3, 3)]), nn.ModuleDict({'a': nn.Tanh()}))
m.register_buffer('steps', torch.zeros(1))
print(m); print(list(m.state_dict().keys())); print([n for n, _ in m.named_modules()]); print(m.to(torch.float64)[0].weight.dtype, m[0].bias.dtype, m.steps.dtype)
print(nn.Flatten(), nn.LeakyReLU(), nn.GELU(), nn.ELU(), nn.Softplus(), nn.Softmax(dim=1), nn.LogSoftmax(1), nn.Identity(), nn.ReLU(inplace=True), nn.CrossEntropyLoss(), nn.MSELoss(reduction='sum'), nn.SiLU(), nn.Tanh())
print([n for n, _ in m.named_buffers()], len(list(m.buffers())), [n for n, _ in m.named_children()], len(list(m.modules())))
x = torch.tensor([[-1.0, 0.5, 2.0]])
for a in [nn.ReLU(), nn.LeakyReLU(0.1), nn.GELU(), nn.GELU('tanh'), nn.ELU(), nn.Softplus(), nn.Softplus(beta=2, threshold=1), nn.Softmax(1), nn.LogSoftmax(1), nn.Tanh(), nn.Sigmoid(), nn.SiLU(), nn.Flatten(0)]:
    print(type(a).__name__, [round(v, 4) for v in a(x).flatten().tolist()])
xr = torch.tensor([-1.0, 0.5], requires_grad=True)
for f in [nn.functional.leaky_relu, nn.functional.gelu, nn.functional.elu, nn.functional.softplus, nn.functional.silu]:
    xr.grad = None; y = f(xr); y.sum().backward(); print(y.grad_fn.name(), [round(v, 4) for v in xr.grad.tolist()])
seen = []
lin = nn.Linear(3, 2)
h = lin.register_forward_hook(lambda mod, inp, out: seen.append((type(mod).__name__, inp[0].shape, out.shape)))
h2 = lin.register_forward_pre_hook(lambda mod, inp: (inp[0] * 0,))
print(lin(torch.ones(4, 3)).shape, seen, torch.equal(lin(torch.ones(1, 3)), lin.bias.detach()[None]))
h.remove(); h2.remove(); lin(torch.ones(1, 3)); print(len(seen))
print(nn.init.calculate_gain('relu'), nn.init.calculate_gain('leaky_relu', 0.2), nn.init.calculate_gain('tanh'))
pl = nn.ParameterList([nn.Parameter(torch.ones(2)), nn.Parameter(torch.zeros(3))]); print(len(list(pl.parameters())), [n for n, _ in pl.named_parameters()])
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(2)])
        self.head = nn.Linear(2, 1, bias=False)
        self.register_buffer("mask", torch.ones(2), persistent=False)
    def forward(self, x):
        for l in self.layers: x = l(x)
        return self.head(x)
net = Net(); print(list(net.state_dict().keys()), net)
net.requires_grad_(False); print(any(p.requires_grad for p in net.parameters()))
print(net.apply(lambda mm: None) is net, net.get_submodule("layers.1"))
try: net.load_state_dict({"head.weight": torch.zeros(1, 2)})
except RuntimeError as e: print(str(e)[:120])
print(net.load_state_dict({"head.weight": torch.zeros(1, 2)}, strict=False))
