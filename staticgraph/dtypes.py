"""``tf.dtypes``: TF's dtype objects (``tf.float32``) -- names only; the code lives in
``framework/dtypes.py``."""
from __future__ import annotations

from .framework.dtypes import *  # noqa: F403
from .framework.dtypes import resource

__all__ = ["DType", "as_dtype", "float16", "float32", "float64", "int8", "int16", "int32",
           "int64", "uint8", "bool", "string", "double", "half", "resource", "complex64",
           "complex128", "uint16", "uint32", "uint64", "bfloat16", "float8_e4m3fn", "float8_e5m2"]
