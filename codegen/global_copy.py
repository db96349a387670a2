"""Global memory -> LDS copy of one operand tile, with edge handling.

LDS holds a tile as [kpackPerBlock][dPerBlock][kpack] (d = M for A, N for B), the order
in which a lane's contiguous K run (codegen/mma.py) is one vector load.

Plain operands (row / transposed) are read with `amdgpu.raw_buffer_load` in vectors
along the dimension that is contiguous in global memory, at most 128 bits wide (a
strided view with no contiguous side, or a stride-0 broadcast one, one element per load:
plan vector 1, the same tile order and LDS layout). The
width divides that dimension's extent, so a vector is wholly inside a row or wholly
past its end: validity is one predicate per vector. Rows past D and k past K must read
0, but with G > 1 a row past M is a valid address in the next batch, and a k past the
end of a row a valid address in the next row, so the buffer bound alone is not enough:
an invalid vector's batch index is replaced by G, which puts its byte offset at or past
the end of the memref, where the hardware (and the simulator) return 0. A select, no
branch.

An operand whose K has two digits ([G, D, K1, K0], dialect/operand_layouts.py) is
indexed [g, d, k div K0, k mod K0]; its vectors divide K0, so each lies inside one K0
run, and its k-tile origin is in sgprOffset only when a k-tile does too (K0 a multiple
of kPerBlock).

Accel-layout operands already hold the tile contiguously, zero-padded: one linear copy
(in LDS only the row swizzle moves it).

An operand contiguous along D (B row-major, A transposed) is transposed in registers:
a thread loads kc rows of a v-wide D vector and writes v kpack runs (see _unit_store).
LDS rows are XOR-swizzled and slabs padded against bank conflicts (see row_key).

A copy is a load phase (global -> registers, `load`) and a store phase (registers ->
LDS, `store`), so the kernel can issue a tile's loads a k-tile before storing it
(codegen/kernel.py); `copy` does both at once for tiles not held in registers.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import gcd, lcm

from accel.codegen.builder import Emitter, Value
from accel.codegen.workgroup_tile import RowWindow
from accel.diagnostics import AccelError
from accel.dialect.element_types import ELEMENT_BYTES
from accel.dialect.kernel_plan import OperandPlan
from accel.dialect.operand_layouts import bound_dimension, check_view_alignment

ELEM_BITS = {t: 8 * size for t, size in ELEMENT_BYTES.items()}


def vector_type(n: int, elem: str) -> str:
    return elem if n == 1 else f"vector<{n}x{elem}>"


def permutable(elem: str, vector: int, k_chunk: int) -> bool:
    """Can a transposing copy of `k_chunk` rows of `vector` elements join its K runs
    with dword byte permutes (OperandCopy._word_transpose)? Whole dwords on both sides."""
    per = 32 // ELEM_BITS[elem] if ELEM_BITS[elem] in (8, 16) else 0
    return k_chunk > 1 and per > 0 and vector % per == 0 and k_chunk % per == 0


def swizzle_key(x: int, bit: int) -> int:
    """OperandCopy.row_key's XOR for x = (block >> swizzle_shift) % 8, as a plain int:
    bit `bit` of x moves to bit 2, the other two bits keep their order."""
    return 4 * ((x >> bit) & 1) + ((x >> (bit + 1)) << bit) + (x & ((1 << bit) - 1))


def transpose_writes_conflict(d_per_block: int, vector: int, run_bytes: int, slab_pad: int,
                              shift: int, bit: int) -> bool:
    """Do a transposing copy's LDS writes (OperandCopy._unit_store: store j writes row
    vector*i + j of slab s, one K run of `run_bytes` of the row's 16) ever put two lanes
    of one LDS clock on one 16-byte bank slot with different rows?

    The simulator's bank model (sim/lds.py): one clock serves 128 bytes of lanes (at
    least 4 bytes a lane). Units run K run first, then D unit i, then slab
    (_unit_origin), so one clock's lanes are every K run of n consecutive (i, s) pairs,
    n = 8 for runs of 4 bytes or more (runs of 2 bytes share a dword: n = 4). They are
    conflict-free when those rows land on distinct slots; the slot of row d in slab s
    is (s * (dPerBlock + slab_pad) + (d ^ key)) % 8."""
    units = d_per_block // vector
    n = 8 * run_bytes // max(4, run_bytes)
    for q0 in range(0, lcm(units, n), n):
        for j in range(vector):
            slots = set()
            for q in range(q0, q0 + n):
                i, slab = q % units, q // units
                d = vector * i + j
                key = swizzle_key(((d // 8) >> shift) % 8, bit)
                slots.add((slab * (d_per_block + slab_pad) + (d ^ key)) % 8)
            if len(slots) < n:
                return True
    return False


def widest_vector(elem: str, *extents: int) -> int:
    """Largest power-of-two element count, at most 128 bits, dividing every extent."""
    v = 128 // ELEM_BITS[elem]
    while v > 1 and any(x % v for x in extents):
        v //= 2
    return v


@dataclass(frozen=True)
class OperandCopy:
    """How one operand's tiles travel from global memory to LDS; `plan` holds the
    decisions (accel-plan-kernel, dialect/kernel_plan.py)."""
    name: str            # "A" or "B"
    layout: str          # row | transposed | accel
    memref: str          # the kernel argument: its SSA name
    memref_type: str
    shape: tuple[int, ...]
    elem: str
    d_extent: int        # M for A, N for B (logical)
    k_extent: int        # K (logical)
    d_per_block: int
    kpack_per_block: int
    kpack: int
    block_size: int      # threads sharing the copy
    plan: OperandPlan
    rows: RowWindow | None = None  # D rows of a one-batch [1, D, K] memref (grouped GEMM)
    # The memref's strides when it is a strided view (dialect/operand_layouts.py), else
    # None: packed row-major.
    view_strides: tuple[int, ...] | None = None
    view_offset: int = 0    # of a strided view: its first element in the buffer

    @property
    def strides(self) -> tuple[int, ...]:
        """Element strides of the memref's dimensions."""
        if self.view_strides is not None:
            return self.view_strides
        strides = [1] * len(self.shape)
        for i in range(len(self.shape) - 2, -1, -1):
            strides[i] = strides[i + 1] * self.shape[i + 1]
        return tuple(strides)

    @property
    def out_of_range_dim(self) -> int:
        """The dimension whose index, set to its extent, places an invalid vector past
        the descriptor bound max(n * s) by the VGPR offset alone (the other indices are
        non-negative): the batch for a packed memref (G * sG is the whole buffer), the
        first of the largest n * s for a view (a broadcast batch, sG = 0, never is)."""
        return bound_dimension(self.shape, self.strides)

    @property
    def k_per_block(self) -> int:
        return self.kpack_per_block * self.kpack

    @property
    def inner_k(self) -> int | None:
        """K0 of a K of two digits ([G, D, K1, K0]), else None."""
        return self.shape[3] if len(self.shape) == 4 else None

    @property
    def tile_elems(self) -> int:
        return self.d_per_block * self.k_per_block

    @property
    def slab_pad(self) -> int:
        """LDS rows of padding after each kpack slab (see row_key)."""
        return self.plan.slab_pad

    @property
    def lds_elems(self) -> int:
        """LDS elements of one tile buffer, padding included."""
        return self.kpack_per_block * (self.d_per_block + self.slab_pad) * self.kpack

    @property
    def d_first(self) -> bool:
        """Plain layouts: is the memref [G, D, K] (K contiguous) rather than [G, K, D]?"""
        return (self.name == "A") == (self.layout == "row")

    @property
    def vector_width(self) -> int:
        return self.plan.vector

    @property
    def swizzled(self) -> bool:
        """Are LDS rows placed by `row_key` and slabs padded?"""
        return self.plan.swizzle

    def row_key(self, em: Emitter, block: Value) -> Value:
        """XOR for the low 3 bits of the rows of 8-row block `block` (= d // 8): row d
        sits at d ^ row_key(d // 8) in its slab. The key is a function of
        x = (block >> swizzle_shift) % 8 (below, x for block).

        Eight 16-byte rows fill the 32 banks once, so an access is conflict-free when
        the rows it touches at once land on distinct slots (row position % 8, slab
        padding included). With x = block % 8 the key g(x) moves bit b = swizzle_bit of
        x to bit 2 and keeps the other two bits in order, so it keeps distinct:
          - a wave's fragment reads of consecutive d (one block, one key), and the reads
            of rows d and d + 8 (gfx1100) or d + 16 (MFMA 32x32) that sigma
            (codegen/mma.py) puts in one 8-lane read group: bit b tells those blocks
            apart, and bit 2 of the key moves them to the other half of the slots;
          - a transposing copy's writes of rows 8u + j for consecutive units u: g is a
            bijection of 3 bits.
        A K-contiguous copy writes row t // P of slab t % P from lane t (P =
        kpackPerBlock); padding each slab by 8/P rows (1 when P >= 8) puts those on
        distinct slots. Where LDS has no room for the padding, the copy goes down 8
        rows first (plan rows_first: lane t writes row t % 8 of slab (t // 8) % P),
        which puts 8 lanes' 16-byte writes on the 8 slots of one block. A transposing
        copy of 16-element units (8-bit, 128-bit loads) writes at once rows 16u + j for
        consecutive units u, blocks 2u + j // 8: a key of block >> 1 (swizzle_shift 1)
        keeps those apart, where the MMA's read groups allow (not gfx1100's rows i and
        i + 8; MFMA 32x32's i and i + 16 are bit 0 of block >> 1); the planner checks a
        transposing copy's writes (transpose_writes_conflict). The XOR stays inside the
        8-row block, and the key does not depend on k, so a lane's reads in successive
        k-steps differ by constants.

        Measured by the simulator's bank model (benchmarks/bench_kernel_quality.py,
        extra LDS clocks per workgroup over 2 k-tiles, reads/writes), before -> after
        (with the transposing copy and 128-bit fragment reads): gfx942 128x256 row/row
        1024/16256 -> 0/0; gfx942 64x64 row/transposed 512/1792 -> 0/0; gfx1100 128x128
        0/1984 -> 0/0 (sigma alone had made it 256/1984); gfx1201 128x256 0/8000 -> 0/0;
        gfx1201 16x256 0/816 -> 0/0; gfx1100 i8 16x32 0/480 -> 0/64.
        """
        x = em.rem(em.div(block, 1 << self.plan.swizzle_shift), 8)
        b = self.plan.swizzle_bit
        low = em.rem(x, 1 << b)
        high = em.mul(em.div(x, 2 << b), 1 << b)
        return em.add(em.add(em.mul(em.rem(em.div(x, 1 << b), 2), 4), high), low)

    def lds_offset(self, em: Emitter, d_local: Value, k_local: Value, d_plus: int = 0) -> Value:
        """Element offset of tile element (d_local + d_plus, k) in
        [kpackPerBlock][dPerBlock][kpack] (rows swizzled, slabs padded: see row_key).
        Callers split a constant d_plus off d with d_local % 8 + d_plus % 8 < 8, so the
        key (a function of d // 8) is computed once per d_local and d_plus // 8."""
        kp = self.kpack
        d = em.add(d_local, d_plus)
        if self.swizzled:
            d = em.xor(d, self.row_key(em, em.add(em.div(d_local, 8), d_plus // 8)))
        outer = em.mul(em.div(k_local, kp), (self.d_per_block + self.slab_pad) * kp)
        return em.add(em.add(outer, em.mul(d, kp)), em.rem(k_local, kp))

    def check_plan(self) -> None:
        """AccelError if the plan asks what this copy cannot do."""
        if self.plan.rows_first and (self.layout == "accel" or not self.d_first
                                     or self.d_per_block % 8):
            raise AccelError(f"kernel plan: {self.name.lower()}_copy.rows_first needs a "
                             f"K-contiguous plain operand and a tile of whole 8-row blocks")
        k0 = self.inner_k
        if k0 is not None and (k0 % self.vector_width or
                               (self.plan.sgpr_offset != "none" and k0 % self.k_per_block)):
            raise AccelError(f"kernel plan: {self.name.lower()}_copy needs its vector "
                             f"({self.vector_width}) to divide K0 = {k0}, the inner digit of "
                             f"{self.name}'s K, and, with sgpr_offset "
                             f"'{self.plan.sgpr_offset}', kPerBlock ({self.k_per_block}) too")
        if self.plan.permute and not permutable(self.elem, self.vector_width,
                                                self.unit_rows):
            raise AccelError(f"kernel plan: {self.name.lower()}_copy.permute needs a "
                             f"transposing copy of whole dwords (16-bit vectors, or 8-bit "
                             f"vectors of 4 and 4 K rows)")

    def check_view_alignment(self) -> None:
        """AccelError unless every vector load of a strided view starts at a multiple of
        the vector width and runs along a contiguous inner dimension (one that is not
        is read an element per load: plan vector 1)."""
        if self.view_strides is None:
            return
        inner = self.view_strides[-1]
        if self.vector_width > 1 and self.shape[-1] > 1 and inner != 1:
            raise AccelError(f"kernel plan: {self.name.lower()}_copy.vector is "
                             f"{self.vector_width}, but {self.name}'s inner dimension has "
                             f"stride {inner}: its loads must be of 1 element")
        check_view_alignment(f"{self.name}'s vector", self.view_offset,
                             self.view_strides, self.vector_width)

    @property
    def transposing(self) -> bool:
        """D contiguous in global memory but K contiguous (kpack runs) in LDS."""
        return self.plan.k_chunk > 1

    # ---- emission: a tile goes global -> registers (load) -> LDS (store) -----------
    @property
    def unit_rows(self) -> int:
        """Vectors per unit: a unit is one vector, or for a transposing copy k_chunk
        vectors along D that become vector_width vectors along K."""
        return self.plan.k_chunk

    @property
    def units(self) -> int:
        return self.tile_elems // (self.vector_width * self.unit_rows)

    @property
    def rounds(self) -> int:
        """Units per thread (the last round may leave threads idle)."""
        return -(-self.units // self.block_size)

    @property
    def values_per_thread(self) -> int:
        """How many values `load` returns (and `store` takes) per thread."""
        return self.rounds * self.unit_rows

    def load(self, em: Emitter, tid: str, g: str, g_count: int, d_tile: str,
             k_tile: Value) -> list[tuple[str, str]]:
        """This thread's global loads of tile (g, d_tile, k_tile): (value, type) pairs
        in unit order."""
        out = []
        for it in range(self.rounds):
            u, ok = self._unit(em, tid, it)
            # A thread past the last unit loads (a valid unit's address) as invalid.
            out += self._unit_load(em, em.select(ok, u, 0), ok, g, g_count, d_tile, k_tile)
        return out

    def store(self, em: Emitter, lds: str, lds_type: str, lds_base: Value, tid: str,
              values: list[str]) -> None:
        """Write what `load` returned (in its order) into `lds` at element `lds_base`."""
        kc = self.unit_rows
        for it in range(self.rounds):
            u, ok = self._unit(em, tid, it)
            vals = values[it * kc:(it + 1) * kc]
            if isinstance(ok, int):
                self._unit_store(em, lds, lds_type, lds_base, u, vals)
            else:
                with em.region(f"scf.if {ok}"):
                    self._unit_store(em, lds, lds_type, lds_base, u, vals)

    def copy(self, em: Emitter, lds: str, lds_type: str, lds_base: Value, tid: str, g: str,
             g_count: int, d_tile: str, k_tile: Value) -> None:
        """Load and store tile (g, d_tile, k_tile) unit by unit, in an scf.for over the
        thread's rounds: for copies whose values are not held across a k-tile (LLVM
        then keeps few of them live at once)."""
        def one(it: Value) -> None:
            u = em.add(tid, em.mul(it, self.block_size))
            # A thread past the last unit loads as invalid (batch index G): its address
            # would lie past the tile, and with the tile's origin in soffset (which gfx9
            # leaves out of the range check) past the operand's end.
            live = em.lt(u, self.units) if self.units % self.block_size else 1
            vals = [x for x, _ in self._unit_load(em, u, live, g, g_count, d_tile, k_tile)]
            if self.units % self.block_size:
                with em.region(f"scf.if {live}"):
                    self._unit_store(em, lds, lds_type, lds_base, u, vals)
            else:
                self._unit_store(em, lds, lds_type, lds_base, u, vals)

        iters = self.rounds
        if iters == 1:
            one(0)
        else:
            it = em.fresh("it")
            with em.region(em.for_header(it, iters)):
                one(it)

    def _unit_load(self, em: Emitter, u: Value, valid: Value, g: str, g_count: int,
                   d_tile: str, k_tile: Value) -> list[tuple[str, str]]:
        """Global loads of unit u; all read 0 where `valid` is false."""
        v, kc = self.vector_width, self.unit_rows
        d_local, k_local = self._unit_origin(em, u)
        vt = vector_type(v, self.elem)
        origin = self._tile_origin(em, d_tile, k_tile)
        if self.layout == "accel":
            i = em.mul(u, v)
            kp, d_pb = self.kpack, self.d_per_block
            tiles = (0 if self._d_tile_in_offset else d_tile,
                     0 if origin is not None else k_tile)
            idx = (em.select(valid, g, g_count), *tiles, em.div(i, d_pb * kp),
                   em.rem(em.div(i, kp), d_pb), em.rem(i, kp))
            return [(self._buffer_load(em, idx, vt, origin), vt)]
        if self.rows is not None:   # a row window indexes a one-batch [1, L, K] memref
            g, g_count = 0, 1
        oob = self.out_of_range_dim
        if oob:
            # Batch index G (a split-K slice past K's end, k_slices.py) is not out of
            # range by itself here: it makes the vector invalid.
            valid = em.and_(valid, em.lt(g, g_count))
        out = []
        for r in range(kc):   # kc > 1 only for transposing copies: K rows
            d, k, ok_dk = self._coords(em, d_local, em.add(k_local, r), d_tile, k_tile,
                                       origin is not None)
            ok = em.and_(valid, ok_dk)
            if self.inner_k is not None:
                idx = [g, d, em.div(k, self.inner_k), em.rem(k, self.inner_k)]
            else:
                idx = [g, d, k] if self.d_first else [g, k, d]
            idx[oob] = em.select(ok, idx[oob], g_count if oob == 0 else self.shape[oob])
            out.append((self._buffer_load(em, idx, vt, origin), vt))
        return out

    def _tile_origin(self, em: Emitter, d_tile: str, k_tile: Value) -> Value | None:
        """The element offset the loads take as sgprOffset (plan `sgpr_offset`): the
        k-tile's within its rows ("k_tile"), or the D tile's added ("tile"; a row
        window's D stays in the indices: its base is not uniform), else None. It is
        workgroup-uniform, so it stays in an SGPR (soffset) and the per-thread voffset
        is loop-invariant: LLVM otherwise adds the k-tile's offset to every load's VGPR
        address each k-tile. An invalid vector stays out of range by its voffset alone
        (batch index G), as gfx9 leaves soffset out of the range check."""
        if self.plan.sgpr_offset == "none":
            return None
        strides = self.strides
        if self.inner_k is not None:
            # The k-tile starts at k = kt * kPerBlock inside run kt // q of K0 (q tiles
            # a run: check_plan), at element (kt % q) * kPerBlock of it.
            q = self.inner_k // self.k_per_block
            k_part = em.add(em.mul(em.div(k_tile, q), strides[2]),
                            em.mul(em.rem(k_tile, q), self.k_per_block * strides[3]))
            if not self._d_tile_in_offset:
                return k_part
            return em.add(em.mul(d_tile, self.d_per_block * strides[1]), k_part)
        if self.layout == "accel":
            d_step, k_step = strides[1], strides[2]
        else:
            d_stride, k_stride = (strides[1], strides[2]) if self.d_first else \
                (strides[2], strides[1])
            d_step, k_step = self.d_per_block * d_stride, self.k_per_block * k_stride
        k_part = em.mul(k_tile, k_step)
        if not self._d_tile_in_offset:
            return k_part
        return em.add(em.mul(d_tile, d_step), k_part)

    @property
    def _d_tile_in_offset(self) -> bool:
        return self.plan.sgpr_offset == "tile" and self.rows is None

    def _unit(self, em: Emitter, tid: str, it: int):
        """Unit index of this thread in round `it`, and whether it exists."""
        u = em.add(tid, it * self.block_size)
        ok = 1 if (it + 1) * self.block_size <= self.units else em.lt(u, self.units)
        return u, ok

    def _unit_origin(self, em: Emitter, u: Value) -> tuple[Value, Value]:
        """Tile-local (d, k) of a unit's first element."""
        kp, d_pb = self.kpack, self.d_per_block
        v, kc = self.vector_width, self.unit_rows
        if self.layout == "accel":
            # The global tile is already in LDS order; only the row swizzle moves it.
            i = em.mul(u, v)
            return em.rem(em.div(i, kp), d_pb), em.add(em.mul(em.div(i, d_pb * kp), kp),
                                                       em.rem(i, kp))
        if self.transposing:
            # Units run along D first (after the kpack/kc chunks of one row group), so
            # a wave's loads of one K row stay contiguous in global memory.
            chunks = kp // kc
            d_local = em.mul(em.rem(em.div(u, chunks), d_pb // v), v)
            k_local = em.add(em.mul(em.div(u, chunks * (d_pb // v)), kp),
                             em.mul(em.rem(u, chunks), kc))
            return d_local, k_local
        per_line = (self.k_per_block if self.d_first else d_pb) // v
        if self.plan.rows_first:
            # d_first: 8 consecutive units are rows of one block at one K vector.
            rest = em.div(u, 8)
            d_local = em.add(em.mul(em.div(rest, per_line), 8), em.rem(u, 8))
            return d_local, em.mul(em.rem(rest, per_line), v)
        c_local = em.mul(em.rem(u, per_line), v)
        o_local = em.div(u, per_line)
        return (o_local, c_local) if self.d_first else (c_local, o_local)

    def _unit_store(self, em: Emitter, lds, lds_type, lds_base, u, vals) -> None:
        d_local, k_local = self._unit_origin(em, u)
        v, kc = self.vector_width, self.unit_rows
        vt = vector_type(v, self.elem)
        if not self.transposing:
            # The vector is a K run inside one kpack group (d_first, accel), or kpack
            # is 1 and a D run is contiguous in LDS too.
            at = em.add(lds_base, self.lds_offset(em, d_local, k_local))
            self._lds_store(em, vals[0], lds, lds_type, at, vt)
            return
        # kc vectors along D become v vectors along K: a transpose in registers, so
        # LDS is written in kc-element runs, not element by element. Measured with
        # benchmarks/bench_kernel_quality.py (B row-major, N = 4096), LDS writes per
        # thread and k-tile: gfx942 128x256 16 x ds_write_b16 -> 8 x ds_write_b32 (kc 2:
        # 512 threads share 128 units of kc 8), gfx1201 128x256 16 x b16 -> 4 x b32;
        # simulated write conflicts 16256 -> 8320 and 8000 -> 4032 clocks per
        # workgroup before the row swizzle took them to 0.
        kt = vector_type(kc, self.elem)
        if self.plan.permute:
            self._word_transpose(em, lds, lds_type, lds_base, d_local, k_local, vals)
            return
        # Column j by groups of rows (kc is a power of two, dialect/kernel_plan.py);
        # with v = 1 the rows are scalars, inserted one by one.
        for j in range(v):
            if v > 1:
                col = self._column(em, vals, j)
            else:
                col = em.assign(f"arith.constant dense<{'0' if self.elem in ('i8', 'i32') else '0.0'}>"
                                f" : {kt}")
                for r, row in enumerate(vals):
                    col = em.assign(f"vector.insert {row}, {col} [{r}] : {self.elem} into {kt}")
            # d_local is a multiple of v (v <= 8), or of 8: d_local % 8 + j % 8 < 8.
            at = em.add(lds_base, self.lds_offset(em, d_local, k_local, j))
            self._lds_store(em, col, lds, lds_type, at, kt)

    def _column(self, em: Emitter, vals: list[str], j: int) -> str:
        """Element j of each of the kc rows (vector<v> each) as one vector<kc>: one
        two-operand shuffle per group of rows takes element j of each, then the groups
        are joined (Emitter.concat). A group is a pair of rows, or for kc = 4 all four,
        as rows 0-1 and 2-3 joined. Picking the column out of all kc rows joined into one
        vector<kc * v> instead made LLVM take apart 64-element vectors where kc = v = 8:
        gfx942 1x11008x4096 f16 (four such units a thread), valgrind instructions of
        LLVM's translation, middle end and backend 1366 -> 1294 M (4096^3: 782 -> 758
        M); AMDGPU instruction selection (clang -ftime-report, the ziglang package's
        LLVM, on the optimized bitcode) 38-42 -> 25-28 ms. For kc <= 4 the groups are the
        shuffle LLVM's
        InstCombine made of the joined rows anyway; pairs for kc = 4 changed the code of
        the gfx942 2048^3 rungs of kpack 4 (bench_kernel_quality.py --only full-agprs:
        f16 256x256 scheduleVersion 2 work share 0.496 -> 0.492). The groups are emitted
        last one first: LLVM's scheduler then orders the v_perm_b32 as it did, and code
        objects stay byte-identical (bench_compile.py's 18 GEMMs with B row-major and
        transposed, bench_kernel_quality.py --only shapes, cases and full-agprs)."""
        v, kc = self.vector_width, self.unit_rows
        g = 4 if kc == 4 else 2
        vt = vector_type(g // 2 * v, self.elem)
        mask = ", ".join(str(i * v + j) for i in range(g))
        groups = {}
        for q in reversed(range(kc // g)):
            rows = vals[q * g:(q + 1) * g]
            low, high = (em.concat(list(half), v, self.elem)
                         for half in (rows[:g // 2], rows[g // 2:]))
            groups[q] = em.assign(f"vector.shuffle {low}, {high} [{mask}] : {vt}, {vt}")
        return em.concat([groups[q] for q in range(kc // g)], g, self.elem)

    def _word_transpose(self, em: Emitter, lds, lds_type, lds_base, d_local, k_local,
                        vals) -> None:
        """The register transpose as dword byte permutes (v_perm_b32, llvm.amdgcn.perm):
        kc rows of v elements become v columns of kc. 16-bit: dword p of column j is
        half j % 2 of word j // 2 of rows 2p and 2p + 1, one permute. 8-bit: per four
        rows and word, two permutes pair rows 0/1 and two rows 2/3 (bytes 0-1, 2-3 of
        both interleaved), and one per column joins a pair of each: two per dword.
        LLVM builds the same columns from vector.shuffle (below) with 16-bit register
        moves and shifts on gfx11/gfx12, and byte by byte for 8-bit (plan `permute`,
        passes/plan_kernel.py has the measurements)."""
        v, kc = self.vector_width, self.unit_rows
        per = 32 // ELEM_BITS[self.elem]           # elements per dword: 2 or 4
        wt = f"vector<{v // per}xi32>"
        words = [em.assign(f"vector.bitcast {x} : {vector_type(v, self.elem)} to {wt}")
                 for x in vals]

        def word(r: int, w: int) -> str:
            return em.assign(f"vector.extract {words[r]}[{w}] : i32 from {wt}")

        def perm(first: str, second: str, sel: int) -> str:
            # Selector bytes 0-3 pick bytes of `second`, 4-7 of `first`.
            return em.assign(f'llvm.call_intrinsic "llvm.amdgcn.perm"({first}, {second}, '
                             f'{em.const(sel)}) : (i32, i32, i32) -> i32')

        halves = (0x05040100, 0x07060302)   # the low halves of both, the high halves
        cols: list[list[str]] = [[] for _ in range(v)]
        if per == 2:
            for p in range(kc // 2):
                for j in range(v):
                    cols[j].append(perm(word(2 * p + 1, j // 2), word(2 * p, j // 2),
                                        halves[j % 2]))
        else:
            pairs = (0x05010400, 0x07030602)   # bytes 0, 1 of both interleaved; 2, 3
            for q in range(kc // 4):
                for w in range(v // 4):
                    r = [word(4 * q + i, w) for i in range(4)]
                    low = [perm(r[1], r[0], sel) for sel in pairs]
                    high = [perm(r[3], r[2], sel) for sel in pairs]
                    for c in range(4):
                        cols[4 * w + c].append(perm(high[c // 2], low[c // 2], halves[c % 2]))
        col_t, kt = f"vector<{kc // per}xi32>", vector_type(kc, self.elem)
        for j, dwords in enumerate(cols):
            col = em.assign(f"vector.from_elements {', '.join(dwords)} : {col_t}")
            col = em.assign(f"vector.bitcast {col} : {col_t} to {kt}")
            # d_local is a multiple of v (v <= 8), or of 8: d_local % 8 + j % 8 < 8.
            at = em.add(lds_base, self.lds_offset(em, d_local, k_local, j))
            self._lds_store(em, col, lds, lds_type, at, kt)

    def _coords(self, em: Emitter, d_local: Value, k_local: Value, d_tile, k_tile,
                tile_in_offset: bool):
        """The (d, k) indices of a tile element, global, or tile-local where the tile's
        origin is the load's sgprOffset (`tile_in_offset`, see _tile_origin), and
        whether a vector there is valid."""
        d = em.add(em.mul(d_tile, self.d_per_block), d_local)
        k = em.add(em.mul(k_tile, self.k_per_block), k_local)
        # A whole tile inside the extent needs no predicate on that side.
        valid = 1
        if self.rows is not None:
            d = em.add(self.rows.base, d)
            valid = em.lt(d, self.rows.bound)
        elif self.d_extent % self.d_per_block:
            valid = em.and_(valid, em.lt(d, self.d_extent))
        if self.k_extent % self.k_per_block:
            valid = em.and_(valid, em.lt(k, self.k_extent))
        if not tile_in_offset:
            return d, k, valid
        return (d_local if self._d_tile_in_offset else d), k_local, valid

    def _buffer_load(self, em: Emitter, idx, vt: str, sgpr_offset: Value | None = None) -> str:
        names = ", ".join(em.v(x) for x in idx)
        i32s = ", ".join(["i32"] * len(idx))
        soff = "" if sgpr_offset in (None, 0) else f" sgprOffset {em.v(sgpr_offset)}"
        return em.assign(f"amdgpu.raw_buffer_load {self.memref}[{names}]{soff} : "
                         f"{self.memref_type}, {i32s} -> {vt}", self.name.lower())

    @staticmethod
    def _lds_store(em: Emitter, val: str, lds: str, lds_type: str, at: Value, vt: str) -> None:
        if vt.startswith("vector"):
            em.line(f"vector.store {val}, {lds}[{em.index(at)}] : {lds_type}, {vt}")
        else:
            em.line(f"memref.store {val}, {lds}[{em.index(at)}] : {lds_type}")


def lds_fragment(em: Emitter, op: OperandCopy, lds: str, lds_type: str, lds_base: Value,
                 d_local: Value, d_plus: int, k_local: Value, length: int) -> str:
    """A lane's MMA operand: `length` consecutive k of row/column d_local + d_plus (d_plus
    a multiple of 8, see lds_offset), from LDS.

    The run starts at a multiple of `length` (codegen/mma.py), so chunks of
    gcd(length, kpack) never cross a kpack group and each is one vector load.
    """
    elem = op.elem
    if length == 1:
        at = em.add(lds_base, op.lds_offset(em, d_local, k_local, d_plus))
        return em.assign(f"memref.load {lds}[{em.index(at)}] : {lds_type}", op.name.lower())
    chunk = gcd(length, op.kpack)
    full = f"vector<{length}x{elem}>"
    parts = []
    for j in range(length // chunk):
        at = em.add(lds_base, op.lds_offset(em, d_local, em.add(k_local, j * chunk), d_plus))
        ct = vector_type(chunk, elem)
        if chunk == 1:
            parts.append(em.assign(f"memref.load {lds}[{em.index(at)}] : {lds_type}"))
        else:
            parts.append(em.assign(f"vector.load {lds}[{em.index(at)}] : {lds_type}, {ct}"))
    if chunk > 1:
        # One shuffle per pair of chunks (Emitter.concat), not an extract/insert per element.
        return em.concat(parts, chunk, elem)
    acc = em.assign(f"arith.constant dense<0> : {full}" if elem in ("i8", "i32")
                    else f"arith.constant dense<0.0> : {full}")
    for j, p in enumerate(parts):
        acc = em.assign(f"vector.insert {p}, {acc} [{j}] : {elem} into {full}")
    return acc
