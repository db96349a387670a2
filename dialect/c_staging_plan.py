"""The C-staging part of a gemm's kernel plan: the `c_staging` attribute of `accel.gemm`.

With outputSwizzle 1 (rocMLIR's "C through LDS") accel-plan-kernel records, only on
such gemms,

  c_staging = {buffer = "b", columns = 64, rows = 32, span = 8, unit = 4, vector = 8}

and the kernel's epilogue (codegen/c_staging.py) passes C through LDS after the k-tile
loop: each wave writes a block of `rows` rows x `columns` columns of its mPerWave x
nPerWave tile of C (after the epilogue's op list, in C's type) into the LDS buffer of
operand `buffer` in pieces of `unit` elements, then reads it back row by row, `span`
elements (one or two units) a lane, and stores it to C with `vector` elements per
store; (mPerWave / rows) x (nPerWave / columns) passes in all.
"""

from __future__ import annotations

from dataclasses import dataclass

from accel.bindings import ir
from accel.diagnostics import AccelError
from accel.dialect.ir_helpers import read_int_dict, write_int_dict

BUFFERS = ("a", "b")
_INT_KEYS = ("columns", "rows", "span", "unit", "vector")


@dataclass(frozen=True)
class CStagingPlan:
    buffer: str      # whose LDS buffer (operand "a" or "b") holds the staged rows
    rows: int        # C rows of a wave's tile staged per pass
    columns: int     # C columns of a wave's tile staged per pass (nPerWave: whole rows)
    unit: int        # elements per LDS write (the unit the rows are swizzled in)
    span: int        # elements a lane reads back with one LDS read: one unit or two
    vector: int      # elements per global store of C

    def write(self, op: ir.Operation) -> None:
        write_int_dict(op, "c_staging", {k: getattr(self, k) for k in _INT_KEYS},
                       {"buffer": self.buffer})

    @classmethod
    def read(cls, op: ir.Operation) -> "CStagingPlan | None":
        """The recorded plan, None if there is none; AccelError if malformed."""
        entries = read_int_dict(op, "c_staging", _INT_KEYS, ("buffer",))
        if entries is None:
            return None
        ints, strings = entries
        for k, value in ints.items():
            # Rows are whole MMA tiles; the rest must be powers of two (the swizzle's
            # units per row, vector widths).
            if k != "rows" and value & (value - 1):
                raise AccelError(f"'c_staging.{k}' must be a power of two, got {value}")
        buffer = strings["buffer"]
        if not isinstance(buffer, ir.StringAttr) or buffer.value not in BUFFERS:
            raise AccelError(f"'c_staging.buffer' must be one of {', '.join(map(repr, BUFFERS))}")
        if ints["span"] not in (ints["unit"], 2 * ints["unit"]):
            raise AccelError("'c_staging.span' must be one or two units")
        if ints["vector"] > ints["span"]:
            raise AccelError("'c_staging.vector' must not exceed 'c_staging.span'")
        if ints["span"] > ints["columns"]:
            raise AccelError("'c_staging.span' must not exceed 'c_staging.columns'")
        return cls(buffer=buffer.value, **ints)
