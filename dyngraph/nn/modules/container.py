"""``torch.nn.modules.container``: Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict."""
from ..containers import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential

__all__ = ["ModuleDict", "ModuleList", "ParameterDict", "ParameterList", "Sequential"]
