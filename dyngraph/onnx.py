"""``torch.onnx.export`` for dyngraph: trace the eager model, write the traced graph as ONNX.

As PyTorch's TorchScript-based exporter does, the model is run once on the
example arguments through :func:`dyngraph.jit.trace`; what it recorded is the
model.  A Python ``if``/``while`` on a tensor's value runs once, on the
example, so the exported graph keeps only that path -- the trace warns
(``TracerWarning: Converting a tensor to a Python boolean might cause the
trace to be incorrect...``) at the line that did it::

    model(x) ---- jit.trace ----> static graph (params as placeholders)
                                    |  staticgraph.interop.onnx (the jit bridge)
                                    v
                           ONNX: inputs, params as initializers, nodes

>>> import dyngraph as torch                                           # doctest: +SKIP
>>> torch.onnx.export(model, (x,), "model.onnx",
...                   dynamic_axes={"x": {0: "batch"}})                 # doctest: +SKIP
"""
from __future__ import annotations

import inspect
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from . import jit
from .tensor import Tensor

__all__ = ["export"]


def _arg_names(model: Any, n: int) -> list[str]:
    """The forward's parameter names (as PyTorch names graph inputs), else ``input_<i>``."""
    fn = getattr(model, "forward", model)
    try:
        params = [p.name for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    return params[:n] if len(params) >= n else [f"input_{i}" for i in range(n)]


def _param_names(model: Any) -> dict[int, str]:
    named = getattr(model, "named_parameters", None)
    return {id(p): name for name, p in named()} if callable(named) else {}


def _dynamic(name: str, rank: int, fixed: tuple, spec: Any) -> list:
    """A shape with ``dynamic_axes``' dims symbolic (a list of axes gets generated names)."""
    shape: list = list(fixed)
    if spec is None:
        return shape
    axes = spec.items() if isinstance(spec, Mapping) else (
        (a, f"{name}_dynamic_axes_{k + 1}") for k, a in enumerate(spec))
    for axis, dim in axes:
        if not -rank <= axis < rank:
            raise ValueError(f"dynamic_axes: axis {axis} of {name!r} is out of range for rank {rank}")
        shape[axis] = dim
    return shape


def export(model: Callable, args: Any, f: str, *, input_names: Sequence[str] | None = None,
           output_names: Sequence[str] | None = None, opset_version: int | None = None,
           dynamic_axes: Mapping[str, Any] | None = None, export_params: bool = True):
    """Trace ``model(*args)`` and write it to ``f`` as an ONNX model; returns the ``ModelProto``.

    ``dynamic_axes``: ``{input_or_output_name: {axis: "dim_name"}}`` (or a list
    of axes); every other input dim is fixed to the example's size, as in
    PyTorch.  Parameters become initializers named as in ``named_parameters()``.
    """
    if not export_params:
        raise ValueError("export_params=False is not supported: parameters are exported as "
                         "initializers")
    from staticgraph.interop.onnx.export import to_model   # the jit bridge: the traced graph is static
    import onnx  # an optional dependency (the onnx extra)
    args = args if isinstance(args, tuple) else (args,)
    traced = jit.trace(model, args)
    cf, n = traced.cf, traced.n_inputs
    names = list(input_names or _arg_names(model, n))
    outs = list(output_names or (["output"] if len(cf.outputs) == 1 else
                                 [f"output_{i}" for i in range(len(cf.outputs))]))
    dynamic = dict(dynamic_axes or {})
    unknown = sorted(set(dynamic) - set(names) - set(outs))
    if unknown:
        raise ValueError(f"dynamic_axes names {unknown} are neither input names {names} nor "
                         f"output names {outs}")
    shapes = {}
    for k, (name, x) in enumerate(zip(names, args)):
        a = x._data if isinstance(x, Tensor) else np.asarray(x)
        shapes[k] = _dynamic(name, a.ndim, a.shape, dynamic.get(name))
    pnames = _param_names(model)
    constants = {sym: (pnames.get(id(p), sym.op.name), p._data)
                 for sym, p in zip(cf.inputs[n:], traced.params)}
    model_proto = to_model(None, cf.outputs, cf.inputs[:n], opset_version, shapes,
                           graph=cf.graph, input_names=names, output_names=outs,
                           constants=constants)
    for out, vi in zip(outs, model_proto.graph.output):
        if out in dynamic:
            dims = vi.type.tensor_type.shape.dim
            for axis, dim in enumerate(_dynamic(out, len(dims), [None] * len(dims), dynamic[out])):
                if isinstance(dim, str):
                    dims[axis].dim_param = dim
    onnx.save(model_proto, str(f))
    return model_proto
