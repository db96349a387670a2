"""PerfConfig: rocMLIR's v3/v4 strings, the worked examples of issue 2, error messages."""

import random

import pytest

from accel.diagnostics import AccelError
from accel.dialect.perf_config import V4_FIELDS, PerfConfig


def fields_of(cfg: PerfConfig) -> dict:
    return {f: getattr(cfg, f) for f in V4_FIELDS}


# ---- worked examples (facts from rocMLIR's InitParamsAccel unit tests and seed 001) ----
def test_v4_example_fields():
    cfg = PerfConfig.parse("v4:64,64,8,32,32,16,4,2,3,2,0,0,1,1", "mfma")
    assert fields_of(cfg) == dict(
        m_per_block=64, n_per_block=64, kpack_per_block=8, m_per_wave=32, n_per_wave=32,
        mn_per_xdl=16, kpack=4, split_k=2, schedule_version=3, output_swizzle=2,
        waves_per_eu=0, grid_group_size=0, force_unroll=1, b_copy_more=1)
    assert cfg.k_per_block == 32


def test_v4_does_not_depend_on_mma_kind():
    text = "v4:64,64,8,32,32,16,4,2,3,2,0,0,1,1"
    assert PerfConfig.parse(text, "mfma") == PerfConfig.parse(text, "wmma")


def test_v3_mfma_legacy_example():
    # Field 4 is mnPerXdl; waves re-derived: mWaves = min(128/64, 4) = 2, nWaves = 2,
    # mPerWave = 128/2 = 64, nPerWave = max(64/2, 32) = 32.
    cfg = PerfConfig.parse("v3:128,64,8,64,32,4,9,2,2,0,1", "mfma")
    assert (cfg.m_per_wave, cfg.n_per_wave, cfg.mn_per_xdl, cfg.kpack) == (64, 32, 32, 4)
    assert (cfg.m_per_block, cfg.n_per_block, cfg.kpack_per_block) == (128, 64, 8)
    assert (cfg.split_k, cfg.schedule_version, cfg.output_swizzle) == (9, 2, 2)
    assert (cfg.force_unroll, cfg.b_copy_more) == (0, 1)


def test_v3_mfma_caps_waves_at_four():
    # mPB/mPW = 8 waves along M is capped at 4: mPerWave = 128/4 = 32, nWaves = 1.
    cfg = PerfConfig.parse("v3:128,64,8,16,32,4,1,2,2,1,1", "mfma")
    assert (cfg.waves_m, cfg.waves_n, cfg.m_per_wave, cfg.n_per_wave) == (4, 1, 32, 64)
    assert cfg.num_waves == 4


def test_v3_mfma_n_per_wave_at_least_one_instruction():
    # nPB/nWaves = 16/2 = 8 is below one 32-wide instruction, so nPerWave = mnPerXdl = 32;
    # that no longer divides nPerBlock, which the parser reports.
    with pytest.raises(AccelError, match="n_per_wave 32 does not divide n_per_block 16"):
        PerfConfig.parse("v3:64,16,8,32,32,4,1,2,2,1,1", "mfma")


def test_v3_seed_example():
    for kind in ("mfma", "wmma"):
        cfg = PerfConfig.parse("v3:32,32,8,16,16,8,1,2,2,1,1", kind)
        assert (cfg.m_per_block, cfg.n_per_block, cfg.kpack_per_block, cfg.kpack) == (32, 32, 8, 8)
        assert cfg.k_per_block == 64
        assert (cfg.m_per_wave, cfg.n_per_wave, cfg.mn_per_xdl) == (16, 16, 16)


def test_v3_wmma_field4_is_n_per_wave():
    cfg = PerfConfig.parse("v3:64,128,4,32,64,8,1,1,2,1,1", "wmma")
    assert (cfg.m_per_wave, cfg.n_per_wave, cfg.mn_per_xdl) == (32, 64, 16)
    assert (cfg.waves_m, cfg.waves_n) == (2, 2)
    assert cfg.block_size(32) == 128


def test_v3_prints_as_v4():
    cfg = PerfConfig.parse("v3:128,64,8,64,32,4,9,2,2,0,1", "mfma")
    assert str(cfg) == "v4:128,64,8,64,32,32,4,9,2,2,0,0,0,1"
    assert PerfConfig.parse(str(cfg)) == cfg


def test_derived_sizes():
    cfg = PerfConfig.parse("v4:128,64,8,64,32,32,4,1,2,2,0,0,1,1")
    assert (cfg.waves_m, cfg.waves_n, cfg.num_waves) == (2, 2, 4)
    assert cfg.block_size(64) == 256
    assert cfg.double_buffered
    assert not cfg.replace(schedule_version=1).double_buffered


def test_whitespace_is_tolerated():
    assert PerfConfig.parse(" v4:64, 64,8,32,32,16,4,2,3,2,0,0,1,1 ") == \
        PerfConfig.parse("v4:64,64,8,32,32,16,4,2,3,2,0,0,1,1")


# ---- v4 round trip ------------------------------------------------------------------
def random_config(rng: random.Random) -> PerfConfig:
    mpw = rng.choice([4, 16, 32, 64, 128])
    npw = rng.choice([4, 16, 32, 64, 128])
    return PerfConfig(
        m_per_block=mpw * rng.choice([1, 2, 4, 8]), n_per_block=npw * rng.choice([1, 2, 4, 8]),
        kpack_per_block=rng.choice([1, 2, 4, 8, 16, 32]), m_per_wave=mpw, n_per_wave=npw,
        mn_per_xdl=rng.choice([4, 16, 32]), kpack=rng.choice([1, 4, 8, 16]),
        split_k=rng.choice([1, 2, 3, 4, 9, 16]), schedule_version=rng.randint(0, 3),
        output_swizzle=rng.randint(0, 2), waves_per_eu=rng.randint(0, 8),
        grid_group_size=rng.choice([0, 4, 8, 16, 64]), force_unroll=rng.randint(0, 1),
        b_copy_more=rng.randint(0, 1))


def test_v4_round_trips_many_random_configs():
    rng = random.Random(20261129)
    for _ in range(500):
        cfg = random_config(rng)
        text = str(cfg)
        assert text.startswith("v4:") and len(text[3:].split(",")) == 14
        for kind in ("mfma", "wmma"):
            back = PerfConfig.parse(text, kind)
            assert back == cfg
            assert str(back) == text


# ---- v2: v3 without scheduleVersion and outputSwizzle ---------------------------------
@pytest.mark.parametrize("v2, v3", [
    # rocMLIR's split-K tests write the same kernel both ways (the MIGraphX corpus).
    ("v2:16,32,4,16,16,4,4,1,1", "v3:16,32,4,16,16,4,4,1,2,1,1"),
    ("v2:16,32,16,16,16,16,16,1,1", "v3:16,32,16,16,16,16,16,1,2,1,1"),
    ("v2:128,64,8,64,32,4,1,0,1", "v3:128,64,8,64,32,4,1,1,2,0,1"),
])
@pytest.mark.parametrize("kind", ["mfma", "wmma"])
def test_v2_reads_as_v3_with_default_schedule_and_swizzle(v2, v3, kind):
    cfg = PerfConfig.parse(v2, kind)
    assert cfg == PerfConfig.parse(v3, kind)
    assert (cfg.schedule_version, cfg.output_swizzle) == (1, 2)
    assert cfg.split_k == int(v2.split(",")[6])


# ---- malformed strings name the bad field --------------------------------------------
@pytest.mark.parametrize("text, message", [
    ("", "expected a 'v2:', 'v3:' or 'v4:' prefix"),
    ("64,64,8,32,32,16,4,2,3,2,0,0,1,1", "expected a 'v2:', 'v3:' or 'v4:' prefix"),
    ("v1:64,64,8,32,32,4,1,1", "expected a 'v2:', 'v3:' or 'v4:' prefix"),
    ("v2:64,64,8,32,32,4,1,1,1,1", "v2 takes 9 fields, got 10"),
    ("v2:64,64,8,32,32,4,1,2,1", "field 7 (force_unroll) must be 0 or 1, got 2"),
    ("v4:64,64,8,32,32,16,4,4,3,2,1", "v4 takes 14 fields, got 11"),
    ("v3:128,64,8,64,32,4,9,2,2,1", "v3 takes 11 fields, got 10"),
    ("v4:64,64,8,32,32,16,4,2,3,2,0,0,1,1,", "v4 takes 14 fields, got 15"),
    ("v4:x,64,8,32,32,16,4,2,3,2,0,0,1,1", "field 0 (m_per_block) is not an integer: 'x'"),
    ("v4:64,0,8,32,32,16,4,2,3,2,0,0,1,1", "field 1 (n_per_block) must be positive, got 0"),
    ("v4:64,64,,32,32,16,4,2,3,2,0,0,1,1", "field 2 (kpack_per_block) is not an integer: ''"),
    ("v4:64,64,8,0,32,16,4,2,3,2,0,0,1,1", "field 3 (m_per_wave) must be positive, got 0"),
    ("v4:64,64,8,32,-32,16,4,2,3,2,0,0,1,1", "field 4 (n_per_wave) must be positive, got -32"),
    ("v4:64,64,8,32,32,0,4,2,3,2,0,0,1,1", "field 5 (mn_per_xdl) must be positive, got 0"),
    ("v4:64,64,8,32,32,16,4.0,2,3,2,0,0,1,1", "field 6 (kpack) is not an integer: '4.0'"),
    ("v4:64,64,8,32,32,16,4,0,3,2,0,0,1,1", "field 7 (split_k) must be positive, got 0"),
    ("v4:64,64,8,32,32,16,4,2,-1,2,0,0,1,1", "field 8 (schedule_version) must be non-negative, got -1"),
    ("v4:64,64,8,32,32,16,4,2,3,-2,0,0,1,1", "field 9 (output_swizzle) must be non-negative, got -2"),
    ("v4:64,64,8,32,32,16,4,2,3,2,-1,0,1,1", "field 10 (waves_per_eu) must be non-negative, got -1"),
    ("v4:64,64,8,32,32,16,4,2,3,2,0,x,1,1", "field 11 (grid_group_size) is not an integer: 'x'"),
    ("v4:64,64,8,32,32,16,4,2,3,2,0,0,2,1", "field 12 (force_unroll) must be 0 or 1, got 2"),
    ("v4:64,64,8,32,32,16,4,2,3,2,0,0,1,7", "field 13 (b_copy_more) must be 0 or 1, got 7"),
    ("v3:64,64,8,32,0,4,2,3,2,1,1", "field 4 (field4) must be positive, got 0"),
    ("v3:64,64,8,32,16,4,2,3,2,1,3", "field 10 (b_copy_more) must be 0 or 1, got 3"),
    ("v4:64,64,8,48,32,16,4,2,3,2,0,0,1,1", "m_per_wave 48 does not divide m_per_block 64"),
    ("v4:64,64,8,32,128,16,4,2,3,2,0,0,1,1", "n_per_wave 128 does not divide n_per_block 64"),
])
def test_malformed_names_the_field(text, message):
    with pytest.raises(AccelError) as info:
        PerfConfig.parse(text, "mfma")
    assert message in info.value.message
    assert info.value.message.startswith(f"perf config '{text.strip()}'")


def test_v3_mfma_m_per_wave_must_divide_m_per_block():
    with pytest.raises(AccelError, match=r"field 3 \(m_per_wave\) 48 does not divide m_per_block 64"):
        PerfConfig.parse("v3:64,64,8,48,32,4,1,2,2,1,1", "mfma")


def test_unknown_mma_kind():
    with pytest.raises(AccelError, match="mma_kind must be one of mfma, wmma, got 'dot'"):
        PerfConfig.parse("v3:64,64,8,32,16,4,2,3,2,1,1", "dot")


@pytest.mark.parametrize("field", V4_FIELDS)
@pytest.mark.parametrize("value, ok", [(0, None), (1, True), (2**31 - 1, True), (2**31, False),
                                       (-1, False), (True, False), (2.0, False), ("8", False)])
def test_a_constructed_config_checks_every_field(field, value, ok):
    """Plain in-range ints take a shortcut past the per-field messages; everything else
    is judged field by field, with the same verdict."""
    base = dict(m_per_block=16, n_per_block=16, kpack_per_block=8, m_per_wave=16,
                n_per_wave=16, mn_per_xdl=16, kpack=8)
    positive = V4_FIELDS.index(field) < V4_FIELDS.index("schedule_version")
    ok = (not positive) if ok is None else ok
    if ok:
        assert getattr(PerfConfig(**{**base, field: value}), field) == value
    else:
        with pytest.raises(AccelError, match=f"PerfConfig {field} must be an integer in"):
            PerfConfig(**{**base, field: value})


def test_numpy_fields_are_held_as_python_ints():
    np = pytest.importorskip("numpy")
    cfg = PerfConfig(np.int64(32), np.int32(16), 8, 16, 16, 16, 8)
    assert type(cfg.m_per_block) is int and type(cfg.n_per_block) is int
    assert cfg == PerfConfig(32, 16, 8, 16, 16, 16, 8)
