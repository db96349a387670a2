"""MLIR types of the Kernel IR as numpy facts.

Every SSA value in the simulator is a numpy array whose leading axis is the thread
axis; this module says which dtype and trailing shape a given MLIR type becomes, and
what a memref type says about its memory (shape, strides, offset, address space).
"""

from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np

from accel.bindings import ir
from accel.diagnostics import AccelError

# `index` is 64-bit on AMDGPU targets as on the host.
_DTYPES = {
    "i1": np.dtype(np.bool_),
    "i8": np.dtype(np.int8),
    "i16": np.dtype(np.int16),
    "i32": np.dtype(np.int32),
    "i64": np.dtype(np.int64),
    "index": np.dtype(np.int64),
    "f16": np.dtype(np.float16),
    "bf16": np.dtype(ml_dtypes.bfloat16),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    # fp8: ml_dtypes' dtypes hold the bytes; values come from sim/fp8.py's decode.
    "f8E4M3FNUZ": np.dtype(ml_dtypes.float8_e4m3fnuz),
    "f8E5M2FNUZ": np.dtype(ml_dtypes.float8_e5m2fnuz),
    "f8E4M3FN": np.dtype(ml_dtypes.float8_e4m3fn),
    "f8E5M2": np.dtype(ml_dtypes.float8_e5m2),
}
FP8_NAMES = ("f8E4M3FNUZ", "f8E5M2FNUZ", "f8E4M3FN", "f8E5M2")
_MLIR_NAMES = {v: k for k, v in _DTYPES.items() if k != "index"}

# Unsigned views of the signless integer types, for divui/shrui/cmpi ult/extui/uitofp.
UNSIGNED = {
    np.dtype(np.bool_): np.dtype(np.bool_),
    np.dtype(np.int8): np.dtype(np.uint8),
    np.dtype(np.int16): np.dtype(np.uint16),
    np.dtype(np.int32): np.dtype(np.uint32),
    np.dtype(np.int64): np.dtype(np.uint64),
}

# MemRefType reports a dynamic stride/offset as this sentinel (ShapedType::kDynamic).
DYNAMIC = -9223372036854775808

WORKGROUP_SPACES = ("#gpu.address_space<workgroup>", "3", "3 : i32", "3 : i64")


def dtype_of(t: ir.Type, location=None) -> np.dtype:
    """numpy dtype of a scalar MLIR type."""
    name = str(t)
    if name not in _DTYPES:
        raise AccelError(f"simulator: unsupported element type '{name}'", location=location)
    return _DTYPES[name]


def mlir_name(dtype: np.dtype) -> str:
    return _MLIR_NAMES[np.dtype(dtype)]


def is_float(dtype: np.dtype) -> bool:
    return dtype.kind == "f" or dtype == _DTYPES["bf16"] or is_fp8(dtype)


def is_fp8(dtype: np.dtype) -> bool:
    return any(dtype == _DTYPES[t] for t in FP8_NAMES)


@dataclass(frozen=True)
class ValueType:
    """A scalar (shape ()) or vector value type: what each thread holds."""

    dtype: np.dtype
    shape: tuple[int, ...]


def value_type(t: ir.Type, location=None) -> ValueType:
    if isinstance(t, ir.VectorType) or str(t).startswith("vector<"):
        if "[" in str(t):
            raise AccelError(f"simulator: scalable vector type '{t}'", location=location)
        vt = ir.VectorType(t)
        return ValueType(dtype_of(vt.element_type, location), tuple(vt.shape))
    return ValueType(dtype_of(t, location), ())


@dataclass(frozen=True)
class MemRefInfo:
    """Static facts of a memref type. `offset` is None when dynamic."""

    dtype: np.dtype
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    offset: int | None
    workgroup: bool

    @property
    def elem_bytes(self) -> int:
        return self.dtype.itemsize

    @property
    def num_elements(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def extent(self) -> int:
        """Elements spanned from the view start to one past its last element."""
        if any(s == 0 for s in self.shape):
            return 0
        return 1 + sum((n - 1) * s for n, s in zip(self.shape, self.strides))


def memref_info(t: ir.Type, location=None) -> MemRefInfo:
    if not str(t).startswith("memref<"):
        raise AccelError(f"simulator: expected a memref type, got '{t}'", location=location)
    mt = ir.MemRefType(t)
    shape = tuple(mt.shape)
    if any(d == DYNAMIC for d in shape):
        raise AccelError(f"simulator: memref '{t}' has a dynamic shape", location=location)
    strides, offset = mt.get_strides_and_offset()
    if any(s == DYNAMIC for s in strides):
        raise AccelError(f"simulator: memref '{t}' has dynamic strides", location=location)
    space = mt.memory_space
    workgroup = space is not None and str(space) in WORKGROUP_SPACES
    return MemRefInfo(
        dtype=dtype_of(mt.element_type, location),
        shape=shape,
        strides=tuple(int(s) for s in strides),
        offset=None if offset == DYNAMIC else int(offset),
        workgroup=workgroup,
    )
