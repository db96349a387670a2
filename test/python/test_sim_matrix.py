"""MFMA/WMMA in the simulator against docs/layouts.md, re-derived independently.

The fragments here are built from docs/layouts.md's "read the other way" table (what lane
l, element e holds); the simulator implements the forward table. Each wave of one
launch runs a different probe: A one-hot at every (i, k) with B random, B one-hot at
every (k, j) with A random, and one fully random wave; D must equal A @ B + C exactly
(small integers are exact in every type and in f32).
"""

import ml_dtypes
import numpy as np
import pytest

from accel.diagnostics import AccelError
from accel.sim import run_kernel_text

BF16 = ml_dtypes.bfloat16

# name: (arch, op prefix, dtype, a_len, c_len, M, N, K, wave, A(l,e), B(l,e), D(l,e))
MFMA32_D = lambda l, e: (8 * (e // 4) + 4 * (l // 32) + e % 4, l % 32)  # noqa: E731
MFMA16_D = lambda l, e: (4 * (l // 16) + e, l % 16)  # noqa: E731
CASES = {}
for t, dt in (("f16", np.float16), ("bf16", BF16)):
    CASES[f"gfx942-32x32x8-{t}"] = ("gfx942", "amdgpu.mfma 32x32x8", dt, 4, 16, 32, 32, 8, 64,
                                    lambda l, e: (l % 32, 4 * (l // 32) + e),
                                    lambda l, e: (4 * (l // 32) + e, l % 32), MFMA32_D)
    CASES[f"gfx942-16x16x16-{t}"] = ("gfx942", "amdgpu.mfma 16x16x16", dt, 4, 4, 16, 16, 16, 64,
                                     lambda l, e: (l % 16, 4 * (l // 16) + e),
                                     lambda l, e: (4 * (l // 16) + e, l % 16), MFMA16_D)
    CASES[f"gfx1100-{t}"] = ("gfx1100", "amdgpu.wmma 16x16x16", dt, 16, 8, 16, 16, 16, 32,
                             lambda l, e: (l % 16, e), lambda l, e: (e, l % 16),
                             lambda l, e: (2 * e + l // 16, l % 16))
    CASES[f"gfx1201-{t}"] = ("gfx1201", "amdgpu.wmma 16x16x16", dt, 8, 8, 16, 16, 16, 32,
                             lambda l, e: (l % 16, 8 * (l // 16) + e),
                             lambda l, e: (8 * (l // 16) + e, l % 16),
                             lambda l, e: (8 * (l // 16) + e, l % 16))
CASES["gfx942-32x32x16-i8"] = ("gfx942", "amdgpu.mfma 32x32x16", np.int8, 8, 16, 32, 32, 16, 64,
                               lambda l, e: (l % 32, 8 * (l // 32) + e),
                               lambda l, e: (8 * (l // 32) + e, l % 32), MFMA32_D)
CASES["gfx942-16x16x32-i8"] = ("gfx942", "amdgpu.mfma 16x16x32", np.int8, 8, 4, 16, 16, 32, 64,
                               lambda l, e: (l % 16, 8 * (l // 16) + e),
                               lambda l, e: (8 * (l // 16) + e, l % 16), MFMA16_D)
CASES["gfx942-32x32x2-f32"] = ("gfx942", "amdgpu.mfma 32x32x2", np.float32, 1, 16, 32, 32, 2, 64,
                               lambda l, e: (l % 32, l // 32), lambda l, e: (l // 32, l % 32),
                               MFMA32_D)
CASES["gfx942-16x16x4-f32"] = ("gfx942", "amdgpu.mfma 16x16x4", np.float32, 1, 4, 16, 16, 4, 64,
                               lambda l, e: (l % 16, l // 16), lambda l, e: (l // 16, l % 16),
                               MFMA16_D)
CASES["gfx1100-i8"] = ("gfx1100", "amdgpu.wmma 16x16x16", np.int8, 16, 8, 16, 16, 16, 32,
                       lambda l, e: (l % 16, e), lambda l, e: (e, l % 16),
                       lambda l, e: (2 * e + l // 16, l % 16))
CASES["gfx1201-i8"] = ("gfx1201", "amdgpu.wmma 16x16x16", np.int8, 8, 8, 16, 16, 16, 32,
                       lambda l, e: (l % 16, 8 * (l // 16) + e),
                       lambda l, e: (8 * (l // 16) + e, l % 16),
                       lambda l, e: (8 * (l // 16) + e, l % 16))

TYPE_NAMES = {np.float16: "f16", BF16: "bf16", np.int8: "i8", np.float32: "f32"}


def mma_kernel(op, t, acc, a_len, c_len, waves, wave):
    a_ty = t if a_len == 1 else f"vector<{a_len}x{t}>"
    c_ty = f"vector<{c_len}x{acc}>"
    mem = f"memref<{waves}x{wave}x{a_len}x{t}>"
    cmem = f"memref<{waves}x{wave}x{c_len}x{acc}>"
    load = (f"memref.load %A[%b, %t, %c0] : {mem}" if a_len == 1
            else f"vector.load %A[%b, %t, %c0] : {mem}, {a_ty}")
    suffix = " blgp = none" if "mfma" in op else ""
    return f"""
module attributes {{gpu.container_module}} {{
  gpu.module @m {{
    gpu.func @mma(%A: {mem}, %B: {mem}, %C: {cmem}, %D: {cmem}) kernel {{
      %t = gpu.thread_id x
      %b = gpu.block_id x
      %c0 = arith.constant 0 : index
      %a = {load}
      %bv = {load.replace('%A', '%B')}
      %c = vector.load %C[%b, %t, %c0] : {cmem}, {c_ty}
      %d = {op} %a * %bv + %c{suffix} : {a_ty}, {a_ty}, {c_ty}
      vector.store %d, %D[%b, %t, %c0] : {cmem}, {c_ty}
      gpu.return
    }}
  }}
}}
"""


def fragments(mats, a_len, wave, where):
    """Per-lane fragments [probes, wave, a_len] of matrices [probes, R, C]."""
    out = np.zeros((len(mats), wave, a_len), dtype=mats.dtype)
    for l in range(wave):
        for e in range(a_len):
            r, c = where(l, e)
            out[:, l, e] = mats[:, r, c]
    return out


@pytest.mark.parametrize("name", sorted(CASES))
def test_mma_one_hot(name):
    arch, op, dt, a_len, c_len, M, N, K, wave, a_at, b_at, d_at = CASES[name]
    rng = np.random.default_rng(1)
    is_int = dt == np.int8
    acc_np = np.int32 if is_int else np.float32
    # Probes: A one-hot at each (i, k), B one-hot at each (k, j), one random pair.
    nA, nB = M * K, K * N
    P = nA + nB + 1
    A = rng.integers(-4, 5, (P, M, K)).astype(np.float64)
    B = rng.integers(-4, 5, (P, K, N)).astype(np.float64)
    A[:nA] = 0
    A[np.arange(nA), np.arange(nA) // K, np.arange(nA) % K] = 1
    B[nA:nA + nB] = 0
    B[nA + np.arange(nB), np.arange(nB) // N, np.arange(nB) % N] = 1
    C = rng.integers(-50, 51, (P, M, N)).astype(np.float64)
    Af = fragments(A.astype(dt), a_len, wave, a_at)
    Bf = fragments(B.astype(dt), a_len, wave, b_at)
    Cf = fragments(C.astype(acc_np), c_len, wave, d_at)
    Df = np.zeros_like(Cf)
    acc = "i32" if is_int else "f32"
    text = mma_kernel(op, TYPE_NAMES[dt], acc, a_len, c_len, P, wave)
    run_kernel_text(text, "mma", grid=(P, 1, 1), block=(wave, 1, 1),
                    args=[Af, Bf, Cf, Df], arch=arch)
    want = fragments((A @ B + C).astype(acc_np), c_len, wave, d_at)
    bad = np.argwhere(Df != want)
    assert bad.size == 0, f"first mismatch at probe/lane/elem {bad[0]}: {Df[tuple(bad[0])]} != {want[tuple(bad[0])]}"


def test_gfx1100_wmma_requires_replicated_operands():
    arch, op, dt, a_len, c_len, M, N, K, wave, a_at, b_at, d_at = CASES["gfx1100-f16"]
    Af = np.ones((1, wave, a_len), np.float16)
    Af[0, 20, 3] = 2   # lane 20 differs from lane 4
    Bf = np.ones((1, wave, a_len), np.float16)
    Cf = np.zeros((1, wave, c_len), np.float32)
    text = mma_kernel(op, "f16", "f32", a_len, c_len, 1, wave)
    with pytest.raises(AccelError, match="not replicated across half-waves"):
        run_kernel_text(text, "mma", grid=(1, 1, 1), block=(wave, 1, 1),
                        args=[Af, Bf, Cf, Cf.copy()], arch=arch)


def test_mfma_rejected_on_rdna():
    text = mma_kernel("amdgpu.mfma 32x32x8", "f16", "f32", 4, 16, 1, 64)
    z = np.zeros((1, 64, 4), np.float16)
    c = np.zeros((1, 64, 16), np.float32)
    with pytest.raises(AccelError, match="gfx942 only"):
        run_kernel_text(text, "mma", grid=(1, 1, 1), block=(64, 1, 1), args=[z, z, c, c],
                        arch="gfx1100")
