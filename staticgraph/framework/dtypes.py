"""TF-style dtype objects (``tf.float32``) over numpy dtypes.

TensorFlow prints dtypes as ``<dtype: 'float32'>`` and compares them with
anything numpy understands (``t.dtype == np.float32`` is True), so a DType
here is a thin, interned wrapper around a ``numpy.dtype``.
"""
from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from common.shapes import EXTENDED_FLOATS, EXTENDED_INTS

__all__ = ["DType", "as_dtype", "float16", "float32", "float64", "int8", "int16", "int32",
           "int64", "uint8", "bool", "string", "double", "half", "complex64", "complex128",
           "uint16", "uint32", "uint64", "bfloat16", "float8_e4m3fn", "float8_e5m2", "int4", "uint4", "int2", "uint2"]

_builtin_bool = bool


class DType:
    """A tensor element type; interned, so one object exists per numpy dtype."""

    __slots__ = ("_np",)
    _cache: dict = {}

    def __new__(cls, np_dtype) -> "DType":
        np_dtype = np.dtype(np_dtype)
        self = cls._cache.get(np_dtype)
        if self is None:
            self = object.__new__(cls)
            self._np = np_dtype
            cls._cache[np_dtype] = self
        return self

    @property
    def name(self) -> str:
        return "string" if self._np.kind in "SUO" else self._np.name

    @property
    def as_numpy_dtype(self) -> type:
        return self._np.type

    @property
    def base_dtype(self) -> "DType":
        """This dtype without a reference (``float32_ref`` -> ``float32``; a base is its own)."""
        return self

    @property
    def _as_ref(self) -> "DType":
        """The reference dtype over this one (``float32_ref``: what TF1's ref variables show)."""
        return _Ref(self)

    @property
    def is_floating(self) -> _builtin_bool:
        # np.issubdtype(.., np.floating) without its cost, plus ml_dtypes' bfloat16/float8
        return self._np.kind == "f" or self._np in EXTENDED_FLOATS

    @property
    def is_integer(self) -> _builtin_bool:
        # np.issubdtype(.., np.integer) without its cost, plus ml_dtypes' int4/uint4/int2/uint2
        return self._np.kind in "iu" or self._np in EXTENDED_INTS

    @property
    def is_bool(self) -> _builtin_bool:
        return self._np == np.bool_

    @property
    def is_complex(self) -> _builtin_bool:
        return self._np.kind == "c"

    @property
    def is_unsigned(self) -> _builtin_bool:
        return self._np.kind == "u" or EXTENDED_INTS.get(self._np) == "u"

    @property
    def is_quantized(self) -> _builtin_bool:
        return False                   # no qint8/quint8 tensors here

    @property
    def is_numpy_compatible(self) -> _builtin_bool:
        return True

    @property
    def real_dtype(self) -> "DType":
        """The dtype of a value's real part (itself for a real dtype)."""
        return DType(np.empty((), self._np).real.dtype) if self._np.kind == "c" else self

    @property
    def size(self) -> int:
        """Bytes per element (0 for strings, as TF)."""
        return 0 if self._np.kind in "SUO" else self._np.itemsize

    @property
    def as_datatype_enum(self) -> int:
        """TF's ``DataType`` proto number (DT_FLOAT = 1, ...)."""
        return _DATATYPE_ENUM[self.name]

    @property
    def min(self):
        """The lowest finite value (a numpy scalar for floats, an int for integers)."""
        return self._limit("minimum", lambda i: i.min)

    @property
    def max(self):
        """The highest finite value."""
        return self._limit("maximum", lambda i: i.max)

    def _limit(self, which: str, pick):
        kind = self._np.kind
        if self.is_floating:           # ml_dtypes.finfo also knows bfloat16 and the float8s
            return self._np.type(pick(ml_dtypes.finfo(self._np)))
        if kind in "iu":
            return int(pick(np.iinfo(self._np)))
        if self._np in EXTENDED_INTS:  # numpy's iinfo does not know int4...: ml_dtypes' does
            return int(pick(ml_dtypes.iinfo(self._np)))
        raise TypeError(f"Cannot find {which} value of {self} with type {self}.")

    def is_compatible_with(self, other: Any) -> _builtin_bool:
        """Same dtype, or ``other`` is a reference over this one (TF: ``float32`` accepts
        ``float32_ref``, not the reverse)."""
        try:
            return as_dtype(other).base_dtype is self
        except TypeError:
            return False

    @property
    def tf_name(self) -> str:
        """The name TF's runtime errors use (``float`` for float32, ``double`` for float64)."""
        return _TF_NAMES.get(self._np.name, self.name)

    def __eq__(self, other: Any) -> _builtin_bool:
        if other is self:
            return True
        try:
            return as_dtype(other) is self
        except TypeError:
            return False

    def __hash__(self) -> int:
        return hash(self._np)

    def __repr__(self) -> str:
        return f"tf.{self.name}"

    def __str__(self) -> str:
        return f"<dtype: '{self.name}'>"

    def __reduce__(self):
        return (DType, (self._np,))


_TF_NAMES = {"float32": "float", "float64": "double", "float16": "half"}
# TF's types.proto DataType numbers
_DATATYPE_ENUM = {"float32": 1, "float64": 2, "int32": 3, "uint8": 4, "int16": 5, "int8": 6,
                  "string": 7, "complex64": 8, "int64": 9, "bool": 10, "float16": 19,
                  "complex128": 18, "resource": 20, "uint16": 17, "uint32": 22, "uint64": 23,
                  "bfloat16": 14, "float8_e5m2": 24, "float8_e4m3fn": 25,
                  "int4": 29, "uint4": 30, "int2": 31, "uint2": 32}


def as_dtype(value: Any) -> DType:
    """A DType from a DType, numpy dtype/type, or name (``"float32"``)."""
    if isinstance(value, DType):
        return value
    if value is None:
        raise TypeError("cannot convert None to a dtype")
    if isinstance(value, str) and value == "resource":
        return resource
    if isinstance(value, str) and value == "string":
        return string
    if isinstance(value, str) and value.endswith("_ref"):
        return as_dtype(value[:-4])._as_ref
    if isinstance(value, str) and value in ("float", "double", "half"):
        value = {"float": "float32", "double": "float64", "half": "float16"}[value]
    try:
        dt = np.dtype(value)
    except TypeError:
        raise TypeError(f"cannot convert {value!r} to a dtype") from None
    # raw strings, records, long-double complex (object "O" is tf.string / plumbing)
    if ((dt.kind in "SUV" and dt not in EXTENDED_FLOATS and dt not in EXTENDED_INTS)
            or dt == np.clongdouble):
        raise TypeError(f"staticgraph has no {dt} tensors (supported: float16/32/64, bfloat16, "
                        f"float8_e4m3fn, float8_e5m2, complex64/128, int8/16/32/64, "
                        f"uint8/16/32/64, int4, uint4, int2, uint2, bool)")
    return DType(dt)


float16 = half = DType(np.float16)
float32 = DType(np.float32)
float64 = double = DType(np.float64)
int8 = DType(np.int8)
int16 = DType(np.int16)
int32 = DType(np.int32)
int64 = DType(np.int64)
uint8 = DType(np.uint8)
bool = DType(np.bool_)  # noqa: A001  (TF's name)
complex64 = DType(np.complex64)
complex128 = DType(np.complex128)
uint16 = DType(np.uint16)
uint32 = DType(np.uint32)
uint64 = DType(np.uint64)
string = DType(np.object_)
# ml_dtypes' numpy types, as TF itself holds them (numpy ufuncs compute on them directly)
bfloat16 = DType(ml_dtypes.bfloat16)
float8_e4m3fn = DType(ml_dtypes.float8_e4m3fn)
float8_e5m2 = DType(ml_dtypes.float8_e5m2)
# ml_dtypes' narrow integers (TF's ``tf.dtypes.experimental.int4``...): storage types that
# TF's data-movement kernels (split, concat, stack, gather...) accept, arithmetic does not
int4 = DType(ml_dtypes.int4)
uint4 = DType(ml_dtypes.uint4)
int2 = DType(ml_dtypes.int2)
uint2 = DType(ml_dtypes.uint2)


class _Resource(DType):
    """TF's ``resource`` dtype: what ``VarHandleOp`` outputs -- a handle naming a variable,
    not its value.  Reads (``ReadVariableOp``) and writes (``AssignVariableOp``...) take it
    as an input, so a loop body that uses a variable captures its handle like any tensor."""

    __slots__ = ()

    def __new__(cls) -> "_Resource":
        self = object.__new__(cls)
        self._np = np.dtype(object)
        return self

    @property
    def name(self) -> str:
        return "resource"

    @property
    def is_floating(self) -> _builtin_bool:
        return False

    def __eq__(self, other: Any) -> _builtin_bool:
        return other is self or other == "resource"

    def __hash__(self) -> int:
        return hash("resource")

    def __reduce__(self):
        return "resource"


resource = _Resource()


class _Ref(DType):
    """A reference dtype (``float32_ref``): the dtype TF1's ref variables report in classic
    mode (``tf.compat.v1.disable_resource_variables()``, :mod:`.behavior`).  It shares its
    base's numpy dtype; tensors never carry it (TF's ``constant``/``zeros``/``placeholder``
    strip it: ``Tensor`` stores ``base_dtype``), so only a ref variable's ``dtype`` shows it.
    One interned object per base."""

    __slots__ = ("_base",)
    _refs: dict = {}

    def __new__(cls, base: DType) -> "_Ref":
        self = cls._refs.get(base._np)
        if self is None:
            self = object.__new__(cls)
            self._np, self._base = base._np, base
            cls._refs[base._np] = self
        return self

    @property
    def name(self) -> str:
        return self._base.name + "_ref"

    @property
    def base_dtype(self) -> DType:
        return self._base

    @property
    def _as_ref(self) -> DType:
        return self

    @property
    def real_dtype(self) -> DType:
        return self._base.real_dtype._as_ref

    @property
    def as_datatype_enum(self) -> int:
        return self._base.as_datatype_enum + 100   # TF's DT_FLOAT_REF = DT_FLOAT + 100

    def is_compatible_with(self, other: Any) -> _builtin_bool:
        """Only the same reference dtype (TF: ``float32_ref`` does not accept ``float32``)."""
        try:
            return as_dtype(other) is self
        except TypeError:
            return False

    def __eq__(self, other: Any) -> _builtin_bool:
        return self.is_compatible_with(other)

    def __hash__(self) -> int:
        return hash((self._np, "ref"))

    def __reduce__(self):
        return (_Ref, (self._base,))
