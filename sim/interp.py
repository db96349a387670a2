"""Interpreter compile: turn a gpu.func body into lists of Python closures, once.

Each SSA value gets a slot in a register list; each op becomes a closure reading and
writing slots of a `State`. A value is a numpy array whose leading axis is the thread
axis: length T (threads of every workgroup in the batch) or length 1 for a value that
is uniform across all of them (constants, loop counters), which numpy broadcasts.
"""

from __future__ import annotations

import numpy as np

from accel.diagnostics import AccelError
from accel.sim import ops_arith, ops_control, ops_matrix, ops_memory, ops_vector  # noqa: F401  (register ops)
from accel.sim.locations import describe, where
from accel.sim.registry import OPS


class Compiler:
    """Slot allocation and op dispatch for one kernel."""

    def __init__(self, arch):
        self.arch = arch
        self.slots: dict = {}
        self.num_slots = 0
        self.ops: list = []            # op id -> (description, location tuple)
        self.lds_buffers: list = []    # (MemRefInfo, name) per workgroup buffer

    def define(self, value) -> int:
        slot = self.num_slots
        self.slots[value] = slot
        self.num_slots += 1
        return slot

    def use(self, value) -> int:
        try:
            return self.slots[value]
        except KeyError:
            raise AccelError("simulator: value used outside the kernel it is defined in",
                             location=value.owner.location if hasattr(value, "owner") else None)

    def op_id(self, op) -> int:
        """A small integer naming the op in race reports: (description, location)."""
        self.ops.append((describe(op), where(op)))
        return len(self.ops) - 1

    def add_lds(self, info, name: str) -> int:
        self.lds_buffers.append((info, name))
        return len(self.lds_buffers) - 1

    def compile_op(self, op):
        name = op.operation.name
        fn = OPS.get(name)
        if fn is None:
            raise AccelError(f"simulator: op '{name}' is outside the Kernel IR subset",
                             location=op.location)
        return fn(self, op.operation)

    def compile_block(self, block, terminators=("scf.yield", "gpu.return")):
        """Closures for a block's ops, and the operand slots of its terminator."""
        closures = []
        yielded = []
        for op in block.operations:
            op = op.operation
            if op.name in terminators:
                yielded = [self.use(v) for v in op.operands]
                continue
            fn = self.compile_op(op)
            if fn is not None:
                closures.append(fn)
        return closures, yielded


class State:
    """One batch of workgroups running in lockstep: registers, mask and thread identity."""

    def __init__(self, num_slots, arch, block, grid, wg_ids, report, strict_races):
        self.regs = [None] * num_slots
        self.arch = arch
        self.block = block
        self.grid = grid
        self.report = report
        self.strict_races = strict_races
        self.tpw = block[0] * block[1] * block[2]
        self.W = len(wg_ids)
        self.T = self.W * self.tpw
        lin = np.arange(self.tpw, dtype=np.int64)
        # Thread ids in the workgroup, linear id = x + y*bx + z*bx*by.
        tx, ty, tz = lin % block[0], (lin // block[0]) % block[1], lin // (block[0] * block[1])
        self.wg = np.repeat(np.arange(self.W, dtype=np.int64), self.tpw)
        self.lin_in_wg = np.tile(lin, self.W)
        self.tid = tuple(np.tile(t, self.W) for t in (tx, ty, tz))
        wg_ids = np.asarray(wg_ids, dtype=np.int64)
        self.wg_ids = wg_ids   # linear workgroup id of each workgroup of the batch
        bx = wg_ids % grid[0]
        by = (wg_ids // grid[0]) % grid[1]
        bz = wg_ids // (grid[0] * grid[1])
        self.bid = tuple(np.repeat(b, self.tpw) for b in (bx, by, bz))
        self.mask = None   # bool (T,) of active threads, None when all are active
        self.rows = None   # np.flatnonzero(mask), or None
        self.all_rows = np.arange(self.T)
        self.lds = []          # View of each workgroup buffer, per compiler LDS index
        self.lds_buffers = []  # their memory.Buffer, each spanning all W workgroups
        self.lds_dma_pending = False  # gather_to_lds LDS writes not yet waited for

    def set_mask(self, mask):
        """Install a mask (None = all active); returns the previous one for restore."""
        prev = (self.mask, self.rows)
        self.mask = mask
        self.rows = None if mask is None else np.flatnonzero(mask)
        return prev

    def restore_mask(self, prev):
        self.mask, self.rows = prev

    def note_active(self, what: str) -> None:
        """Record the workgroups with an active thread here in report.active_workgroups."""
        if self.rows is None:
            ids = self.wg_ids
        else:
            hit = np.zeros(self.W, dtype=bool)
            hit[self.wg[self.rows]] = True
            ids = self.wg_ids[hit]
        self.report.active_workgroups.setdefault(what, set()).update(ids.tolist())

    def thread_name(self, row: int) -> str:
        t = tuple(int(a[row]) for a in self.tid)
        b = tuple(int(a[row]) for a in self.bid)
        return f"thread ({t[0]},{t[1]},{t[2]}) of workgroup ({b[0]},{b[1]},{b[2]})"
