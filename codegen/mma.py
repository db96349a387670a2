"""Per-instruction lane mappings of MFMA/WMMA operands, as formulas.

Source: docs/layouts.md ("Where each element lives" and the read-the-other-way table),
confirmed there by execution and against AMD's Matrix Instruction Calculator. With
`l` the lane in the wave and `e` the index in the lane's operand vector, an m x n x K
instruction computes D = X * Y + D with

  X: lane l holds row `l % m` of X and the K run `k_base(l) + e`, e < a_len
  Y: lane l holds column `l % n` of Y and the K run `k_base(l) + e`, e < b_len
  D: lane l holds column `l % n` of D; element e is row `row(h, e)`, h = l // lane_group

  instruction                 k_base(l)         row(h, e)             c_len
  gfx942 MFMA 32x32xK         (K/2)*(l//32)     4*h + 8*(e//4) + e%4  16
  gfx942 MFMA 16x16xK         (K/4)*(l//16)     4*h + e               4
  gfx1100 WMMA 16x16x16       0 (lanes 16-31    h + 2*e               8
                              replicate 0-15)
  gfx1201 WMMA 16x16x16       8*(l//16)         8*h + e               8

fp8 (docs/internals.md "fp8") has these rows with 8 elements per lane: 32x32x16 and
16x16x32 on gfx942 (K/2 = 8 and K/4 = 8), 16x16x16 on gfx1201.

The kernel computes C^T = B^T * A^T: X is a block of B^T (lane l feeds column
n0 + sigma(l % m) of B), Y a block of A^T (lane l feeds row m0 + l % n of A), so a lane
holds one row of C, row m0 + l % n, and c_len of its columns. sigma is the permutation
of the MMA's rows that makes those columns consecutive: D row row(h, e) is C column
n0 + sigma(row(h, e)) = n0 + c_len*h + e, so element e of lane l sits at column
n0 + c_len*(l // lane_group) + e and the epilogue stores runs of consecutive columns
as vectors (codegen/epilogue.py). Permuting which column of B a lane feeds costs
nothing: it only changes the lane's LDS address.

  sigma(i):  MFMA 32x32: 16*((i//4)%2) + 4*(i//8) + i%4    gfx1100: 8*(i%2) + i//2
             MFMA 16x16 and gfx1201: i (row(h, e) is already c_len*h + e)

The K run of a lane is contiguous, so with the LDS layout [kpack][d][kpack-minor] a
lane's operand is one vector load whenever kpack is a multiple of the run length.
"""

from __future__ import annotations

from dataclasses import dataclass

from accel.codegen.builder import Emitter, Value
from accel.diagnostics import AccelError
from accel.target.database import ArchInfo, MmaInstr


@dataclass(frozen=True)
class MmaLayout:
    instr: MmaInstr
    arch: str
    k_run_stride: int        # k_base(l) = k_run_stride * (l // lane_group)
    lane_group: int          # lanes that share one K run / one accumulator row set (m or 16)

    @property
    def m(self) -> int:
        return self.instr.m

    @property
    def n(self) -> int:
        return self.instr.n

    @property
    def k(self) -> int:
        return self.instr.k

    @property
    def c_len(self) -> int:
        return self.instr.c_len

    # ---- IR for one lane -------------------------------------------------------
    def b_column(self, em: Emitter, lane: Value) -> Value:
        """sigma(l % m): the column of B (within the MMA tile) that `lane` feeds as X."""
        i = em.rem(lane, self.m)
        if self.instr.kind == "mfma" and self.m == 32:
            return em.add(em.add(em.mul(16, em.rem(em.div(i, 4), 2)), em.mul(4, em.div(i, 8))),
                          em.rem(i, 4))
        if self.arch == "gfx1100":
            return em.add(em.mul(8, em.rem(i, 2)), em.div(i, 2))
        return i

    def a_row(self, em: Emitter, lane: Value) -> Value:
        """The row of A (within the MMA tile) that `lane` feeds as Y, and its row of C."""
        return em.rem(lane, self.n)

    def super_step(self, k_per_block: int, kpack: int, elem_bits: int) -> int:
        """How many consecutive k-steps a lane serves from one LDS read.

        The K order inside the instruction is not observable (docs/layouts.md): any one
        permutation of K applied to both operands leaves the product unchanged. So
        over S k-steps (S*K values of K) lane group h takes the contiguous run
        [h*S*R, (h+1)*S*R) (R = a_len) instead of S runs of R strided by K, and reads
        it as one vector of S*R elements, at most 128 bits and inside one kpack group.
        gfx1100 has no K split between lanes (the half-waves replicate), so S = 1.
        Measured (benchmarks/bench_kernel_quality.py) on gfx942, f16 kpack 8: fragment
        reads per k-tile 16 x ds_read_b64 -> 8 x ds_read_b128 (128x256), 8 ds_read2_b64
        -> 8 ds_read_b128 (64x64); with the row swizzle's bit for 32x32, simulated read
        conflicts 1024 -> 0 and 512 -> 0 clocks per workgroup; VGPRs 116 -> 112.
        """
        r = self.instr.a_len
        if self.k_run_stride != r:
            return 1
        width = min(kpack, 128 // elem_bits)
        s = 1
        while 2 * s * r <= width and (k_per_block // self.k) % (2 * s) == 0:
            s *= 2
        return s

    def k_base(self, em: Emitter, lane: Value, super_step: int = 1) -> Value:
        """First K (within a super-step of `super_step` k-steps) of `lane`'s run."""
        return em.mul(super_step * self.k_run_stride, em.div(lane, self.lane_group))

    @property
    def swizzle_bit(self) -> int:
        """The bit of the 8-row block index (d // 8) that tells apart rows one LDS read
        serves together (8 lanes of 128 bits): sigma pairs rows i and i+8 on gfx1100,
        i and i+16 on MFMA 32x32; elsewhere those rows are one block (bit 0 is as good
        as any). codegen/global_copy.py, row_key, maps this bit to bank-slot bit 2."""
        return 1 if self.instr.kind == "mfma" and self.m == 32 else 0

    def c_col_base(self, em: Emitter, lane: Value) -> Value:
        """Column of C (within the MMA tile) of `lane`'s accumulator element 0."""
        return em.mul(self.c_len, em.div(lane, self.lane_group))

    # ---- the op ------------------------------------------------------------------
    def operand_type(self, elem: str) -> str:
        n = self.instr.a_len
        return elem if n == 1 else f"vector<{n}x{elem}>"

    def acc_type(self) -> str:
        return f"vector<{self.instr.c_len}x{self.instr.acc_type}>"

    def emit(self, em: Emitter, x: str, y: str, c: str) -> str:
        """D = X * Y + C, X and Y of the instruction's source types (instr.types)."""
        tx, ty = (self.operand_type(t) for t in self.instr.types)
        shape = self.instr.shape
        if self.instr.kind == "mfma":
            return em.assign(f"amdgpu.mfma {shape} {x} * {y} + {c} {{blocks = 1 : i32}} "
                             f"blgp = none : {tx}, {ty}, {self.acc_type()}", "acc")
        # amdgpu.wmma on i8 is signed by default (docs/layouts.md, "i8 signedness").
        return em.assign(f"amdgpu.wmma {shape} {x} * {y} + {c} : {tx}, {ty}, {self.acc_type()}",
                         "acc")


def select_mma(arch: ArchInfo, a_type: str, b_type: str, mn_per_xdl: int) -> MmaLayout:
    """The instruction a perf config asks for, for a GEMM of A `a_type` and B `b_type`:
    gfx942 picks 32x32 or 16x16 by mnPerXdl; WMMA has one 16x16x16 tile. The kernel
    issues C^T = B^T * A^T, so the instruction's first source is B: an fp8 A times a bf8
    B runs v_..._bf8_fp8."""
    usable = [i for i in arch.mma_for(b_type, a_type) if i.m in (16, 32)]
    if arch.mma_kind == "wmma":
        pick = [i for i in usable if i.m == 16]
    else:
        pick = [i for i in usable if i.m == mn_per_xdl]
    if not pick:
        raise AccelError(f"no {arch.mma_kind} instruction for {a_type} x {b_type} with mnPerXdl="
                         f"{mn_per_xdl} on {arch.name}")
    return mma_layout(arch, pick[0])


def mma_layout(arch: ArchInfo, instr: MmaInstr) -> MmaLayout:
    """The lane mapping of one of `arch`'s instructions."""
    if instr.kind == "mfma":
        # gfx942 single-block rule (docs/layouts.md): 32x32xK splits K in 2 runs, 16x16xK in 4.
        runs = 64 // instr.m
        return MmaLayout(instr, arch.name, k_run_stride=instr.k // runs, lane_group=instr.m)
    if arch.name == "gfx1100":
        return MmaLayout(instr, arch.name, k_run_stride=0, lane_group=16)
    return MmaLayout(instr, arch.name, k_run_stride=8, lane_group=16)
