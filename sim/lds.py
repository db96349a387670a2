"""LDS race detection and bank-conflict counting.

Race model: per LDS element, the last writing thread and op since the last barrier,
and the reading thread (or "several") and op. Between two barriers it is a race when
a thread reads an element another thread wrote (read-after-write), writes an element
another thread wrote (write-after-write, also two threads in one store), or writes an
element another thread read (write-after-read: the reader may not have read it yet).
Same-wave threads are no exception: LLVM may reorder one lane's LDS ops whose
addresses differ per lane, so only a barrier orders threads.

Bank model: see SimArch in arch.py.
"""

from __future__ import annotations

import numpy as np

from accel.diagnostics import AccelError

NONE = -1      # no access since the last barrier
SEVERAL = -2   # read by more than one thread since the last barrier


class LdsTracker:
    """Race state for one workgroup buffer across the W workgroups of a batch."""

    def __init__(self, size: int, region: int, name: str, ops, report, strict: bool):
        self.region = region
        self.name = name
        self.ops = ops              # op id -> (description, location tuple)
        self.report = report
        self.strict = strict
        self.writer = np.full(size, NONE, dtype=np.int64)
        self.writer_op = np.zeros(size, dtype=np.int32)
        self.reader = np.full(size, NONE, dtype=np.int64)
        self.reader_op = np.zeros(size, dtype=np.int32)
        self.seen: set = set()

    def barrier(self, workgroups=None):
        """Forget accesses of the given workgroups (all when None)."""
        if workgroups is None:
            self.writer.fill(NONE)
            self.reader.fill(NONE)
        else:
            self.writer.reshape(-1, self.region)[workgroups] = NONE
            self.reader.reshape(-1, self.region)[workgroups] = NONE

    def read(self, st, addr, tids, op_id):
        a, t = _flat(addr, tids)
        w = self.writer[a]
        bad = (w >= 0) & (w != t)
        if bad.any():
            self._race(st, "reads", op_id, a, t, w, self.writer_op, bad, "written")
        old = self.reader[a]
        new = np.where((old == NONE) | (old == t), t, SEVERAL)
        self.reader[a] = new
        self.reader_op[a] = op_id
        # Several threads reading one element in this op: fancy assignment kept one.
        clash = self.reader[a] != new
        if clash.any():
            self.reader[a[clash]] = SEVERAL

    def write(self, st, addr, tids, op_id):
        a, t = _flat(addr, tids)
        w = self.writer[a]
        bad = (w >= 0) & (w != t)
        if bad.any():
            self._race(st, "writes", op_id, a, t, w, self.writer_op, bad, "written")
        r = self.reader[a]
        bad = (r == SEVERAL) | ((r >= 0) & (r != t))
        if bad.any():
            self._race(st, "writes", op_id, a, t, r, self.reader_op, bad, "read")
        self.writer[a] = t
        self.writer_op[a] = op_id
        clash = self.writer[a] != t
        if clash.any():
            self._race(st, "writes", op_id, a, t, self.writer[a], self.writer_op, clash,
                       "also written in the same op")

    def _race(self, st, verb, op_id, a, t, other, other_ops, bad, how):
        r, c = np.argwhere(bad)[0]
        elem = int(a[r, c])
        other_id = int(other[r, c])
        other_op = int(other_ops[elem])
        key = (verb, how, op_id, other_op)
        if key in self.seen:
            return
        self.seen.add(key)
        desc, loc = self.ops[op_id]
        other_desc = self.ops[other_op][0]
        by = "several threads" if other_id == SEVERAL else st.thread_name(other_id)
        wg_elem = elem % self.region
        msg = (f"LDS race: {desc} by {st.thread_name(int(t[r, 0]))} {verb} "
               f"{self.name}[{wg_elem}] {how} by {by} with {other_desc}, "
               f"with no barrier between")
        self.report.races.append(msg)
        if self.strict:
            raise AccelError(msg, location=loc)


def _flat(addr, tids):
    """Addresses as (threads, elements) next to a (threads, 1) column of thread ids."""
    a = addr.reshape(addr.shape[0], -1)
    a = np.broadcast_to(a, (tids.shape[0], a.shape[1]))
    return a, tids.reshape(-1, 1)


def bank_conflict_cycles(st, arch, addr, tids, buf_byte_base, elem_bytes, region) -> int:
    """Extra LDS clocks of one access op (0 when conflict-free), per SimArch's model."""
    a, t = _flat(addr, tids)
    t = t[:, 0]
    k = a.shape[1]
    wave = arch.wave_size
    clock_bytes = arch.banks * arch.bank_bytes
    lanes_per_clock = max(1, min(wave, clock_bytes // max(arch.bank_bytes, k * elem_bytes)))
    lin = st.lin_in_wg[t]
    waves_per_wg = -(-st.tpw // wave)
    groups_per_wave = -(-wave // lanes_per_clock)
    group = ((st.wg[t] * waves_per_wg + lin // wave) * groups_per_wave
             + (lin % wave) // lanes_per_clock)
    byte = buf_byte_base + (a - (st.wg[t] * region)[:, None]) * elem_bytes
    dwords = byte // arch.bank_bytes
    if elem_bytes > arch.bank_bytes:
        dwords = np.concatenate([dwords, (byte + elem_bytes - 1) // arch.bank_bytes], axis=1)
    keys = np.unique((group[:, None] << 24) | dwords)
    g = keys >> 24
    bank = (keys & 0xFFFFFF) % arch.banks
    g0 = g.min()
    counts = np.bincount((g - g0) * arch.banks + bank,
                         minlength=(g.max() - g0 + 1) * arch.banks)
    per_group = counts.reshape(-1, arch.banks).max(axis=1)
    return int(np.maximum(per_group - 1, 0).sum())
