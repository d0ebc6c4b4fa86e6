"""Structural nodes that are not math: placeholders, no-ops, groups and print ops.

Their run-time behaviour lives in ``kinds.py``; here they are only built.
"""
from __future__ import annotations

import pprint
import sys
from typing import Any

from . import dtypes as _dtypes
from .build import convert_to_tensor
from .graph import Operation, Tensor, get_default_graph
from .shape import TensorShape, as_shape_tuple
from ..util import nest

__all__ = ["placeholder", "placeholder_with_default", "no_op", "group", "Print", "print_op"]


def placeholder(dtype, shape=None, name: str | None = None) -> Tensor:
    """A value to be fed at run time; ``None`` dims (or shape None) are unknown until then."""
    dt = _dtypes.as_dtype(dtype)
    op = get_default_graph().create_op("Placeholder", (), {"dtype": dt, "shape": as_shape_tuple(shape)},
                                       [(as_shape_tuple(shape), dt._np)], name=name or "Placeholder")
    return op.outputs[0]


def placeholder_with_default(input: Any, shape, name: str | None = None) -> Tensor:  # noqa: A002
    """``input`` unless fed; the static shape may be looser than the default's."""
    default = convert_to_tensor(input)
    shape = as_shape_tuple(shape)
    if not TensorShape(shape).is_compatible_with(default._shape):
        raise ValueError(f"Shape {TensorShape(shape)} of placeholder_with_default is not "
                         f"compatible with its default value's shape {default.shape}")
    op = get_default_graph().create_op("PlaceholderWithDefault", (default,), {"shape": shape},
                                       [(shape, default.np_dtype)], name=name or "PlaceholderWithDefault")
    return op.outputs[0]


def no_op(name: str | None = None) -> Operation:
    return get_default_graph().create_op("NoOp", (), {}, [], name=name or "NoOp")


def _flat(items) -> list:
    """Nested lists and tuples of inputs, flattened (TF's group takes ``group([a, b])`` too)."""
    out = []
    for item in items:
        out.extend(_flat(item) if isinstance(item, (list, tuple)) else [item])
    return out


def group(*inputs, name: str | None = None) -> Operation:
    """One op that runs all ``inputs`` (tensors or ops): a NoOp with control inputs."""
    ops = [i.op if isinstance(i, Tensor) else getattr(i, "op", i) if not isinstance(i, Operation) else i
           for i in _flat(inputs)]
    return get_default_graph().create_op("NoOp", (), {}, [], name=name or "group_deps",
                                         control_inputs=tuple(dict.fromkeys(ops)))


def Print(input_, data, message: str | None = None, first_n: int | None = None,  # noqa: N802
          summarize: int | None = None, name: str | None = None) -> Tensor:
    """TF1's ``tf.Print``: an identity of ``input_`` that prints ``data`` when it runs."""
    x = convert_to_tensor(input_)
    data = [convert_to_tensor(d) for d in data]
    op = get_default_graph().create_op(
        "Print", (x, *data), {"message": message or "", "first_n": first_n, "summarize": summarize},
        [(x._shape, x.np_dtype)], name=name or "Print")
    return op.outputs[0]


def print_op(*inputs, output_stream=sys.stderr, summarize: int | None = 3, sep: str = " ",
             end: str = "\n", name: str | None = None) -> Operation:
    """``tf.print``: an op (run it or make it a control dependency) printing its inputs.

    As TF builds its template: a Python string is printed as is, any other input (a tensor, or
    a nested structure holding tensors) with ``pprint.pformat``, each tensor shown in TF's
    layout (``[[1 2.5]\n [3 4]]``, ``summarize`` entries at each end of an axis).
    """
    marker = "\x00TENSOR\x00"
    templates, tensors = [], []
    for x in inputs:
        if isinstance(x, str):
            templates.append(x)
            continue
        flat = []
        for leaf in nest.flatten(x):
            if isinstance(leaf, Tensor) or hasattr(leaf, "_as_graph_element"):
                tensors.append(convert_to_tensor(leaf))
                flat.append(marker)
            else:
                flat.append(leaf)
        templates.append(pprint.pformat(nest.pack_sequence_as(x, flat)))
    template = sep.join(templates).replace(repr(marker), marker)
    stream = "stdout" if output_stream in (sys.stdout, "stdout") else "stderr"
    return get_default_graph().create_op(
        "PrintV2", tuple(tensors), {"template": tuple(template.split(marker)), "output_stream": stream,
                                    "end": end, "summarize": summarize},
        [], name=name or "PrintV2")
