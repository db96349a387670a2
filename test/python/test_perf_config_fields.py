"""The perf-config fields that shape the kernel beyond the tile: each value a chip and
codegen can honour is accepted, each other one is a one-line diagnostic naming its rule,
through accel-affix-perf-config as a user meets it."""

import pytest

from accel.api import compile_gemm
from accel.diagnostics import AccelError
from accel.dialect.gemm import GemmShape
from accel.dialect.perf_config import PerfConfig
from accel.target.database import get_arch
from accel.tuning.validity import check_config

SHAPE = GemmShape(1, 256, 256, 256)
GOOD = {"gfx942": PerfConfig(64, 64, 4, 32, 32, 32, 8),
        "gfx1100": PerfConfig(64, 64, 4, 32, 32, 16, 8),
        "gfx1201": PerfConfig(64, 64, 4, 32, 32, 16, 8)}


def rules(arch, **change):
    return [e.split(":")[0] for e in
            check_config(get_arch(arch), "f16", SHAPE, GOOD[arch].replace(**change))]


@pytest.mark.parametrize("arch", sorted(GOOD))
@pytest.mark.parametrize("change", [dict(schedule_version=1), dict(schedule_version=2),
                                    dict(output_swizzle=0), dict(output_swizzle=1),
                                    dict(output_swizzle=2),
                                    dict(waves_per_eu=0), dict(waves_per_eu=2),
                                    dict(grid_group_size=0), dict(grid_group_size=8)])
def test_honoured_values_pass(arch, change):
    assert rules(arch, **change) == []


@pytest.mark.parametrize("arch", ("gfx1100", "gfx1201"))
@pytest.mark.parametrize("version", (3, 4))
def test_direct_to_lds_schedules_are_refused_on_rdna(arch, version):
    assert rules(arch, schedule_version=version) == ["schedule-version"]


@pytest.mark.parametrize("version", (3, 4))
def test_direct_to_lds_schedules_are_honoured_on_gfx942(version):
    assert rules("gfx942", schedule_version=version) == []


@pytest.mark.parametrize("arch", sorted(GOOD))
def test_unknown_schedule_and_swizzle_values_are_refused(arch):
    assert rules(arch, schedule_version=0) == ["schedule-version"]
    assert rules(arch, schedule_version=5) == ["schedule-version"]
    assert rules(arch, output_swizzle=3) == ["output-swizzle"]


@pytest.mark.parametrize("arch,waves", [("gfx942", 9), ("gfx1100", 17), ("gfx1201", 17)])
def test_more_waves_per_eu_than_a_simd_holds_is_refused(arch, waves):
    assert rules(arch, waves_per_eu=waves) == ["waves-per-eu"]


def test_waves_per_eu_whose_register_share_the_tile_exceeds_is_refused():
    # gfx1100 128x128x16 with 64x64 per wave: about 234 VGPRs measured, 1536 / 8 = 192.
    cfg = PerfConfig(128, 128, 2, 64, 64, 16, 8, waves_per_eu=8)
    errors = check_config(get_arch("gfx1100"), "f16", SHAPE, cfg)
    assert [e.split(":")[0] for e in errors] == ["waves-per-eu"]
    assert "leave 192 registers a lane" in errors[0]


def test_refusal_is_one_line_at_compile():
    with pytest.raises(AccelError) as e:
        compile_gemm("gfx1100", m=64, n=64, k=64,
                     perf_config="v4:64,64,4,32,32,16,8,1,3,2,0,0,1,1")
    assert "schedule-version: scheduleVersion 3 (direct-to-LDS) cannot be built for " \
           "gfx1100" in str(e.value) and "\n" not in str(e.value)
