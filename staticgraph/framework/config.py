"""``tf.ConfigProto``, ``tf.GPUOptions``, ``tf.RunOptions``...: the session options TF1 scripts
build (``config.gpu_options.allow_growth = True``). Accepted and kept, as attribute bags that
print like protos; this engine runs on the CPU in one process, so none changes a run.

>>> import staticgraph as tf
>>> c = tf.ConfigProto(allow_soft_placement=True)
>>> c.gpu_options.allow_growth = True
>>> print(c, end="")
allow_soft_placement: true
gpu_options {
  allow_growth: true
}
"""
from __future__ import annotations

from typing import Any

__all__ = ["ConfigProto", "GPUOptions", "GraphOptions", "OptimizerOptions", "RunOptions",
           "RunMetadata"]


class _Message:
    """Fields set by keyword or attribute; sub-messages made on first access (as protobuf)."""

    _children: dict[str, type] = {}

    def __init__(self, **fields: Any):
        for k, v in fields.items():
            setattr(self, k, v)

    def __getattr__(self, name: str):
        child = type(self)._children.get(name)
        if child is None:
            raise AttributeError(f"'{type(self).__name__}' has no field '{name}'")
        value = child()
        object.__setattr__(self, name, value)
        return value

    def _lines(self, indent: str) -> list[str]:
        out = []
        for k, v in vars(self).items():
            if isinstance(v, _Message):
                inner = v._lines(indent + "  ")
                if inner:
                    out += [f"{indent}{k} {{", *inner, f"{indent}}}"]
            elif v is False or v == 0 or v == "":     # proto3: defaults are not printed
                continue
            elif isinstance(v, bool):
                out.append(f"{indent}{k}: {str(v).lower()}")
            elif isinstance(v, str):
                out.append(f'{indent}{k}: "{v}"')
            else:
                out.append(f"{indent}{k}: {v}")
        return out

    def __str__(self) -> str:
        return "".join(line + "\n" for line in self._lines(""))

    def __repr__(self) -> str:
        return str(self)


class GPUOptions(_Message):
    pass


class OptimizerOptions(_Message):
    pass


class GraphOptions(_Message):
    _children = {"optimizer_options": OptimizerOptions}


class ConfigProto(_Message):
    _children = {"gpu_options": GPUOptions, "graph_options": GraphOptions}


class RunOptions(_Message):
    FULL_TRACE, NO_TRACE, SOFTWARE_TRACE, HARDWARE_TRACE = 3, 0, 1, 2


class RunMetadata(_Message):
    pass
