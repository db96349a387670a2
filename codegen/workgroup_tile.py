"""Which tile a workgroup computes, when that is not read off its block ids.

A plain GEMM kernel takes its tile from (block_id x, y, z) = (N tile, M tile, batch).
A grouped GEMM (codegen/grouped.py) finds its tile at run time, from seq_offsets and,
in compact mode, from the device-side tile list, and its A and C rows are a window
[base, bound) of one packed buffer rather than a batch of their own. The GEMM kernel
builder (codegen/kernel.py) takes this description and is otherwise unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

from accel.codegen.builder import Value


@dataclass(frozen=True)
class RowWindow:
    """Rows [base, bound) of a one-batch [1, L, X] operand that belong to this
    workgroup's group. Row d of the group's M tiles is row base + d of the buffer;
    a row at or past `bound` reads 0 and is not stored (its batch index is sent to 1,
    past the end of the buffer, where the bound check drops it), so a tail tile never
    touches the next group's rows."""
    base: Value
    bound: Value


@dataclass(frozen=True)
class WorkgroupTile:
    """A workgroup's N tile, M tile (counted from the window's base) and batch (the
    group: B's and the bias's batch index), as SSA values, and A's and C's row window."""
    n_tile: Value
    m_tile: Value
    batch: Value
    rows: RowWindow
