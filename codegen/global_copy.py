"""Global memory -> LDS copy of one operand tile, with edge handling.

LDS holds a tile as [kpackPerBlock][dPerBlock][kpack] (d = M for A, N for B), the order
in which a lane's contiguous K run (codegen/mma.py) is one vector load.

Plain operands (row / transposed) are read with `amdgpu.raw_buffer_load` in vectors
along the dimension that is contiguous in global memory, at most 128 bits wide. The
width divides that dimension's extent, so a vector is wholly inside a row or wholly
past its end: validity is one predicate per vector. Rows past D and k past K must read
0, but with G > 1 a row past M is a valid address in the next batch, and a k past the
end of a row a valid address in the next row, so the buffer bound alone is not enough:
an invalid vector's batch index is replaced by G, which puts its byte offset at or past
the end of the memref, where the hardware (and the simulator) return 0. A select, no
branch.

Accel-layout operands already hold the tile contiguously, zero-padded: one linear copy.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import gcd

from accel.codegen.builder import Emitter, Value

ELEM_BITS = {"f16": 16, "bf16": 16, "f32": 32, "i8": 8, "i32": 32}


def vector_type(n: int, elem: str) -> str:
    return elem if n == 1 else f"vector<{n}x{elem}>"


def widest_vector(elem: str, *extents: int) -> int:
    """Largest power-of-two element count, at most 128 bits, dividing every extent."""
    v = 128 // ELEM_BITS[elem]
    while v > 1 and any(x % v for x in extents):
        v //= 2
    return v


@dataclass(frozen=True)
class OperandCopy:
    """How one operand's tiles travel from global memory to LDS."""
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

    @property
    def k_per_block(self) -> int:
        return self.kpack_per_block * self.kpack

    @property
    def tile_elems(self) -> int:
        return self.d_per_block * self.k_per_block

    @property
    def d_first(self) -> bool:
        """Plain layouts: is the memref [G, D, K] (K contiguous) rather than [G, K, D]?"""
        return (self.name == "A") == (self.layout == "row")

    @property
    def vector_width(self) -> int:
        if self.layout == "accel":
            return widest_vector(self.elem, self.tile_elems)
        if self.d_first:  # K contiguous: the vector also lands contiguous in LDS
            return widest_vector(self.elem, self.k_extent, self.k_per_block, self.kpack)
        return widest_vector(self.elem, self.d_extent, self.d_per_block)

    def lds_offset(self, em: Emitter, d_local: Value, k_local: Value) -> Value:
        """Element offset of tile element (d, k) in [kpackPerBlock][dPerBlock][kpack]."""
        kp = self.kpack
        outer = em.mul(em.div(k_local, kp), self.d_per_block * kp)
        return em.add(em.add(outer, em.mul(d_local, kp)), em.rem(k_local, kp))

    # ---- emission ----------------------------------------------------------------
    def emit(self, em: Emitter, lds: str, lds_type: str, lds_base: Value, tid: str,
             block_size: int, g: str, g_count: int, d_tile: str, k_tile: Value) -> None:
        """Copy tile (g, d_tile, k_tile) into `lds` at element `lds_base`."""
        v = self.vector_width
        nvec = self.tile_elems // v
        iters = -(-nvec // block_size)

        def one(it: Value) -> None:
            vi = em.add(tid, em.mul(it, block_size))
            if nvec % block_size:
                with em.region(f"scf.if {em.lt(vi, nvec)}"):
                    self._copy_vector(em, lds, lds_type, lds_base, vi, v, g, g_count,
                                      d_tile, k_tile)
            else:
                self._copy_vector(em, lds, lds_type, lds_base, vi, v, g, g_count,
                                  d_tile, k_tile)

        if iters == 1:
            one(0)
        else:
            it = em.fresh("it")
            with em.region(f"scf.for {it} = {em.const(0)} to {em.const(iters)} "
                           f"step {em.const(1)}"):
                one(it)

    def _copy_vector(self, em: Emitter, lds, lds_type, lds_base, vi, v, g, g_count,
                     d_tile, k_tile) -> None:
        if self.layout == "accel":
            self._copy_accel(em, lds, lds_type, lds_base, vi, v, g, d_tile, k_tile)
            return
        d_pb, k_pb = self.d_per_block, self.k_per_block
        per_line = (k_pb if self.d_first else d_pb) // v
        c_local = em.mul(em.rem(vi, per_line), v)
        o_local = em.div(vi, per_line)
        d_local, k_local = (o_local, c_local) if self.d_first else (c_local, o_local)
        d = em.add(em.mul(d_tile, d_pb), d_local)
        k = em.add(em.mul(k_tile, k_pb), k_local)
        # A whole tile inside the extent needs no predicate on that side.
        valid = 1
        if self.d_extent % d_pb:
            valid = em.and_(valid, em.lt(d, self.d_extent))
        if self.k_extent % k_pb:
            valid = em.and_(valid, em.lt(k, self.k_extent))
        g_idx = em.select(valid, g, g_count)
        idx = (g_idx, d, k) if self.d_first else (g_idx, k, d)
        vt = vector_type(v, self.elem)
        val = self._buffer_load(em, idx, vt)
        base = em.add(lds_base, self.lds_offset(em, d_local, k_local))
        if self.d_first or self.kpack == 1 or v == 1:
            self._lds_store(em, val, lds, lds_type, base, vt)
        else:
            # D is contiguous in global memory but strided by kpack in LDS.
            for j in range(v):
                x = em.assign(f"vector.extract {val}[{j}] : {self.elem} from {vt}")
                self._lds_store(em, x, lds, lds_type, em.add(base, j * self.kpack), self.elem)

    def _copy_accel(self, em: Emitter, lds, lds_type, lds_base, vi, v, g, d_tile, k_tile):
        i = em.mul(vi, v)
        kp, d_pb = self.kpack, self.d_per_block
        idx = (g, d_tile, k_tile, em.div(i, d_pb * kp), em.rem(em.div(i, kp), d_pb),
               em.rem(i, kp))
        vt = vector_type(v, self.elem)
        val = self._buffer_load(em, idx, vt)
        self._lds_store(em, val, lds, lds_type, em.add(lds_base, i), vt)

    def _buffer_load(self, em: Emitter, idx, vt: str) -> str:
        names = ", ".join(em.to_i32(x) for x in idx)
        i32s = ", ".join(["i32"] * len(idx))
        return em.assign(f"amdgpu.raw_buffer_load {self.memref}[{names}] : "
                         f"{self.memref_type}, {i32s} -> {vt}", self.name.lower())

    @staticmethod
    def _lds_store(em: Emitter, val: str, lds: str, lds_type: str, at: Value, vt: str) -> None:
        if vt.startswith("vector"):
            em.line(f"vector.store {val}, {lds}[{em.v(at)}] : {lds_type}, {vt}")
        else:
            em.line(f"memref.store {val}, {lds}[{em.v(at)}] : {lds_type}")


def lds_fragment(em: Emitter, op: OperandCopy, lds: str, lds_type: str, lds_base: Value,
                 d_local: Value, k_local: Value, length: int) -> str:
    """A lane's MMA operand: `length` consecutive k of row/column d, from LDS.

    The run starts at a multiple of `length` (codegen/mma.py), so chunks of
    gcd(length, kpack) never cross a kpack group and each is one vector load.
    """
    elem = op.elem
    if length == 1:
        at = em.add(lds_base, op.lds_offset(em, d_local, k_local))
        return em.assign(f"memref.load {lds}[{em.v(at)}] : {lds_type}", op.name.lower())
    chunk = gcd(length, op.kpack)
    full = f"vector<{length}x{elem}>"
    parts = []
    for j in range(length // chunk):
        at = em.add(lds_base, op.lds_offset(em, d_local, em.add(k_local, j * chunk)))
        ct = vector_type(chunk, elem)
        if chunk == 1:
            parts.append(em.assign(f"memref.load {lds}[{em.v(at)}] : {lds_type}"))
        else:
            parts.append(em.assign(f"vector.load {lds}[{em.v(at)}] : {lds_type}, {ct}"))
    if len(parts) == 1:
        return parts[0]
    # Chunks are joined element by element: vector.insert_strided_slice has no ROCDL
    # lowering inside a gpu.module with the pinned bindings, and LLVM folds these
    # extract/insert chains back into register moves.
    acc = em.assign(f"arith.constant dense<0> : {full}" if elem in ("i8", "i32")
                    else f"arith.constant dense<0.0> : {full}")
    for j, p in enumerate(parts):
        for i in range(chunk):
            x = p if chunk == 1 else em.assign(
                f"vector.extract {p}[{i}] : {elem} from vector<{chunk}x{elem}>")
            acc = em.assign(f"vector.insert {x}, {acc} [{j * chunk + i}] : {elem} into {full}")
    return acc
