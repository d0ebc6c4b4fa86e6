"""The single op registry shared by both engines.

The modules, in the order an op is put together::

    registry      OpDef / defop (forward, shape rule, gradient rules, facts), Namespace ``F``
    shapes        partial-shape rules, the one broadcast-gradient helper, shape comparisons
    indexing      ``x[key]`` encoded as hashable attributes; its shape rule
    examples      example inputs every op declares (they drive the registry tests)
    ops/          the declarations, by family: elementwise, reduce, shape, linalg, nn, misc,
                  conv, pool, gather_scatter, sequence, random
    composites    mean, softmax, losses... written with ``F`` (both engines get them)
    layers        layer math as composites (dropout with a given mask, batch/layer norm...)
    philox        TF's random stream: Philox4x32-10 on arrays, reservations, bits to numbers
    libm          glibc's logf/sincosf bit for bit (TF's float Box-Muller calls them)
    rejection     TF's Gamma and Poisson samplers, output by output in lockstep
    numerics      the opt-in NaN/Inf check mode
    checkpoint    atomic array files (both engines' save/restore)
    tensorboard   event-file summaries shared by both engines' writers
    errors        ShapeError, DTypeError
    layout        layered drawing coordinates of a graph (Sugiyama, simply)
    display       both engines' graphs drawn with matplotlib over layout: picture files and
                  notebook display (_repr_svg_), large graphs folded by name scope
    notebook      HTML pieces for notebook display (collapsible sections, tables)
    blas          the one product entry point (matmul, gemm): MKL where the mkl wheel is
                  installed, numpy otherwise; primes numpy's OpenBLAS at import

>>> from common import REGISTRY
>>> REGISTRY["Mul"].torch_name
'MulBackward0'
"""
from . import ops  # noqa: F401  (registers every op)
from . import blas  # noqa: F401  (primes OpenBLAS's sgemm buffer: see its docstring)
from .errors import DTypeError, ShapeError
from .registry import REGISTRY, Namespace, OpDef, ShapeRef, Spec, defop, get_op, numpy_namespace

__all__ = ["REGISTRY", "Namespace", "OpDef", "ShapeRef", "Spec", "defop", "get_op",
           "numpy_namespace", "ShapeError", "DTypeError"]
