"""The element types accel handles: their sizes, their numpy host types, and the fp8
formats' definitions.

One table for the compiler side (codegen, selection, passes, the library). The
simulator keeps its own in sim/types.py and sim/fp8.py on purpose: it must not share a
mistake with the code it checks.

fp8 comes in two families, as MLIR spells them (bit layout sign | exponent | mantissa):

  format       family  bits   bias  infinity      NaN codes          max finite  min subnormal
  f8E4M3FNUZ   FNUZ    1.4.3  8     none          0x80 only          240         2^-10
  f8E5M2FNUZ   FNUZ    1.5.2  16    none          0x80 only          57344       2^-17
  f8E4M3FN     OCP     1.4.3  7     none          0x7F, 0xFF         448         2^-9
  f8E5M2       OCP     1.5.2  15    0x7C, 0xFC    e=31, mantissa!=0  57344       2^-16

FNUZ ("finite, no negative zero"): the code a sign-magnitude format would use for -0,
0x80, is the one NaN, and the all-ones exponent holds ordinary values. f8E4M3FN has no
infinity either: only S.1111.111 is NaN, so 0x7E/0xFE are +-448. f8E5M2 is IEEE-like.
Sources: MLIR's builtin type docs (Float8E4M3FNUZType ...), the OCP 8-bit floating
point specification v1.0, AMD's CDNA3 ISA ("FP8/BF8", the FNUZ pair) and RDNA4 ISA
(OCP FP8/BF8); ml_dtypes implements the same four. gfx942's MFMAs take the FNUZ pair,
gfx1201's WMMAs the OCP pair (target/database.py); in both ISAs "fp8" is the E4M3
format and "bf8" the E5M2 one.
"""

from dataclasses import dataclass

# numpy and ml_dtypes (their import is ~70 ms, a sixth of a one-GEMM compile in a fresh
# process, which needs neither) load on the first use of a host type: `numpy_type`,
# `max_finite`, NUMPY_TYPES.


@dataclass(frozen=True)
class Fp8Format:
    name: str              # MLIR spelling
    family: str            # "FNUZ" | "OCP"
    isa_name: str          # "fp8" (E4M3) | "bf8" (E5M2), as the instruction names say
    exponent_bits: int
    mantissa_bits: int
    bias: int
    has_infinity: bool
    ml_dtypes_name: str    # its numpy host type: ml_dtypes.<this>

    @property
    def numpy_type(self) -> type:
        import ml_dtypes
        return getattr(ml_dtypes, self.ml_dtypes_name)

    @property
    def max_finite(self) -> float:
        import ml_dtypes
        return float(ml_dtypes.finfo(self.numpy_type).max)


FP8_FORMATS = {f.name: f for f in (
    Fp8Format("f8E4M3FNUZ", "FNUZ", "fp8", 4, 3, 8, False, "float8_e4m3fnuz"),
    Fp8Format("f8E5M2FNUZ", "FNUZ", "bf8", 5, 2, 16, False, "float8_e5m2fnuz"),
    Fp8Format("f8E4M3FN", "OCP", "fp8", 4, 3, 7, False, "float8_e4m3fn"),
    Fp8Format("f8E5M2", "OCP", "bf8", 5, 2, 15, True, "float8_e5m2"),
)}


def is_fp8(t: str) -> bool:
    return t in FP8_FORMATS


# Bytes per element.
ELEMENT_BYTES = {"i8": 1, "f16": 2, "bf16": 2, "f32": 4, "i32": 4,
                 **{t: 1 for t in FP8_FORMATS}}


def __getattr__(name: str):
    # NUMPY_TYPES: the numpy dtype of host data of each type (bf16 and fp8 from
    # ml_dtypes), built on first use (the note at the imports above).
    if name != "NUMPY_TYPES":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import ml_dtypes
    import numpy as np
    table = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32,
             "i8": np.int8, "i32": np.int32,
             **{t: f.numpy_type for t, f in FP8_FORMATS.items()}}
    globals()["NUMPY_TYPES"] = table
    return table

