"""Global memory -> LDS copy of one operand tile without registers: `amdgpu.gather_to_lds`.

gfx942's buffer_load_dword ... lds (what gather_to_lds lowers to there, the source a
fat raw buffer) writes each lane's dword at M0 + lane * 4: one wave instruction fills
64 consecutive LDS dwords, and only the global address is the lane's own. So the copy
runs over the tile's LDS dwords in order, [kpackPerBlock][dPerBlock][kpack] as the
fragment reads expect it (OperandCopy.lds_offset, no slab padding: a padding row inside
a wave's 256-byte run would be written too), and each lane loads the global dword that
belongs at its place. The row swizzle stays: it permutes rows inside an 8-row block,
and the XOR is its own inverse, so LDS row d holds global row d ^ key(d // 8).

Only a K-contiguous operand (A row-major, B transposed) has a kpack run of whole dwords
contiguous in global memory (passes/plan_kernel.py refuses the rest). Edges read zero
as OperandCopy's loads do: an invalid dword's batch index is G, past the descriptor's
num_records, where the buffer load returns 0 and writes it to LDS; with K a multiple of
the dword's elements a dword is wholly inside a row or wholly past its end.

The loads complete out of order with the LDS accesses (vmcnt, not lgkmcnt, counts
them), so the k-tile loop waits for them (schedule.LOAD_WAIT) before the barrier that
hands the tile to the other waves.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from accel.codegen.builder import Emitter, Value
from accel.codegen.global_copy import OperandCopy, vector_type
from accel.diagnostics import AccelError
from accel.dialect.element_types import ELEMENT_BYTES

FAT_RAW_BUFFER = "#amdgpu.address_space<fat_raw_buffer>"


@dataclass(frozen=True)
class DirectLdsCopy(OperandCopy):
    """An OperandCopy whose `copy` writes LDS by gather_to_lds from `buffer`, the
    operand cast to a fat raw buffer (`prepare`, emitted once at the kernel's entry)."""
    wave_size: int = 64
    buffer: str = ""          # the fat raw buffer view (`prepare`)
    lds_first: Value = 0      # the wave's first LDS element within a round (`prepare`)

    @property
    def per_dword(self) -> int:
        return 4 // ELEMENT_BYTES[self.elem]

    @property
    def dwords(self) -> int:
        return self.tile_elems // self.per_dword

    @property
    def buffer_type(self) -> str:
        return self.memref_type[:-1] + f", {FAT_RAW_BUFFER}>"

    def check_plan(self) -> None:
        """AccelError unless the plan is one this copy can follow (passes/plan_kernel.py
        direct_operand_plan makes such plans)."""
        p = self.plan
        what = (None if self.layout != "accel" and self.d_first else "a K-contiguous plain operand",
                None if self.view_strides is None and self.rows is None
                and len(self.shape) == 3 else "a packed rank-3 memref",
                None if self.kpack % self.per_dword == 0 and self.k_extent % self.per_dword == 0
                else f"kpack and K multiples of {self.per_dword}",
                None if self.dwords % self.wave_size == 0 else "a tile of whole wave dwords",
                None if (p.vector, p.k_chunk, p.slab_pad) == (self.per_dword, 1, 0)
                and not (p.ahead or p.rows_first or p.permute) and p.sgpr_offset == "none"
                else f"vector {self.per_dword}, k_chunk 1, slab_pad 0, sgpr_offset \"none\" "
                     f"and no ahead, rows_first or permute")
        missing = [w for w in what if w is not None]
        if missing:
            raise AccelError(f"kernel plan: direct_to_lds {self.name.lower()}_copy needs "
                             f"{'; '.join(missing)}")

    def prepare(self, em: Emitter, tid: str) -> "DirectLdsCopy":
        """This copy with its loop-invariant values emitted (at the kernel's entry): the
        operand's fat raw buffer view, whose descriptor's num_records is the memref's
        size (the bound that makes an invalid dword read 0), and the wave's first LDS
        element as a scalar (rocdl.readfirstlane), so each gather's M0 is computed in
        SGPRs instead of read back from a VGPR address per gather. Measured (gfx942 f16
        4096^3, B transposed, main loop, before -> after): 128x128x64 scheduleVersion 3
        188 -> 156 instructions (work share 0.291 -> 0.340), 4 389 -> 335 (VALU 144 ->
        80, 0.283 -> 0.321, VGPRs 196 -> 136); 128x256x32 4: 273 -> 278 (0.380 ->
        0.374), 3 unchanged (0.395)."""
        buffer = em.assign(f"amdgpu.fat_raw_buffer_cast {self.memref} : {self.memref_type} "
                           f"to {self.buffer_type}", f"{self.name.lower()}buf")
        first = em.mul(em.div(tid, self.wave_size), self.wave_size * self.per_dword)
        first = em.assign(f"rocdl.readfirstlane {em.v(first)} : i32", "wave")
        return replace(self, buffer=buffer, lds_first=first)

    def copy(self, em: Emitter, lds: str, lds_type: str, lds_base: Value, tid: str, g: str,
             g_count: int, d_tile: str, k_tile: Value) -> None:
        """gather_to_lds of tile (g, d_tile, k_tile) into `lds` at element `lds_base`:
        in round r, thread t moves dword r * blockSize + t; the waves of a round past
        the tile's last dword (a wave-uniform test: the dword count is a multiple of
        the wave) issue nothing."""
        block = self.block_size
        rounds = -(-self.dwords // block)
        for r in range(rounds):
            q = em.add(tid, r * block)
            first = em.add(lds_base, em.add(self.lds_first, r * block * self.per_dword))
            if (r + 1) * block <= self.dwords:
                self._gather(em, lds, lds_type, first, q, g, g_count, d_tile, k_tile)
            else:
                with em.region(f"scf.if {em.lt(q, self.dwords)}"):
                    self._gather(em, lds, lds_type, first, q, g, g_count, d_tile, k_tile)

    def _gather(self, em: Emitter, lds, lds_type, first: Value, q: Value, g, g_count,
                d_tile, k_tile) -> None:
        """One wave instruction: the wave's 64 dwords from LDS element `first` on; this
        lane moves the tile's dword q."""
        per, kp, d_pb = self.per_dword, self.kpack, self.d_per_block
        p = em.mul(q, per)
        slab = em.div(p, d_pb * kp)
        d = em.rem(em.div(p, kp), d_pb)
        if self.swizzled:
            d = em.xor(d, self.row_key(em, em.div(d, 8)))
        k_local = em.add(em.mul(slab, kp), em.rem(p, kp))
        row, k, ok = self._coords(em, d, k_local, d_tile, k_tile, False)
        batch = em.select(ok, g, g_count)
        src = ", ".join(em.index(x) for x in (batch, row, k))
        dst = em.index(first)
        em.line(f"amdgpu.gather_to_lds {self.buffer}[{src}], {lds}[{dst}] : "
                f"{vector_type(per, self.elem)}, {self.buffer_type}, {lds_type}")
