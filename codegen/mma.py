"""Per-instruction lane mappings of MFMA/WMMA operands, as formulas.

Source: shared/LAYOUTS.md ("Where each element lives" and the read-the-other-way table),
confirmed there by execution and against AMD's Matrix Instruction Calculator. With
`l` the lane in the wave and `e` the index in the lane's operand vector:

  A: lane l holds row `l % m` of A and the K run `k_base(l) + e`, e < a_len
  B: lane l holds column `l % n` of B and the K run `k_base(l) + e`, e < b_len
  C: lane l holds column `l % n` of C/D; element e is row `c_row_base(l) + c_row_of(e)`

  instruction                 k_base(l)         c_row_base(l)     c_row_of(e)
  gfx942 MFMA 32x32xK         (K/2)*(l//32)     4*(l//32)         8*(e//4) + e%4
  gfx942 MFMA 16x16xK         (K/4)*(l//16)     4*(l//16)         e
  gfx1100 WMMA 16x16x16       0 (lanes 16-31    l//16             2*e
                              replicate 0-15)
  gfx1201 WMMA 16x16x16       8*(l//16)         8*(l//16)         e

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
    lane_group: int          # lanes that share one K run / one C row base (m or 16)
    c_row_base_stride: int   # c_row_base(l) = c_row_base_stride * (l // lane_group)

    @property
    def m(self) -> int:
        return self.instr.m

    @property
    def n(self) -> int:
        return self.instr.n

    @property
    def k(self) -> int:
        return self.instr.k

    def row_of(self, e: int) -> int:
        """c_row_of(e): the row offset of accumulator element e (LAYOUTS.md, C/D column)."""
        if self.instr.kind == "mfma" and self.m == 32:
            return 8 * (e // 4) + e % 4
        if self.arch == "gfx1100":
            return 2 * e
        return e

    # ---- IR for one lane -------------------------------------------------------
    def operand_index(self, em: Emitter, lane: Value) -> Value:
        """Row of A (or column of B) held by `lane`."""
        return em.rem(lane, self.m)

    def k_base(self, em: Emitter, lane: Value) -> Value:
        return em.mul(self.k_run_stride, em.div(lane, self.lane_group))

    def c_col(self, em: Emitter, lane: Value) -> Value:
        return em.rem(lane, self.n)

    def c_row_base(self, em: Emitter, lane: Value) -> Value:
        return em.mul(self.c_row_base_stride, em.div(lane, self.lane_group))

    # ---- the op ------------------------------------------------------------------
    def operand_type(self, elem: str) -> str:
        n = self.instr.a_len
        return elem if n == 1 else f"vector<{n}x{elem}>"

    def acc_type(self) -> str:
        return f"vector<{self.instr.c_len}x{self.instr.acc_type}>"

    def emit(self, em: Emitter, a: str, b: str, c: str, elem: str) -> str:
        t = self.operand_type(elem)
        shape = self.instr.shape
        if self.instr.kind == "mfma":
            return em.assign(f"amdgpu.mfma {shape} {a} * {b} + {c} {{blocks = 1 : i32}} "
                             f"blgp = none : {t}, {t}, {self.acc_type()}", "acc")
        # amdgpu.wmma on i8 is signed by default (LAYOUTS.md, "i8 signedness").
        return em.assign(f"amdgpu.wmma {shape} {a} * {b} + {c} : {t}, {t}, {self.acc_type()}",
                         "acc")


def select_mma(arch: ArchInfo, in_type: str, mn_per_xdl: int) -> MmaLayout:
    """The instruction a perf config asks for: gfx942 picks 32x32 or 16x16 by mnPerXdl;
    WMMA has one 16x16x16 tile."""
    usable = [i for i in arch.mma_for(in_type) if i.m in (16, 32)]
    if arch.mma_kind == "wmma":
        pick = [i for i in usable if i.m == 16]
    else:
        pick = [i for i in usable if i.m == mn_per_xdl]
    if not pick:
        raise AccelError(f"no {arch.mma_kind} instruction for {in_type} with mnPerXdl="
                         f"{mn_per_xdl} on {arch.name}")
    instr = pick[0]
    if instr.kind == "mfma":
        # gfx942 single-block rule (LAYOUTS.md): 32x32xK splits K in 2 runs, 16x16xK in 4.
        runs = 64 // instr.m
        return MmaLayout(instr, arch.name, k_run_stride=instr.k // runs, lane_group=instr.m,
                         c_row_base_stride=4)
    if arch.name == "gfx1100":
        return MmaLayout(instr, arch.name, k_run_stride=0, lane_group=16, c_row_base_stride=1)
    return MmaLayout(instr, arch.name, k_run_stride=8, lane_group=16, c_row_base_stride=8)
