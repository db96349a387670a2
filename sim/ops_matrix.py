"""amdgpu.mfma and amdgpu.wmma: gather each wave's fragments into whole A, B and C,
multiply, scatter D back, by the lane layouts in layouts.py.

Float inputs (f16/bf16/f32) multiply exactly in f64 and the sum is rounded once to
f32: the hardware accumulates in f32, so results agree to f32 rounding of the sum
order. fp8 inputs are decoded from their bits (sim/fp8.py: NaN codes, FNUZ 0x80,
subnormals, infinity where the format has one) and then multiply the same way; A and
B may be different fp8 formats (fp8 x bf8). i8 products accumulate exactly in int64
and wrap to i32 (or saturate with the WMMA `clamp` flag).
"""

from __future__ import annotations

import numpy as np

from accel.bindings import ir
from accel.diagnostics import AccelError
from accel.sim.fp8 import decode
from accel.sim.layouts import WMMA_TYPES, mfma_layout, wmma_layout
from accel.sim.locations import where
from accel.sim.registry import op
from accel.sim.types import FP8_NAMES, mlir_name, value_type

F64 = np.dtype(np.float64)
I32 = np.iinfo(np.int32)


def _int_attr(o, name, default):
    return ir.IntegerAttr(o.attributes[name]).value if name in o.attributes else default


def _check_types(o, lay, in_type):
    a, b, acc = (value_type(v.type, o.location) for v in o.operands)
    res = value_type(o.results[0].type, o.location)
    a_len = int(np.prod(a.shape, dtype=np.int64))
    c_len = int(np.prod(acc.shape, dtype=np.int64))
    want_acc = "i32" if in_type == "i8" else "f32"
    # Only fp8 operands may differ in type (an fp8 x bf8 instruction), never in length.
    same = a == b or (a.shape == b.shape and {mlir_name(a.dtype), mlir_name(b.dtype)}
                      <= set(FP8_NAMES))
    if (not same or a_len != lay.a_len or (lay.a_len == 1) != (a.shape == ())
            or c_len != lay.c_len or mlir_name(acc.dtype) != want_acc or res != acc):
        raise AccelError(
            f"simulator: {o.name} {lay.m}x{lay.n}x{lay.k} on {in_type} takes "
            f"{lay.a_len} x {in_type} per lane for A and B and {lay.c_len} x {want_acc} "
            "for C", location=o.location)
    return res.dtype


def _wave_values(st, x, wave, length):
    """(waves, wave, length) view of a per-thread value."""
    x = np.broadcast_to(x.reshape(x.shape[0], -1), (st.T, length))
    return x.reshape(st.T // wave, wave, length)


def _to_f64(x, name):
    return decode(x, name) if name in FP8_NAMES else x.astype(F64)


def _compile_mma(c, o, lay, in_type, unsigned_a=False, unsigned_b=False, clamp=False):
    out_dtype = _check_types(o, lay, in_type)
    a_name, b_name = (mlir_name(value_type(v.type, o.location).dtype) for v in o.operands[:2])
    a, b, acc = (c.use(v) for v in o.operands)
    out = c.define(o.results[0])
    rows, cols = lay.c_inverse()
    wave = lay.wave
    is_int = in_type == "i8"
    loc = where(o)
    name = o.name

    def run(st):
        if st.tpw % wave:
            raise AccelError(f"simulator: {name} needs a workgroup of whole waves of "
                             f"{wave}, got {st.tpw} threads", location=loc)
        if st.mask is not None:
            m = st.mask.reshape(-1, wave)
            if (m.any(axis=1) & ~m.all(axis=1)).any():
                raise AccelError(f"simulator: {name} executed by part of a wave (the "
                                 "instruction needs every lane)", location=loc)
        st.note_active("mma")
        r = st.regs
        A = _wave_values(st, r[a], wave, lay.a_len)
        B = _wave_values(st, r[b], wave, lay.a_len)
        C = _wave_values(st, r[acc], wave, lay.c_len)
        if lay.replicated:
            _check_replicated(A, B, loc)
        Am = A[:, lay.a_lane, lay.a_elem]
        Bm = B[:, lay.b_lane, lay.b_elem]
        Cm = C[:, lay.c_lane, lay.c_elem]
        if is_int:
            Am = Am.view(np.uint8) if unsigned_a else Am
            Bm = Bm.view(np.uint8) if unsigned_b else Bm
            D = np.matmul(Am.astype(np.int64), Bm.astype(np.int64)) + Cm.astype(np.int64)
            D = np.clip(D, I32.min, I32.max) if clamp else D
            D = D.astype(out_dtype)
        else:
            D = (np.matmul(_to_f64(Am, a_name), _to_f64(Bm, b_name))
                 + Cm.astype(F64)).astype(out_dtype)
        r[out] = D[:, rows, cols].reshape((st.T,) + C.shape[2:])

    return run


def _check_replicated(A, B, loc):
    """gfx1100 reads A rows / B columns from lanes 0-15 and 16-31 alike; different
    data in the two half-waves is garbage on hardware, so it is an error here."""
    for x in (A, B):
        bits = np.ascontiguousarray(x).view(np.uint8)
        if not np.array_equal(bits[:, :16], bits[:, 16:32]):
            raise AccelError("wmma operand not replicated across half-waves (gfx1100 lanes "
                             "16-31 must hold the same A/B values as lanes 0-15)",
                             location=loc)


@op("amdgpu.mfma")
def _mfma(c, o):
    if c.arch.name != "gfx942":
        raise AccelError(f"simulator: amdgpu.mfma on {c.arch.name} (MFMA is gfx942 only)",
                         location=o.location)
    m, n, k = (_int_attr(o, x, 0) for x in ("m", "n", "k"))
    blgp = str(o.attributes["blgp"]) if "blgp" in o.attributes else "none"
    if (_int_attr(o, "blocks", 1) != 1 or _int_attr(o, "cbsz", 0) != 0
            or _int_attr(o, "abid", 0) != 0 or not blgp.endswith("none>")
            and blgp != "none"):
        raise AccelError("simulator: amdgpu.mfma with blocks/cbsz/abid/blgp other than the "
                         "single-block defaults is not in docs/layouts.md", location=o.location)
    for flag in ("negateA", "negateB", "negateC"):
        if flag in o.attributes:
            raise AccelError(f"simulator: amdgpu.mfma {flag} is not supported",
                             location=o.location)
    in_type, b_type = _source_types(o)
    lay = mfma_layout(m, n, k, in_type)
    mfma_layout(m, n, k, b_type)   # B's type must also be one this shape takes
    return _compile_mma(c, o, lay, in_type)


def _source_types(o) -> tuple[str, str]:
    return tuple(mlir_name(value_type(v.type, o.location).dtype) for v in o.operands[:2])


@op("amdgpu.wmma")
def _wmma(c, o):
    shape = tuple(_int_attr(o, x, 16) for x in ("m", "n", "k"))
    if shape != (16, 16, 16):
        raise AccelError(f"simulator: amdgpu.wmma {'x'.join(map(str, shape))} is not in "
                         "docs/layouts.md", location=o.location)
    lay = wmma_layout(c.arch.name)
    in_type, b_type = _source_types(o)
    for t in (in_type, b_type):
        if t not in WMMA_TYPES[c.arch.name]:
            raise AccelError(f"simulator: amdgpu.wmma on {t} is not in docs/layouts.md "
                             f"for {c.arch.name}", location=o.location)
    return _compile_mma(c, o, lay, in_type,
                        unsigned_a="unsignedA" in o.attributes,
                        unsigned_b="unsignedB" in o.attributes,
                        clamp="clamp" in o.attributes)
