"""The register estimate against compiled code objects, on a sample of the ladder.

benchmarks/bench_register_estimate.py compiles the whole ladder; this keeps a sample:
the tiles selection picks where the issue saw i8 spill on gfx1201, and per (arch, type)
the rungs whose register floor comes closest to the budget (where a spill would be).
"""

import re

import pytest

from accel.api import compile_gemm
from accel.dialect.gemm import GemmShape
from accel.target.database import get_arch
from accel.tuning.selection import _ladder, select
from accel.tuning.validity import register_budget, register_floor

_META = re.compile(r"^\s+\.(vgpr_count|vgpr_spill_count|sgpr_spill_count|"
                   r"private_segment_fixed_size):\s+(\d+)", re.M)


def _compiled(arch, in_type, config, m=2048, n=2048, k=2048):
    r = compile_gemm(arch, m=m, n=n, k=k, in_type=in_type, perf_config=str(config))
    return {key: int(v) for key, v in _META.findall(r.kernels[0].assembly)}


def _check(arch_name, in_type, prep, shape=(2048, 2048, 2048)):
    meta = _compiled(arch_name, in_type, prep.config, *shape)
    assert meta["private_segment_fixed_size"] == 0, (prep.text, meta)
    assert meta["vgpr_spill_count"] == 0 and meta["sgpr_spill_count"] == 0, (prep.text, meta)
    # Conservative or within 10%.
    assert prep.regs >= 0.9 * meta["vgpr_count"], (prep.text, prep.regs, meta)


@pytest.mark.parametrize("shape", [(2048, 2048, 2048), (3402, 4096, 1024), (4096, 4096, 4096)])
def test_selected_i8_tiles_do_not_spill_on_gfx1201(shape):
    arch = get_arch("gfx1201")
    sel = select(arch, "i8", "i32", GemmShape(1, *shape))
    _check("gfx1201", "i8", sel.scored[0][0], shape)


@pytest.mark.parametrize("arch_name,in_type", [("gfx942", "f16"), ("gfx942", "i8"),
                                               ("gfx1100", "f16"), ("gfx1100", "i8"),
                                               ("gfx1201", "f16"), ("gfx1201", "i8")])
def test_rungs_nearest_the_budget_do_not_spill(arch_name, in_type):
    arch = get_arch(arch_name)
    good, _ = _ladder(arch, in_type, in_type, None, None, 1)
    share = sorted(good, key=lambda p: (-register_floor(arch, p.instr, p.config, in_type)
                                        / register_budget(arch, p.config), p.text))
    for prep in share[:2]:
        _check(arch_name, in_type, prep)
