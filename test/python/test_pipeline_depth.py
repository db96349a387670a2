"""Global loads two k-tiles ahead (plan pipeline_depth 2, codegen/schedule.py).

With two LDS buffers (scheduleVersion 2), where a k-tile's MMAs cover less than a load's
latency and the register estimate holding two k-tiles of the copy stays within its
headroom (tuning/validity.py pipeline_depth), the plan issues tile t+2's loads during
tile t; the cost model divides the latency by the same depth. Checked here: the
simulator elementwise on ragged shapes (K of one, two, three and four k-tiles), every
chip and type, B row-major and transposed, and split-K; the depth the plan writes is the
one the selector costs, and one with one LDS buffer; depth 2 never makes a config
inadmissible; compiled depth-2 rungs use no scratch and no more VGPRs than estimated (or
within 10%); and the waits leave the newer k-tile's loads in flight.
"""

import re

import pytest

from accel.api import compile_gemm, default_out_type, gemm_module_text
from accel.bindings import ir, new_context
from accel.check import check_gemm, check_grouped_gemm
from accel.dialect.perf_config import PerfConfig
from accel.pipelines.kernel import KernelPipeline
from accel.target.database import get_arch
from accel.tuning import cost_model
from accel.tuning.selection import _ladder
from accel.tuning.validity import (REGISTER_HEADROOM, _register_terms, instruction_for,
                                   pipeline_depth, register_budget, register_estimate)

ARCHES = ("gfx942", "gfx1100", "gfx1201")
# 32x32 tiles of kPerBlock 32 (four 16x16 waves), two LDS buffers: 256 MMA clocks or
# fewer a k-tile, far under every chip's load latency, and a few registers of copy:
# depth 2 everywhere.
SMALL = "v4:32,32,4,16,16,16,8,1,2,2,0,0,1,1"
FP8 = {"gfx942": "f8E4M3FNUZ", "gfx1201": "f8E4M3FN"}


def _plan(arch, in_type="f16", **kw):
    args = dict(g=1, out_type=default_out_type(in_type), trans_a=False, trans_b=False,
                a_layout="row", b_layout="row", accumulate=False)
    text = gemm_module_text(arch, in_type=in_type, **{**args, **kw})
    with new_context():
        (kernel,) = KernelPipeline(arch=arch).to_kernel_ir(ir.Module.parse(text)).gemms
        return kernel.plan


def _check(arch, **kw):
    config = SMALL
    plan = _plan(arch, perf_config=config, **kw)
    assert (plan.pipeline_depth, plan.lds_buffers) == (2, 2)
    one_buffer = _plan(arch, perf_config=config.replace(",1,2,2,", ",1,1,2,"), **kw)
    assert (one_buffer.pipeline_depth, one_buffer.lds_buffers) == (1, 1)
    r = check_gemm(arch, perf_config=config, seed=7, **kw)
    assert r.comparison.ok, r.comparison.describe(r.got, r.ref)


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("trans_b", (False, True), ids=("b_row", "b_transposed"))
@pytest.mark.parametrize("k", (24, 56, 88, 120), ids=("1kt", "2kt", "3kt", "4kt"))
def test_k_tile_counts_ragged(arch, trans_b, k):
    """K of one, two, three and four k-tiles (none a multiple of 32; a multiple of 8,
    so that the K-contiguous operands load 128-bit vectors and are loaded ahead),
    ragged M and N: the prologue's two stages, the loop's trips and an odd count's
    last k-tile."""
    _check(arch, m=40, n=80, k=k, in_type="f16", trans_b=trans_b)


@pytest.mark.parametrize("arch,in_type", [(a, t) for a in ARCHES for t in ("bf16", "i8")]
                         + list(FP8.items()))
@pytest.mark.parametrize("trans_b", (False, True), ids=("b_row", "b_transposed"))
@pytest.mark.parametrize("k", (56, 88), ids=("2kt", "3kt"))
def test_element_types_ragged(arch, in_type, trans_b, k):
    _check(arch, g=2, m=33, n=48, k=k, in_type=in_type, trans_b=trans_b)


def test_split_k_slices_two_ahead():
    """Each K slice runs its own two-stage pipeline from its first k-tile (ragged: the
    last slice runs past K's end)."""
    config = "v4:32,32,4,16,16,16,8,3,2,2,0,0,1,1"
    assert _plan("gfx942", m=40, n=70, k=230, perf_config=config).pipeline_depth == 2
    r = check_gemm("gfx942", m=40, n=70, k=230, perf_config=config, seed=2)
    assert r.comparison.ok, r.comparison.describe(r.got, r.ref)


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("version", (1, 2))
def test_the_selector_costs_the_plans_depth(arch, version):
    """Over the f16 and i8 ladders: the cost model's depth is the plan's, 2 only with
    two LDS buffers where a k-tile of MMAs covers less than the load latency and the
    estimate with two stages stays inside the headroom, and that leaves every config's
    admission as it was with one stage."""
    info = get_arch(arch)
    for in_type in ("f16", "i8"):
        good, bad = _ladder(info, in_type, in_type, None, None, version)
        depths = set()
        for p in good:
            terms = _register_terms(info, p.instr, p.config, in_type)
            assert p.terms.depth == terms.depth == pipeline_depth(info, p.instr, p.config,
                                                                 in_type), p.text
            budget = register_budget(info, p.config)
            pays = cost_model.two_stages_pay(info, p.config, in_type)
            if terms.depth == 2:
                assert version == 2 and pays and p.regs <= REGISTER_HEADROOM * budget, p.text
            depths.add(terms.depth)
        assert (2 in depths) == (version == 2) and 1 in depths
        for cfg, errors in bad:
            instr = instruction_for(info, in_type, cfg.mn_per_xdl)
            if any(e.startswith("registers: about") for e in errors) and instr is not None:
                assert _register_terms(info, instr, cfg, in_type).depth <= 1, str(cfg)


def test_latency_term_divides_by_the_depth():
    """gfx942 f16 16x64x128 on 2 waves, two LDS buffers (the selector's 528x528x1024
    tile with scheduleVersion 2): one k-tile of MFMAs, 256 clocks at peak, against a
    1200-clock latency."""
    arch = get_arch("gfx942")
    cfg = PerfConfig.parse("v4:16,64,16,16,32,16,8,1,2,2,0,0,1,1", "mfma")
    prep = next(p for p in _ladder(arch, "f16", "f16", None, None, 2)[0]
                if p.text == str(cfg))
    assert prep.terms.depth == 2
    one = cost_model.config_terms(arch, "f16", cfg, prep.instr, prep.lds, prep.regs, depth=1)
    p = cost_model.params_for(arch)
    transfer = prep.terms.global_bytes / p.cu_bytes_per_clock
    assert cost_model._step_terms(one, 1)[3] == pytest.approx(p.load_latency + transfer)
    assert cost_model._step_terms(prep.terms, 1)[3] == pytest.approx(
        (p.load_latency + transfer) / 2)


_META = re.compile(r"^\s+\.(vgpr_count|vgpr_spill_count|sgpr_spill_count|"
                   r"private_segment_fixed_size):\s+(\d+)", re.M)


@pytest.mark.parametrize("arch_name,in_type", [("gfx942", "f16"), ("gfx942", "i8"),
                                               ("gfx1100", "f16"), ("gfx1100", "i8"),
                                               ("gfx1201", "f16"), ("gfx1201", "i8")])
@pytest.mark.parametrize("trans_b", (False, True), ids=("b_row", "b_transposed"))
def test_depth_two_rungs_nearest_the_budget_do_not_spill(arch_name, in_type, trans_b):
    """The depth-2 rungs whose estimate comes closest to the budget (where a second
    stage would spill first), compiled: no scratch, no spills, the estimate
    conservative or within 10% of the VGPRs LLVM allocated."""
    arch = get_arch(arch_name)
    good, _ = _ladder(arch, in_type, in_type, None, None, 2)
    deep = sorted((p for p in good if p.terms.depth == 2),
                  key=lambda p: (-p.regs / register_budget(arch, p.config), p.text))
    for prep in deep[:2]:
        r = compile_gemm(arch_name, m=2048, n=2048, k=2048, in_type=in_type,
                         trans_b=trans_b, perf_config=prep.text)
        meta = {k: int(v) for k, v in _META.findall(r.kernels[0].assembly)}
        assert meta["private_segment_fixed_size"] == 0, (prep.text, meta)
        assert meta["vgpr_spill_count"] == 0 and meta["sgpr_spill_count"] == 0, (prep.text, meta)
        assert prep.regs == register_estimate(arch, prep.instr, prep.config, in_type)
        assert prep.regs >= 0.9 * meta["vgpr_count"], (prep.text, prep.regs, meta)


def test_waits_leave_the_newer_k_tile_in_flight():
    """gfx942 528x528x1024 with 16x64x128 and two LDS buffers: in the main loop every
    wait before an LDS store leaves the loads of the k-tile after it outstanding
    (vmcnt(N), N = a k-tile's loads), never vmcnt(0)."""
    r = compile_gemm("gfx942", m=528, n=528, k=1024,
                     perf_config="v4:16,64,16,16,32,16,8,1,2,2,0,0,1,1")
    asm = r.kernels[0].assembly
    loop = asm[asm.index(".LBB0_"):]            # from the first loop label on
    loop = loop[:loop.index("s_cbranch_scc")]   # to its back edge
    loads = len(re.findall(r"^\s+buffer_load_", loop, re.M))
    waits = [int(n) for n in re.findall(r"^\s+s_waitcnt\s+vmcnt\((\d+)\)", loop, re.M)]
    assert loads and waits
    per_tile = loads // 2                       # two k-tiles a trip
    assert min(waits) >= per_tile, (loads, waits)


@pytest.mark.parametrize("arch", ARCHES)
def test_grouped_gemm_two_ahead(arch):
    """A grouped GEMM's main kernel (seed 003) plans and runs the same loop: groups
    ending mid-tile, K of three k-tiles."""
    config = "v4:16,32,4,16,16,16,8,1,2,2,0,0,1,1"
    r = check_grouped_gemm(arch, perf_config=config, lengths=[9, 16, 0, 30], n=32, k=96,
                           max_seq_len=30, total_rows=60)
    assert r.comparison.ok, r.comparison
    assert r.untouched_rows_kept
    info = get_arch(arch)
    cfg = PerfConfig.parse(config, info.mma_kind)
    assert pipeline_depth(info, instruction_for(info, "f16", 16), cfg, "f16") == 2
