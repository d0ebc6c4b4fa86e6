"""dyngraph: an eager, define-by-run engine with PyTorch's surface (``import dyngraph as torch``).

Every operation computes its result now; when an input requires grad it also
records a node of a graph that lives for this one forward pass, and
``backward()`` walks that graph in reverse with the registry's gradient rules.

The modules, in the order a computation flows through them::

    dtypes, device       torch's dtypes and the (CPU-only) device model
    tensor               Tensor: the numpy array, requires_grad, grad_fn, version counter
    methods              Tensor's operators and math methods, attached in one place
    creation, random     tensor(), zeros()...; Generators, manual_seed and random draws
    engine               apply(): the one way a registry op runs (records a node if needed)
    multi_output         ops with several results (split, unbind) recorded as one call
    node, autograd/      tape nodes; backward() and grad(); Function, functional, gradcheck
    grad_mode, anomaly   no_grad / inference_mode (thread-local); detect_anomaly
    functions, pointwise,
    reductions, selection   the torch.* functions over ``engine.apply``
    nn/, optim/          modules, layers, losses, init; optimizers and schedulers
    utils/               data (Dataset, DataLoader), tensorboard (SummaryWriter)
    serialization        torch.save / torch.load (npz, no pickle)
    graph, printing      the recorded graph as networkx and as text; reprs
    jit, onnx            the bridge to staticgraph (trace) and ONNX export through it

>>> import dyngraph as torch
>>> w = torch.tensor([1.], requires_grad=True)
>>> x = torch.tensor([2.], requires_grad=True)
>>> y = torch.mul(torch.add(w, x), torch.add(w, 1))
>>> y.backward()
>>> w.grad, x.grad
(tensor([5.]), tensor([2.]))
"""
from .tensor import Size, Tensor
from . import autograd, backends, functions, jit, linalg, nn, onnx, optim, utils  # noqa: F401
from .backends import are_deterministic_algorithms_enabled, use_deterministic_algorithms
from .dtypes import (bool_ as bool, double, dtype, float, float16, float32, float64,  # noqa: A004
                     get_default_dtype, half, int, int8, int16, int32, int64, long,
                     set_default_dtype, short, uint8)
from .dtypes import cdouble, cfloat, complex64, complex128, uint16, uint32, uint64
from .errors import SizeMismatchError
from .functions import *  # noqa: F403
from .functions import __all__ as _functions_all
from .creation import *  # noqa: F403  (after functions: torch.zeros_like takes dtype=)
from .creation import __all__ as _creation_all
from .grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled,
                        no_grad, set_grad_enabled)
from .graph import graph_of
from .legacy import (BoolTensor, ByteTensor, CharTensor, DoubleTensor, FloatTensor, HalfTensor,
                     IntTensor, LongTensor, ShortTensor, set_default_tensor_type, tensortype)
from .device import accelerator, cuda, device
from .memory_format import (channels_last, channels_last_3d, contiguous_format, layout,
                            memory_format, preserve_format, strided)
from .pointwise import *  # noqa: F403
from .pointwise import __all__ as _pointwise_all
from .random import *  # noqa: F403
from .random import __all__ as _random_all
from .reductions import *  # noqa: F403
from .reductions import __all__ as _reductions_all
from .selection import *  # noqa: F403
from .selection import __all__ as _selection_all
from .composite import *  # noqa: F403
from .composite import __all__ as _composite_all
from .printing import set_printoptions
from .out_arg import OUT_FUNCTIONS as _OUT, with_out as _with_out
from .serialization import load, save
from .methods import attach as _attach_methods
from .linalg import tensor_norm as norm  # torch.norm: vector/matrix norms by p (dyngraph.linalg)
from .shaping import *  # noqa: F403  (select, *_scatter, tensor_split, rot90, *_copy ...)
from .shaping import __all__ as _shaping_all
from .statistics import *  # noqa: F403  (median, quantile, nansum, cummax, cov, histc ...)
from .statistics import __all__ as _statistics_all
from .scatter_reduce import index_reduce, scatter_reduce
from . import masked  # noqa: E402  (torch.masked: reductions over the elements a mask keeps)

__all__ = (["Tensor", "Size", "dtype", "autograd", "backends", "jit", "linalg", "nn", "onnx", "optim",
            "utils",
            "use_deterministic_algorithms", "are_deterministic_algorithms_enabled", "no_grad",
            "enable_grad", "inference_mode", "is_inference_mode_enabled", "set_grad_enabled",
            "is_grad_enabled", "graph_of", "set_printoptions", "SizeMismatchError", "save", "load",
            "get_default_dtype", "set_default_dtype", "bool", "double", "float", "float16",
            "float32", "float64",
            "half", "int", "int8", "int16", "int32", "int64", "long", "short", "uint8", "device",
            "cuda", "accelerator", "FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor",
            "IntTensor", "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor", "tensortype",
            "set_default_tensor_type", "memory_format", "layout", "contiguous_format",
            "preserve_format", "channels_last", "channels_last_3d", "strided", "norm"]
           + _creation_all + _functions_all + _pointwise_all + _random_all + _reductions_all
           + _selection_all + _composite_all + _shaping_all
           + _statistics_all + ["masked", "scatter_reduce", "index_reduce"])

# torch.special, torch.signal and the rest of the elementwise functions (issue #28)
from . import signal, special  # noqa: E402
from .numeric import *  # noqa: F403,E402
from .numeric import __all__ as _numeric_all  # noqa: E402
__all__ += ["signal", "special"] + _numeric_all

for _name in _OUT:  # torch.add(a, b, out=c) & co.; Tensor methods stay as they are
    globals()[_name] = _with_out(globals()[_name])

from .decompositions import TOP_LEVEL as _DECOMPOSITIONS  # noqa: E402  (torch.det, torch.qr...)
globals().update(_DECOMPOSITIONS)
dist, renorm = linalg.dist, linalg.renorm
__all__ += [name for name in _DECOMPOSITIONS if name not in __all__] + ["dist", "renorm"]

_attach_methods(Tensor)  # x + y, x.exp(), x.detach()...: see dyngraph.methods

# complex and unsigned dtypes (issue #28/#30)
__all__ += ["complex64", "complex128", "cfloat", "cdouble", "uint16", "uint32", "uint64"]
from .complex import *  # noqa: F403,E402
from .complex import __all__ as _complex_all  # noqa: E402
__all__ += _complex_all
from . import fft  # noqa: E402  (torch.fft)
__all__ += ["fft"]
