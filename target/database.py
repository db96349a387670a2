"""Target database: what each supported chip offers a GEMM kernel.

One record per arch: CU count, wave size, LDS, register budget, workgroup limit and
the menu of matrix instructions per element type, each with its operand vector
lengths. Per-lane layouts of these instructions are in docs/layouts.md, and the
simulator implements them; codegen and the simulator both read the shapes from here.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from accel import validate
from accel.diagnostics import AccelError


@dataclass(frozen=True)
class MmaInstr:
    """One matrix instruction: D[m x n] (acc) = A[m x k] * B[k x n] + C."""
    kind: str          # "mfma" | "wmma"
    m: int
    n: int
    k: int
    in_type: str       # element type of A (and of B unless b_type): f16, bf16, i8, f32, fp8
    acc_type: str      # f32 or i32
    a_len: int         # elements of A per lane (1 = scalar operand)
    b_len: int
    c_len: int         # accumulator elements per lane
    mnemonic: str
    source: str
    b_type: str | None = None   # B's element type where it may differ (the fp8 pairings)

    @property
    def shape(self) -> str:
        return f"{self.m}x{self.n}x{self.k}"

    @property
    def types(self) -> tuple[str, str]:
        """(A's, B's) element type: the instruction's first and second source."""
        return self.in_type, self.b_type or self.in_type


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

    def __post_init__(self) -> None:
        # mma_for's answers, made once: the selector asks for every candidate it checks
        # (8,400 times for the nine first selections of a process).
        menu: dict[tuple[str, str], list[MmaInstr]] = {}
        for i in sorted(self.mma, key=lambda i: (-i.m * i.n, -i.k)):
            menu.setdefault(i.types, []).append(i)
        object.__setattr__(self, "_mma_by_types", {t: tuple(v) for t, v in menu.items()})

    def mma_for(self, in_type: str, b_type: str | None = None) -> tuple[MmaInstr, ...]:
        """The instructions for A of `in_type` and B of `b_type` (default: the same),
        widest tile first."""
        return self._mma_by_types.get((in_type, b_type or in_type), ())

    def supports(self, in_type: str, b_type: str | None = None) -> bool:
        return bool(self.mma_for(in_type, b_type))

    def input_types(self) -> tuple[str, ...]:
        """Every element type some instruction takes, in menu order."""
        return tuple(dict.fromkeys(t for i in self.mma for t in i.types))

    def with_cu_count(self, cu_count: int) -> "ArchInfo":
        """The same chip in another part (e.g. MI300A has 228 CUs, W7800 70)."""
        if cu_count <= 0:
            raise AccelError(f"CU count must be positive, got {cu_count}")
        return replace(self, cu_count=cu_count, cu_source="user override")


_CDNA3_ISA = "AMD Instinct MI300 ISA reference, MFMA table; lane layouts confirmed by execution (docs/layouts.md)"
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
) + tuple(
    # The FNUZ fp8 pair, any pairing of A and B: 8 bytes per lane, the i8 lane layout
    # (docs/internals.md "fp8", from AMD's Matrix Instruction Calculator and CK).
    MmaInstr("mfma", m, m, k, a, "f32", 8, 8, c, f"v_mfma_f32_{m}x{m}x{k}_{an}_{bn}",
             _CDNA3_ISA + "; fp8 lanes per AMD's Matrix Instruction Calculator", b)
    for m, k, c in ((32, 16, 16), (16, 32, 4))
    for a, an in (("f8E4M3FNUZ", "fp8"), ("f8E5M2FNUZ", "bf8"))
    for b, bn in (("f8E4M3FNUZ", "fp8"), ("f8E5M2FNUZ", "bf8")))

_RDNA3_ISA = ("AMD RDNA3 ISA guide, WMMA; 16 elements per lane, lanes 16-31 repeat lanes 0-15 "
              "(docs/layouts.md, confirmed by execution)")
_GFX1100_MMA = tuple(
    MmaInstr("wmma", 16, 16, 16, t, acc, 16, 16, 8, name, _RDNA3_ISA)
    for t, acc, name in (("f16", "f32", "v_wmma_f32_16x16x16_f16"),
                         ("bf16", "f32", "v_wmma_f32_16x16x16_bf16"),
                         ("i8", "i32", "v_wmma_i32_16x16x16_iu8")))

_RDNA4_ISA = ("AMD RDNA4 ISA guide, WMMA; 8 elements per lane, K split between the half-waves "
              "(docs/layouts.md, confirmed by execution)")
_GFX1201_MMA = tuple(
    MmaInstr("wmma", 16, 16, 16, t, acc, 8, 8, 8, name, _RDNA4_ISA)
    for t, acc, name in (("f16", "f32", "v_wmma_f32_16x16x16_f16"),
                         ("bf16", "f32", "v_wmma_f32_16x16x16_bf16"),
                         ("i8", "i32", "v_wmma_i32_16x16x16_iu8"))
) + tuple(
    # The OCP fp8 pair, any pairing: 8 bytes per lane in the iu8 layout (K split
    # between the half-waves; docs/internals.md "fp8").
    MmaInstr("wmma", 16, 16, 16, a, "f32", 8, 8, 8, f"v_wmma_f32_16x16x16_{an}_{bn}",
             "AMD RDNA4 ISA guide, WMMA; fp8 lanes per AMD's Matrix Instruction Calculator", b)
    for a, an in (("f8E4M3FN", "fp8"), ("f8E5M2", "bf8"))
    for b, bn in (("f8E4M3FN", "fp8"), ("f8E5M2", "bf8")))

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
    if not isinstance(name, str) or name not in ARCHES:
        shown = validate.clipped(name) if isinstance(name, str) else validate.shown(name)
        raise AccelError(f"unknown arch '{shown}' (supported: {', '.join(ARCHES)})")
    info = ARCHES[name]
    if cu_count is None:
        return info
    return info.with_cu_count(validate.integer("cu_count", cu_count))
