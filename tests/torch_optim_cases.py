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


# --- schedulers ------------------------------------------------------------------------------
# name -> (optimizer maker, scheduler maker, metrics for ReduceLROnPlateau or None); both
# makers take the ``optim`` module, the scheduler maker also the optimizer.  The optimizer
# has two groups (lr 0.1 and 0.01).  ``tests/fixtures/record_torch_optim.py`` records, per
# step, every group's lr and momentum (or beta1) and ``get_last_lr()``, then the state
# dict's keys and values.

def _sgd(optim, params):
    return optim.SGD([{"params": params[:1]}, {"params": params[1:], "lr": 0.01}], lr=0.1,
                     momentum=0.9)


def _adam(optim, params):
    return optim.Adam([{"params": params[:1]}, {"params": params[1:], "lr": 0.01}], lr=0.1)


class Halving:
    """A callable object as CyclicLR's ``scale_fn``: its ``__dict__`` is saved."""

    def __init__(self):
        self.base = 0.5

    def __call__(self, x):
        return self.base ** (x - 1)


SCHEDULER_STEPS = 14
SCHEDULER_SAVE_AT = 7
_METRICS = [1.0, 0.9, 0.95, 0.97, 0.96, 0.8, 0.85, 0.86, 0.9, 0.7, 0.75, 0.75, 0.74, 0.76]

SCHEDULER_CASES = {
    "StepLR": (_sgd, lambda s, o: s.StepLR(o, 3, 0.5), None),
    "MultiStepLR": (_sgd, lambda s, o: s.MultiStepLR(o, [2, 5, 5], 0.5), None),
    "ConstantLR": (_sgd, lambda s, o: s.ConstantLR(o, factor=0.5, total_iters=4), None),
    "LinearLR": (_sgd, lambda s, o: s.LinearLR(o, start_factor=0.25, total_iters=4), None),
    "ExponentialLR": (_sgd, lambda s, o: s.ExponentialLR(o, 0.9), None),
    "PolynomialLR": (_sgd, lambda s, o: s.PolynomialLR(o, total_iters=6, power=2.0), None),
    "CosineAnnealingLR": (_sgd, lambda s, o: s.CosineAnnealingLR(o, T_max=5, eta_min=0.001),
                          None),
    "LambdaLR": (_sgd, lambda s, o: s.LambdaLR(o, [lambda e: 0.95 ** e, lambda e: 1 / (e + 1)]),
                 None),
    "MultiplicativeLR": (_sgd, lambda s, o: s.MultiplicativeLR(o, lambda e: 0.9), None),
    "SequentialLR": (_sgd, lambda s, o: s.SequentialLR(
        o, [s.LinearLR(o, 0.1, total_iters=3), s.ExponentialLR(o, 0.9)], milestones=[3]), None),
    "ChainedScheduler": (_sgd, lambda s, o: s.ChainedScheduler(
        [s.ConstantLR(o, 0.1, total_iters=2), s.ExponentialLR(o, 0.9)]), None),
    "CyclicLR-triangular": (_sgd, lambda s, o: s.CyclicLR(
        o, base_lr=0.01, max_lr=[0.1, 0.05], step_size_up=3, step_size_down=2), None),
    "CyclicLR-triangular2-adam": (_adam, lambda s, o: s.CyclicLR(
        o, base_lr=[0.01, 0.001], max_lr=0.1, step_size_up=2, mode="triangular2",
        base_momentum=0.85, max_momentum=0.95), None),
    "CyclicLR-exp_range": (_sgd, lambda s, o: s.CyclicLR(
        o, base_lr=0.01, max_lr=0.1, step_size_up=3, mode="exp_range", gamma=0.9), None),
    "CyclicLR-no-momentum": (_sgd, lambda s, o: s.CyclicLR(
        o, base_lr=0.01, max_lr=0.1, step_size_up=4, cycle_momentum=False), None),
    "CyclicLR-scale_fn": (_sgd, lambda s, o: s.CyclicLR(
        o, base_lr=0.01, max_lr=0.1, step_size_up=2, scale_fn=Halving(),
        scale_mode="iterations"), None),
    "OneCycleLR": (_sgd, lambda s, o: s.OneCycleLR(o, max_lr=[1.0, 0.1], total_steps=14), None),
    "OneCycleLR-linear-adam": (_adam, lambda s, o: s.OneCycleLR(
        o, max_lr=0.5, epochs=2, steps_per_epoch=7, anneal_strategy="linear", pct_start=0.4),
        None),
    "OneCycleLR-three-phase": (_sgd, lambda s, o: s.OneCycleLR(
        o, max_lr=1.0, total_steps=15, three_phase=True, div_factor=10.0), None),
    "CosineAnnealingWarmRestarts": (_sgd, lambda s, o: s.CosineAnnealingWarmRestarts(
        o, T_0=3, T_mult=2, eta_min=0.001), None),
    "ReduceLROnPlateau": (_sgd, lambda s, o: s.ReduceLROnPlateau(
        o, patience=1, cooldown=1, factor=0.5, min_lr=[0.02, 0.001]), _METRICS),
    "ReduceLROnPlateau-max-abs": (_adam, lambda s, o: s.ReduceLROnPlateau(
        o, mode="max", threshold=0.05, threshold_mode="abs", patience=0, min_lr=0.005),
        [-m for m in _METRICS]),
}


def render(value):
    """A scheduler state dict value as JSON can hold it (tuples as lists, ``Counter``s and
    other dicts with string keys, functions by kind), numbers rounded to 12 digits."""
    if isinstance(value, float):
        return value if value in (float("inf"), float("-inf")) else round(value, 12)
    if isinstance(value, (list, tuple)):
        return [render(v) for v in value]
    if isinstance(value, dict):
        return {str(k): render(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if callable(value):
        return "<callable>"
    return value


def run_scheduler(name: str, optim, params: list, steps=range(SCHEDULER_STEPS), made=None):
    """Run a case's optimizer and scheduler (or continue ``made``); returns them and, per step,
    ``[get_last_lr(), each group's lr, each group's momentum or beta1]``."""
    make_opt, make_sched, metrics = SCHEDULER_CASES[name]
    opt, sched = made if made is not None else (None, None)
    if opt is None:
        opt = make_opt(optim, params)
        sched = make_sched(optim.lr_scheduler, opt)
    rows = []
    for k in steps:
        opt.step()
        sched.step(metrics[k]) if metrics else sched.step()
        rows.append([render(list(sched.get_last_lr())),
                     render([g["lr"] for g in opt.param_groups]),
                     render([g["betas"][0] if "betas" in g else g["momentum"]
                             for g in opt.param_groups])])
    return opt, sched, rows
