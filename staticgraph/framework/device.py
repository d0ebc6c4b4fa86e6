"""``tf.device``: where an op asks to run, as TF 1.x records it.

A device string names a place in a cluster, every part optional::

    /job:worker/replica:0/task:1/device:CPU:0
     ^ job name  ^ replica  ^ task   ^ device type and index ("*": any)

``with tf.device(spec):`` pushes ``spec`` on the graph's device stack; each new
op's ``device`` is computed from that stack the way TF does it, innermost
scope first:

* a string (or :class:`DeviceSpec`) is *merged*: fields the op's device
  already has win, the scope fills the ones it lacks -- so
  ``/job:ps`` inside ``/job:worker/task:1`` gives ``/job:ps/task:1``;
* a function ``op -> str`` replaces the device with its result (uncanonicalized);
* ``tf.device(None)`` hides every outer scope; ``tf.device("")`` changes nothing.

The string is only a request: :mod:`staticgraph.client.distributed` reads job and task
to pin each partition of the graph to a worker.

    >>> DeviceSpec.from_string("/job:ps").make_merged_spec(DeviceSpec(task=2)).to_string()
    '/job:ps/task:2'
"""
from __future__ import annotations

from typing import Callable, NamedTuple, Union

__all__ = ["DeviceSpec", "canonical", "device_for"]

_DEVICE_TYPES = frozenset({"CPU", "GPU", "TPU", "CUSTOM", "EPU"})


class DeviceSpec(NamedTuple):
    """A (possibly partial) device: job, replica, task, device type and index (None: unset)."""

    job: str | None = None
    replica: int | None = None
    task: int | None = None
    device_type: str | None = None
    device_index: int | None = None

    @classmethod
    def from_string(cls, spec: str | None) -> "DeviceSpec":
        """Parse ``/job:.../replica:.../task:.../device:TYPE:i`` (TF's parser and errors)."""
        job = replica = task = device_type = device_index = None
        for y in [x.split(":") for x in (spec or "").split("/")]:
            n = len(y)
            if n == 2 and y[0] == "job":
                job = y[1]
            elif n == 2 and y[0] == "replica":
                replica = int(y[1])
            elif n == 2 and y[0] == "task":
                task = int(y[1])
            elif n in (1, 2) and y[0].upper() in _DEVICE_TYPES or n == 3 and y[0] == "device":
                if device_type is not None:
                    raise ValueError(f"Multiple device types are not allowed while parsing the "
                                     f"device spec: {spec}.")
                kind, index = (y[0].upper(), y[1] if n == 2 else "*") if n < 3 else (y[1], y[2])
                device_type = kind.upper() if kind in ("cpu", "gpu") else kind
                device_index = None if index == "*" else int(index)
            elif y[0] != "":
                raise ValueError(f"Unknown attribute '{y[0]}' is encountered while parsing the "
                                 f"device spec: '{spec}'.")
        return cls(job, replica, task, device_type, device_index)

    def to_string(self) -> str:
        parts = []
        if self.job is not None:
            parts.append(f"/job:{self.job}")
        if self.replica is not None:
            parts.append(f"/replica:{self.replica}")
        if self.task is not None:
            parts.append(f"/task:{self.task}")
        if self.device_type is not None:
            index = "*" if self.device_index is None else self.device_index
            parts.append(f"/device:{self.device_type}:{index}")
        return "".join(parts)

    def __repr__(self) -> str:
        return (f"<DeviceSpec(job={self.job}, replica={self.replica}, task={self.task}, "
                f"device_type={self.device_type}, device_index={self.device_index})>")

    def make_merged_spec(self, dev: "DeviceSpec") -> "DeviceSpec":
        """This spec with every field ``dev`` sets taken from ``dev`` (``dev`` wins)."""
        job, replica, task, device_type, device_index = self
        if dev.job is not None:
            job = dev.job
        if dev.replica is not None:
            replica = dev.replica
        if dev.task is not None:
            task = dev.task
        if dev.device_type is not None:
            device_type, device_index = dev.device_type, dev.device_index
        return DeviceSpec(job, replica, task, device_type, device_index)


def canonical(spec: "str | DeviceSpec | None") -> str:
    """The canonical string of a device spec (``"/cpu:0"`` -> ``"/device:CPU:0"``)."""
    if isinstance(spec, DeviceSpec):
        return spec.to_string()
    return DeviceSpec.from_string(spec).to_string()


Scope = Union[DeviceSpec, Callable, None]
"""One entry of a graph's device stack: a parsed spec to merge, a device function, or None."""


def scope_entry(spec) -> Scope | str:
    """What ``tf.device(spec)`` pushes: parsed now, so a bad string fails at the ``with``."""
    if spec is None or callable(spec) and not isinstance(spec, DeviceSpec):
        return spec
    if isinstance(spec, DeviceSpec):
        return spec
    if spec == "":
        return ""
    return DeviceSpec.from_string(spec)


def device_for(stack: list, op) -> str:
    """The device of a new ``op`` under ``stack`` (outermost first), by TF's rule."""
    device = ""
    for entry in reversed(stack):
        if entry is None:
            break
        if entry == "":
            continue
        if isinstance(entry, DeviceSpec):
            device = entry.make_merged_spec(DeviceSpec.from_string(device)).to_string()
        else:
            device = entry(op)
            device = device.to_string() if isinstance(device, DeviceSpec) else device
    return device
