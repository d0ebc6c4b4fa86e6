"""``torch.autograd``: reverse-mode differentiation of the recorded graph.

The parts, each in its own module (this package only re-exports them)::

    engine       backward() and grad(): the walk from the outputs back to the leaves
    function     Function / FunctionCtx: custom ops with a hand-written backward
    functional   jacobian, hessian, vjp, jvp, hvp, vhp (built on grad)
    gradcheck    gradcheck / gradgradcheck against finite differences
    variable     Variable: the pre-0.4 wrapper, now returning a Tensor

``no_grad``, ``enable_grad`` and the anomaly switches live in
:mod:`dyngraph.grad_mode` and :mod:`dyngraph.anomaly`; they are importable
from here as from ``torch.autograd``.
"""
from ..anomaly import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from ..grad_mode import enable_grad, no_grad
from . import functional
from .engine import backward, grad
from .function import Function, FunctionCtx, once_differentiable
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .variable import Variable

__all__ = ["backward", "grad", "no_grad", "enable_grad", "detect_anomaly", "set_detect_anomaly",
           "is_anomaly_enabled", "Function", "functional", "gradcheck", "gradgradcheck",
           "Variable"]
