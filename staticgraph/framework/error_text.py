"""TF's error layout, written once: the node tag, the node summary and the shape-inference form.

TensorFlow builds every error that names a node from the same few pieces (C++
``node_def_util``: ``FormatNodeNameForError``, ``SummarizeNodeDef``; the shape-inference
context's ``DebugString`` for shapes).  Users search for the resulting text, so every site
here that reports a node builds it from these functions rather than by hand.  The layouts,
checked against TF 2.21 (``tf.compat.v1``, graph mode)::

    Input to reshape is a tensor with 3 values, but the requested shape has 4
    \t [[{{node Reshape}}]]                                          <- at_node (run time)

    can't split axis of size 5 into pieces of size [2,2] for '{{node split}} = SplitV[T=DT_FLOAT,
    Tlen=DT_INT32, num_split=2](Placeholder, Const, split/split_dim)' with input shapes: [5,3],
    [2], [] and with computed input tensors: input[1] = <2 2>, input[2] = <0>.
                                                                  <- shape_inference_error (build)

Attributes print sorted by name (``N``, ``T``, ``Tidx``, then lower-case ones: plain string
order), dtypes as ``DT_FLOAT``/``DT_INT32``, booleans as ``true``/``false``, shapes as
``[2,3]`` with ``?`` for an unknown dimension and ``?`` alone for an unknown rank.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from common.shapes import tf_shape  # the kernels' shape words, shared with common/ops

__all__ = ["node_tag", "at_node", "dt_name", "tf_shape", "ShapeAttr", "input_names", "node_summary",
           "shape_inference_error"]


def node_tag(name: str) -> str:
    """``{{node NAME}}``: how TF names a node inside any error message."""
    return f"{{{{node {name}}}}}"


def at_node(message: str, name: str) -> str:
    """``message`` as TF's runtime reports a failing kernel: the sentence, then the node on
    its own line (``message\\n\\t [[{{node NAME}}]]``)."""
    return f"{message}\n\t [[{node_tag(name)}]]"


def dt_name(dtype: Any) -> str:
    """TF's DataType enum name for a DType (``float32`` -> ``DT_FLOAT``, ``float64`` ->
    ``DT_DOUBLE``, ``int32`` -> ``DT_INT32``)."""
    return "DT_" + dtype.tf_name.upper()




class ShapeAttr(tuple):
    """A ``shape`` attribute's value: TF prints it as a shape (``shape=[2,?]``), not as a list
    of ints (``[1, 2]``)."""


def input_names(tensors: Iterable[Any]) -> list[str]:
    """A node's inputs as TF lists them: the producing op's name for output 0 (``Const``),
    ``op:i`` for another output (``split:1``)."""
    return [t.op.name if t.value_index == 0 else t.name for t in tensors]


def _attr_value(value: Any) -> str:
    """One attribute value in TF's summary spelling."""
    if hasattr(value, "tf_name"):
        return dt_name(value)
    if isinstance(value, ShapeAttr):
        return tf_shape(value)
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_attr_value(v) for v in value) + "]"
    return str(value)


def node_summary(name: str, op_type: str, attrs: Mapping[str, Any], inputs: Iterable[str]) -> str:
    """``{{node NAME}} = Op[T=DT_FLOAT, num_split=2](in1, in2)``: a node as TF summarises its
    NodeDef (attributes sorted by name, as TF sorts them; no brackets when there are none)."""
    attr_text = ", ".join(f"{k}={_attr_value(attrs[k])}" for k in sorted(attrs))
    return f"{node_tag(name)} = {op_type}{f'[{attr_text}]' if attr_text else ''}({', '.join(inputs)})"


def _computed_value(value: Any) -> str:
    """A constant input's value as TF lists it: ``<2 2>``, ``<0>``."""
    return "<" + " ".join(str(v) for v in np.ravel(value)) + ">"


def shape_inference_error(reason: str, name: str, op_type: str, attrs: Mapping[str, Any],
                          inputs: Iterable[str], shapes: Iterable[Sequence[int | None] | None],
                          computed: Mapping[int, Any] | None = None) -> str:
    """TF's build-time failure of an op's shape function: ``REASON for 'SUMMARY' with input
    shapes: [2,3], [4].``, plus `` and with computed input tensors: input[1] = <2 2>`` when TF
    knew some inputs' values (``computed`` maps input index to value)."""
    text = (f"{reason} for '{node_summary(name, op_type, attrs, inputs)}' with input shapes: "
            + ", ".join(tf_shape(s) for s in shapes))
    if computed:
        text += " and with computed input tensors: " + ", ".join(
            f"input[{i}] = {_computed_value(computed[i])}" for i in sorted(computed))
    return text + "."
