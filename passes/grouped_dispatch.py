"""accel-grouped-dispatch: decide each accel.grouped_gemm's perf config and launch mode.

An op that carries `perf_config` keeps it (checked against tuning/validity.py); one
without gets the dispatch table's entry for its chip and shape key, or the heuristic's
choice (tuning/grouped_dispatch.py). A `mode` of auto (or none) becomes uniform or
compact: the table entry's mode when it has one, else the rule of
tuning/grouped_launch.py. The op then records perf_config, mode and config_source
(explicit | table | heuristic). With `table`, a user's table replaces the shipped one;
with `arch`, every op must target that chip.
"""

from __future__ import annotations

from dataclasses import dataclass

from accel.bindings import ir
from accel.diagnostics import AccelError
from accel.dialect.grouped_gemm import GroupedGemmOp
from accel.dialect.ir_helpers import collect_ops
from accel.passes.registry import AccelPass, option, register
from accel.target.database import ARCHES, get_arch


@register
@dataclass(frozen=True)
class GroupedDispatch(AccelPass):
    NAME = "accel-grouped-dispatch"
    SUMMARY = ("Choose each accel.grouped_gemm's perf config (explicit, dispatch table, "
               "heuristic) and launch mode; record them")

    table: str = option("", "path of a dispatch table replacing the shipped one")
    arch: str = option("", "the chip every grouped gemm must target (empty: each op's own)")

    def run(self, module: ir.Module) -> None:
        if self.arch and self.arch not in ARCHES:
            raise AccelError(f"unknown arch '{self.arch}' (supported: {', '.join(ARCHES)})")
        ops = [GroupedGemmOp(op) for op in collect_ops(module, GroupedGemmOp.OP_NAME)]
        if not ops:
            return
        # The dispatch rules load for a module with grouped gemms only (the pass runs in
        # every compile).
        from accel.tuning.grouped_dispatch import load_table
        table = load_table(self.table or None)
        for op in ops:
            self._dispatch(op, table)

    def _dispatch(self, op: GroupedGemmOp, table: dict) -> None:
        from accel.tuning.grouped_dispatch import dispatch
        op.verify()
        if self.arch and op.arch != self.arch:
            raise AccelError(f"'accel.grouped_gemm' targets {op.arch} but the pipeline "
                             f"targets {self.arch}", op.location)
        try:
            chosen = dispatch(get_arch(op.arch), groups=op.groups, n=op.n, k=op.k,
                              max_seq_len=op.max_seq_len, total_rows=op.total_rows,
                              in_type=op.in_type, out_type=op.out_type, mode=op.mode,
                              perf_config=op.perf_config, table=table)
        except AccelError as e:
            raise AccelError(e.message, op.location) from None
        source = op.config_source if op.perf_config_text is not None else None
        op.set_dispatch(chosen.config, chosen.mode, source or chosen.source)
