"""``torch.device`` and ``torch.cuda``: this engine computes on the CPU only.

A script may name devices freely (``torch.device("cuda")`` is just a value, as
in PyTorch); asking to *put* data on a GPU fails loudly with PyTorch's CPU-build
error, never silently computing on the CPU instead.

>>> device("cuda:1")
device(type='cuda', index=1)
>>> cuda.is_available()
False
"""
from __future__ import annotations

from types import SimpleNamespace

__all__ = ["device", "check_device", "cuda", "accelerator", "NO_CUDA"]

NO_CUDA = "Torch not compiled with CUDA enabled"
_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga",
          "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")


class device:
    """A device name: ``device("cpu")``, ``device("cuda", 0)``, ``device("cuda:1")``."""

    __slots__ = ("type", "index")

    def __init__(self, type: "str | device", index: int | None = None):
        if isinstance(type, device):
            type, index = type.type, type.index
        elif ":" in type:
            type, _, idx = type.partition(":")
            index = int(idx)
        if type not in _TYPES:
            raise RuntimeError(f"Expected one of {', '.join(_TYPES)} device type at start of "
                               f"device string: {type}")
        self.type, self.index = type, index

    def __repr__(self) -> str:
        tail = "" if self.index is None else f", index={self.index}"
        return f"device(type='{self.type}'{tail})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other) -> bool:
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))


CPU = device("cpu")


def check_device(d) -> None:
    """Refuse any device but the CPU (``AssertionError``, as a CPU-only PyTorch build)."""
    if d is not None and device(d).type != "cpu":
        raise AssertionError(NO_CUDA)


def _no_cuda(*_, **__):
    raise AssertionError(NO_CUDA)


cuda = SimpleNamespace(is_available=lambda: False, device_count=lambda: 0,
                       manual_seed=lambda seed: None, manual_seed_all=lambda seed: None,
                       current_device=_no_cuda, synchronize=_no_cuda)
"""``torch.cuda``: no GPU here (``is_available()`` is False; seeding it is a no-op, as PyTorch's)."""

accelerator = SimpleNamespace(is_available=lambda: False, current_accelerator=lambda: None,
                              device_count=lambda: 0)
"""``torch.accelerator`` (PyTorch 2.6+): none here, so scripts pick ``"cpu"``."""
