"""Epilogue: accumulators -> C, converted to the output type, masked at the M/N edges.

The kernel computes C^T = B^T A^T (codegen/mma.py), so a lane holds one row of C and,
per MMA tile, c_len consecutive columns. They are written with `amdgpu.raw_buffer_store`
in vectors of the widest width (at most 128 bits) that divides both c_len and N: a
vector then starts at a multiple of its width, so it is wholly inside row N or wholly
past it, one predicate per vector (the rule of the loads in codegen/global_copy.py).
A row past M or a column past N is a valid address elsewhere in C (the next row, the
next batch), so an invalid store is redirected by replacing the batch index with G:
the byte offset lands at or past the end of C and the buffer bound drops the store.

Measured with benchmarks/bench_kernel_quality.py (M=3402, N=4096, K=1024, f16 -> f16),
stores per lane before (one per element) -> after: gfx1100 128x128: 128 x b16 ->
16 x b128; gfx1201 128x256: 128 x b16 -> 16 x b128; gfx942 128x256 (32x32 MFMA): 64 x b16
-> 8 x b128; i8 -> i32 16x16 on gfx942: 4 x b32 -> 1 x b128. N = 4090 takes 2-element
vectors; even so the LLVM backend's time for the gfx1100 128x128 kernel fell from 270 to
134 ms (the scalar stores, each with its own address and predicate, were half its work).
"""

from __future__ import annotations

from dataclasses import dataclass

from accel.codegen.builder import Emitter, Value
from accel.codegen.global_copy import vector_type, widest_vector
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

    @property
    def width(self) -> int:
        """Elements per store."""
        return widest_vector(self.out_elem, self.n, self.mma.c_len)

    def emit(self, em: Emitter, accs: list[str], reps_m: int, reps_n: int, batch: str,
             row_lane: Value, col_lane: Value) -> None:
        """Store accs[r * reps_n + c]: the lane's row row_lane + r*m, columns from
        col_lane + c*n."""
        mma, w = self.mma, self.width
        for r in range(reps_m):
            row = em.add(row_lane, r * mma.m)
            row_ok = em.lt(row, self.m) if self.m % self.m_per_block else 1
            for c in range(reps_n):
                for j in range(0, mma.c_len, w):
                    col = em.add(col_lane, c * mma.n + j)
                    col_ok = em.lt(col, self.n) if self.n % self.n_per_block else 1
                    g_idx = em.select(em.and_(row_ok, col_ok), batch, self.g)
                    idx = ", ".join(em.v(x) for x in (g_idx, row, col))
                    x = em.slice(accs[r * reps_n + c], mma.c_len, j, w, self.acc_elem)
                    out_t = vector_type(w, self.out_elem)
                    if self.accumulate:
                        old = em.assign(f"amdgpu.raw_buffer_load {self.c}[{idx}] : "
                                        f"{self.c_type}, i32, i32, i32 -> {out_t}")
                        x = self._add(em, x, self._widen(em, old, w), w)
                    y = self._narrow(em, x, w)
                    em.line(f"amdgpu.raw_buffer_store {y} -> {self.c}[{idx}] : "
                            f"{out_t} -> {self.c_type}, i32, i32, i32")

    def _widen(self, em: Emitter, x: str, w: int) -> str:
        if self.out_elem == self.acc_elem:
            return x
        return em.assign(f"arith.extf {x} : {vector_type(w, self.out_elem)} to "
                         f"{vector_type(w, self.acc_elem)}")

    def _narrow(self, em: Emitter, x: str, w: int) -> str:
        if self.out_elem == self.acc_elem:
            return x
        return em.assign(f"arith.truncf {x} : {vector_type(w, self.acc_elem)} to "
                         f"{vector_type(w, self.out_elem)}")

    def _add(self, em: Emitter, a: str, b: str, w: int) -> str:
        op = "arith.addi" if self.acc_elem == "i32" else "arith.addf"
        return em.assign(f"{op} {a}, {b} : {vector_type(w, self.acc_elem)}")
