"""The k-tile loop: when each k-tile is loaded, stored to LDS and multiplied.

Global loads run one k-tile ahead: the loads of tile t+1 are issued before the MMAs of
tile t and their values ride in the loop's iter_args until stored to LDS, so the
global latency hides behind a k-tile of MMAs instead of stalling every k-tile.
Measured (benchmarks/bench_kernel_quality.py) against loading each k-tile at its
start and waiting for it (s_waitcnt vmcnt(0)) before its first MMA: gfx1100 128x128
issues its 4 buffer_load_b128 ahead of all 16 WMMAs and waits at the next k-tile's
LDS store; on gfx942 128x256 LLVM places them before the last 4 of 16 MFMAs. Cost: the
held values, VGPRs +0..+18 over the ten cases.

One LDS buffer (lds_buffers = 1): store t | barrier | load t+1, multiply t | barrier.
Two (lds_buffers = 2): multiply t | store t+1 into the other buffer, load t+2 |
barrier; one barrier per k-tile.
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

    def fetch(self, em: Emitter, k_tile: Value, live: Value) -> list[tuple[str, str]]:
        """Global loads of k-tile `k_tile` for the operands loaded ahead (plan `ahead`)."""
        if live == 0:
            return []
        return [x for t, d_tile in self.tiles if t.op.plan.ahead
                for x in t.op.load(em, self.tid, self.batch, self.g, d_tile, k_tile, live)]

    def put(self, em: Emitter, k_tile: Value, buf: Value, staged: list[str]) -> None:
        """Store k-tile `k_tile` into LDS buffer `buf`: the fetched values, or (for
        operands not loaded ahead) a copy issued here."""
        at = 0
        for t, d_tile in self.tiles:
            base = em.mul(buf, t.op.lds_elems)
            if t.op.plan.ahead:
                n = t.op.values_per_thread
                t.op.store(em, t.buffer, t.buffer_type, base, self.tid, staged[at:at + n])
                at += n
            else:
                t.op.copy(em, t.buffer, t.buffer_type, base, self.tid, self.batch, self.g,
                          d_tile, k_tile)


def k_tile_loop(em: Emitter, lds_buffers: int, k_tiles: int, copies: TileCopies,
                step: MmaStep, accs: list[str], acc_type: str) -> list[str]:
    """The whole K reduction into `accs`; returns the final accumulators."""
    n_acc = len(accs)
    if lds_buffers == 2:
        copies.put(em, 0, 0, [x for x, _ in copies.fetch(em, 0, 1)])
        em.line("gpu.barrier")
        staged = copies.fetch(em, 1, em.lt(1, k_tiles))

        def body(kt, carried):
            # Tile kt is in buffer kt % 2; tile kt+1 (fetched last iteration) goes to
            # the other one, whose readers all passed the previous barrier.
            out = step.emit(em, em.rem(kt, 2), carried[:n_acc])
            nxt = em.add(kt, 1)
            more = em.lt(nxt, k_tiles)
            if isinstance(more, str):
                with em.region(f"scf.if {more}"):
                    copies.put(em, nxt, em.rem(nxt, 2), carried[n_acc:])
            elif more:
                copies.put(em, nxt, em.rem(nxt, 2), carried[n_acc:])
            after = em.add(kt, 2)
            ahead = copies.fetch(em, after, em.lt(after, k_tiles))
            em.line("gpu.barrier")
            return out + [x for x, _ in ahead]
    else:
        staged = copies.fetch(em, 0, 1)

        def body(kt, carried):
            copies.put(em, kt, 0, carried[n_acc:])
            em.line("gpu.barrier")
            nxt = em.add(kt, 1)
            ahead = copies.fetch(em, nxt, em.lt(nxt, k_tiles))
            out = step.emit(em, 0, carried[:n_acc])
            em.line("gpu.barrier")
            return out + [x for x, _ in ahead]

    return counted_loop(em, k_tiles, [(x, acc_type) for x in accs] + staged, body, "kt",
                        unroll=False)[:n_acc]
