"""The optimizer runs ``tests/fixtures/record_torch_optim.py`` records under PyTorch 2.13 and
``tests/test_dyngraph_optim.py`` replays on dyngraph: which optimizers with which options, on
which data.  Plain numpy, importable by both sides."""
from __future__ import annotations

import numpy as np

STEPS, SAVE_AT = 16, 8

CASES = {
    "SGD": ("SGD", dict(lr=0.05)),
    "SGD-nesterov": ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.01)),
    "SGD-dampening-maximize": ("SGD", dict(lr=0.05, momentum=0.8, dampening=0.3,
                                           maximize=True)),
    "SGD-fused": ("SGD", dict(lr=0.05, momentum=0.9, fused=True)),
    "Adam": ("Adam", dict(lr=0.01)),
    "Adam-amsgrad-wd": ("Adam", dict(lr=0.01, amsgrad=True, weight_decay=0.1)),
    "Adam-maximize-foreach": ("Adam", dict(lr=0.01, maximize=True, foreach=True)),
    "Adam-decoupled": ("Adam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    "Adam-fused": ("Adam", dict(lr=0.01, fused=True)),
    "AdamW-amsgrad": ("AdamW", dict(lr=0.01, amsgrad=True)),
    "RMSprop-centered": ("RMSprop", dict(lr=0.01, momentum=0.5, centered=True)),
    "Adagrad": ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.01)),
    "Adadelta": ("Adadelta", dict(weight_decay=0.01)),
    "Adadelta-maximize": ("Adadelta", dict(lr=0.5, rho=0.8, maximize=True)),
    "Adamax": ("Adamax", dict(lr=0.02, weight_decay=0.01)),
    "NAdam": ("NAdam", dict(lr=0.01)),
    "NAdam-decoupled": ("NAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True,
                                      momentum_decay=0.01)),
    "NAdam-wd": ("NAdam", dict(lr=0.01, weight_decay=0.1)),
    "RAdam": ("RAdam", dict(lr=0.01)),
    "RAdam-decoupled": ("RAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    "RAdam-wd-maximize": ("RAdam", dict(lr=0.01, weight_decay=0.1, maximize=True)),
    "ASGD": ("ASGD", dict(lr=0.05, t0=5, lambd=1e-3, weight_decay=0.01)),
    "Rprop": ("Rprop", dict(lr=0.01)),
    "Rprop-maximize": ("Rprop", dict(lr=0.02, etas=(0.3, 1.5), step_sizes=(1e-4, 0.05),
                                     maximize=True)),
}

# name -> (options, parameter dtype).  In float32 a step that reaches the minimum stops
# wherever rounding noise in the gradient leaves it (the minimiser is only defined to about
# sqrt(float32 eps)), so the float32 cases take few iterations per step; the runs that
# converge are float64.
LBFGS_CASES = {
    "LBFGS": (dict(lr=0.5, max_iter=5, history_size=3), "float32"),
    "LBFGS-strong-wolfe": (dict(lr=1, max_iter=2, history_size=2,
                                line_search_fn="strong_wolfe"), "float32"),
    "LBFGS-strong-wolfe-float64": (dict(lr=1, max_iter=6, history_size=4,
                                        line_search_fn="strong_wolfe"), "float64"),
    "LBFGS-wolfe-defaults-float64": (dict(line_search_fn="strong_wolfe"), "float64"),
    "LBFGS-defaults-float64": (dict(), "float64"),
}
LBFGS_STEPS = 4


def data():
    """The MLP's fixed data and initial parameters (w1, b1 in group 0; w2 in group 1)."""
    rng = np.random.RandomState(0)
    x = rng.randn(16, 4).astype(np.float32)
    y = rng.randn(16, 2).astype(np.float32)
    params = [(rng.randn(4, 6) * 0.5).astype(np.float32), (rng.randn(6) * 0.1).astype(np.float32),
              (rng.randn(6, 2) * 0.5).astype(np.float32)]
    return x, y, params


def lbfgs_start(dtype: str = "float32"):
    return [np.array([-1.2, 1.0, -0.5], dtype), np.array([[0.8], [1.5]], dtype)]


_CENTRE = np.array([1.0, -2.0, 0.5, 3.0, -1.0], np.float32)
_SCALE = np.array([1.0, 4.0, 0.5, 2.0, 8.0], np.float32)


def bowl(z: np.ndarray) -> tuple[np.floating, np.ndarray]:
    """A smooth, not quadratic, well-conditioned function of the vector ``z`` and
    its gradient, in numpy: ``sum(s*(z-c)^2) + 0.1*sum(z^4) + sum(z[i]*z[i+1])``.

    Both engines' LBFGS closures set these as loss and ``.grad``, so the comparison sees the
    optimizer's arithmetic only, not two autograds' roundings.  Well-conditioned on purpose:
    PyTorch's dot products and sums add in an order of their own (its vectorised kernels),
    and a narrow valley such as Rosenbrock's magnifies those last-bit differences along the
    line search to 1e-5 within four steps."""
    number = z.dtype.type
    d = z - _CENTRE.astype(z.dtype)
    loss = ((_SCALE.astype(z.dtype) * d * d).sum() + number(0.1) * (z ** 4).sum()
            + (z[:-1] * z[1:]).sum())
    grad = number(2) * _SCALE.astype(z.dtype) * d + number(0.4) * z ** 3
    grad[1:] += z[:-1]
    grad[:-1] += z[1:]
    return number(loss), grad


def bowl_closure(lib, opt, params: list):
    """A closure that sets ``params``' gradients to :func:`bowl`'s at their values (their
    five numbers, flattened in order) and returns the loss as a ``lib`` tensor."""
    def closure():
        opt.zero_grad()
        z = np.concatenate([p.detach().numpy().ravel() for p in params])
        loss, grad = bowl(z)
        offset = 0
        for p in params:
            n = p.numel()
            p.grad = lib.tensor(grad[offset:offset + n].reshape(tuple(p.shape)))
            offset += n
        return lib.tensor(np.asarray(loss))   # a 0-dim array keeps its dtype in both
    return closure
