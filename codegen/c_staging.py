"""C through LDS (outputSwizzle 1): a wave's tile of C staged in LDS and read back as rows.

After the k-tile loop a lane holds, per MMA tile, one row of C and c_len consecutive
columns (codegen/mma.py), so one store instruction of a wave covers 16 or 32 rows of
c_len columns each. Staged, each wave writes a block of `rows` x `columns` of its
mPerWave x nPerWave tile (the plan's c_staging, dialect/c_staging_plan.py: whole rows
when they fit) into LDS, then reads it back `span` elements (128 bits) a lane in row
order: consecutive lanes hold consecutive pieces of one row, so a store instruction
covers rows of `columns` contiguous elements of C, with vectors of up to 128 bits even
where the lane's own run is 64 (MFMA 16x16 with a 16-bit C: c_len 4).

LDS layout of a wave's region: `rows` rows of `columns` elements (C's type), no
padding, written in units of `unit` elements (8 or 16 bytes: the lane's run). Unit
`u` of row `r` sits at unit position

    r * U + (u XOR s(r)),   U = columns / unit,  S = 128 bytes / unit bytes,
    s(r) = (r // max(1, S / U)) % min(U, S)

so that one LDS clock's group of S lanes (32 banks of 4 bytes: 8 lanes of 128 bits,
16 of 64; sim/arch.py) touches S distinct unit slots of a 128-byte bank line, both
ways round:
- writes: the group is S consecutive rows (lane % 16 or lane % 32, aligned to S) at
  one unit; if U >= S their s(r) are S distinct values, else the S rows are
  S/U rows of each line times U distinct values of s;
- reads: the group is S consecutive units in row order, aligned to S: within one row
  (U >= S; XOR with s(r) < S permutes an aligned block of S), or S/U whole rows of one
  line with one s (a permutation of each row's units). A read of two 8-byte units
  (2v, 2v + 1) finds them in the aligned pair 2 (v XOR s // 2), swapped when s is
  odd (a select of the swapped halves puts them back); its group of 8 lanes reads 16
  units in row order, the same aligned block, so 8 distinct pairs.
Padding cannot do both: with rows narrower than 128 bytes a row stride that spreads
one column over the banks makes consecutive rows overlap. Counted by the simulator's
bank model (test/python/test_c_staging.py): zero conflict clocks on every chip.

The region is reused operand LDS (A's or B's tile buffer, the plan's `buffer`, after a
barrier); values cross into its element type with vector.bitcast.
"""

from __future__ import annotations

from dataclasses import dataclass

from accel.codegen.builder import Emitter, Value
from accel.codegen.global_copy import ELEM_BITS, vector_type
from accel.codegen.mma import MmaLayout
from accel.diagnostics import AccelError
from accel.dialect.c_staging_plan import CStagingPlan
from accel.dialect.perf_config import PerfConfig

# Bytes one LDS clock serves: 32 banks of 4 bytes (sim/arch.py, on all three chips).
BANK_LINE_BYTES = 128


def region_bytes(plan: CStagingPlan, out_elem: str) -> int:
    """Bytes of one wave's staging region."""
    return plan.rows * plan.columns * ELEM_BITS[out_elem] // 8


def check_plan(plan: CStagingPlan, mma: MmaLayout, config: PerfConfig, out_elem: str,
               n: int, c_layout: str) -> None:
    """AccelError unless the recorded plan is one this kernel can follow: blocks of whole
    MMA tiles of the wave's tile, units of the lane's run, vectors that divide N."""
    bits = ELEM_BITS[out_elem]
    problems = [why for bad, why in (
        (c_layout != "row", "C is not row-major"),
        (plan.rows % mma.m or config.m_per_wave % plan.rows,
         f"rows {plan.rows} are not whole {mma.m}-row MMA tiles of mPerWave"),
        (plan.columns % mma.n or config.n_per_wave % plan.columns,
         f"columns {plan.columns} are not whole {mma.n}-column MMA tiles of nPerWave"),
        (mma.c_len % plan.unit or plan.unit * bits > 128,
         f"unit {plan.unit} does not divide the lane's {mma.c_len} columns in 128 bits"),
        (plan.span * bits > 128 or plan.span > plan.columns, f"span {plan.span} is too wide"),
        (plan.columns // plan.unit & (plan.columns // plan.unit - 1),
         "a staged row is not a power of two of units"),
        (n % plan.vector or plan.span % plan.vector, f"vector {plan.vector} does not divide "
                                                     f"N {n} and the span"))
        if bad]
    if problems:
        raise AccelError(f"kernel plan: c_staging cannot be followed: {problems[0]}; "
                         f"rerun accel-plan-kernel")


@dataclass(frozen=True)
class CStaging:
    plan: CStagingPlan
    lds: str             # SSA name of the LDS buffer
    lds_type: str
    lds_elem: str
    out_elem: str        # C's element type
    wave_size: int
    wave_id: Value
    lane: Value
    lane_row: Value      # the lane's row of C within an MMA tile (MmaLayout.a_row)
    lane_col: Value      # the lane's first column of C within an MMA tile (c_col_base)
    row_wave: Value      # the wave's first row within the workgroup's tile
    col_wave: Value      # the wave's first column of C

    @property
    def _units_per_row(self) -> int:
        return self.plan.columns // self.plan.unit

    @property
    def _slots(self) -> int:
        return BANK_LINE_BYTES * 8 // (self.plan.unit * ELEM_BITS[self.out_elem])

    @property
    def _unit_lds_elems(self) -> int:
        return self.plan.unit * ELEM_BITS[self.out_elem] // ELEM_BITS[self.lds_elem]

    @property
    def _reads_per_row(self) -> int:
        return self.plan.columns // self.plan.span

    @property
    def reads_per_pass(self) -> int:
        return -(-self.plan.rows * self._reads_per_row // self.wave_size)

    def _key(self, em: Emitter, row: Value) -> Value:
        """s(row), the XOR key of a staged row's units (module docstring)."""
        per_row, slots = self._units_per_row, self._slots
        return em.rem(em.div(row, max(1, slots // per_row)), min(per_row, slots))

    def _at(self, em: Emitter, row: Value, slot: Value) -> str:
        """The LDS index (in the buffer's elements) of unit position `slot` of staged
        row `row`."""
        region = region_bytes(self.plan, self.out_elem) * 8 \
            // ELEM_BITS[self.lds_elem]
        at = em.add(em.mul(row, self._units_per_row), slot)
        return em.index(em.add(em.mul(self.wave_id, region), em.mul(at, self._unit_lds_elems)))

    def write(self, em: Emitter, row: Value, col: Value, value: str) -> None:
        """Store `value` (vector<unit x C's type>) at staged row `row`, column `col`
        (a multiple of unit) of the staged block."""
        n = self._unit_lds_elems
        v = self._cast(em, value, self.out_elem, self.plan.unit, self.lds_elem, n)
        slot = em.xor(em.div(col, self.plan.unit), self._key(em, row))
        em.line(f"vector.store {v}, {self.lds}[{self._at(em, row, slot)}] "
                f": {self.lds_type}, {vector_type(n, self.lds_elem)}")

    def read(self, em: Emitter, i: int) -> tuple[Value, Value, str, Value]:
        """The lane's i-th read of a pass: (staged row, column in the block, the
        `span` values there, whether the lane has this read: a pass of fewer reads than
        lanes leaves the rest repeating the first ones, their stores dropped)."""
        reads = self.plan.rows * self._reads_per_row
        u = em.add(self.lane, i * self.wave_size)
        lane_ok = 1
        if reads < self.wave_size:
            lane_ok = em.lt(self.lane, reads)
            u = em.rem(self.lane, reads)
        row, piece = em.div(u, self._reads_per_row), em.rem(u, self._reads_per_row)
        key = self._key(em, row)
        units = self.plan.span // self.plan.unit
        n = self._unit_lds_elems * units
        slot = em.mul(em.xor(piece, em.div(key, units)), units)
        v = em.assign(f"vector.load {self.lds}[{self._at(em, row, slot)}] : {self.lds_type}, "
                      f"{vector_type(n, self.lds_elem)}")
        v = self._cast(em, v, self.lds_elem, n, self.out_elem, self.plan.span)
        if units == 2:
            half = self.plan.unit
            t = vector_type(self.plan.span, self.out_elem)
            swapped = em.pick(v, self.plan.span, list(range(half, 2 * half)) + list(range(half)),
                              self.out_elem)
            v = em.assign(f"arith.select {em.lt(0, em.rem(key, 2))}, {swapped}, {v} : {t}")
        return row, em.mul(piece, self.plan.span), v, lane_ok

    @staticmethod
    def _cast(em: Emitter, v: str, src: str, n_src: int, dst: str, n_dst: int) -> str:
        if src == dst:
            return v
        return em.assign(f"vector.bitcast {v} : {vector_type(n_src, src)} to "
                         f"{vector_type(n_dst, dst)}")
