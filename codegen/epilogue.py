"""Epilogue: accumulators -> C, through the fused op list, converted to the output type.

The kernel computes C^T = B^T A^T (codegen/mma.py), so a lane holds one row of C and,
per MMA tile, c_len consecutive columns. They are written with `amdgpu.raw_buffer_store`
in vectors of the plan's `c_vector` elements (accel-plan-kernel): the widest width (at
most 128 bits) that divides c_len and the run that is contiguous in C, N for a
row-major C, kpack for C in the accel layout. A vector
then starts at a multiple of its width, so it is wholly inside that run or wholly past
it, one predicate per vector (the rule of the loads in codegen/global_copy.py).

With outputSwizzle 1 (the plan's c_staging) the values, computed as above, go through
LDS instead and are stored as rows (codegen/c_staging.py), masked the same way.

Row-major C: a row past M or a column past N is a valid address elsewhere in C (the
next row, the next batch), so an invalid store is redirected by replacing the batch
index with G: the byte offset lands at or past the end of C and the buffer bound drops
the store.

Strided C (a view of a larger buffer, dialect/gemm_verifier.check_c_view: one stride
per G, M, N): the stores index it through its strides. With N of stride 1 (rows or
batches further apart than they are long) they are the row-major ones, vectors of
c_vector along N (its offset and outer strides multiples of that width, checked at build
time, so a vector is as aligned as in a packed C). With M of stride 1 (C transposed) a
lane's c_len values are consecutive columns, a whole column stride apart in memory, and
the values of the next rows, the contiguous run, are in other lanes (a lane holds one
row: codegen/mma.py), so the widest store the layout allows a lane is one element: each
value of the vector is stored by itself (an M-run would need the tile transposed
across lanes first). An invalid store has C's index of largest n * s (the buffer bound,
max(n * s)) sent to its extent: the offset then lands at or past the bound and the store
is dropped; the batch for every C whose batch stride is its widest.

Accel-layout C ([G, M/mPB, N/kPB, kpackPB, mPB, kpack], element (g, i, j) at
[g, i // mPB, j // kPB, (j % kPB) // kpack, i % mPB, j % kpack]): the padding is part
of the buffer, and the kernel writes it: its rows and columns hold exact zeros, since A
and B read zero past M and N (and the bias is masked there), so C's padding is
zero-filled as accel.pack fills it and C can feed a following GEMM as an accel-layout
operand (with accumulate it keeps C's old padding plus zero). N tiles are nPB wide and
C pads N to kPB, so the grid's columns (N rounded up to nPB) and C's can differ: with
kPB < nPB the last N tile's columns beyond C's padded N are dropped, by the batch
redirect; with kPB > nPB C holds up to kPB - nPB columns past the grid (N = 56, nPB 16,
kPB 128: 64 grid columns, 128 in C), and the last N tile's workgroups write them too,
the tile's store pattern shifted right by nPB per step, with the value every padding
column gets (0, or C_old + 0 with accumulate). M tiles and C's M padding are both mPB,
so no row is dropped or left out.

Fused epilogue (accel.gemm `epilogue`, dialect/epilogue_program.py): + C_old
(accumulate), then the op list's steps, each on a vector of the accumulator type (f32,
i32), then the one conversion to C's type. An extra operand is loaded with the store's
width (so the width also divides N when one varies with N) in its own element type and
converted: one that does not vary with M ("n", "gn", "") once per column vector, the
others per row; a scalar one ("m", "gm", "") is loaded as one element and broadcast.
Loads past M or N are redirected past the buffer's end (the bound returns 0), as C's
stores are. For an accel-layout C the result is forced to 0 in rows past M and columns
past N, where the op list need not give 0 (exp(0) = 1): C's padding stays zero.
sigmoid, tanh and erf are built from math.exp (the only transcendental besides log and
sqrt that lowers here without ROCm's device library: math.erf and math.exp2 need its
bitcode, math.tanh has no libcall): tanh(x) = 1 - 2 / (exp(2x) + 1), erf by Abramowitz
and Stegun 7.1.26 (|error| <= 1.5e-7).

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
from accel.codegen.c_staging import CStaging
from accel.codegen.global_copy import vector_type
from accel.codegen.mma import MmaLayout
from accel.codegen.workgroup_tile import RowWindow
from accel.dialect.epilogue_program import Program
from accel.dialect.operand_layouts import bound_dimension, check_view_alignment
from accel.diagnostics import AccelError

# Abramowitz and Stegun 7.1.26: erf(x) = 1 - t (a1 + t (a2 + t (a3 + t (a4 + t a5))))
# exp(-x^2), t = 1 / (1 + p x), for x >= 0.
_ERF_P = 0.3275911
_ERF_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)


@dataclass(frozen=True)
class Extra:
    """An extra operand of the fused epilogue: a kernel argument broadcast to [G, M, N]."""
    name: str            # the argument's name: "bias" for the fixed bias epilogues, else eN
    memref_type: str
    shape: tuple[int, ...]
    kind: str            # the indices it varies with: gmn | n | gn | m | gm | "" (scalar)
    elem: str
    # A "gmn" operand's strides when it is a strided view (a broadcast batch, wider
    # rows: dialect/operand_layouts.py), else None: packed row-major.
    view_strides: tuple[int, ...] | None = None
    view_offset: int = 0    # of a strided view: its first element in the buffer

    @property
    def memref(self) -> str:
        """SSA name of the kernel argument."""
        return f"%{self.name}"


def check_extra_alignment(x: Extra, width: int) -> None:
    """AccelError unless a strided extra operand's loads of `width` elements start at
    multiples of `width`, as in a packed one."""
    if x.view_strides is not None:
        check_view_alignment(f"epilogue operand {x.name}'s", x.view_offset, x.view_strides,
                             width)


def check_c_alignment(view, width: int, staging, n: int) -> None:
    """AccelError unless a strided C's vector stores (`width` elements, or a staged C's
    `vector`) start at multiples of their width, as in a packed C: its offset and outer
    strides divisible by it. `view` is C's (strides, offset), None when packed; a
    transposed C stores one element at a time (module docstring)."""
    if view is None:
        return
    strides, offset = view
    if n > 1 and strides[2] != 1:
        return
    w = max(width, staging.vector if staging is not None else 1)
    if offset % w or strides[0] % w or strides[1] % w:
        raise AccelError(f"kernel plan: C's stores of {w} elements are not aligned in its "
                         f"strided view (offset {offset}, strides {list(strides)}: the "
                         f"offset and the G and M strides must be multiples of {w})")


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
    width: int           # elements per store and extra-operand load (the plan's c_vector)
    program: Program = Program(())
    extras: tuple[Extra, ...] = ()
    rows: RowWindow | None = None   # C's rows of a grouped GEMM's group (a [1, L, N] C)
    staging: CStaging | None = None  # C through LDS (the plan's c_staging)
    # C's (G, M, N) strides when it is a strided view (module docstring), else None:
    # packed row-major.
    c_strides: tuple[int, int, int] | None = None
    # How f32 is rounded to bf16, the plan's bf16_round: "i32" spells it in i32 ops here
    # (`_bf16_words`) and packs C's pairs with v_perm_b32; "truncf", or None where no
    # plan says (an elementwise kernel, a plan without the attribute), leaves it to LLVM.
    bf16_round: str | None = None

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
        from col_lane + c*n; through LDS when the plan stages C (codegen/c_staging.py)."""
        mma, w = self.mma, self.width
        grid_n = -(-self.n // self.n_per_block) * self.n_per_block
        hoisted = {}
        for c in range(reps_n):
            for j in range(0, mma.c_len, w):
                col = em.add(col_lane, c * mma.n + j)
                col_ok = em.lt(col, self.n) if self.n % self.n_per_block else 1
                for i, x in enumerate(self.extras):
                    if "m" not in x.kind:
                        hoisted[c, j, i] = self._load_extra(em, x, batch, None, 1, col,
                                                            col_ok, w)
        if self.staging is not None:
            self._emit_staged(em, accs, reps_m, reps_n, batch, m_tile, row_in_tile, col_lane,
                              hoisted)
            return
        for r in range(reps_m):
            for c in range(reps_n):
                for j in range(0, mma.c_len, w):
                    y, idx = self._value(em, accs, r, c, j, reps_n, batch, m_tile, row_in_tile,
                                         col_lane, hoisted)
                    self._store(em, y, idx, w)
        if self.accel and grid_n < self.c_padded_n:
            self._store_past_grid(em, reps_m, reps_n, batch, m_tile, row_in_tile, col_lane,
                                  grid_n)

    @property
    def _index_types(self) -> str:
        return ", ".join(["i32"] * (6 if self.accel else 3))

    @property
    def c_transposed(self) -> bool:
        """Is C a strided view whose columns are not contiguous (M of stride 1)?"""
        return self.c_strides is not None and self.n > 1 and self.c_strides[2] != 1

    def _store(self, em: Emitter, y: str, idx: str | list[str], w: int) -> None:
        """Store `w` values `y` at C's index `idx`, or, given one index per value (a
        transposed C: module docstring), each value at its own."""
        if isinstance(idx, str):
            em.line(f"amdgpu.raw_buffer_store {y} -> {self.c}[{idx}] : "
                    f"{vector_type(w, self.out_elem)} -> {self.c_type}, {self._index_types}")
            return
        for e, at in enumerate(idx):
            em.line(f"amdgpu.raw_buffer_store {em.slice(y, w, e, 1, self.out_elem)} -> "
                    f"{self.c}[{at}] : {self.out_elem} -> {self.c_type}, {self._index_types}")

    def _load_c(self, em: Emitter, idx: str | list[str], w: int) -> str:
        """C's `w` old values at `idx` (per value, for a transposed C), as `_store` puts
        them."""
        if isinstance(idx, str):
            return em.assign(f"amdgpu.raw_buffer_load {self.c}[{idx}] : "
                             f"{self.c_type}, {self._index_types} -> "
                             f"{vector_type(w, self.out_elem)}")
        pieces = [em.assign(f"amdgpu.raw_buffer_load {self.c}[{at}] : {self.c_type}, "
                            f"{self._index_types} -> {self.out_elem}") for at in idx]
        return pieces[0] if w == 1 else _join(em, pieces, 1, self.out_elem)

    def _row(self, em: Emitter, m_tile: Value, row_local: Value) -> tuple[Value, Value]:
        """C's row of `row_local` in M tile `m_tile` (a grouped GEMM's: in its window)
        and whether it is inside M."""
        row = em.add(em.mul(m_tile, self.m_per_block), row_local)
        row_ok = em.lt(row, self.m) if self.m % self.m_per_block else 1
        if self.rows is not None:
            row = em.add(self.rows.base, row)
            row_ok = em.lt(row, self.rows.bound)
        return row, row_ok

    def _row_major_index(self, em: Emitter, ok: Value, batch: Value, row: Value,
                         col: Value) -> str:
        """A row-major C's index of (batch, row, col), sent past C's end when not ok
        (module docstring); C's batch is 0 of a grouped GEMM's [1, L, N] C."""
        c_batch, c_count = (0, 1) if self.rows is not None else (batch, self.g)
        return ", ".join(em.v(x) for x in (em.select(ok, c_batch, c_count), row, col))

    def _strided_index(self, em: Emitter, ok: Value, batch: Value, row: Value, col: Value,
                       w: int) -> str | list[str]:
        """A strided C's index of (batch, row, col : col + w), one per value when C is
        transposed; an invalid store's index of largest n * s sent to its extent
        (module docstring)."""
        coords = [batch, row, col]
        extents = (self.g, self.m, self.n)
        at = bound_dimension(extents, self.c_strides)
        coords[at] = em.select(ok, coords[at], extents[at])
        if not self.c_transposed:
            return ", ".join(em.v(x) for x in coords)
        return [", ".join(em.v(x) for x in (coords[0], coords[1], em.add(coords[2], e)))
                for e in range(w)]

    def _value(self, em: Emitter, accs: list[str], r: int, c: int, j: int, reps_n: int,
               batch: str, m_tile: Value, row_in_tile: Value, col_lane: Value,
               hoisted: dict) -> tuple[str, str]:
        """C's `width` values from element j of accumulator (r, c), in C's type, and the
        index they are stored at."""
        mma, w = self.mma, self.width
        grid_n = -(-self.n // self.n_per_block) * self.n_per_block
        row_local = em.add(row_in_tile, r * mma.m)
        row, row_ok = self._row(em, m_tile, row_local)
        col = em.add(col_lane, c * mma.n + j)
        col_ok = em.lt(col, self.n) if self.n % self.n_per_block else 1
        if self.accel:
            ok = em.lt(col, self.c_padded_n) if grid_n > self.c_padded_n else 1
            idx = ", ".join(em.v(x) for x in self._accel_index(
                em, em.select(ok, batch, self.g), m_tile, row_local, col))
        elif self.c_strides is not None:
            idx = self._strided_index(em, em.and_(row_ok, col_ok), batch, row, col, w)
        else:
            idx = self._row_major_index(em, em.and_(row_ok, col_ok), batch, row, col)
        x = em.slice(accs[r * reps_n + c], mma.c_len, j, w, self.acc_elem)
        if self.accumulate:
            old = self._load_c(em, idx, w)
            x = self._op(em, "add", w, x, self._widen(em, old, self.out_elem, w))
        extras = [hoisted[c, j, i] if (c, j, i) in hoisted else
                  self._load_extra(em, e, batch, row, row_ok, col, col_ok, w)
                  for i, e in enumerate(self.extras)]
        x = self._run_program(em, x, extras, w)
        if self.accel and self.program.steps:
            inside = em.and_(row_ok, col_ok)
            if inside != 1:
                # Keep an accel-layout C's padding zero (module docstring).
                x = em.assign(f"arith.select {inside}, {x}, {self._const(em, 0, w)} "
                              f": {vector_type(w, self.acc_elem)}")
        return self._narrow(em, x, w), idx

    def _emit_staged(self, em: Emitter, accs: list[str], reps_m: int, reps_n: int,
                     batch: str, m_tile: Value, row_in_tile: Value, col_lane: Value,
                     hoisted: dict) -> None:
        """C through LDS (codegen/c_staging.py): per pass, a block of the wave's tile is
        written to LDS a unit at a time, then read back row by row and stored with the
        plan's vector width, masked per vector at M and N (a vector starts at a multiple
        of its width, which divides N)."""
        mma, st = self.mma, self.staging
        unit = st.plan.unit
        tiles_m, tiles_n = st.plan.rows // mma.m, st.plan.columns // mma.n
        for p in range(reps_m // tiles_m):
            for q in range(reps_n // tiles_n):
                # The k-tile loop's last fragment reads (or the previous pass's row
                # reads) of this buffer are done before it is overwritten.
                em.line("amdgpu.lds_barrier")
                for r in range(p * tiles_m, (p + 1) * tiles_m):
                    row = em.add(st.lane_row, (r - p * tiles_m) * mma.m)
                    for c in range(q * tiles_n, (q + 1) * tiles_n):
                        for j in range(0, mma.c_len, unit):
                            pieces = [self._value(em, accs, r, c, jj, reps_n, batch, m_tile,
                                                  row_in_tile, col_lane, hoisted)[0]
                                      for jj in range(j, j + unit, self.width)]
                            st.write(em, row,
                                     em.add(st.lane_col, (c - q * tiles_n) * mma.n + j),
                                     _join(em, pieces, self.width, self.out_elem))
                em.line("amdgpu.lds_barrier")
                self._store_block(em, batch, m_tile, p * st.plan.rows, q * st.plan.columns)

    def _store_block(self, em: Emitter, batch: str, m_tile: Value, row0: int,
                     col0: int) -> None:
        """The staged block at (row0, col0) of the wave's tile, read back and stored."""
        st = self.staging
        span, vs = st.plan.span, st.plan.vector
        for i in range(st.reads_per_pass):
            row_in_pass, col_in_block, value, lane_ok = st.read(em, i)
            row, row_ok = self._row(em, m_tile, em.add(em.add(st.row_wave, row0),
                                                       row_in_pass))
            for j in range(0, span, vs):
                col = em.add(em.add(st.col_wave, col0 + j), col_in_block)
                col_ok = em.lt(col, self.n) if self.n % self.n_per_block else 1
                ok = em.and_(lane_ok, em.and_(row_ok, col_ok))
                idx = self._row_major_index(em, ok, batch, row, col) \
                    if self.c_strides is None else \
                    self._strided_index(em, ok, batch, row, col, vs)
                self._store(em, em.slice(value, span, j, vs, self.out_elem), idx, vs)

    def _store_past_grid(self, em: Emitter, reps_m: int, reps_n: int, batch: str,
                         m_tile: Value, row_in_tile: Value, col_lane: Value,
                         grid_n: int) -> None:
        """An accel-layout C's columns [grid_n, c_padded_n), no workgroup's own: the
        last N tile's workgroups write them (module docstring). They are past N, so the
        value is the padding's: the accumulator's 0 (+ C_old with accumulate), and 0
        after a fused op list."""
        mma, w, n_pb = self.mma, self.width, self.n_per_block
        last_tile = 1 if grid_n == n_pb else em.lt(grid_n - n_pb - 1, col_lane)
        steps = -(-(self.c_padded_n - grid_n) // n_pb)
        keep_old = self.accumulate and not self.program.steps
        zero = self._const(em, 0, w)
        out_t = vector_type(w, self.out_elem)
        zero_out = None if keep_old else self._narrow(em, zero, w)
        for step in range(1, steps + 1):
            for r in range(reps_m):
                row_local = em.add(row_in_tile, r * mma.m)
                for c in range(reps_n):
                    for j in range(0, mma.c_len, w):
                        col = em.add(col_lane, step * n_pb + c * mma.n + j)
                        # A store vector starts at a multiple of w, which divides kpack
                        # and so c_padded_n: it is wholly inside C's columns or past them.
                        ok = last_tile if step * n_pb <= self.c_padded_n - grid_n else \
                            em.and_(last_tile, em.lt(col, self.c_padded_n))
                        idx = ", ".join(em.v(x) for x in self._accel_index(
                            em, em.select(ok, batch, self.g), m_tile, row_local, col))
                        i32s = ", ".join(["i32"] * 6)
                        y = zero_out
                        if keep_old:
                            old = em.assign(f"amdgpu.raw_buffer_load {self.c}[{idx}] : "
                                            f"{self.c_type}, {i32s} -> {out_t}")
                            y = self._narrow(em, self._op(
                                em, "add", w, zero, self._widen(em, old, self.out_elem, w)), w)
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

    # ---- extra operands ----------------------------------------------------------
    def _load_extra(self, em: Emitter, x: Extra, batch: str, row: Value | None,
                    row_ok: Value, col: Value, col_ok: Value, w: int) -> str:
        """The operand's values at (batch, row, col : col + w) in the accumulator type; 0
        past M or N (the invalid load's index is moved past the end of the buffer)."""
        ok = em.and_(row_ok, col_ok) if "m" in x.kind and "n" in x.kind else \
            (row_ok if "m" in x.kind else col_ok if "n" in x.kind else 1)
        coords = {"g": batch, "m": row, "n": col}
        idx = [coords[ch] for ch in x.kind] or [0]
        # Redirect the first index past its extent: the whole offset is then at or past
        # the buffer's end. In a strided view the index of its largest n * s (the
        # buffer loads' bound, max(n * s)): a broadcast batch's stride 0 moves nothing.
        at = 0
        if x.view_strides is not None:
            at = bound_dimension(x.shape, x.view_strides)
        extent = {"g": self.g, "m": self.m, "n": self.n}[x.kind[at]] if x.kind else 1
        idx[at] = em.select(ok, idx[at], extent)
        names = ", ".join(em.v(i) for i in idx)
        i32s = ", ".join(["i32"] * len(idx))
        lanes = w if "n" in x.kind else 1
        v = em.assign(f"amdgpu.raw_buffer_load {x.memref}[{names}] : {x.memref_type}, {i32s} "
                      f"-> {vector_type(lanes, x.elem)}", "ep")
        v = self._widen(em, v, x.elem, lanes)
        if lanes == 1 and w > 1:
            v = em.assign(f"vector.broadcast {v} : {self.acc_elem} to "
                          f"{vector_type(w, self.acc_elem)}")
        return v

    def _widen(self, em: Emitter, x: str, elem: str, w: int) -> str:
        """A vector of `elem` in the accumulator type."""
        acc = self.acc_elem
        if elem == acc:
            return x
        src, dst = vector_type(w, elem), vector_type(w, acc)
        if acc == "i32":   # i8 -> i32
            return em.assign(f"arith.extsi {x} : {src} to {dst}")
        if elem.startswith("i"):
            return em.assign(f"arith.sitofp {x} : {src} to {dst}")
        return em.assign(f"arith.extf {x} : {src} to {dst}")

    def _narrow(self, em: Emitter, x: str, w: int) -> str:
        if self.out_elem == self.acc_elem:
            return x
        if self.out_elem == "bf16" and self.bf16_round == "i32":
            return _pack_bf16(em, _bf16_words(em, x, w), w)
        return em.assign(f"arith.truncf {x} : {vector_type(w, self.acc_elem)} to "
                         f"{vector_type(w, self.out_elem)}")

    # ---- the op list -------------------------------------------------------------
    def _run_program(self, em: Emitter, acc: str, extras: list[str], w: int) -> str:
        values: list[str] = []
        x = acc
        for step in self.program.steps:
            args = [self._operand(em, a, acc, extras, values, w) for a in step.args]
            x = self._step(em, step.op, args, w)
            values.append(x)
        return x

    def _operand(self, em: Emitter, a: str, acc: str, extras: list[str], values: list[str],
                 w: int) -> str:
        if a == "%acc":
            return acc
        if a.startswith("%e"):
            return extras[int(a[2:])]
        if a.startswith("%"):
            return values[int(a[1:])]
        return self._const(em, float(a) if self.acc_elem == "f32" else int(a), w)

    def _const(self, em: Emitter, value, w: int) -> str:
        t = vector_type(w, self.acc_elem)
        if self.acc_elem == "f32":
            value = float(value)
            text = ("0x7FC00000" if value != value else "0x7F800000" if value == float("inf")
                    else "0xFF800000" if value == float("-inf") else repr(value))
        else:
            text = str(int(value))
        if w == 1:
            return em.assign(f"arith.constant {text} : {t}")
        return em.assign(f"arith.constant dense<{text}> : {t}")

    def _op(self, em: Emitter, kind: str, w: int, *args: str) -> str:
        """One arith/math op on accumulator-typed vectors."""
        flt = self.acc_elem == "f32"
        name = {"add": ("arith.addf", "arith.addi"), "sub": ("arith.subf", "arith.subi"),
                "mul": ("arith.mulf", "arith.muli"), "div": ("arith.divf", "arith.divsi"),
                "max": ("arith.maximumf", "arith.maxsi"),
                "min": ("arith.minimumf", "arith.minsi"),
                "exp": ("math.exp", None), "abs": ("math.absf", None),
                "neg": ("arith.negf", None)}[kind][0 if flt else 1]
        return em.assign(f"{name} {', '.join(args)} : {vector_type(w, self.acc_elem)}")

    def _cmp(self, em: Emitter, pred_f: str, pred_i: str, a: str, b: str, w: int) -> str:
        flt = self.acc_elem == "f32"
        op, pred = ("arith.cmpf", pred_f) if flt else ("arith.cmpi", pred_i)
        return em.assign(f"{op} {pred}, {a}, {b} : {vector_type(w, self.acc_elem)}", "p")

    def _select(self, em: Emitter, cond: str, a: str, b: str, w: int) -> str:
        """Lane-wise cond ? a : b, cond a vector of i1 like the values."""
        types = vector_type(w, self.acc_elem)
        if w > 1:
            types = f"{vector_type(w, 'i1')}, {types}"
        return em.assign(f"arith.select {cond}, {a}, {b} : {types}")

    def _step(self, em: Emitter, op: str, args: list[str], w: int) -> str:
        t = vector_type(w, self.acc_elem)
        if op in ("add", "sub", "mul", "div", "max", "min", "exp", "abs"):
            return self._op(em, op, w, *args)
        if op == "relu":
            return self._op(em, "max", w, args[0], self._const(em, 0, w))
        if op == "neg":
            if self.acc_elem == "f32":
                return self._op(em, "neg", w, args[0])
            return self._op(em, "sub", w, self._const(em, 0, w), args[0])
        if op in ("greater", "less"):
            p = self._cmp(em, "ogt" if op == "greater" else "olt",
                          "sgt" if op == "greater" else "slt", args[0], args[1], w)
            return self._select(em, p, self._const(em, 1, w), self._const(em, 0, w), w)
        if op == "where":
            p = self._cmp(em, "une", "ne", args[0], self._const(em, 0, w), w)
            return self._select(em, p, args[1], args[2], w)
        if op == "clip":
            return self._op(em, "min", w, self._op(em, "max", w, args[0], args[1]), args[2])
        if op == "sigmoid":   # 1 / (1 + exp(-x))
            e = self._op(em, "exp", w, self._op(em, "neg", w, args[0]))
            return self._op(em, "div", w, self._const(em, 1, w),
                            self._op(em, "add", w, self._const(em, 1, w), e))
        if op == "tanh":      # 1 - 2 / (exp(2x) + 1): exact limits +-1 when exp overflows
            e = self._op(em, "exp", w, self._op(em, "add", w, args[0], args[0]))
            q = self._op(em, "div", w, self._const(em, 2, w),
                         self._op(em, "add", w, e, self._const(em, 1, w)))
            return self._op(em, "sub", w, self._const(em, 1, w), q)
        if op == "erf":
            x = args[0]
            ax = self._op(em, "abs", w, x)
            t = self._op(em, "div", w, self._const(em, 1, w), self._op(
                em, "add", w, self._const(em, 1, w),
                self._op(em, "mul", w, self._const(em, _ERF_P, w), ax)))
            poly = self._const(em, _ERF_A[-1], w)
            for a in reversed(_ERF_A[:-1]):
                poly = self._op(em, "add", w, self._op(em, "mul", w, poly, t),
                                self._const(em, a, w))
            poly = self._op(em, "mul", w, poly, t)
            e = self._op(em, "exp", w, self._op(em, "neg", w, self._op(em, "mul", w, x, x)))
            y = self._op(em, "sub", w, self._const(em, 1, w), self._op(em, "mul", w, poly, e))
            neg = self._cmp(em, "olt", "slt", x, self._const(em, 0, w), w)
            return self._select(em, neg, self._op(em, "neg", w, y), y, w)
        if op.startswith("convert_"):
            return self._round(em, args[0], op[len("convert_"):], w)
        raise AssertionError(f"epilogue op {op} passed the verifier but has no codegen")

    def _round(self, em: Emitter, x: str, to: str, w: int) -> str:
        """x rounded to type `to` and back (a convert inside the chain)."""
        acc = self.acc_elem
        if to == acc:
            return x
        t, tt = vector_type(w, acc), vector_type(w, to)
        if acc == "i32":   # to i8: truncate, sign-extend back
            y = em.assign(f"arith.trunci {x} : {t} to {tt}")
            return em.assign(f"arith.extsi {y} : {tt} to {t}")
        if to.startswith("i"):
            y = em.assign(f"arith.fptosi {x} : {t} to {tt}")
            return em.assign(f"arith.sitofp {y} : {tt} to {t}")
        if to == "bf16" and self.bf16_round == "i32":
            # bf16 widened back is its bits in the high half of an f32's.
            it = vector_type(w, "i32")
            high = em.assign(f"arith.andi {_bf16_words(em, x, w)}, "
                             f"{_i32_const(em, -0x10000, w)} : {it}")
            return em.assign(f"arith.bitcast {high} : {it} to {t}")
        y = em.assign(f"arith.truncf {x} : {t} to {tt}")
        return em.assign(f"arith.extf {y} : {tt} to {t}")


# f32 -> bf16 rounded to nearest even in i32 ops: the sequence LLVM expands arith.truncf
# to on gfx942, gfx1100 and gfx1201 (none has a convert instruction), so the bits are the
# same for every input: a NaN keeps its sign and payload's top bits and is made quiet
# (0x400000), anything else gets 0x7fff plus the lsb of its bf16 and the carry rounds it
# (a tie to even, max finite up to inf, inf and denormals by their bits). Spelled here,
# C's pairs are then packed by one v_perm_b32 each instead of LLVM's shift and 16-bit
# move per value (the plan's bf16_round, passes/plan_kernel.py, has the measurements).
def _bf16_words(em: Emitter, x: str, w: int) -> str:
    """The w f32 values x rounded to bf16, as i32 words whose high half is the bf16 (the
    low half is not zero)."""
    ft, it = vector_type(w, "f32"), vector_type(w, "i32")
    bits = em.assign(f"arith.bitcast {x} : {ft} to {it}")
    shifted = em.assign(f"arith.shrui {bits}, {_i32_const(em, 16, w)} : {it}")
    lsb = em.assign(f"arith.andi {shifted}, {_i32_const(em, 1, w)} : {it}")
    biased = em.assign(f"arith.addi {bits}, {_i32_const(em, 0x7FFF, w)} : {it}")
    rounded = em.assign(f"arith.addi {biased}, {lsb} : {it}")
    quiet = em.assign(f"arith.ori {bits}, {_i32_const(em, 0x400000, w)} : {it}")
    nan = em.assign(f"arith.cmpf uno, {x}, {x} : {ft}", "p")
    types = f"{vector_type(w, 'i1')}, {it}" if w > 1 else it
    return em.assign(f"arith.select {nan}, {quiet}, {rounded} : {types}")


def _pack_bf16(em: Emitter, words: str, w: int) -> str:
    """vector<w x bf16> of the high halves of w i32 words: a pair's two halves by one
    byte permute (v_perm_b32, llvm.amdgcn.perm), a lone value by a shift."""
    if w == 1:
        high = em.assign(f"arith.shrui {words}, {_i32_const(em, 16, 1)} : i32")
        half = em.assign(f"arith.trunci {high} : i32 to i16")
        return em.assign(f"arith.bitcast {half} : i16 to bf16")
    wt = f"vector<{w}xi32>"
    pairs = []
    for p in range(w // 2):
        low, high = (em.assign(f"vector.extract {words}[{2 * p + i}] : i32 from {wt}")
                     for i in (0, 1))
        # Selector bytes 0-3 pick bytes of the second operand, 4-7 of the first: bytes
        # 2, 3 of `low` then 2, 3 of `high`.
        pairs.append(em.assign(f'llvm.call_intrinsic "llvm.amdgcn.perm"({high}, {low}, '
                               f'{em.const(0x07060302)}) : (i32, i32, i32) -> i32'))
    pt = f"vector<{w // 2}xi32>"
    packed = em.assign(f"vector.from_elements {', '.join(pairs)} : {pt}")
    return em.assign(f"vector.bitcast {packed} : {pt} to vector<{w}xbf16>")


def _i32_const(em: Emitter, value: int, w: int) -> str:
    if w == 1:
        return em.const(value)
    return em.assign(f"arith.constant dense<{value}> : {vector_type(w, 'i32')}")


def _join(em: Emitter, pieces: list[str], n: int, elem: str) -> str:
    """Vectors (scalars when n = 1) of n elements joined in order."""
    if n > 1:
        return em.concat(pieces, n, elem)
    t = vector_type(len(pieces), elem)
    v = em.assign(f"vector.broadcast {pieces[0]} : {elem} to {t}")
    for i, x in enumerate(pieces[1:], 1):
        v = em.assign(f"vector.insert {x}, {v} [{i}] : {elem} into {t}")
    return v
