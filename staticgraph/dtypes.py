"""``tf.dtypes``: TF's dtype objects (``tf.float32``) -- names only; the code lives in
``framework/dtypes.py``."""
from __future__ import annotations

import types as _types

from .framework.dtypes import *  # noqa: F403
from .framework.dtypes import resource
from .framework import dtypes as _framework_dtypes

__all__ = ["DType", "as_dtype", "float16", "float32", "float64", "int8", "int16", "int32",
           "int64", "uint8", "bool", "string", "double", "half", "resource", "complex64",
           "complex128", "uint16", "uint32", "uint64", "bfloat16", "float8_e4m3fn", "float8_e5m2",
           "experimental"]

# ``tf.dtypes.experimental``: where TF keeps its narrow types (the float8s, int4/uint4/int2/uint2)
experimental = _types.ModuleType(__name__ + ".experimental", "TF's experimental dtypes.")
for _name in ("float8_e4m3fn", "float8_e5m2", "int4", "uint4", "int2", "uint2"):
    setattr(experimental, _name, getattr(_framework_dtypes, _name))
del _name
