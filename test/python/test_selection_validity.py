"""check_config: each rule fires on a config that breaks it and only then."""

import pytest

from accel.dialect.gemm import GemmShape
from accel.dialect.perf_config import PerfConfig
from accel.target.database import get_arch
from accel.tuning.selection import _ladder
from accel.tuning.validity import (check_config, instruction_for, lane_k_run, lds_bytes,
                                   pipeline_depth, register_budget, register_estimate,
                                   register_floor)

SHAPE = GemmShape(1, 1024, 1024, 1024)
# rocMLIR-style defaults that are valid on each arch.
GOOD = {
    "gfx942": PerfConfig(128, 128, 4, 64, 64, 32, 8),
    "gfx1100": PerfConfig(64, 64, 4, 32, 32, 16, 16),
    "gfx1201": PerfConfig(64, 64, 8, 32, 32, 16, 8),
}


def rules(arch_name, config, in_type="f16", shape=SHAPE):
    return [e.split(":")[0] for e in check_config(get_arch(arch_name), in_type, shape, config)]


@pytest.mark.parametrize("arch_name", sorted(GOOD))
def test_good_configs_pass(arch_name):
    assert rules(arch_name, GOOD[arch_name]) == []


@pytest.mark.parametrize("arch_name,change,rule", [
    ("gfx942", dict(m_per_wave=16, n_per_wave=16), "block-size"),        # 64 waves
    ("gfx1100", dict(m_per_wave=48), "wave-split"),
    ("gfx942", dict(mn_per_xdl=4), "mma-tile"),                           # 4x4x4 has no codegen
    ("gfx1100", dict(mn_per_xdl=32), "mma-tile"),                         # WMMA is 16x16 only
    ("gfx942", dict(m_per_block=48, m_per_wave=48), "mma-tile"),          # 48 % 32
    ("gfx942", dict(kpack_per_block=1, kpack=4), "k-per-block"),          # kPB 4 < K 8
    ("gfx1100", dict(kpack_per_block=1, kpack=8), "k-per-block"),         # kPB 8 < K 16
    ("gfx942", dict(kpack=6, kpack_per_block=4), "kpack"),                # 6 vs lane_k_run 4
    ("gfx942", dict(m_per_block=256, n_per_block=256, kpack_per_block=16,
                    m_per_wave=128, n_per_wave=128), "lds"),              # 128 KiB
    ("gfx1100", dict(m_per_block=128, n_per_block=128, m_per_wave=128,
                     n_per_wave=128), "registers"),                       # 512 acc regs
])
def test_each_rule_fires(arch_name, change, rule):
    got = rules(arch_name, GOOD[arch_name].replace(**change))
    assert rule in got, got


def test_kpack_rule_is_mutual_divisibility():
    # gfx1100 WMMA runs 16 K per lane: kpack 8 and 32 are fine, 12 is not.
    assert rules("gfx1100", GOOD["gfx1100"].replace(kpack=8, kpack_per_block=8)) == []
    assert rules("gfx1100", GOOD["gfx1100"].replace(kpack=32, kpack_per_block=2)) == []
    assert "kpack" in rules("gfx1100", GOOD["gfx1100"].replace(kpack=12, kpack_per_block=4))


def test_lane_k_run_per_instruction():
    def kb(arch, t, mn):
        return lane_k_run(instruction_for(get_arch(arch), t, mn))
    assert (kb("gfx942", "f16", 32), kb("gfx942", "f16", 16)) == (4, 4)
    assert (kb("gfx942", "i8", 32), kb("gfx942", "i8", 16)) == (8, 8)
    assert (kb("gfx942", "f32", 32), kb("gfx942", "f32", 16)) == (1, 1)
    assert (kb("gfx1100", "f16", 16), kb("gfx1201", "bf16", 16)) == (16, 8)
    assert instruction_for(get_arch("gfx942"), "f16", 4) is None


def test_double_buffering_doubles_lds():
    cfg = PerfConfig(256, 128, 8, 64, 64, 32, 8)   # (256+128)*64*2 = 48 KiB
    assert rules("gfx942", cfg) == []
    assert "lds" in rules("gfx942", cfg.replace(schedule_version=2))


def test_register_estimate_terms():
    arch = get_arch("gfx942")
    cfg = GOOD["gfx942"]                               # 4 waves of 64x64, 32x32x8, kPB 32
    instr = instruction_for(arch, "f16", 32)
    acc = 64 * 64 // 64
    fragments = (2 + 2) * (32 // 8) * 2                # repeats x k-steps x regs of 4 f16
    staging = (128 + 128) * 32 * 2 // 4 // 256
    assert register_estimate(arch, instr, cfg, "f16") == acc + fragments + staging + 32
    # gfx942 admits by the whole k-tile's fragments (its floor is the estimate).
    assert register_floor(arch, instr, cfg, "f16") == register_estimate(arch, instr, cfg, "f16")


def test_rdna_admits_by_the_fragments_it_cannot_defer():
    # gfx1201 f16 256x256x64, 16 waves of 64x64 (compiled: 194-214 VGPRs, no spills):
    # the whole k-tile's fragments would make 320; what must fit is 128 accumulators +
    # 32 addressing + 32 staging + 16 of B's transpose.
    arch = get_arch("gfx1201")
    cfg = PerfConfig(256, 256, 4, 64, 64, 16, 16)
    instr = instruction_for(arch, "f16", 16)
    assert register_floor(arch, instr, cfg, "f16") == 128 + 32 + 32 + 16
    assert register_estimate(arch, instr, cfg, "f16") == 256      # capped at the budget
    assert rules("gfx1201", cfg, shape=GemmShape(1, 4096, 4096, 4096)) == []
    # gfx1100 128x128x32 with four waves (seed 000's tile, compiled: 192) is admitted;
    # gfx1201 16x128x128 with two (floor 336: 144 staging, 128 of it B's) spilled 56.
    assert rules("gfx1100", PerfConfig(128, 128, 2, 64, 64, 16, 16)) == []
    assert "registers" in rules("gfx1201", PerfConfig(16, 128, 16, 16, 64, 16, 8))


def test_waves_share_the_register_file():
    # gfx942: 512 registers per SIMD lane, 4 SIMDs: 8 waves get 256 each, 16 get 128.
    arch = get_arch("gfx942")
    assert register_budget(arch, PerfConfig(128, 128, 4, 64, 64, 32, 8)) == 512
    assert register_budget(arch, PerfConfig(256, 256, 4, 128, 64, 32, 8)) == 256
    assert register_budget(arch, PerfConfig(256, 256, 4, 64, 64, 32, 8)) == 128
    # The i8 tile that spilled 96 VGPRs with 8 waves is refused.
    assert "registers" in rules("gfx942", PerfConfig(256, 256, 4, 128, 64, 32, 8), "i8")


def test_full_agprs_need_four_waves():
    # 128x128 per wave: 256 accumulators fill the AGPRs. One wave of 128x128x32 spilled,
    # four of 256x256x64 (origami's best tile for 4096^3) compile without spills.
    assert "registers" in rules("gfx942", PerfConfig(128, 128, 4, 128, 128, 32, 8))
    assert rules("gfx942", PerfConfig(256, 256, 16, 128, 128, 16, 4)) == []
    # f32 256x256x16 with four such waves spilled 32 VGPRs.
    assert "registers" in rules("gfx942", PerfConfig(256, 256, 4, 128, 128, 32, 4), "f32")


def test_unsupported_type_and_grid_limit():
    assert rules("gfx1100", GOOD["gfx1100"], in_type="f32") == ["element-type"]
    assert "grid" in rules("gfx942", GOOD["gfx942"], shape=GemmShape(1, 1, 2**32, 1))


def test_messages_name_numbers():
    msg = check_config(get_arch("gfx942"), "f16", SHAPE, GOOD["gfx942"].replace(mn_per_xdl=4))[0]
    assert msg == ("mma-tile: mnPerXdl 4 is not a usable MFMA tile for f16 on gfx942 (use 16 "
                   "or 32) (the 4x4x4 MFMA is not supported by codegen)")


@pytest.mark.parametrize("arch_name", sorted(GOOD))
def test_split_k_is_a_valid_config(arch_name):
    """Any splitKFactor is buildable (codegen/k_slices.py): slices past K's k-tiles add
    zeros, as rocMLIR's split-K tests with K = 4 ask."""
    for s in (2, 3, 16):
        assert rules(arch_name, GOOD[arch_name].replace(split_k=s)) == []


def test_operand_size_limit_is_checked_before_selection():
    from accel.diagnostics import AccelError
    from accel.tuning.selection import select
    from accel.tuning.validity import operand_size_errors
    # A: 65536 x 16383 f16 = 2 GiB - 128 KiB fits; one more K column does not.
    assert operand_size_errors(GemmShape(1, 65536, 16, 16383), "f16", "f16") == []
    (err,) = operand_size_errors(GemmShape(1, 65536, 16, 16384), "f16", "f16")
    assert err.startswith("operand-size: A is 2147483648 bytes")
    # C counts in the output type: i8 in, i32 out.
    (err,) = operand_size_errors(GemmShape(2, 16384, 16384, 1), "i8", "i32")
    assert err.startswith("operand-size: C is")
    with pytest.raises(AccelError, match="operand-size: B"):
        select(get_arch("gfx1100"), "bf16", "f32", GemmShape(1, 16, 2**20, 1024))


LADDER_TYPES = [("gfx942", "f16"), ("gfx942", "f32"), ("gfx942", "i8"), ("gfx942", "f8E4M3FNUZ"),
                ("gfx1100", "f16"), ("gfx1100", "i8"), ("gfx1201", "bf16"), ("gfx1201", "f8E4M3FN")]


@pytest.mark.parametrize("arch_name,in_type", LADDER_TYPES)
@pytest.mark.parametrize("schedule", [1, 2])
def test_ladder_screens_as_the_public_rules_do(arch_name, in_type, schedule):
    # The ladder screens through screen_config (no argument checks, the register terms
    # worked out once): each candidate's reasons, LDS, register estimate and the
    # pipeline depth its cost is made for are what check_config, lds_bytes,
    # register_estimate and pipeline_depth (the plan's) give.
    arch = get_arch(arch_name)
    probe = GemmShape(1, 1, 1, 1)
    good, bad = _ladder(arch, in_type, in_type, None, None, schedule)
    assert good and bad
    for p in good:
        assert check_config(arch, in_type, probe, p.config, in_type) == []
        assert p.lds == lds_bytes(p.config, in_type)
        assert p.regs == register_estimate(arch, p.instr, p.config, in_type)
        assert p.terms.depth == pipeline_depth(arch, p.instr, p.config, in_type)
        assert p.instr is instruction_for(arch, in_type, p.config.mn_per_xdl)
    for cfg, reasons in bad:
        assert list(reasons) == check_config(arch, in_type, probe, cfg, in_type)


def test_waves_per_eu_estimate_matches_the_public_one():
    # The waves-per-eu rule compares the shared register terms' estimate with a SIMD's
    # share: the message carries register_estimate's figure.
    cfg = GOOD["gfx942"].replace(waves_per_eu=4)
    regs = register_estimate(get_arch("gfx942"), instruction_for(get_arch("gfx942"), "f16", 32),
                             cfg, "f16")
    errors = check_config(get_arch("gfx942"), "f16", SHAPE, cfg)
    assert errors == [f"waves-per-eu: 4 waves per SIMD leave 128 registers a lane, the tile "
                      f"needs about {regs}"]
