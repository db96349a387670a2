"""Epilogue: accumulators -> C, with the fused bias/relu, converted to the output type.

The kernel computes C^T = B^T A^T (codegen/mma.py), so a lane holds one row of C and,
per MMA tile, c_len consecutive columns. They are written with `amdgpu.raw_buffer_store`
in vectors of the plan's `c_vector` elements (accel-plan-kernel): the widest width (at
most 128 bits) that divides c_len and the run that is contiguous in C, N for a
row-major C, kpack for C in the accel layout. A vector
then starts at a multiple of its width, so it is wholly inside that run or wholly past
it, one predicate per vector (the rule of the loads in codegen/global_copy.py).

Row-major C: a row past M or a column past N is a valid address elsewhere in C (the
next row, the next batch), so an invalid store is redirected by replacing the batch
index with G: the byte offset lands at or past the end of C and the buffer bound drops
the store.

Accel-layout C ([G, M/mPB, N/kPB, kpackPB, mPB, kpack], element (g, i, j) at
[g, i // mPB, j // kPB, (j % kPB) // kpack, i % mPB, j % kpack]): the padding is part
of the buffer, and the kernel writes it: its rows and columns hold exact zeros, since A
and B read zero past M and N (and the bias is masked there), so C's padding is
zero-filled as accel.pack fills it and C can feed a following GEMM as an accel-layout
operand (with accumulate it keeps C's old padding plus zero). Only columns of the last
N tile beyond C's padded N (N tiles are nPB wide, C pads N to kPB) are dropped, by the
batch redirect; M tiles and C's M padding are both mPB, so no row is.

Fused epilogue (accel.gemm `epilogue`, dialect/ops.py), in the accumulator type before
the one conversion: + C_old (accumulate), + bias[(g,) j], then max(., 0) (relu). The
bias is loaded once per column vector, with the same width (so the width also divides
N) and an N-edge mask that reads 0 past N, and is zeroed in rows past M for an
accel-layout C.

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
from accel.codegen.global_copy import vector_type
from accel.codegen.mma import MmaLayout
from accel.codegen.workgroup_tile import RowWindow


@dataclass(frozen=True)
class Bias:
    """The bias operand of a fused epilogue: [N], or [G, N] when `batched`."""
    memref: str          # SSA name of the kernel argument
    memref_type: str
    batched: bool


@dataclass(frozen=True)
class Epilogue:
    mma: MmaLayout
    c: str               # SSA name of the C argument
    c_type: str
    c_layout: str        # row | accel
    g: int
    m: int
    n: int
    m_per_block: int
    n_per_block: int
    kpack_per_block: int
    kpack: int
    acc_elem: str        # f32 | i32
    out_elem: str        # f32 | f16 | bf16 | i32
    accumulate: bool
    width: int           # elements per store and bias load (the plan's c_vector)
    bias: Bias | None = None
    relu: bool = False
    rows: RowWindow | None = None   # C's rows of a grouped GEMM's group (a [1, L, N] C)

    @property
    def accel(self) -> bool:
        return self.c_layout == "accel"

    @property
    def c_padded_n(self) -> int:
        """Columns C's buffer holds: N, or N padded to whole kPerBlock (accel)."""
        k_pb = self.kpack_per_block * self.kpack
        return -(-self.n // k_pb) * k_pb if self.accel else self.n

    def emit(self, em: Emitter, accs: list[str], reps_m: int, reps_n: int, batch: str,
             m_tile: Value, row_in_tile: Value, col_lane: Value) -> None:
        """Store accs[r * reps_n + c]: row row_in_tile + r*m of M tile m_tile, columns
        from col_lane + c*n."""
        mma, w = self.mma, self.width
        grid_n = -(-self.n // self.n_per_block) * self.n_per_block
        bias = {}
        for c in range(reps_n):
            for j in range(0, mma.c_len, w):
                col = em.add(col_lane, c * mma.n + j)
                col_ok = em.lt(col, self.n) if self.n % self.n_per_block else 1
                if self.bias is not None:
                    bias[c, j] = self._load_bias(em, batch, col, col_ok, w)
        # C's batch index and the index a dropped store is sent to (the bias keeps `batch`).
        c_batch, c_count = (0, 1) if self.rows is not None else (batch, self.g)
        for r in range(reps_m):
            row_local = em.add(row_in_tile, r * mma.m)
            row = em.add(em.mul(m_tile, self.m_per_block), row_local)
            row_ok = em.lt(row, self.m) if self.m % self.m_per_block else 1
            if self.rows is not None:
                row = em.add(self.rows.base, row)
                row_ok = em.lt(row, self.rows.bound)
            for c in range(reps_n):
                for j in range(0, mma.c_len, w):
                    col = em.add(col_lane, c * mma.n + j)
                    if self.accel:
                        ok = em.lt(col, self.c_padded_n) if grid_n > self.c_padded_n else 1
                        idx = self._accel_index(em, em.select(ok, batch, self.g), m_tile,
                                                row_local, col)
                    else:
                        col_ok = em.lt(col, self.n) if self.n % self.n_per_block else 1
                        idx = (em.select(em.and_(row_ok, col_ok), c_batch, c_count), row, col)
                    idx = ", ".join(em.v(x) for x in idx)
                    i32s = ", ".join(["i32"] * (6 if self.accel else 3))
                    x = em.slice(accs[r * reps_n + c], mma.c_len, j, w, self.acc_elem)
                    out_t = vector_type(w, self.out_elem)
                    if self.accumulate:
                        old = em.assign(f"amdgpu.raw_buffer_load {self.c}[{idx}] : "
                                        f"{self.c_type}, {i32s} -> {out_t}")
                        x = self._binary(em, "add", x, self._widen(em, old, w), w)
                    if self.bias is not None:
                        b = bias[c, j]
                        if self.accel and row_ok != 1:
                            # Keep an accel-layout C's padding rows zero (module docstring).
                            b = em.assign(f"arith.select {row_ok}, {b}, {self._zero(em, w)} : "
                                          f"{vector_type(w, self.acc_elem)}")
                        x = self._binary(em, "add", x, b, w)
                    if self.relu:
                        x = self._binary(em, "max", x, self._zero(em, w), w)
                    y = self._narrow(em, x, w)
                    em.line(f"amdgpu.raw_buffer_store {y} -> {self.c}[{idx}] : "
                            f"{out_t} -> {self.c_type}, {i32s}")

    def _accel_index(self, em: Emitter, g: Value, m_tile: Value, row_local: Value,
                     col: Value) -> tuple[Value, ...]:
        """[g, i // mPB, j // kPB, (j % kPB) // kpack, i % mPB, j % kpack] with
        i = m_tile * mPB + row_local (row_local < mPB)."""
        k_pb = self.kpack_per_block * self.kpack
        in_block = em.rem(col, k_pb)
        return (g, m_tile, em.div(col, k_pb), em.div(in_block, self.kpack), row_local,
                em.rem(col, self.kpack))

    def _load_bias(self, em: Emitter, batch: str, col: Value, col_ok: Value, w: int) -> str:
        """bias[(batch,) col : col + w] in the accumulator type; 0 past N (the invalid
        load's index is moved to the end of the buffer, where the bound returns 0)."""
        b = self.bias
        if b.batched:
            idx = (em.select(col_ok, batch, self.g), col)
        else:
            idx = (em.select(col_ok, col, self.n),)
        names = ", ".join(em.v(x) for x in idx)
        i32s = ", ".join(["i32"] * len(idx))
        x = em.assign(f"amdgpu.raw_buffer_load {b.memref}[{names}] : {b.memref_type}, {i32s} "
                      f"-> {vector_type(w, self.out_elem)}", "bias")
        return self._widen(em, x, w)

    def _zero(self, em: Emitter, w: int) -> str:
        zero = "0" if self.acc_elem == "i32" else "0.0"
        t = vector_type(w, self.acc_elem)
        if w == 1:
            return em.assign(f"arith.constant {zero} : {t}")
        return em.assign(f"arith.constant dense<{zero}> : {t}")

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

    def _binary(self, em: Emitter, kind: str, a: str, b: str, w: int) -> str:
        # relu is arith.maximumf (NaN propagates), as accel-from-migraphx's unfused relu.
        ops = {"add": ("arith.addi", "arith.addf"), "max": ("arith.maxsi", "arith.maximumf")}
        op = ops[kind][0 if self.acc_elem == "i32" else 1]
        return em.assign(f"{op} {a}, {b} : {vector_type(w, self.acc_elem)}")
