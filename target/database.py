"""Target database: what each supported chip offers a GEMM kernel.

One record per arch: CU count, wave size, LDS, register budget, workgroup limit and
the menu of matrix instructions per element type, each with its operand vector
lengths. Per-lane layouts of these instructions are in LAYOUTS.md (shared/), and the
simulator implements them; codegen and the simulator both read the shapes from here.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from accel.diagnostics import AccelError


@dataclass(frozen=True)
class MmaInstr:
    """One matrix instruction: D[m x n] (acc) = A[m x k] * B[k x n] + C."""
    kind: str          # "mfma" | "wmma"
    m: int
    n: int
    k: int
    in_type: str       # element type of A and B: f16, bf16, i8, f32
    acc_type: str      # f32 or i32
    a_len: int         # elements of A per lane (1 = scalar operand)
    b_len: int
    c_len: int         # accumulator elements per lane
    mnemonic: str
    source: str

    @property
    def shape(self) -> str:
        return f"{self.m}x{self.n}x{self.k}"


@dataclass(frozen=True)
class ArchInfo:
    name: str
    family: str                 # cdna3 | rdna3 | rdna4
    mma_kind: str               # mfma | wmma
    cu_count: int
    wave_size: int
    lds_bytes: int              # per workgroup
    vgprs_per_lane: int         # register budget per lane (VGPR + AGPR on CDNA3)
    max_threads_per_block: int
    sgprs: int
    mma: tuple[MmaInstr, ...]
    cu_source: str
    # Occupancy: a SIMD holds at most max_waves_per_simd waves, and their registers
    # share simd_regs_per_lane per lane. Measured with LLVM's own occupancy report (the
    # amdgpu-waves-per-eu warning, bench kernels): gfx1100 234 VGPRs -> 6 waves, gfx1201
    # 196 -> 7 (1536 / n); gfx942 124 VGPRs + AGPRs from 124 -> 2 (512 / 252).
    max_waves_per_simd: int = 16
    simd_regs_per_lane: int = 1536

    def mma_for(self, in_type: str) -> tuple[MmaInstr, ...]:
        """The instructions for an input element type, widest tile first."""
        return tuple(sorted((i for i in self.mma if i.in_type == in_type),
                            key=lambda i: (-i.m * i.n, -i.k)))

    def supports(self, in_type: str) -> bool:
        return any(i.in_type == in_type for i in self.mma)

    def with_cu_count(self, cu_count: int) -> "ArchInfo":
        """The same chip in another part (e.g. MI300A has 228 CUs, W7800 70)."""
        if cu_count <= 0:
            raise AccelError(f"CU count must be positive, got {cu_count}")
        return replace(self, cu_count=cu_count, cu_source="user override")


_CDNA3_ISA = "AMD Instinct MI300 ISA reference, MFMA table; lane layouts confirmed by execution (LAYOUTS.md)"
_GFX942_MMA = (
    MmaInstr("mfma", 32, 32, 8, "f16", "f32", 4, 4, 16, "v_mfma_f32_32x32x8_f16", _CDNA3_ISA),
    MmaInstr("mfma", 16, 16, 16, "f16", "f32", 4, 4, 4, "v_mfma_f32_16x16x16_f16", _CDNA3_ISA),
    MmaInstr("mfma", 4, 4, 4, "f16", "f32", 4, 4, 4, "v_mfma_f32_4x4x4_16b_f16",
             _CDNA3_ISA + " (4x4x4 with 16 blocks; for tiny N; not used by codegen yet)"),
    MmaInstr("mfma", 32, 32, 8, "bf16", "f32", 4, 4, 16, "v_mfma_f32_32x32x8_bf16", _CDNA3_ISA),
    MmaInstr("mfma", 16, 16, 16, "bf16", "f32", 4, 4, 4, "v_mfma_f32_16x16x16_bf16", _CDNA3_ISA),
    MmaInstr("mfma", 4, 4, 4, "bf16", "f32", 4, 4, 4, "v_mfma_f32_4x4x4_16b_bf16",
             _CDNA3_ISA + " (4x4x4 with 16 blocks; for tiny N; not used by codegen yet)"),
    MmaInstr("mfma", 32, 32, 16, "i8", "i32", 8, 8, 16, "v_mfma_i32_32x32x16_i8", _CDNA3_ISA),
    MmaInstr("mfma", 16, 16, 32, "i8", "i32", 8, 8, 4, "v_mfma_i32_16x16x32_i8", _CDNA3_ISA),
    MmaInstr("mfma", 32, 32, 2, "f32", "f32", 1, 1, 16, "v_mfma_f32_32x32x2_f32", _CDNA3_ISA),
    MmaInstr("mfma", 16, 16, 4, "f32", "f32", 1, 1, 4, "v_mfma_f32_16x16x4_f32", _CDNA3_ISA),
)

_RDNA3_ISA = ("AMD RDNA3 ISA guide, WMMA; 16 elements per lane, lanes 16-31 repeat lanes 0-15 "
              "(LAYOUTS.md, confirmed by execution)")
_GFX1100_MMA = tuple(
    MmaInstr("wmma", 16, 16, 16, t, acc, 16, 16, 8, name, _RDNA3_ISA)
    for t, acc, name in (("f16", "f32", "v_wmma_f32_16x16x16_f16"),
                         ("bf16", "f32", "v_wmma_f32_16x16x16_bf16"),
                         ("i8", "i32", "v_wmma_i32_16x16x16_iu8")))

_RDNA4_ISA = ("AMD RDNA4 ISA guide, WMMA; 8 elements per lane, K split between the half-waves "
              "(LAYOUTS.md, confirmed by execution)")
_GFX1201_MMA = tuple(
    MmaInstr("wmma", 16, 16, 16, t, acc, 8, 8, 8, name, src)
    for t, acc, name, src in (
        ("f16", "f32", "v_wmma_f32_16x16x16_f16", _RDNA4_ISA),
        ("bf16", "f32", "v_wmma_f32_16x16x16_bf16", _RDNA4_ISA),
        ("i8", "i32", "v_wmma_i32_16x16x16_iu8", _RDNA4_ISA),
        # fp8 layout is not confirmed by execution (LAYOUTS.md); listed for selection only.
        ("f8E4M3FN", "f32", "v_wmma_f32_16x16x16_fp8_fp8",
         "AMD RDNA4 ISA guide; lane layout NOT confirmed by execution, codegen does not use it")))

ARCHES: dict[str, ArchInfo] = {
    "gfx942": ArchInfo(
        name="gfx942", family="cdna3", mma_kind="mfma", cu_count=304, wave_size=64,
        lds_bytes=64 * 1024,
        # 512 per lane shared by ArchVGPRs and AccVGPRs (unified register file, CDNA3 ISA).
        vgprs_per_lane=512, max_threads_per_block=1024, sgprs=102, mma=_GFX942_MMA,
        cu_source="MI300X: 304 CUs (AMD Instinct MI300X data sheet)",
        max_waves_per_simd=8, simd_regs_per_lane=512),
    "gfx1100": ArchInfo(
        name="gfx1100", family="rdna3", mma_kind="wmma", cu_count=96, wave_size=32,
        lds_bytes=64 * 1024, vgprs_per_lane=256, max_threads_per_block=1024, sgprs=106,
        mma=_GFX1100_MMA,
        cu_source="Radeon PRO W7900: 96 CUs (the machine of seed 000's measurements)"),
    "gfx1201": ArchInfo(
        name="gfx1201", family="rdna4", mma_kind="wmma", cu_count=64, wave_size=32,
        lds_bytes=64 * 1024, vgprs_per_lane=256, max_threads_per_block=1024, sgprs=106,
        mma=_GFX1201_MMA,
        cu_source="Radeon RX 9070 XT / AI PRO R9700: 64 CUs"),
}


def get_arch(name: str, cu_count: int | None = None) -> ArchInfo:
    """The record for `name`; AccelError for an unknown arch."""
    try:
        info = ARCHES[name]
    except KeyError:
        raise AccelError(f"unknown arch '{name}' (supported: {', '.join(ARCHES)})") from None
    return info.with_cu_count(cu_count) if cu_count is not None else info
