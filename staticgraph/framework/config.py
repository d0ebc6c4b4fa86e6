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


class _Enum(int):
    """A proto enum value: compares as its number, prints as its name (``FULL_TRACE``)."""

    def __new__(cls, name: str, number: int) -> "_Enum":
        self = super().__new__(cls, number)
        self._name = name
        return self

    def __str__(self) -> str:
        return self._name

    __repr__ = __str__


def _enum(cls: type, **values: int) -> None:
    """Declare an enum's values as class attributes of the message (TF: ``RunOptions.FULL_TRACE``)."""
    for name, number in values.items():
        setattr(cls, name, _Enum(name, number))


class _Message:
    """Fields set by keyword or attribute; sub-messages made on first access (as protobuf);
    ``_repeated`` fields start as empty lists."""

    _children: dict[str, type] = {}
    _repeated: tuple[str, ...] = ()

    def __init__(self, **fields: Any):
        for k, v in fields.items():
            setattr(self, k, v)

    def __getattr__(self, name: str):
        child = type(self)._children.get(name)
        if child is None and name not in type(self)._repeated:
            raise AttributeError(f"'{type(self).__name__}' has no field '{name}'")
        value = child() if child is not None else []
        object.__setattr__(self, name, value)
        return value

    def _lines(self, indent: str) -> list[str]:
        out = []
        for k, v in vars(self).items():
            if isinstance(v, _Message):
                inner = v._lines(indent + "  ")
                if inner:
                    out += [f"{indent}{k} {{", *inner, f"{indent}}}"]
            elif isinstance(v, list):
                out += [line for item in v for line in (
                    [f"{indent}{k} {{", *item._lines(indent + "  "), f"{indent}}}"]
                    if isinstance(item, _Message) else [f"{indent}{k}: {item}"])]
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


_enum(OptimizerOptions, L1=0, L0=-1, DEFAULT=0, OFF=-1, ON_1=1, ON_2=2)


class GraphOptions(_Message):
    _children = {"optimizer_options": OptimizerOptions}


class ConfigProto(_Message):
    _children = {"gpu_options": GPUOptions, "graph_options": GraphOptions}


class RunOptions(_Message):
    pass


_enum(RunOptions, NO_TRACE=0, SOFTWARE_TRACE=1, HARDWARE_TRACE=2, FULL_TRACE=3)


class StepStats(_Message):
    _repeated = ("dev_stats",)


class CostGraphDef(_Message):
    _repeated = ("node", "cost")


class RunMetadata(_Message):
    """What TF fills in when ``run_metadata=`` is passed; kept empty here (no per-device trace
    to report: one process, one CPU plan)."""

    _children = {"step_stats": StepStats, "cost_graph": CostGraphDef}
    _repeated = ("partition_graphs", "function_graphs")
