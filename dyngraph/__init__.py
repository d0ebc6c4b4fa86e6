"""dyngraph: an eager, define-by-run engine with PyTorch's surface (``import dyngraph as torch``).

Every operation computes its result now; when an input requires grad it also
records a node of a graph that lives for this one forward pass, and
``backward()`` walks that graph in reverse with the registry's gradient rules.

>>> import dyngraph as torch
>>> w = torch.tensor([1.], requires_grad=True)
>>> x = torch.tensor([2.], requires_grad=True)
>>> y = torch.mul(torch.add(w, x), torch.add(w, 1))
>>> y.backward()
>>> w.grad, x.grad
(tensor([5.]), tensor([2.]))
"""
# Import order matters: tensor first (engine and functions need the class).
from .tensor import Size, Tensor  # noqa: I001
from . import autograd, functions, jit, nn, onnx, optim, utils  # noqa: F401
from .creation import *  # noqa: F401,F403
from .creation import __all__ as _creation_all
from .dtypes import (bool_ as bool, double, dtype, float, float16, float32, float64, half,  # noqa: A004
                     int, int8, int16, int32, int64, long, short, uint8)
from .errors import SizeMismatchError
from .functions import *  # noqa: F401,F403
from .functions import __all__ as _functions_all
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .graph import graph_of
from .printing import set_printoptions
from .serialization import load, save

__all__ = (["Tensor", "Size", "dtype", "autograd", "jit", "nn", "onnx", "optim", "utils", "no_grad", "enable_grad",
            "set_grad_enabled", "is_grad_enabled", "graph_of", "set_printoptions",
            "SizeMismatchError", "save", "load", "bool", "double", "float", "float16", "float32", "float64",
            "half", "int", "int8", "int16", "int32", "int64", "long", "short", "uint8"]
           + _creation_all + _functions_all)
