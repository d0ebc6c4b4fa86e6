"""PyTorch's "What is torch.nn really?" tutorial on synthetic data (only ``import torch``)."""
import math
import numpy as np
import torch
from torch import nn, optim
import torch.nn.functional as F
from torch.utils.data import TensorDataset, DataLoader

rng = np.random.default_rng(0)
x_np = rng.standard_normal((512, 64)).astype(np.float32)
w_true = rng.standard_normal((64, 10)).astype(np.float32)
y_np = (x_np @ w_true).argmax(1)
x_train, y_train, x_valid, y_valid = map(torch.tensor, (x_np[:400], y_np[:400], x_np[400:], y_np[400:]))
n, c = x_train.shape
print(x_train.shape, y_train.min(), y_train.max(), y_train.dtype)

weights = torch.randn(64, 10) / math.sqrt(64)
weights.requires_grad_()
bias = torch.zeros(10, requires_grad=True)

def log_softmax(x):
    return x - x.exp().sum(-1).log().unsqueeze(-1)

def model(xb):
    return log_softmax(xb @ weights + bias)

def nll(input, target):
    return -input[range(target.shape[0]), target].mean()

def accuracy(out, yb):
    preds = torch.argmax(out, dim=1)
    return (preds == yb).float().mean()

bs = 64
lr = 0.5
for epoch in range(2):
    for i in range((n - 1) // bs + 1):
        start_i = i * bs
        end_i = start_i + bs
        xb = x_train[start_i:end_i]
        yb = y_train[start_i:end_i]
        pred = model(xb)
        loss = nll(pred, yb)
        loss.backward()
        with torch.no_grad():
            weights -= weights.grad * lr
            bias -= bias.grad * lr
            weights.grad.zero_()
            bias.grad.zero_()
print(type(accuracy(model(x_valid), y_valid).item()).__name__, nll(model(x_valid), y_valid).grad_fn.name())

class Mnist_Logistic(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(64, 10)
    def forward(self, xb):
        return self.lin(xb)

def loss_batch(model, loss_func, xb, yb, opt=None):
    loss = loss_func(model(xb), yb)
    if opt is not None:
        loss.backward()
        opt.step()
        opt.zero_grad()
    return loss.item(), len(xb)

def fit(epochs, model, loss_func, opt, train_dl, valid_dl):
    for epoch in range(epochs):
        model.train()
        for xb, yb in train_dl:
            loss_batch(model, loss_func, xb, yb, opt)
        model.eval()
        with torch.no_grad():
            losses, nums = zip(*[loss_batch(model, loss_func, xb, yb) for xb, yb in valid_dl])
        val_loss = np.sum(np.multiply(losses, nums)) / np.sum(nums)
        print(epoch, bool(np.isfinite(val_loss)))

train_ds = TensorDataset(x_train, y_train)
valid_ds = TensorDataset(x_valid, y_valid)
train_dl = DataLoader(train_ds, batch_size=bs, shuffle=True)
valid_dl = DataLoader(valid_ds, batch_size=bs * 2)
model = Mnist_Logistic()
opt = optim.SGD(model.parameters(), lr=lr, momentum=0.9)
fit(2, model, F.cross_entropy, opt, train_dl, valid_dl)

class Lambda(nn.Module):
    def __init__(self, func):
        super().__init__()
        self.func = func
    def forward(self, x):
        return self.func(x)

model = nn.Sequential(Lambda(lambda x: x.view(-1, 64)), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))
opt = optim.Adam(model.parameters(), lr=1e-2)
fit(2, model, F.cross_entropy, opt, train_dl, valid_dl)
print(sum(p.numel() for p in model.parameters() if p.requires_grad))
print(model)
import os, tempfile
path = os.path.join(tempfile.mkdtemp(), "m.pt")
torch.save(model.state_dict(), path)
print(model.load_state_dict(torch.load(path, weights_only=True)))
print(next(model.parameters()).device, model.training)
