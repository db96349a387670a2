"""No rung of the gfx942 ladder whose MFMA accumulators fill the AGPRs uses scratch.

Those rungs (a 128x128 wave tile: 256 accumulator registers per lane, half the unified
file) are where registers run out first: nothing is loaded ahead there
(cost_model.loads_ahead), the fragments are read a group of k-steps ahead only while the
arch VGPRs hold them (passes/plan_kernel.py lds_read_ahead), and scheduling barriers
keep the copy out of the MMAs where that was measured to matter (sched_barriers). Every
such rung of the f16 and bf16 ladders (tuning/selection.py `_ladder`, twelve each with
scheduleVersion 1, eight with 2), with B row-major (the copy transposes in registers)
and transposed, compiled on 2048^3 (`bench_kernel_quality.py --only full-agprs` prints
them). test_register_estimate.py keeps the rungs nearest the budget of every chip and type.
"""

import re

import pytest

from accel.api import compile_gemm
from accel.target.database import get_arch
from accel.tuning.selection import _ladder

_META = re.compile(r"^\s+\.(vgpr_spill_count|sgpr_spill_count|private_segment_fixed_size):"
                   r"\s+(\d+)", re.M)
# LLVM spills one VGPR of this kernel into an AGPR (no scratch): the rung is slow with
# or without the fences (work share 0.12-0.17).
SPILLS_INTO_AGPRS = {("f16", "v4:256,256,8,128,128,32,4,1,2,2,0,0,1,1", False)}


def _full_agpr_rungs(in_type, version):
    arch = get_arch("gfx942")
    good, _ = _ladder(arch, in_type, in_type, None, None, version)
    return [p.text for p in good
            if p.config.m_per_wave * p.config.n_per_wave // arch.wave_size
            >= arch.vgprs_per_lane // 2]


@pytest.mark.parametrize("version", (1, 2), ids=("schedule1", "schedule2"))
@pytest.mark.parametrize("trans_b", (False, True), ids=("b_row", "b_transposed"))
@pytest.mark.parametrize("in_type", ("f16", "bf16"))
def test_full_agpr_rungs_use_no_scratch(in_type, trans_b, version):
    rungs = _full_agpr_rungs(in_type, version)
    # Both MFMA sizes x the (kpackPerBlock, kpack) pairs whose LDS copies fit.
    assert len(rungs) == (12 if version == 1 else 8)
    wrong = []
    for text in rungs:
        r = compile_gemm("gfx942", m=2048, n=2048, k=2048, in_type=in_type, trans_b=trans_b,
                         perf_config=text)
        meta = {k: int(v) for k, v in _META.findall(r.kernels[0].assembly)}
        known = (in_type, text, trans_b) in SPILLS_INTO_AGPRS
        want = {"private_segment_fixed_size": 0, "sgpr_spill_count": 0,
                "vgpr_spill_count": meta["vgpr_spill_count"] if known else 0}
        if meta != want or (known and not meta["vgpr_spill_count"]):
            wrong.append((text, meta))
    assert not wrong, wrong
