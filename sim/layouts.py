"""Per-lane operand layouts of the MFMA/WMMA instructions, as index tables.

Formulas from docs/layouts.md, table "Where each element lives" (each row
confirmed by execution there and matching AMD's Matrix Instruction Calculator), and for
fp8 from docs/internals.md "fp8" (the calculator's register layouts of every fp8/bf8
instruction: 8 bytes per lane, the i8 rows). For an
instruction D[MxN] = A[MxK] B[KxN] + C, `Layout` gives for every matrix element the
(lane, vector element) holding it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from accel.diagnostics import AccelError


@dataclass(frozen=True)
class Layout:
    m: int
    n: int
    k: int
    wave: int
    a_len: int          # elements of A (and B) per lane; 1 = scalar operand
    c_len: int          # accumulator elements per lane
    a_lane: np.ndarray  # [M, K]
    a_elem: np.ndarray
    b_lane: np.ndarray  # [K, N]
    b_elem: np.ndarray
    c_lane: np.ndarray  # [M, N]
    c_elem: np.ndarray
    replicated: bool    # gfx1100: lanes 16-31 repeat lanes 0-15 for A and B

    def c_inverse(self) -> tuple[np.ndarray, np.ndarray]:
        """(row, col) of D held by each (lane, element) slot: [wave, c_len] each."""
        rows = np.full((self.wave, self.c_len), -1, dtype=np.int64)
        cols = np.full((self.wave, self.c_len), -1, dtype=np.int64)
        i, j = np.meshgrid(np.arange(self.m), np.arange(self.n), indexing="ij")
        rows[self.c_lane, self.c_elem] = i
        cols[self.c_lane, self.c_elem] = j
        assert (rows >= 0).all(), "accumulator layout must cover every slot"
        return rows, cols


def _grid(m, n):
    return np.meshgrid(np.arange(m), np.arange(n), indexing="ij")


# gfx942 MFMA shapes (m, n, k) -> in_type accepted; docs/layouts.md rows. The fp8 MFMAs
# (either FNUZ format for A and for B) share the i8 shapes and lanes.
_FNUZ = ("f8E4M3FNUZ", "f8E5M2FNUZ")
MFMA_SHAPES = {
    (32, 32, 8): ("f16", "bf16"), (16, 16, 16): ("f16", "bf16"),
    (32, 32, 16): ("i8",) + _FNUZ, (16, 16, 32): ("i8",) + _FNUZ,
    (32, 32, 2): ("f32",), (16, 16, 4): ("f32",),
}

# Element types of the 16x16x16 WMMA per chip; gfx1201's OCP fp8 formats take the iu8
# lanes. gfx1100 has no fp8 WMMA.
WMMA_TYPES = {"gfx1100": ("f16", "bf16", "i8"),
              "gfx1201": ("f16", "bf16", "i8", "f8E4M3FN", "f8E5M2")}


def mfma_layout(m, n, k, in_type) -> Layout:
    """gfx942 single-block MFMA: lane l holds row/col l%m and the K run of length
    kl = K*m/64 starting at kl*(l//m) (docs/layouts.md "General rule")."""
    if (m, n, k) not in MFMA_SHAPES or in_type not in MFMA_SHAPES[(m, n, k)]:
        raise AccelError(f"simulator: amdgpu.mfma {m}x{n}x{k} on {in_type} is not in "
                         "docs/layouts.md")
    wave = 64
    kl = k * m // wave
    i, kk = _grid(m, k)
    a_lane, a_elem = i + m * (kk // kl), kk % kl
    kk, j = _grid(k, n)
    b_lane, b_elem = j + n * (kk // kl), kk % kl
    i, j = _grid(m, n)
    if m == 32:
        c_lane, c_elem = j + 32 * ((i // 4) % 2), 4 * (i // 8) + i % 4
    else:
        c_lane, c_elem = j + 16 * (i // 4), i % 4
    return Layout(m, n, k, wave, kl, m * n // wave, a_lane, a_elem, b_lane, b_elem,
                  c_lane, c_elem, replicated=False)


def wmma_layout(arch: str) -> Layout:
    """16x16x16 WMMA on gfx1100 (A/B replicated in both half-waves, 16 elements per
    lane) or gfx1201 (K split between the half-waves, 8 elements per lane)."""
    i, kk = _grid(16, 16)
    kk2, j = _grid(16, 16)
    ci, cj = _grid(16, 16)
    if arch == "gfx1100":
        return Layout(16, 16, 16, 32, 16, 8, i, kk, j, kk2,
                      cj + 16 * (ci % 2), ci // 2, replicated=True)
    if arch == "gfx1201":
        return Layout(16, 16, 16, 32, 8, 8, i + 16 * (kk // 8), kk % 8,
                      j + 16 * (kk2 // 8), kk2 % 8, cj + 16 * (ci // 8), ci % 8,
                      replicated=False)
    raise AccelError(f"simulator: amdgpu.wmma is not available on {arch}")
