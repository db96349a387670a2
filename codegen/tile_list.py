"""The grouped GEMM's prep kernel: seq_offsets -> the list of occupied (group, M tile) pairs.

One workgroup of TILE_LIST_BLOCK threads (tuning/grouped_launch.py). Thread t owns
groups [t * C, (t + 1) * C), C = ceil(G / threads):
  1. it counts its groups' M tiles, ceil(min(max(e - s, 0), max_seq_len) / mPerBlock);
  2. an inclusive scan of the counts in LDS (Hillis-Steele, log2(threads) steps over
     two buffers, one barrier each) gives each thread its first list position and the
     total;
  3. it writes entry group * T_g + m_tile for each of its tiles, in group order, so the
     list holds the tiles group by group, M tile by M tile;
  4. every position from the total to the end of the list gets TILE_LIST_SENTINEL,
     so a main-kernel workgroup at any position of its grid finds either a tile or
     the sentinel, never a stale entry.
All loops have trip counts fixed at compile time (C, T_g, the list length over the
threads); a tile past a group's count is stored at an index past the list, where the
buffer bound drops it: predicated stores, no divergent loop. The loops keep their back
edges (NO_UNROLL, as the GEMM's k-tile loop): LLVM otherwise unrolls them. Measured
with seed 003's B1024 D512 N512 max_seq_len 7680, gfx942 (60 M tiles per group, 52
sentinel rounds): prep kernel code 4800 -> 1984 bytes, and what the prep kernel adds to
the compile (compact minus uniform launch, best of 3, alternating runs) 580-1080 ->
130-190 ms.
"""

from __future__ import annotations

from dataclasses import dataclass

from accel.codegen.builder import Emitter, Value, kernel_module_text
from accel.codegen.loops import NO_UNROLL
from accel.dialect.accel_tile import ceil_div
from accel.tuning.grouped_launch import TILE_LIST_BLOCK, TILE_LIST_SENTINEL


@dataclass(frozen=True)
class TileListKernel:
    arch: str
    groups: int
    max_seq_len: int
    m_per_block: int
    entries: int             # the list's length: capacity + 1 (the sentinel)

    @property
    def symbol(self) -> str:
        return (f"accel_grouped_tiles_b{self.groups}_s{self.max_seq_len}_m{self.m_per_block}"
                f"_t{self.entries}_{self.arch}")

    @property
    def block_size(self) -> int:
        return TILE_LIST_BLOCK

    @property
    def grid(self) -> tuple[int, int, int]:
        return (1, 1, 1)

    @property
    def lds_bytes(self) -> int:
        return 2 * TILE_LIST_BLOCK * 4

    @property
    def seq_type(self) -> str:
        return f"memref<{self.groups + 1}xi32>"

    @property
    def list_type(self) -> str:
        return f"memref<{self.entries}xi32>"

    @property
    def tiles_per_group(self) -> int:
        return ceil_div(self.max_seq_len, self.m_per_block)

    def module_text(self) -> str:
        em = Emitter()
        self._emit_body(em)
        scan_t = f"memref<{2 * TILE_LIST_BLOCK}xi32, #gpu.address_space<workgroup>>"
        return kernel_module_text(
            self.symbol, [f"%seq_offsets: {self.seq_type}", f"%tile_map: {self.list_type}"],
            em.body_text(), TILE_LIST_BLOCK, (1, 1, 1), [f"%scan: {scan_t}"])

    # ---- body ----------------------------------------------------------------------
    def _group_tiles(self, em: Emitter, group: Value) -> Value:
        """M tiles of `group` (0 for a group index past G: the thread's chunk overhangs)."""
        s, e = load_group_rows(em, "%seq_offsets", self.seq_type, group)
        rows = clamp_rows(em, s, e, self.max_seq_len)
        tiles = em.div(em.add(rows, self.m_per_block - 1), self.m_per_block)
        return em.select(em.lt(group, self.groups), tiles, 0)

    def _emit_body(self, em: Emitter) -> None:
        threads = TILE_LIST_BLOCK
        chunk = ceil_div(self.groups, threads)
        scan_t = f"memref<{2 * threads}xi32, #gpu.address_space<workgroup>>"
        tid = em.gpu_id("thread_id x", "tid")
        first = em.mul(tid, chunk)

        count = _fold(em, chunk, 0, lambda c, acc: em.add(acc, self._group_tiles(
            em, em.add(first, c))), "cnt")

        # 2. Inclusive scan: step i reads buffer i % 2 and writes the other one.
        em.line(f"memref.store {em.v(count)}, %scan[{em.index(tid)}] : {scan_t}")
        em.line("gpu.barrier")
        buf, dist = 0, 1
        while dist < threads:
            src, dst = buf * threads, (1 - buf) * threads
            mine = em.assign(f"memref.load %scan[{em.index(em.add(src, tid))}] : {scan_t}")
            has = em.lt(dist - 1, tid)
            back = em.select(has, em.assign(f"arith.subi {tid}, {em.v(dist)} : i32"), 0)
            other = em.assign(f"memref.load %scan[{em.index(em.add(src, back))}] : {scan_t}")
            total = em.add(mine, em.select(has, other, 0))
            em.line(f"memref.store {total}, %scan[{em.index(em.add(dst, tid))}] : {scan_t}")
            em.line("gpu.barrier")
            buf, dist = 1 - buf, dist * 2
        base = buf * threads
        inclusive = em.assign(f"memref.load %scan[{em.index(em.add(base, tid))}] : {scan_t}")
        total = em.assign(f"memref.load %scan[{em.index(base + threads - 1)}] : {scan_t}")
        start = em.assign(f"arith.subi {inclusive}, {em.v(count)} : i32")

        # 3. The thread's tiles, from its first position on.
        tpg = self.tiles_per_group
        past = self.entries   # an index past the list: the store is dropped

        def write_group(c: Value, pos: Value) -> Value:
            group = em.add(first, c)
            tiles = self._group_tiles(em, group)

            def write_tile(i: Value) -> None:
                at = em.select(em.lt(i, tiles), em.add(pos, i), past)
                entry = em.add(em.mul(group, tpg), i)
                _store(em, entry, at, self.list_type)

            _for(em, tpg, write_tile, "mt")
            return em.add(pos, tiles)

        _fold(em, chunk, start, write_group, "pos")

        # 4. Sentinels from the total to the end of the list.
        def write_sentinel(j: Value) -> None:
            idx = em.add(tid, em.mul(j, threads))
            at = em.select(em.lt(idx, total), past, idx)
            _store(em, em.const(TILE_LIST_SENTINEL), at, self.list_type)

        _for(em, ceil_div(self.entries, threads), write_sentinel, "st")


# ---- shared with the main kernel (codegen/grouped.py) -------------------------------------
def load_group_rows(em: Emitter, seq: str, seq_type: str, group: Value) -> tuple[str, str]:
    """(s, e) = seq_offsets[group], seq_offsets[group + 1] as i32 scalars: raw buffer
    loads, so a group index past G reads 0 instead of faulting."""
    def load(i: Value) -> str:
        return em.assign(f"amdgpu.raw_buffer_load {seq}[{em.v(i)}] : {seq_type}, i32 -> i32",
                         "seq")
    return load(group), load(em.add(group, 1))


def clamp_rows(em: Emitter, s: str, e: str, max_seq_len: int) -> str:
    """The rows of a group that are computed: min(max(e - s, 0), max_seq_len)."""
    rows = em.assign(f"arith.subi {e}, {s} : i32")
    rows = em.assign(f"arith.maxsi {rows}, {em.const(0)} : i32")
    return em.assign(f"arith.minsi {rows}, {em.const(max_seq_len)} : i32")


def _store(em: Emitter, value: Value, at: Value, list_type: str) -> None:
    em.line(f"amdgpu.raw_buffer_store {em.v(value)} -> %tile_map[{em.v(at)}] : "
            f"i32 -> {list_type}, i32")


def _for(em: Emitter, trips: int, body, hint: str) -> None:
    """scf.for over [0, trips) without carried values; one trip is inlined."""
    if trips == 1:
        body(0)
        return
    iv = em.fresh(hint)
    with em.region(em.for_header(iv, trips), "} " + NO_UNROLL):
        body(iv)
        em.line("scf.yield")


def _fold(em: Emitter, trips: int, init: Value, body, hint: str) -> Value:
    """acc = body(i, acc) for i in [0, trips), carried in an scf.for; one trip is inlined."""
    if trips == 1:
        return body(0, init)
    iv, acc, res = em.fresh(hint), em.fresh("acc"), em.fresh(hint + "_res")
    with em.region(f"{res} = " + em.for_header(iv, trips,
                                                f"iter_args({acc} = {em.v(init)}) -> (i32)"),
                   "} " + NO_UNROLL):
        em.line(f"scf.yield {em.v(body(iv, acc))} : i32")
    return res
