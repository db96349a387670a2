"""The element types a GEMM takes: the accumulator and the legal outputs of each input
type, the types a fused epilogue's extra operands may have, and which input pairs a
chip multiplies.

A and B share an element type, except that two fp8 formats of the chip's family may
meet (fp8 x bf8: f8E4M3FNUZ / f8E5M2FNUZ on gfx942, f8E4M3FN / f8E5M2 on gfx1201);
fp8 accumulates in f32 into an f32, f16 or bf16 C.
"""

from __future__ import annotations

from accel.dialect.element_types import FP8_FORMATS, is_fp8
from accel.target.database import ArchInfo

# Element types an extra epilogue operand may have (converted to the accumulator's).
EPILOGUE_OPERAND_TYPES = ("f32", "f16", "bf16", "i32", "i8")

# Accumulator type and legal output types per input element type (A's; an fp8 A may
# meet a B of the other fp8 format of its family).
ACCUMULATOR = {"f16": "f32", "bf16": "f32", "i8": "i32", "f32": "f32",
               **{t: "f32" for t in FP8_FORMATS}}
OUTPUT_TYPES = {"f16": ("f32", "f16", "bf16"), "bf16": ("f32", "f16", "bf16"),
                "i8": ("i32",), "f32": ("f32", "f16", "bf16"),
                **{t: ("f32", "f16", "bf16") for t in FP8_FORMATS}}


def element_type_error(info: ArchInfo, a_t: str, b_t: str) -> str | None:
    """Why `info` cannot multiply A of type a_t by B of type b_t, or None if it can.

    Only two fp8 formats may differ (the instructions take fp8 x bf8 pairings); a chip
    without fp8 instructions, or with the other fp8 family, is named as such."""
    if a_t != b_t and not (is_fp8(a_t) and is_fp8(b_t)):
        return f"A and B element types differ: {a_t} vs {b_t}"
    for t in dict.fromkeys((a_t, b_t)):
        if is_fp8(t):
            have = [x for x in info.input_types() if is_fp8(x)]
            if not have:
                return f"{info.name} has no fp8 matrix instructions ({t} is not supported)"
            if t not in have:
                family = FP8_FORMATS[have[0]].family
                return (f"{t} is an {FP8_FORMATS[t].family} fp8 format; {info.name} has the "
                        f"{family} formats {' and '.join(have)}")
        elif t not in ACCUMULATOR or not info.supports(t):
            return f"element type {t} is not supported on {info.name}"
    if not info.supports(a_t, b_t):
        return f"no {info.mma_kind} instruction on {info.name} takes {a_t} x {b_t}"
    return None
