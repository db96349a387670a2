"""The k-tile loop: when each k-tile is loaded, stored to LDS and multiplied.

Global loads run one k-tile ahead: the loads of tile t+1 are issued before the MMAs of
tile t and waited for after them, so their latency hides behind a k-tile of MMAs
instead of stalling every k-tile (PIN_LOADS keeps LLVM from undoing it). Measured
(benchmarks/bench_kernel_quality.py, load cover: MMA work between a load and its wait,
in 16x16x16 units, on the selector's 4096^3 tiles): gfx942 8 -> 32, gfx1100 0 -> 16,
gfx1201 16 -> 16 (B transposed 0 -> 16). Cost: the held values, as the register
estimate's copy staging allows (tuning/validity.py).

With plan pipeline_depth 2 (two LDS buffers only) they run two k-tiles ahead
(`_two_ahead`): tile t+2's loads are issued before tile t's MMAs, and a wait before tile
t+1's LDS store leaves them in flight, so a load is covered by two k-tiles of MMAs; the
loop's two k-tiles a trip keep the two register stages under fixed names.

Direct-to-LDS (plan direct_to_lds, scheduleVersion 3 and 4) holds nothing in
registers: with one buffer a k-tile's gather_to_lds is waited for before its MMAs
(store t | wait | barrier | multiply t | barrier, the global latency exposed); with two
(scheduleVersion 4) tile t+1 is gathered into the other buffer before tile t's MMAs and
waited for after them.

One LDS buffer (lds_buffers = 1, scheduleVersion 1): store t | barrier | load t+1 |
multiply t | barrier, the loaded values carried across the back edge. Two
(lds_buffers = 2, scheduleVersion 2): load t+1 | multiply t | store t+1 into the other
buffer | barrier: one barrier per k-tile, two k-tiles per trip of the loop. Either way
the loads are issued before a k-tile's MMAs and waited for after all of them (once for
all, with plan load_wait_once), and the load after the last k-tile is of the last one
again (`clamped`).
"""

from __future__ import annotations

from dataclasses import dataclass

from accel.codegen.builder import Emitter, Value
from accel.codegen.loops import counted_loop
from accel.codegen.mma_step import LdsTile, MmaStep


@dataclass(frozen=True)
class TileCopies:
    """The global -> LDS copies of the A and B tiles of one workgroup."""
    tiles: tuple[tuple[LdsTile, str], ...]   # (A, M tile id), (B, N tile id)
    tid: str
    batch: str
    g: int
    load_wait_once: bool  # plan load_wait_once: put waits for every staged load at once
    direct: bool = False  # plan direct_to_lds: `put` issues gather_to_lds, waited for by
                          # LOAD_WAIT before the next barrier (codegen/direct_lds_copy.py)

    def fetch(self, em: Emitter, k_tile: Value) -> list[tuple[str, str]]:
        """Global loads of k-tile `k_tile` for the operands loaded ahead (plan `ahead`)."""
        return [x for t, d_tile in self.tiles if t.op.plan.ahead
                for x in t.op.load(em, self.tid, self.batch, self.g, d_tile, k_tile)]

    def put(self, em: Emitter, k_tile: Value, buf: Value, staged: list[str],
            newer: int = 0) -> None:
        """Store k-tile `k_tile` into LDS buffer `buf`: the fetched values, or (for
        operands not loaded ahead) a copy issued here. `newer`: global loads issued
        after `staged`'s (a later k-tile's, pipeline depth 2), which its wait leaves
        outstanding."""
        at = 0
        if staged and self.load_wait_once:
            # PIN_LOADS keeps the register transpose of a row-major B below the wait.
            em.line(load_wait(newer))
            em.line(PIN_LOADS)
        for t, d_tile in self.tiles:
            base = em.mul(buf, t.op.lds_elems)
            if t.op.plan.ahead:
                n = t.op.values_per_thread
                t.op.store(em, t.buffer, t.buffer_type, base, self.tid, staged[at:at + n])
                at += n
            else:
                t.op.copy(em, t.buffer, t.buffer_type, base, self.tid, self.batch, self.g,
                          d_tile, k_tile)


# Around the MMAs of a k-tile: LLVM's machine scheduler otherwise sinks the next
# k-tile's global loads below the MMAs (they only feed the LDS store after them), and
# hoists the register transpose of a row-major B, which waits for those loads, above
# them: either way the loads' latency is exposed. Measured (bench_kernel_quality.py,
# gfx1100 4096^3, 128x128x16): without them all 4 buffer loads sat after the last of
# 16 WMMAs (load cover 0); with the first fence only, an s_waitcnt vmcnt(0) followed
# the loads at once (cover 0); with both, cover 16 (the k-tile's 16 WMMAs).
PIN_LOADS = "rocdl.sched.barrier none"
# LDS is the only memory threads share, so a k-tile boundary needs LDS traffic done and
# every wave arrived, not global memory: amdgpu.lds_barrier (s_waitcnt lgkmcnt(0);
# s_barrier). gpu.barrier is a workgroup fence besides, which waits for the global loads
# in flight (vmcnt(0)) and invalidates the L0/L1 caches at every barrier.
BARRIER = "amdgpu.lds_barrier"


def load_wait(newer: int) -> str:
    """Wait for the global loads issued before the `newer` last ones (vmcnt(newer)):
    loads return in order, so those are complete and the newer stay in flight."""
    return f"amdgpu.memory_counter_wait load({newer})"


# All global loads issued so far are complete (s_waitcnt vmcnt(0) / s_wait_loadcnt 0).
LOAD_WAIT = load_wait(0)


def clamped(em: Emitter, k_tile: Value, k_tiles: int) -> Value:
    """The k-tile to load for `k_tile`, which may be one past the last: the last one
    again. Its values are never used (the loop's final carried values, or a store into
    a buffer nothing reads again), and every load stays inside its operand, which a
    tile origin in soffset (plan `sgpr_offset`) needs: gfx9 leaves soffset out of the
    range check. One scalar s_min_u32 per k-tile; masking each load (batch index G,
    as the edges are) cost a VALU op per load address per k-tile."""
    if isinstance(k_tile, int):
        return min(k_tile, k_tiles - 1)
    return em.assign(f"arith.minui {k_tile}, {em.const(k_tiles - 1)} : i32")


def _pin(em: Emitter, sched_barriers: bool) -> None:
    """PIN_LOADS where the plan's `sched_barriers` asks for it."""
    if sched_barriers:
        em.line(PIN_LOADS)


def k_tile_loop(em: Emitter, lds_buffers: int, sched_barriers: bool, k_tiles: int,
                copies: TileCopies, step: MmaStep, accs: list[str],
                acc_type: str, depth: int) -> list[str]:
    """The whole K reduction into `accs`; returns the final accumulators. With
    `sched_barriers` (the plan's) PIN_LOADS fences the MMAs of each k-tile; `depth`
    (plan pipeline_depth) k-tiles of loads run ahead of the MMAs."""
    if depth == 2:
        return _two_ahead(em, sched_barriers, k_tiles, copies, step, accs, acc_type)
    n_acc = len(accs)

    direct = isinstance(copies, TileCopies) and copies.direct
    if lds_buffers == 2:
        copies.put(em, 0, 0, [x for x, _ in copies.fetch(em, 0)])
        if direct:
            em.line(LOAD_WAIT)
        em.line(BARRIER)

        def tile(kt: Value, buf: int, accs_in: list[str]) -> list[str]:
            # Tile kt is in buffer `buf`. Tile kt+1 is loaded first, multiplied under,
            # and stored into the other buffer, whose readers all passed the previous
            # barrier. After the last k-tile of an even count the store writes the
            # last tile again (clamped) into a buffer nothing reads again: no branch, so
            # the loop stays one basic block for LLVM's scheduler.
            nxt = em.add(kt, 1)
            if isinstance(nxt, int) and nxt >= k_tiles:   # known to be the last k-tile
                return step.emit(em, buf, accs_in)
            nxt = clamped(em, nxt, k_tiles)
            if direct:
                # Nothing passes through registers: tile kt+1 goes into the other
                # buffer before the MMAs and is waited for after them.
                copies.put(em, nxt, 1 - buf, [])
                _pin(em, sched_barriers)
                out = step.emit(em, buf, accs_in)
                _pin(em, sched_barriers)
                em.line(LOAD_WAIT)
                em.line(BARRIER)
                return out
            staged = [x for x, _ in copies.fetch(em, nxt)]
            _pin(em, sched_barriers)
            out = step.emit(em, buf, accs_in)
            _pin(em, sched_barriers)
            copies.put(em, nxt, 1 - buf, staged)
            em.line(BARRIER)
            return out

        def pair(i, carried):
            # Two k-tiles per trip, so each one's buffer is a constant: LDS addresses
            # stay loop-invariant registers plus immediate offsets.
            kt = em.mul(i, 2)
            return tile(em.add(kt, 1), 1, tile(kt, 0, carried))

        accs = counted_loop(em, k_tiles // 2, [(x, acc_type) for x in accs], pair, "kt",
                            unroll=False) if k_tiles >= 2 else accs
        if k_tiles % 2:
            # The last k-tile of an odd count, in buffer 0: nothing left to load.
            accs = step.emit(em, 0, accs)
        return accs
    staged = copies.fetch(em, 0)

    def body(kt, carried):
        copies.put(em, kt, 0, carried[n_acc:])
        if direct:
            em.line(LOAD_WAIT)
        em.line(BARRIER)
        nxt = em.add(kt, 1)
        ahead = copies.fetch(em, clamped(em, nxt, k_tiles))
        _pin(em, sched_barriers)
        out = step.emit(em, 0, carried[:n_acc])
        em.line(BARRIER)
        return out + [x for x, _ in ahead]

    return counted_loop(em, k_tiles, [(x, acc_type) for x in accs] + staged, body, "kt",
                        unroll=False)[:n_acc]


def _two_ahead(em: Emitter, sched_barriers: bool, k_tiles: int, copies: TileCopies,
               step: MmaStep, accs: list[str], acc_type: str) -> list[str]:
    """`k_tile_loop` with two LDS buffers and the loads two k-tiles ahead: load t+2 |
    multiply t (buffer t % 2) | wait for t+1's loads (issued a k-tile earlier), leaving
    t+2's in flight (`put`'s `newer`) | store t+1 into the other buffer | barrier. The
    loop's two k-tiles a trip keep the two register stages under fixed names: it
    carries one stage across its back edge, with no register copies. Loads past the
    last k-tile are of the last one again (`clamped`) and stored into a buffer nothing
    reads again; where the k-tile is a constant (a loop of one trip is inlined: K of two
    or three k-tiles) they are left out."""
    n_acc = len(accs)

    def fetch(kt: Value) -> list[tuple[str, str]]:
        if isinstance(kt, int) and kt >= k_tiles:
            return []
        return copies.fetch(em, clamped(em, kt, k_tiles))

    first = copies.fetch(em, 0)
    # In load order (loads return in order): LLVM's waits at the loop's head merge the
    # entry's order with the back edge's, and with the prologue's loads interleaved
    # they came out as vmcnt(0) before the first k-tile's stores.
    _pin(em, sched_barriers)
    second = fetch(1)
    _pin(em, sched_barriers)
    copies.put(em, 0, 0, [x for x, _ in first], len(second))
    em.line(BARRIER)

    def tile(kt: Value, buf: int, accs_in: list[str],
             held: list[str]) -> tuple[list[str], list[tuple[str, str]]]:
        # `held`: tile kt+1's values, stored into the other buffer after the MMAs.
        nxt = em.add(kt, 1)
        if isinstance(nxt, int) and nxt >= k_tiles:   # known to be the last k-tile
            return step.emit(em, buf, accs_in), []
        ahead = fetch(em.add(kt, 2))
        _pin(em, sched_barriers)
        out = step.emit(em, buf, accs_in)
        _pin(em, sched_barriers)
        copies.put(em, clamped(em, nxt, k_tiles), 1 - buf, held, len(ahead))
        em.line(BARRIER)
        return out, ahead

    def pair(i, carried):
        kt = em.mul(i, 2)
        out, ahead = tile(kt, 0, carried[:n_acc], carried[n_acc:])
        out, after = tile(em.add(kt, 1), 1, out, [x for x, _ in ahead])
        return out + [x for x, _ in after]

    if k_tiles >= 2:
        accs = counted_loop(em, k_tiles // 2, [(x, acc_type) for x in accs] + second, pair,
                            "kt", unroll=False)[:n_acc]
    # An odd count's last k-tile is in buffer 0 (stored by the last trip).
    return step.emit(em, 0, accs) if k_tiles % 2 else accs
