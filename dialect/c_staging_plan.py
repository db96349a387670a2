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
        i64 = ir.IntegerType.get_signless(64)
        values = {k: ir.IntegerAttr.get(i64, getattr(self, k)) for k in _INT_KEYS}
        values["buffer"] = ir.StringAttr.get(self.buffer)
        op.attributes["c_staging"] = ir.DictAttr.get(values)

    @classmethod
    def read(cls, op: ir.Operation) -> "CStagingPlan | None":
        """The recorded plan, None if there is none; AccelError if malformed."""
        if "c_staging" not in op.attributes:
            return None
        attr = op.attributes["c_staging"]
        if not isinstance(attr, ir.DictAttr):
            raise AccelError("attribute 'c_staging' must be a dictionary")
        keys = sorted(attr[i].name for i in range(len(attr)))
        want = sorted(_INT_KEYS + ("buffer",))
        if keys != want:
            raise AccelError(f"attribute 'c_staging' must have the keys {', '.join(want)}, "
                             f"got {', '.join(keys) or 'none'}")
        ints = {}
        for k in _INT_KEYS:
            a = attr[k]
            if not isinstance(a, ir.IntegerAttr) or isinstance(a, ir.BoolAttr) or a.value < 1:
                raise AccelError(f"'c_staging.{k}' must be a positive integer")
            # Rows are whole MMA tiles; the rest must be powers of two (the swizzle's
            # units per row, vector widths).
            if k != "rows" and a.value & (a.value - 1):
                raise AccelError(f"'c_staging.{k}' must be a power of two, got {a.value}")
            ints[k] = a.value
        buffer = attr["buffer"]
        if not isinstance(buffer, ir.StringAttr) or buffer.value not in BUFFERS:
            raise AccelError(f"'c_staging.buffer' must be one of {', '.join(map(repr, BUFFERS))}")
        if ints["span"] not in (ints["unit"], 2 * ints["unit"]):
            raise AccelError("'c_staging.span' must be one or two units")
        if ints["vector"] > ints["span"]:
            raise AccelError("'c_staging.vector' must not exceed 'c_staging.span'")
        if ints["span"] > ints["columns"]:
            raise AccelError("'c_staging.span' must not exceed 'c_staging.columns'")
        return cls(buffer=buffer.value, **ints)
