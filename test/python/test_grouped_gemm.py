"""accel.grouped_gemm end to end: compiled, both kernels simulated (the prep kernel's tile
list read by the main kernel on the simulated device), every row of every group checked
against float64 numpy, and the rows outside the groups checked untouched (seed 003)."""

import numpy as np
import pytest

from accel.check import check_grouped_gemm
from accel.tuning.grouped_launch import GroupedLaunch

# Small tiles keep the simulated grids small: 16 x 32 with a 32-wide k-tile.
GFX942_TILE = "v4:16,32,4,16,16,16,8,1,1,2,0,0,1,1"
WMMA_TILE = "v4:16,32,4,16,16,16,8,1,2,2,0,0,1,1"


def run(arch="gfx942", perf_config=GFX942_TILE, **kw):
    r = check_grouped_gemm(arch, perf_config=perf_config, **kw)
    assert r.comparison.ok, r.comparison
    assert r.untouched_rows_kept
    return r


def assert_no_idle_work(r):
    """Every main-kernel workgroup that loads A, B or the bias or multiplies holds a tile."""
    for name, count in r.loading_workgroups.items():
        assert count == r.tiles_occupied, (name, count, r.tiles_occupied)
    assert r.mma_workgroups == r.tiles_occupied


def test_uniform_groups_take_the_uniform_grid():
    # Buffers sized for every group at max_seq_len: auto picks uniform.
    r = run(lengths=[24] * 4, n=32, k=64, max_seq_len=24, total_rows=96)
    assert r.mode == "uniform"
    assert len(r.launches) == 1
    assert r.main_workgroups == 4 * 2 * 1   # G * ceil(24/16) M tiles x one N tile
    assert_no_idle_work(r)


def test_skewed_groups_compact():
    # 20% empty, one group at the full max_seq_len, one near it, the rest short.
    lengths = [0, 40, 3, 0, 39, 7, 12, 1, 5, 9]
    r = run(lengths=lengths, n=32, k=32, max_seq_len=40, total_rows=sum(lengths))
    assert r.mode == "compact"
    assert [l.kernel.split("::")[-1].split("_")[2] for l in r.launches] == ["tiles", "gemm"]
    assert_no_idle_work(r)
    # The launched grid is the capacity bound, above the occupied tiles.
    launch = GroupedLaunch(10, sum(lengths), 40, 16, 1, "compact")
    assert r.main_workgroups == launch.list_capacity > r.tiles_occupied


def test_skewed_groups_uniform_mode_skip_empty_tiles():
    lengths = [0, 40, 3, 0, 39]
    r = run(lengths=lengths, n=32, k=32, max_seq_len=40, total_rows=96, mode="uniform")
    assert r.main_workgroups == 5 * 3
    assert_no_idle_work(r)


def test_one_row_group():
    r = run(lengths=[0, 1, 0], n=32, k=32, max_seq_len=16, total_rows=20)
    assert r.tiles_occupied == 1
    assert_no_idle_work(r)


@pytest.mark.parametrize("mode", ["uniform", "compact"])
def test_all_groups_empty_write_nothing(mode):
    r = run(lengths=[0, 0, 0, 0], n=32, k=32, max_seq_len=16, total_rows=32, mode=mode)
    assert r.comparison.total == 0 and r.tiles_occupied == 0
    assert r.loading_workgroups == {"A": 0, "B": 0, "bias": 0} and r.mma_workgroups == 0


def test_buffers_larger_than_the_rows():
    # L = 30 rows in buffers of 80: rows 30..79 of C are never written.
    run(lengths=[10, 20], n=32, k=32, max_seq_len=20, total_rows=80)


def test_ragged_n_and_tail_tiles():
    # N = 40 is not a multiple of nPerBlock = 32; groups of 17 and 5 rows end mid-tile,
    # and the next group's rows follow at once: a tail tile must not spill into them.
    run(lengths=[17, 5, 21], n=40, k=32, max_seq_len=21, total_rows=43)


@pytest.mark.parametrize("k", [64, 40])
def test_k_a_multiple_of_the_k_tile_and_not(k):
    run(lengths=[9, 16, 0, 30], n=32, k=k, max_seq_len=30, total_rows=60)


def test_one_group():
    r = run(lengths=[37], n=32, k=32, max_seq_len=40, total_rows=48)
    assert_no_idle_work(r)


def test_1024_tiny_groups_mostly_empty():
    rng = np.random.default_rng(3)
    lengths = np.where(rng.random(1024) < 0.9, 0, rng.integers(1, 9, 1024)).tolist()
    r = run(lengths=lengths, n=32, k=32, max_seq_len=8, total_rows=sum(lengths) + 8)
    assert r.mode == "compact"
    assert r.tiles_occupied == sum(1 for x in lengths if x)
    assert_no_idle_work(r)


def test_rows_past_max_seq_len_are_not_computed():
    # The launch is sized by max_seq_len: a longer group has its first 16 rows computed.
    r = run(lengths=[5, 30], n=32, k=32, max_seq_len=16, total_rows=35)
    assert r.comparison.total == (5 + 16) * 32


@pytest.mark.parametrize("b_layout", ["stacked", "row"])
@pytest.mark.parametrize("out_type", ["bf16", "f32"])
def test_b_layouts_and_output_types(b_layout, out_type):
    run(lengths=[7, 0, 18], n=32, k=32, max_seq_len=18, total_rows=25, b_layout=b_layout,
        out_type=out_type)


def test_f16_without_bias():
    r = run(lengths=[7, 0, 18], n=32, k=32, max_seq_len=18, total_rows=25, in_type="f16",
            bias=False)
    assert set(r.loading_workgroups) == {"A", "B"}


@pytest.mark.parametrize("arch", ["gfx1100", "gfx1201"])
@pytest.mark.parametrize("mode", ["uniform", "compact"])
def test_wmma_chips(arch, mode):
    r = run(arch, WMMA_TILE, lengths=[0, 19, 4, 0, 16], n=40, k=40, max_seq_len=19,
            total_rows=45, mode=mode)
    assert_no_idle_work(r)


def test_heuristic_config_on_each_chip():
    for arch in ("gfx942", "gfx1100", "gfx1201"):
        r = run(arch, None, lengths=[3, 0, 12], n=24, k=24, max_seq_len=12, total_rows=20)
        assert r.config_source == "heuristic"
