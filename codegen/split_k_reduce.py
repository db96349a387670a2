"""The reduction kernel of a split-K gemm: S partial products -> C, through the epilogue.

The partial kernel (codegen/k_slices.py) leaves S partial products per batch in the
[G * S, M, N] workspace, in the accumulator type (f32; i32 for i8). This kernel sums
them in slice order 0, 1, ..., S - 1, in a loop over the slices (a fixed order: the same
inputs give the same bits, which atomics would not) and hands the sum to the gemm's own epilogue
(codegen/epilogue.py): + C_old when the gemm accumulates, the fused op list with its
extra operands, the conversion to C's type, C's layout (row or accel, padding
written as zeros) and its edge masks, exactly as the one-kernel gemm writes C.

Its grid is the gemm's tile grid (N tiles, M tiles, G), so the epilogue's tile
coordinates mean what they mean in the gemm kernel. A workgroup covers its
mPerBlock x nPerBlock tile with threads that each hold one run of `width` consecutive
columns of one row (RowRuns stands in for the MMA lane layout the epilogue reads):
nPerBlock / width threads along N, and as many rows at once as 256 threads allow.
Workspace loads past M or N have their batch index sent to G * S, past the end of the
buffer, and read 0; the epilogue masks the stores.
"""

from __future__ import annotations

from dataclasses import dataclass

from accel.codegen.builder import Emitter, kernel_module_text, memref_text
from accel.codegen.epilogue import Epilogue, Extra
from accel.codegen.global_copy import vector_type
from accel.codegen.loops import counted_loop
from accel.dialect.epilogue_program import Program

# Threads of a reduction workgroup at most: 4 waves of 64 or 8 of 32.
MAX_THREADS = 256


@dataclass(frozen=True)
class RowRuns:
    """The epilogue's view of a reduction thread: `m` rows apart between its runs,
    one run of `c_len` columns (what MmaLayout gives for an MMA lane)."""
    m: int
    n: int
    c_len: int


@dataclass(frozen=True)
class ReductionKernel:
    symbol: str
    slices: int
    g: int
    m: int
    n: int
    acc_type: str                # the workspace's element type
    c_type: str                  # C's memref type
    c_layout: str
    c_shape: tuple[int, ...]
    out_type: str
    accumulate: bool
    epilogue: str
    extras: tuple[Extra, ...]
    m_per_block: int
    n_per_block: int
    kpack_per_block: int
    kpack: int
    width: int                   # elements per thread (the plan's reduce_vector)
    c_strides: tuple[int, int, int] | None = None   # a strided C's (codegen/epilogue.py)
    c_offset: int = 0                # a strided C's first element in its buffer
    bf16_round: str | None = None    # the gemm's plan's (codegen/epilogue.py)

    @property
    def workspace_shape(self) -> tuple[int, int, int]:
        return (self.g * self.slices, self.m, self.n)

    @property
    def workspace_type(self) -> str:
        return memref_text(self.workspace_shape, self.acc_type)

    @property
    def lanes_n(self) -> int:
        return self.n_per_block // self.width

    @property
    def rows_per_round(self) -> int:
        return max(1, min(self.m_per_block, MAX_THREADS // self.lanes_n))

    @property
    def block_size(self) -> int:
        return self.lanes_n * self.rows_per_round

    @property
    def grid(self) -> tuple[int, int, int]:
        return (-(-self.n // self.n_per_block), -(-self.m // self.m_per_block), self.g)

    def module_text(self) -> str:
        em = Emitter()
        self._emit_body(em)
        args = [f"%W: {self.workspace_type}", f"%C: {self.c_type}"]
        args += [f"{x.memref}: {x.memref_type}" for x in self.extras]
        return kernel_module_text(self.symbol, args, em.body_text(), self.block_size, self.grid)

    def _emit_body(self, em: Emitter) -> None:
        w, acc = self.width, self.acc_type
        tid = em.gpu_id("thread_id x", "tid")
        n_tile = em.gpu_id("block_id x", "bx")
        m_tile = em.gpu_id("block_id y", "by")
        batch = em.gpu_id("block_id z", "bz")
        row_in_tile = em.div(tid, self.lanes_n)
        col = em.add(em.mul(n_tile, self.n_per_block), em.mul(em.rem(tid, self.lanes_n), w))
        col_ok = em.lt(col, self.n) if self.n % self.n_per_block else 1
        reps_m = self.m_per_block // self.rows_per_round
        vt = vector_type(w, acc)
        add = "arith.addf" if acc == "f32" else "arith.addi"
        rows = []
        for r in range(reps_m):
            row = em.add(em.mul(m_tile, self.m_per_block),
                         em.add(row_in_tile, r * self.rows_per_round))
            rows.append((row, em.and_(em.lt(row, self.m) if self.m % self.m_per_block else 1,
                                      col_ok)))
        zero_text = "0.0" if acc == "f32" else "0"
        zero = em.assign(f"arith.constant {zero_text if w == 1 else f'dense<{zero_text}>'} "
                         f": {vt}")

        first = em.mul(batch, self.slices)   # the batch's slice 0 in the workspace

        def slice_sum(s, totals):
            # One slice's partials added to the running sums: the loop's order is the
            # sum's, so the same inputs give the same bits.
            out = []
            for (row, ok), total in zip(rows, totals):
                z = em.select(ok, em.add(first, s), self.g * self.slices)
                part = em.assign(f"amdgpu.raw_buffer_load %W[{em.v(z)}, {em.v(row)}, "
                                 f"{em.v(col)}] : {self.workspace_type}, i32, i32, i32 -> {vt}",
                                 "w")
                out.append(em.assign(f"{add} {total}, {part} : {vt}"))
            return out

        # A loop over the slices, kept rolled (NO_UNROLL): the kernel's size, and so its
        # compile time, does not grow with S.
        sums = counted_loop(em, self.slices, [(zero, vt)] * reps_m, slice_sum, "s",
                            unroll=False)
        epilogue = Epilogue(mma=RowRuns(self.rows_per_round, self.n_per_block, w), c="%C",
                            c_type=self.c_type, c_layout=self.c_layout, g=self.g, m=self.m,
                            n=self.n, m_per_block=self.m_per_block,
                            n_per_block=self.n_per_block, kpack_per_block=self.kpack_per_block,
                            kpack=self.kpack, acc_elem=acc, out_elem=self.out_type,
                            accumulate=self.accumulate, width=w,
                            program=Program.parse(self.epilogue), extras=self.extras,
                            c_strides=self.c_strides, bf16_round=self.bf16_round)
        epilogue.emit(em, sums, reps_m, 1, batch, m_tile, row_in_tile, col)
