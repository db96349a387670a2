"""The MMAs of one k-tile: LDS fragment reads and the MMA repeats of a wave.

A wave computes (mPerWave/m) x (nPerWave/n) MMA tiles. Over a k-tile it walks
kPerBlock in k-steps of the instruction's K; one LDS read per operand repeat serves
`k_steps_per_read` consecutive k-steps (the plan's, MmaLayout.super_step), whose
fragments are slices of that read: a group. The group loop is an scf.for that LLVM
unrolls; with plan `lds_read_ahead` it carries the next group's fragments, and with
plan `interleave_reads` scheduling-group barriers (rocdl.sched.group.barrier) fix
where those reads sit among the MMAs.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import gcd

from accel.codegen.builder import Emitter, Value
from accel.codegen.global_copy import ELEM_BITS, OperandCopy, lds_fragment, vector_type
from accel.codegen.loops import counted_loop
from accel.codegen.mma import MmaLayout

# Every LDS access issued so far is complete (s_waitcnt lgkmcnt(0) / s_wait_dscnt 0).
LDS_WAIT = "amdgpu.memory_counter_wait ds(0)"
# The reads of the next group sit among the first 1/READ_SPREAD of a group's MMAs, so
# the rest of the group covers their latency before its LDS_WAIT. Measured
# (bench_kernel_quality.py, gfx1100 4096^3, 128x128x128, 8 WMMAs and 12 ds_load_b128
# per group, B row-major): spread over all 8 MMAs, 21 waits in the main loop; the
# first 4, 17; the first 2, 15; all before the first MMA, 14, but then LLVM reads a
# group only after the MMAs before it (no read ahead).
READ_SPREAD = 4


@dataclass(frozen=True)
class LdsTile:
    """One operand's LDS side: its copy (layout), workgroup buffer and type."""
    op: OperandCopy
    buffer: str          # SSA name of the workgroup buffer
    buffer_type: str


@dataclass(frozen=True)
class MmaStep:
    mma: MmaLayout
    a: LdsTile
    b: LdsTile
    k_per_block: int
    k_steps_per_read: int
    reps_m: int
    reps_n: int
    a_row: Value         # lane's A row within its wave's first MMA tile (wave offset added)
    b_col: Value         # lane's B column, likewise
    k_lane: Value        # lane's first K within a read (MmaLayout.k_base)
    read_ahead: bool     # plan lds_read_ahead: group ks+1 is read before group ks's MMAs
    interleave_reads: bool  # plan interleave_reads: those reads pinned among the MMAs

    def emit(self, em: Emitter, buf: Value, accs: list[str]) -> list[str]:
        """Multiply the k-tile in LDS buffer `buf` into `accs`; returns the new ones."""
        mma, sup = self.mma, self.k_steps_per_read
        reps_m, reps_n = self.reps_m, self.reps_n
        steps = self.k_per_block // (mma.k * sup)
        base_a, base_b = em.mul(buf, self.a.op.lds_elems), em.mul(buf, self.b.op.lds_elems)
        r_len, run = mma.instr.a_len, mma.instr.a_len * sup

        def reads(ks: Value) -> list[str]:
            """The A then B fragment runs of k-step group `ks`, from LDS."""
            k0 = em.add(em.mul(ks, mma.k * sup), self.k_lane)
            return ([lds_fragment(em, self.a.op, self.a.buffer, self.a.buffer_type, base_a,
                                  self.a_row, r * mma.m, k0, run) for r in range(reps_m)]
                    + [lds_fragment(em, self.b.op, self.b.buffer, self.b.buffer_type, base_b,
                                    self.b_col, c * mma.n, k0, run) for c in range(reps_n)])

        def mmas(runs: list[str], accs_now: list[str]) -> list[str]:
            a_runs, b_runs = runs[:reps_m], runs[reps_m:]
            for s in range(sup):
                a_frags = [em.slice(x, run, s * r_len, r_len, self.a.op.elem) for x in a_runs]
                b_frags = [em.slice(x, run, s * r_len, r_len, self.b.op.elem) for x in b_runs]
                # C^T = B^T * A^T (codegen/mma.py): B is the instruction's first operand.
                accs_now = [mma.emit(em, b_frags[c], a_frags[r], accs_now[r * reps_n + c])
                            for r in range(reps_m) for c in range(reps_n)]
            return accs_now

        acc_types = [(x, mma.acc_type()) for x in accs]
        if not self.read_ahead:
            if steps == 1:
                return mmas(reads(0), accs)
            return counted_loop(em, steps, acc_types, lambda ks, a: mmas(reads(ks), a), "ks")
        # Plan lds_read_ahead: the fragments of group ks+1 are read before the MMAs of
        # group ks, which wait once for their own reads (LDS_WAIT) and run while the
        # next ones are in flight. The last group is peeled, so nothing is read twice.
        n_acc = len(accs)
        runs = reads(0)
        run_types = [(x, vector_type(run, t.op.elem))
                     for x, t in zip(runs, [self.a] * reps_m + [self.b] * reps_n)]

        def ahead(ks, carried):
            em.line(LDS_WAIT)
            nxt = reads(em.add(ks, 1))
            out = mmas(carried[n_acc:], carried[:n_acc]) + nxt
            if self.interleave_reads:
                self._pin_reads(em)
            return out

        carried = accs + runs
        if steps > 1:
            carried = counted_loop(em, steps - 1, acc_types + run_types, ahead, "ks")
        em.line(LDS_WAIT)
        return mmas(carried[n_acc:], carried[:n_acc])

    def _pin_reads(self, em: Emitter) -> None:
        """Scheduling groups for one group of k-steps (after its ops, as LLVM's
        IGroupLP takes a group's instructions from before its barrier): the next
        group's LDS reads spread over the first MMAs, the rest of the MMAs after them.
        LLVM's scheduler otherwise sinks each read to just before its first MMA to
        save registers and waits for it there: on gfx1100 4096^3 (128x128x128) five
        lgkmcnt waits per group of 8 WMMAs, 42 in the main loop."""
        n_mma = self.reps_m * self.reps_n * self.k_steps_per_read
        run = self.mma.instr.a_len * self.k_steps_per_read
        bits = ELEM_BITS[self.a.op.elem]
        # One ds_read per chunk of a fragment (lds_fragment), at most 128 bits each.
        chunk = gcd(run, self.a.op.kpack)
        n_reads = (self.reps_m + self.reps_n) * (run // chunk) * -(-chunk * bits // 128)
        over = -(-n_mma // READ_SPREAD)
        placed = 0
        for i in range(over):
            upto = min(n_reads, -(-(i + 1) * n_reads // over))
            if upto > placed:
                em.line(f"rocdl.sched.group.barrier ds_read, {upto - placed}, 0")
                placed = upto
            em.line("rocdl.sched.group.barrier mfma_wmma, 1, 0")
        # The MMAs after the reads need no order among themselves: one group.
        if n_mma > over:
            em.line(f"rocdl.sched.group.barrier mfma_wmma, {n_mma - over}, 0")
