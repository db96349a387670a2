"""accel-affix-perf-config: validate or choose each accel.gemm's perf config.

A gemm that carries `perf_config` (or every gemm, when the `perf-config` option
forces one) is checked against the arch's rules (accel.tuning.validity); a broken
rule is an error at the op. A gemm without one gets the selector's choice
(accel.tuning.selection), split along K where tuning/split_k.py finds that
faster (skinny, deep GEMMs). Either way the op then records block_size, grid_size and
padded_m/n/k. An operand already in the accel layout fixes the tile's
dPerBlock/kpackPerBlock/kpack, and the choice is made among agreeing configs.
With the `arch` option (as the kernel pipeline gives it) every gemm must target that
chip: a pipeline built for one chip never lowers a gemm written for another.
"""

from __future__ import annotations

from dataclasses import dataclass

from accel.bindings import ir
from accel.diagnostics import AccelError
from accel.dialect.accel_tile import AccelTile
from accel.dialect.gemm import GemmOp
from accel.dialect.ir_helpers import collect_ops, memref_info
from accel.dialect.perf_config import PerfConfig
from accel.passes.registry import AccelPass, option, register
from accel.target.database import ARCHES, get_arch
from accel.tuning.launch import geometry
from accel.tuning.selection import select
from accel.tuning.split_k import choose_split_k
from accel.tuning.validity import check_config


@register
@dataclass(frozen=True)
class AffixPerfConfig(AccelPass):
    NAME = "accel-affix-perf-config"
    SUMMARY = "Validate or choose each accel.gemm's perf config; record block, grid, padding"

    cu_count: int = option(0, "CUs of the target part (0 = the arch's default part)")
    perf_config: str = option("", "force this v3:/v4: perf config on every gemm")
    arch: str = option("", "the chip every gemm must target (empty: each gemm's own)")
    split_k: bool = option(True, "split a chosen config along K where tuning/split_k.py "
                                 "finds it faster")

    def run(self, module: ir.Module) -> None:
        if self.arch and self.arch not in ARCHES:
            raise AccelError(f"unknown arch '{self.arch}' (supported: {', '.join(ARCHES)})")
        if self.cu_count < 0:
            raise AccelError(f"option 'cu-count' of '{self.NAME}' must be >= 0, "
                             f"got {self.cu_count}")
        if self.perf_config:
            # Report a malformed option even when there is no gemm to apply it to. A v3
            # string reads differently for MFMA and WMMA: it must parse as one of them.
            try:
                PerfConfig.parse(self.perf_config, "wmma")
            except AccelError:
                PerfConfig.parse(self.perf_config, "mfma")
        for op in collect_ops(module, GemmOp.OP_NAME):
            self._affix(GemmOp(op))

    def _affix(self, gemm: GemmOp) -> None:
        gemm.verify()
        if self.arch and gemm.arch != self.arch:
            raise AccelError(f"'accel.gemm' targets {gemm.arch} but the pipeline targets "
                             f"{self.arch}", gemm.location)
        arch = get_arch(gemm.arch, self.cu_count or None)
        if self.perf_config:
            try:
                forced = PerfConfig.parse(self.perf_config, arch.mma_kind)
            except AccelError as e:
                raise AccelError(e.message, gemm.location) from None
            gemm.set_perf_config(forced)
            gemm.verify()  # an accel-layout operand must agree with the forced tile
        shape = gemm.shape()
        config = gemm.perf_config
        if config is not None:
            errors = check_config(arch, gemm.in_type, shape, config, gemm.b_type)
            if errors:
                raise AccelError(f"invalid perf config '{gemm.perf_config_text}': "
                                 + "; ".join(errors), gemm.location)
        else:
            fixed = {}
            for name, value, layout in (("fixed_a", gemm.a, gemm.a_layout),
                                        ("fixed_b", gemm.b, gemm.b_layout)):
                if layout == "accel":
                    fixed[name] = AccelTile.of_shape(memref_info(value)[0])
            try:
                selection = select(arch, gemm.in_type, gemm.out_type, shape, **fixed,
                                   b_type=gemm.b_type)
                config = choose_split_k(selection) if self.split_k else selection.best
            except AccelError as e:
                raise AccelError(e.message, gemm.location) from None
            gemm.set_perf_config(config)
        launch = geometry(arch, shape, config)
        gemm.set_launch(launch.block_size, launch.grid_size, launch.padded)
