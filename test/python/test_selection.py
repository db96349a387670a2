"""Perf-config selection: measured facts (seed 000) and properties on unmeasured shapes."""

import json

import pytest

from accel.diagnostics import AccelError
from accel.dialect.accel_tile import AccelTile
from accel.dialect.gemm import GemmShape
from accel.target.database import get_arch
from accel.tuning import geometry
from accel.tuning.cost_model import estimate_terms, estimate_us, params_for
from accel.tuning.measured import MEASURED_ORDERS, MEASURED_RATES, MEASURED_TILES
from accel.tuning.selection import PAD_LIMIT, TIE, ranking_score, select
from accel.passes.plan_kernel import check_buildable, loaded_ahead
from accel.tuning.cost_model import loads_ahead
from accel.tuning.selection import WIDE, WIDE_MARGIN, _ladder
from accel.tuning.validity import check_config, pipeline_depth
from accel.dialect.element_types import ELEMENT_BYTES


@pytest.mark.parametrize("fact", MEASURED_TILES, ids=lambda f: f"{f.shape.m}x{f.shape.n}x{f.shape.k}")
def test_measured_tiles(fact):
    # Seed 000 timed its own ladder (kPerBlock <= 64, at most 128x128x32 of volume):
    # over those tiles the model's first choice is the measured one.
    arch = get_arch(fact.arch, fact.cu_count)
    sel = select(arch, fact.in_type, fact.out_type, fact.shape)
    best = next(p.config for p, _ in sel.scored if fact.in_swept_ladder(p.config))
    assert fact.mismatches(arch, best) == [], fact.source


@pytest.mark.parametrize("order", MEASURED_ORDERS, ids=lambda f: f"{f.shape.m}x{f.shape.n}x{f.shape.k}")
def test_measured_orders(order):
    # A tile measured faster than another is estimated faster, by at least a third of
    # the measured gap (the model is not fitted to the seed's kernel, only ranked by it).
    arch = get_arch(order.arch, order.cu_count)
    sel = select(arch, order.in_type, order.out_type, order.shape)
    score = {}
    for c in sel.ranked:
        tile = (c.config.m_per_block, c.config.n_per_block, c.config.k_per_block)
        score.setdefault(tile, c.score)
    assert score[order.slower] / score[order.faster] > 1 + (order.ratio - 1) / 3, order.source


@pytest.mark.parametrize("rate", MEASURED_RATES, ids=lambda f: f"{f.shape.m}x{f.shape.n}x{f.shape.k}")
def test_measured_rates(rate):
    # The model's time for the measured tile is within 15% of the measured rate (the
    # model is of accel's kernel; seed 000 timed FlyDSL's, a close relative).
    arch = get_arch(rate.arch, rate.cu_count)
    sel = select(arch, rate.in_type, rate.out_type, rate.shape)
    us = min(c.score for c in sel.ranked
             if (c.config.m_per_block, c.config.n_per_block, c.config.k_per_block) == rate.tile)
    s = rate.shape
    model_tflops = 2 * s.g * s.m * s.n * s.k / us / 1e6
    assert 0.85 < model_tflops / rate.tflops < 1.15, (model_tflops, rate.source)


# Shapes nobody measured: decode, ragged prefill, lm_head, batched, degenerate.
SHAPES = [
    GemmShape(1, 1, 4096, 4096), GemmShape(1, 8, 11008, 4096), GemmShape(1, 16, 4096, 4096),
    GemmShape(1, 77, 1000, 3), GemmShape(1, 1024, 50257, 512), GemmShape(1, 4095, 4095, 1024),
    GemmShape(1, 2048, 2048, 2048), GemmShape(4, 200, 300, 96), GemmShape(12, 64, 64, 64),
    GemmShape(1, 1, 1, 1), GemmShape(1, 5000, 1, 77), GemmShape(1, 1, 7, 1),
    GemmShape(1, 256, 256, 4096), GemmShape(3, 3402, 2048, 2048), GemmShape(1, 100, 100, 100),
    GemmShape(1, 3, 50257, 768), GemmShape(2, 1000, 1000, 1000), GemmShape(1, 7168, 7168, 256),
    GemmShape(1, 33, 4097, 130), GemmShape(6, 577, 96, 1536), GemmShape(1, 24, 14336, 4096),
]
TARGETS = [("gfx942", t) for t in ("f16", "bf16", "i8", "f32")] + \
          [(a, t) for a in ("gfx1100", "gfx1201") for t in ("f16", "bf16", "i8")]


@pytest.mark.parametrize("arch_name,in_type", TARGETS)
def test_properties_on_unmeasured_shapes(arch_name, in_type):
    arch = get_arch(arch_name)
    units = params_for(arch).units(arch)
    out_type = {"i8": "i32"}.get(in_type, "f32")
    for shape in SHAPES:
        sel = select(arch, in_type, out_type, shape)
        best = sel.best
        # Every chosen (and every ranked) config passes the rules codegen applies, and
        # the chosen one is what accel-plan-kernel accepts for building.
        for cand in sel.ranked:
            assert check_config(arch, in_type, shape, cand.config) == [], (shape, cand.config)
        check_buildable(arch, in_type, in_type, shape, best, [])
        launch = geometry(arch, shape, best)
        pm, pn, pk = launch.padded
        assert pm >= shape.m and pn >= shape.n and pk >= shape.k and pk % best.k_per_block == 0
        assert launch.grid == (-(-shape.n // best.n_per_block), -(-shape.m // best.m_per_block),
                               shape.g)
        # Padding stays within 25% of the output area whenever some valid config manages
        # it (else within 25% of the least padding possible).
        valid = [c.config for c in sel.ranked] + [
            c for c, _ in sel.rejected if not check_config(arch, in_type, shape, c)]
        real = shape.m * shape.n
        budget = PAD_LIMIT * real
        if not any(_area(arch, shape, c) <= budget for c in valid):
            budget = PAD_LIMIT * min(_area(arch, shape, c) for c in valid)
        assert _area(arch, shape, best) <= budget, shape


# Grids of many rounds per unit: nothing to gain from small tiles there.
DEEP = [GemmShape(1, 4096, 4096, 4096), GemmShape(1, 8192, 8192, 1024),
        GemmShape(1, 3402, 4096, 1024), GemmShape(1, 2048, 11008, 4096),
        GemmShape(1, 16384, 4096, 512), GemmShape(8, 2048, 2048, 1024)]


@pytest.mark.parametrize("arch_name,in_type", TARGETS)
def test_deep_grids_keep_wide_tiles(arch_name, in_type):
    arch = get_arch(arch_name)
    units = params_for(arch).units(arch)
    out_type = {"i8": "i32"}.get(in_type, "f32")
    for shape in DEEP:
        # Every such shape gives each unit at least two 128x128 tiles.
        assert shape.g * (shape.m // 128) * (shape.n // 128) >= 2 * units
        sel = select(arch, in_type, out_type, shape)
        best = sel.ranked[0]
        # At least 64 deep in K, or 128 bytes (origami's best tiles there are 64-128 deep), and wide in
        # M and N, unless every wider tile fills the last round worse (f32 on gfx942 is
        # compute-bound: 128x64 runs 2048 tiles in 6.7 rounds of 304, 128x128 1024 in 3.4)
        # or holds fewer tiles resident, whose MMAs fill each other's barriers (i8 on
        # gfx1100, 3402x4096x1024: 64x128x64, three resident, over 128x128x128, one).
        assert best.config.k_per_block >= 64 or \
            best.config.k_per_block * ELEMENT_BYTES[in_type] >= 128, (shape, best.config)
        if best.config.m_per_block * best.config.n_per_block < 128 * 128:
            wide = [c for c in sel.ranked if c.config.m_per_block * c.config.n_per_block >= 128 * 128]
            assert wide[0].breakdown["fill"] < best.breakdown["fill"] or \
                wide[0].breakdown["resident"] < best.breakdown["resident"], (shape, best.config)


# Chains of GEMMs, each growing M and N: a bigger problem has at least the grid of a
# smaller one under any tile, so it never needs a tile that moves more bytes per FLOP,
# unless that tile fills the units better: a fuller last round, or more tiles resident
# at once to hide the loads (i8 on gfx1100, 4x256x512x768: 64x64 over 32x128, whose
# 256 registers leave room for fewer), or unless the MMA pipe bounds the bigger problem
# where the smaller one waited on its loads, and the smaller problem's tile spends more
# of that pipe per FLOP issuing its loop (i8 on gfx1100, 256x256x1024 -> 512x512x1024:
# 16x128x256, one resident and latency-bound, then 64x32x256, three resident and
# compute-bound, which transposes 8 B dwords a lane per k-tile against 32).
CHAINS = [[GemmShape(1, m, m, 1024) for m in (256, 512, 1024, 2048, 4096, 8192)],
          [GemmShape(1, m, 4096, 4096) for m in (32, 64, 128, 256, 512, 1024, 2048)],
          [GemmShape(4, m, 2 * m, 768) for m in (128, 256, 512, 1024, 2048)]]


@pytest.mark.parametrize("arch_name,in_type", TARGETS)
def test_bigger_problems_do_not_move_more_bytes_per_flop(arch_name, in_type):
    arch = get_arch(arch_name)
    out_type = {"i8": "i32"}.get(in_type, "f32")
    for chain in CHAINS:
        prev = None
        for shape in chain:
            sel = select(arch, in_type, out_type, shape)
            best = sel.ranked[0]
            if prev is not None and best.breakdown["ai_global"] < prev.breakdown["ai_global"]:
                # The smaller problem's tile, on this problem, fills the units worse.
                same = [c for c in sel.ranked if _tile(c.config) == _tile(prev.config)]
                assert not same or same[0].breakdown["fill"] < best.breakdown["fill"] or \
                    same[0].breakdown["resident"] < best.breakdown["resident"] or \
                    (best.breakdown["bound"] == "compute" != prev.breakdown["bound"]
                     and _issue_per_flop(same[0]) > _issue_per_flop(best)), \
                    (shape, best.config, prev.config)
            prev = best


def _issue_per_flop(candidate):
    c = candidate.config
    return candidate.breakdown["step_clocks"]["issue"] / (c.m_per_block * c.n_per_block
                                                          * c.k_per_block)


def _tile(config):
    return config.m_per_block, config.n_per_block, config.k_per_block, config.mn_per_xdl


def _area(arch, shape, config):
    pm, pn, _ = geometry(arch, shape, config).padded
    return pm * pn


def test_decode_gets_narrow_tiles_and_huge_shapes_wide_ones():
    for name in ("gfx942", "gfx1100", "gfx1201"):
        arch = get_arch(name)
        decode = select(arch, "f16", "f32", GemmShape(1, 4, 8192, 8192)).best
        assert decode.m_per_block == 16
        huge = select(arch, "f16", "f32", GemmShape(1, 8192, 8192, 8192)).best
        assert huge.m_per_block * huge.n_per_block >= 128 * 128


@pytest.mark.parametrize("arch_name", ["gfx942", "gfx1100", "gfx1201"])
def test_decode_streams_b_at_full_width(arch_name):
    """M <= 16: B is read once, so time >= B bytes / DRAM bandwidth. The tile is 16 rows,
    its B rows whole 128-byte lines (64 f16 or more), its k-tile as deep as the ladder
    goes (a workgroup walks all of K, one k-tile of loads in flight). On RDNA that
    streams B at DRAM speed; on gfx942 (5.3 TB/s) the per-k-tile load latency bounds
    it, not the width (split-K or a deeper pipeline would help, not a wider tile)."""
    arch = get_arch(arch_name)
    p = params_for(arch)
    for shape in (GemmShape(1, 1, 4096, 4096), GemmShape(1, 16, 11008, 4096),
                  GemmShape(1, 8, 4096, 11008)):
        best = select(arch, "f16", "f16", shape).ranked[0]
        c = best.config
        assert c.m_per_block == 16 and c.n_per_block * 2 >= 128, (shape, c)
        assert c.k_per_block >= 64, (shape, c)
        b_us = shape.k * shape.n * 2 / p.dram_bytes_per_clock / (p.clock_ghz * 1e3)
        assert best.score >= b_us
        if arch_name != "gfx942":
            assert best.breakdown["bound"] == "dram" and best.score < 1.1 * b_us, \
                (shape, best.score, b_us)
        else:
            assert best.breakdown["bound"] == "latency"


def test_batch_counts_toward_the_grid():
    arch = get_arch("gfx942")
    one = select(arch, "f16", "f32", GemmShape(1, 256, 256, 512)).best
    assert geometry(arch, GemmShape(1, 256, 256, 512), one).grid_size < 304
    many = GemmShape(64, 256, 256, 512)
    best = select(arch, "f16", "f32", many).best
    launch = geometry(arch, many, best)
    # 64 batches of 128x128 tiles are 256 workgroups: one round on 256 of the 304 CUs,
    # as fast as two rounds of half-size tiles (1.7 rounds of 512, rounded up).
    assert launch.grid[2] == 64 and launch.grid_size >= 256
    # With 64 batches the tile no longer has to shrink to fill the chip.
    assert best.m_per_block * best.n_per_block > one.m_per_block * one.n_per_block


def test_tiny_extents_work_everywhere():
    for name in ("gfx942", "gfx1100", "gfx1201"):
        arch = get_arch(name)
        for shape in (GemmShape(1, 1, 1, 1), GemmShape(1, 1, 4096, 1), GemmShape(1, 4096, 1, 1)):
            best = select(arch, "f16", "f32", shape).best
            assert (best.m_per_block == 16 or shape.m > 1) and (best.n_per_block == 16 or shape.n > 1)
            assert best.k_per_block == 16


def test_cu_count_override_changes_the_fill_target():
    shape = GemmShape(1, 1024, 1024, 1024)
    big = select(get_arch("gfx942"), "f16", "f32", shape).best
    small = select(get_arch("gfx942", 32), "f16", "f32", shape).best
    assert small.m_per_block * small.n_per_block > big.m_per_block * big.n_per_block


def test_deterministic_and_explained():
    arch = get_arch("gfx1100")
    shape = GemmShape(1, 528, 528, 1024)
    a, b = select(arch, "f16", "f32", shape), select(arch, "f16", "f32", shape)
    assert [str(c.config) for c in a.ranked] == [str(c.config) for c in b.ranked]
    assert a.explain() == b.explain()
    text = a.explain(top=3)
    assert "v4:64,64," in text.splitlines()[2] and "rejected:" in text
    assert "padding: pads the 528x528 output to" in text
    assert "registers: about" in text
    data = json.loads(a.to_json(top=2))
    assert data["best"] == str(a.best) and len(data["ranked"]) == 2
    assert all(r["reasons"] for r in data["rejected"])


def test_scores_are_sorted():
    # Sorted by ranking score up to TIE (0.5%), inside which unit time and traffic decide:
    # no candidate ranks behind one it beats by more than that.
    for shape in (GemmShape(2, 3000, 700, 900), GemmShape(1, 4096, 4096, 4096)):
        sel = select(get_arch("gfx942"), "bf16", "f32", shape)
        ranking = [ranking_score(c.config, c.score) for c in sel.ranked]
        for i, score in enumerate(ranking[:-1]):
            worst_behind = min(ranking[i + 1:])
            assert score <= worst_behind * (1 + TIE) * (1 + 1e-9), (i, sel.ranked[i].config)
        assert sel.ranked[-1].score > 2 * sel.ranked[0].score


@pytest.mark.parametrize("arch_name", ["gfx942", "gfx1100", "gfx1201"])
def test_ranking_score_is_the_breakdowns_score(arch_name):
    """The selector sorts by cost_model.estimate_us and builds breakdowns only when
    `ranked` is read: both must be the same estimate, and `best` the first ranked."""
    arch = get_arch(arch_name)
    for shape in (GemmShape(1, 1, 11008, 4096), GemmShape(3, 777, 1001, 320),
                  GemmShape(1, 4096, 4096, 4096)):
        sel = select(arch, "f16", "f16", shape)
        assert sel.best == sel.ranked[0].config
        for (prep, launch), cand in zip(sel.scored, sel.ranked):
            us = estimate_us(prep.terms, "f16", launch)
            assert cand.config == prep.config
            assert cand.score == round(us, 6)
            assert us == estimate_terms(prep.terms, "f16", shape, launch)[0]


def test_accel_layout_operands_restrict_the_choice():
    arch = get_arch("gfx942")
    tile = AccelTile(d_per_block=32, kpack_per_block=8, kpack=8)
    sel = select(arch, "f16", "f32", GemmShape(1, 128, 1280, 5120), fixed_a=tile)
    for c in sel.ranked:
        assert (c.config.m_per_block, c.config.kpack_per_block, c.config.kpack) == (32, 8, 8)
    both = select(arch, "f16", "f32", GemmShape(1, 128, 1280, 5120), fixed_a=tile,
                  fixed_b=AccelTile(32, 8, 8)).best
    assert (both.m_per_block, both.n_per_block, both.k_per_block) == (32, 32, 64)
    with pytest.raises(AccelError, match="disagree on kpackPerBlock"):
        select(arch, "f16", "f32", GemmShape(1, 128, 128, 512), fixed_a=tile,
               fixed_b=AccelTile(32, 4, 8))
    with pytest.raises(AccelError, match="no valid perf config"):
        select(arch, "f16", "f32", GemmShape(1, 128, 128, 512), fixed_a=AccelTile(24, 8, 8))


def test_bad_requests_are_errors():
    with pytest.raises(AccelError, match="no MMA instruction"):
        select(get_arch("gfx1100"), "f32", "f32", GemmShape(1, 64, 64, 64))
    with pytest.raises(AccelError, match="must be positive"):
        select(get_arch("gfx1100"), "f16", "f32", GemmShape(1, 0, 64, 64))


def test_double_buffer_default_sets_schedule_and_doubles_lds():
    arch = get_arch("gfx942")
    sel = select(arch, "f16", "f32", GemmShape(1, 2048, 2048, 2048), double_buffer_default=True)
    assert sel.best.schedule_version == 2
    assert all(c.breakdown["lds_bytes"] == 2 * (c.config.m_per_block + c.config.n_per_block)
               * c.config.k_per_block * 2 for c in sel.ranked)


@pytest.mark.parametrize("arch_name", ["gfx942", "gfx1100", "gfx1201"])
@pytest.mark.parametrize("version", (1, 2))
def test_pipeline_depth_is_the_kernel_plans(arch_name, version):
    """The cost model hides load latency behind the k-tiles of work accel-plan-kernel
    loads ahead (an aligned 16-bit operand: 8-wide vectors): none on gfx942 when a
    128x128 wave tile's accumulators fill half the registers, one with one LDS buffer,
    one or two (the plan's pipeline_depth: test_pipeline_depth.py) with two."""
    arch = get_arch(arch_name)
    good, _ = _ladder(arch, "f16", "f16", None, None, version)
    ahead = {loads_ahead(arch, p.config) for p in good}
    for p in good:
        assert loads_ahead(arch, p.config) == loaded_ahead(8, 1, 16, p.config, arch), p.text
        depth = pipeline_depth(arch, p.instr, p.config, "f16")
        assert p.terms.depth == depth, p.text
        deeper = (1, 2) if version == 2 else (1,)
        assert depth in (deeper if loads_ahead(arch, p.config) else (0,)), p.text
    assert ahead == ({True, False} if arch_name == "gfx942" else {True})


def test_unpipelined_tiles_pay_the_load_latency_every_k_step():
    # 256x256x64 with a 128x128 wave tile on gfx942 loads nothing ahead: each of its 64
    # k-steps on 4096^3 waits a whole load latency after its MMAs.
    arch = get_arch("gfx942")
    p = params_for(arch)
    shape = GemmShape(1, 4096, 4096, 4096)
    unpipelined = [c for c in select(arch, "f16", "f16", shape).ranked
                   if c.breakdown["pipeline_depth"] == 0]
    assert unpipelined
    for c in unpipelined:
        steps = shape.k // c.config.k_per_block
        per_step = c.breakdown["step_clocks"]["compute"] + p.load_latency
        assert c.breakdown["unit_us"] * p.clock_ghz * 1e3 >= c.breakdown["rounds"] * steps * per_step
        # Only wave tiles whose accumulators fill half of the 512 registers are.
        assert c.config.m_per_wave * c.config.n_per_wave // arch.wave_size >= 256


WIDE_SHAPES = SHAPES + DEEP + [s for chain in CHAINS for s in chain]


@pytest.mark.parametrize("arch_name,in_type", TARGETS)
def test_wide_tiles_only_where_they_win_clearly(arch_name, in_type):
    """A tile 256 wide compiles ~5x slower (440 against 90 ms): it is chosen only when
    its estimate beats every narrower candidate's by WIDE_MARGIN (up to a TIE)."""
    arch = get_arch(arch_name)
    out_type = {"i8": "i32"}.get(in_type, "f32")
    for shape in WIDE_SHAPES:
        ranked = select(arch, in_type, out_type, shape).ranked
        best = ranked[0]
        if max(best.config.m_per_block, best.config.n_per_block) < WIDE:
            continue
        narrow = [c.score for c in ranked if max(c.config.m_per_block, c.config.n_per_block) < WIDE]
        assert not narrow or best.score * (1 + WIDE_MARGIN) <= min(narrow) * (1 + TIE) ** 2, \
            (shape, best.config)


def test_resident_tiles_fill_each_others_barriers():
    """A barrier stalls only its own workgroup: a second resident tile's MMAs run while
    the first waits at its SYNC, so on gfx1100 (SYNC 800 clocks, a 128x128x64 tile's
    MMAs 2048 + ISSUE) two tiles per WGP take less than one tile's time plus the
    second's MMAs; the lone tile pays MMAs + SYNC every k-step."""
    arch = get_arch("gfx1100")
    p = params_for(arch)
    one, two = GemmShape(1, 768, 1024, 4096), GemmShape(1, 768, 2048, 4096)   # 48, 96 tiles
    cand = {}
    for shape in (one, two):
        cand[shape] = next(c for c in select(arch, "f16", "f16", shape).ranked
                           if _tile(c.config)[:3] == (128, 128, 64)
                           and str(c.config) == str(cand.get(one, c).config))
    lone, pair = cand[one].breakdown, cand[two].breakdown
    assert (lone["resident"], pair["resident"]) == (1, 2)
    mma = lone["step_clocks"]["compute"]
    assert mma > p.sync_clocks
    steps = 4096 // 64
    scale = p.clock_ghz * 1e3
    added = (pair["unit_us"] - lone["unit_us"]) * scale
    assert added < steps * (mma - 0.9 * p.sync_clocks), (added, steps, mma)
    assert pair["step_clocks"]["compute"] >= pair["step_clocks"]["chain"]


def test_config_terms_take_a_variant_of_the_chips_constants():
    # bench_selection.py scores origami's CU counting on RDNA with cus_per_unit 1: a
    # unit is then one CU, with half a WGP's MMA rate, SIMDs and LDS, twice as many.
    import dataclasses
    from accel.tuning.cost_model import config_terms, estimate_parts
    arch = get_arch("gfx1100")
    prep = next(p for p in _ladder(arch, "f16", "f16", None, None, 1)[0]
                if (p.config.m_per_block, p.config.n_per_block, p.config.num_waves) == (128, 128, 8))
    per_cu = dataclasses.replace(params_for(arch), cus_per_unit=1)
    wgp = config_terms(arch, "f16", prep.config, prep.instr, prep.lds, prep.regs,
                       depth=prep.terms.depth)
    cu = config_terms(arch, "f16", prep.config, prep.instr, prep.lds, prep.regs, per_cu,
                      depth=prep.terms.depth)
    assert (wgp.units, cu.units) == (48, 96)
    assert (wgp.mma_rate, wgp.simds) == (2 * cu.mma_rate, 2 * cu.simds)
    assert wgp == prep.terms
    # 144 tiles: 3 per WGP, 2 on the busiest CU, whose unit finishes at another time.
    launch = geometry(arch, GemmShape(1, 1536, 1536, 1024), prep.config)
    assert estimate_parts(cu, "f16", launch)[1] != estimate_parts(wgp, "f16", launch)[1]


def _prepared(arch_name, in_type, mpb, npb, kpb, waves):
    arch = get_arch(arch_name)
    return next(p for p in _ladder(arch, in_type, in_type, None, None, 1)[0]
                if (p.config.m_per_block, p.config.n_per_block, p.config.k_per_block,
                    p.config.num_waves) == (mpb, npb, kpb, waves))


def test_loop_instructions_are_the_kernels_loop_mix():
    """The instructions a wave issues per k-tile beside its MMAs, as
    benchmarks/bench_kernel_quality.py counts them in the emitted main loop (row-major
    B): gfx942 16x64x128 on 2 waves 10 loads + 10 LDS writes + 12 LDS reads + 32
    v_perm; gfx1100 128x128x128 on 8 waves 16 + 16 + 96 (each operand read twice) +
    32. gfx1201 4096^3's 256x256x64 on 16 waves: 8 + 8 + 32 + 16 counted, where its loop
    has 12 LDS writes (row-major B's transposed rows stored in 4 more)."""
    from accel.tuning.cost_model import loop_instructions
    for arch_name, tile, expected in (("gfx942", (16, 64, 128, 2), 10 + 10 + 12 + 32),
                                      ("gfx1100", (128, 128, 128, 8), 16 + 16 + 96 + 32),
                                      ("gfx1201", (256, 256, 64, 16), 8 + 8 + 32 + 16)):
        p = _prepared(arch_name, "f16", *tile)
        assert p.terms.loop_instructions == expected, (arch_name, tile)
        assert loop_instructions(get_arch(arch_name), p.config, p.instr, 2) == expected


def test_loop_issue_is_charged_where_the_mma_shares_the_valu():
    """RDNA's WMMA runs on the VALU, so every wave's loop instructions on a SIMD add to
    its MMA time; a CDNA3 MFMA runs on the matrix core while they issue (gfx942: 0).
    A narrow-M tile transposes more B per FLOP: 16x128 issues more per MMA than 64x32."""
    assert _prepared("gfx942", "f16", 16, 64, 128, 2).terms.loop_clocks == 0
    for arch_name in ("gfx1100", "gfx1201"):
        p = params_for(get_arch(arch_name))
        four = _prepared(arch_name, "f16", 64, 64, 64, 4).terms
        sixteen = _prepared(arch_name, "f16", 128, 128, 64, 16).terms
        assert four.loop_clocks == p.loop_instr_clocks * four.loop_instructions
        # 16 waves on a WGP's 4 SIMDs: each SIMD issues four waves' instructions.
        assert sixteen.loop_clocks == 4 * p.loop_instr_clocks * sixteen.loop_instructions
        narrow = _prepared(arch_name, "f16", 16, 128, 128, 4).terms
        wide = _prepared(arch_name, "f16", 64, 32, 128, 4).terms
        assert narrow.loop_clocks / narrow.flops > wide.loop_clocks / wide.flops


@pytest.mark.parametrize("arch_name", ["gfx942", "gfx1100", "gfx1201"])
def test_re_reads_hit_the_l2_when_the_operands_fit(arch_name):
    """Every workgroup's A and B re-reads are served at the L2's bandwidth when A, B and
    C fit in it, and at the caches' calibrated bandwidth behind it otherwise: the same
    tile's chip-wide time per byte moved is lower on the GEMM that fits."""
    from accel.tuning.cost_model import cache_bytes_per_clock
    arch = get_arch(arch_name)
    p = params_for(arch)
    assert cache_bytes_per_clock(p, p.l2_bytes) == p.l2_bytes_per_clock > p.chip_bytes_per_clock
    assert cache_bytes_per_clock(p, p.l2_bytes + 1) == p.chip_bytes_per_clock
    prep = _prepared(arch_name, "f16", 64, 64, 64, 4)
    small, large = GemmShape(1, 512, 512, 512), GemmShape(1, 4096, 4096, 4096)
    assert 3 * 512 * 512 * 2 <= p.l2_bytes < 3 * 4096 * 4096 * 2
    chip = {}
    for shape in (small, large):
        _, b = estimate_terms(prep.terms, "f16", shape, geometry(arch, shape, prep.config))
        chip[shape] = b["chip_us"] / (shape.m * shape.n * shape.k)
    assert chip[small] < chip[large]
