"""Epilogue: accumulators -> C, converted to the output type, masked at the M/N edges.

A lane holds one column of each accumulator tile and several rows (codegen/mma.py), so
C (row-major) is written one element per `amdgpu.raw_buffer_store`. A row past M or a
column past N is a valid address elsewhere in C (the next row, the next batch), so its
store is redirected, like an invalid load in codegen/global_copy.py, by replacing the
batch index with G: the byte offset lands at or past the end of C and the store is
dropped by the buffer bound.
"""

from __future__ import annotations

from dataclasses import dataclass

from accel.codegen.builder import Emitter, Value
from accel.codegen.mma import MmaLayout


@dataclass(frozen=True)
class Epilogue:
    mma: MmaLayout
    c: str               # SSA name of the C argument
    c_type: str
    g: int
    m: int
    n: int
    m_per_block: int
    n_per_block: int
    acc_elem: str        # f32 | i32
    out_elem: str        # f32 | f16 | bf16 | i32
    accumulate: bool

    def emit(self, em: Emitter, accs: list[str], reps_m: int, reps_n: int, batch: str,
             row_lane: Value, col_lane: Value) -> None:
        """Store accs[r * reps_n + c]; row_lane/col_lane are the lane's first row/column."""
        mma = self.mma
        acc_t = mma.acc_type()
        cols = []
        for c in range(reps_n):
            col = em.add(col_lane, c * mma.n)
            ok = em.lt(col, self.n) if self.n % self.n_per_block else 1
            cols.append((col, ok))
        for r in range(reps_m):
            for e in range(mma.instr.c_len):
                row = em.add(row_lane, r * mma.m + mma.row_of(e))
                row_ok = em.lt(row, self.m) if self.m % self.m_per_block else 1
                for c, (col, col_ok) in enumerate(cols):
                    g_idx = em.select(em.and_(row_ok, col_ok), batch, self.g)
                    idx = ", ".join(em.to_i32(x) for x in (g_idx, row, col))
                    x = em.assign(f"vector.extract {accs[r * reps_n + c]}[{e}] : "
                                  f"{self.acc_elem} from {acc_t}")
                    if self.accumulate:
                        old = em.assign(f"amdgpu.raw_buffer_load {self.c}[{idx}] : "
                                        f"{self.c_type}, i32, i32, i32 -> {self.out_elem}")
                        x = self._add(em, x, self._widen(em, old))
                    y = self._narrow(em, x)
                    em.line(f"amdgpu.raw_buffer_store {y} -> {self.c}[{idx}] : "
                            f"{self.out_elem} -> {self.c_type}, i32, i32, i32")

    def _widen(self, em: Emitter, x: str) -> str:
        if self.out_elem == self.acc_elem:
            return x
        return em.assign(f"arith.extf {x} : {self.out_elem} to {self.acc_elem}")

    def _narrow(self, em: Emitter, x: str) -> str:
        if self.out_elem == self.acc_elem:
            return x
        return em.assign(f"arith.truncf {x} : {self.acc_elem} to {self.out_elem}")

    def _add(self, em: Emitter, a: str, b: str) -> str:
        op = "arith.addi" if self.acc_elem == "i32" else "arith.addf"
        return em.assign(f"{op} {a}, {b} : {self.acc_elem}")
