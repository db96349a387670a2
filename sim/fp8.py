"""fp8 bit patterns -> exact values, decoded from the bits.

The simulator's own decode (it imports no compiler code): every one of the 256 codes
of each format becomes its float64 value, so an MMA multiplies exactly what the
hardware multiplies. A code is sign s (bit 7), exponent e (E bits), mantissa f (M bits):

  e > 0   (-1)^s * 2^(e - bias) * (1 + f / 2^M)     normal
  e = 0   (-1)^s * 2^(1 - bias) * f / 2^M           subnormal (and zero)

except the codes each format reserves:

  f8E4M3FNUZ  E4 M3 bias 8    0x80 is NaN (the would-be -0); no infinity, e=15 is finite
  f8E5M2FNUZ  E5 M2 bias 16   0x80 is NaN; no infinity, e=31 is finite
  f8E4M3FN    E4 M3 bias 7    e=15 f=7 (0x7F, 0xFF) is NaN; no infinity; 0x80 is -0
  f8E5M2      E5 M2 bias 15   e=31: f=0 is +-infinity, f!=0 NaN (IEEE 754 style)

Sources: MLIR's builtin float types (Float8E4M3FNUZType etc.), the OCP 8-bit floating
point specification v1.0 (E4M3, E5M2), AMD's CDNA3 ISA (the FNUZ FP8/BF8 of gfx942).
Storage uses ml_dtypes' float8 dtypes (sim/types.py) only to hold the bytes; a test
compares this decode with ml_dtypes' for every code.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Spec:
    exponent_bits: int
    mantissa_bits: int
    bias: int
    reserved: str        # "fnuz" | "fn" | "ieee": which codes are NaN / infinity


SPECS = {
    "f8E4M3FNUZ": Spec(4, 3, 8, "fnuz"),
    "f8E5M2FNUZ": Spec(5, 2, 16, "fnuz"),
    "f8E4M3FN": Spec(4, 3, 7, "fn"),
    "f8E5M2": Spec(5, 2, 15, "ieee"),
}


def decode_code(code: int, spec: Spec) -> float:
    """The value of one 8-bit code."""
    m_bits, e_bits = spec.mantissa_bits, spec.exponent_bits
    sign = -1.0 if code & 0x80 else 1.0
    e = (code >> m_bits) & ((1 << e_bits) - 1)
    f = code & ((1 << m_bits) - 1)
    e_max = (1 << e_bits) - 1
    if spec.reserved == "fnuz" and code == 0x80:
        return float("nan")
    if spec.reserved == "fn" and e == e_max and f == (1 << m_bits) - 1:
        return float("nan")
    if spec.reserved == "ieee" and e == e_max:
        return sign * float("inf") if f == 0 else float("nan")
    if e == 0:
        return sign * 2.0 ** (1 - spec.bias) * f / (1 << m_bits)
    return sign * 2.0 ** (e - spec.bias) * (1 + f / (1 << m_bits))


TABLES = {name: np.array([decode_code(c, s) for c in range(256)], dtype=np.float64)
          for name, s in SPECS.items()}


def decode(x: np.ndarray, name: str) -> np.ndarray:
    """float64 values of an array of fp8 codes of format `name` (any 1-byte dtype)."""
    return TABLES[name][np.ascontiguousarray(x).view(np.uint8)]
