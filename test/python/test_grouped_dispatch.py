"""Grouped GEMM dispatch, launch rule and library results (tuning/grouped_dispatch.py,
tuning/grouped_launch.py, accel.api.compile_grouped_gemm)."""

import json

import numpy as np
import pytest

from accel.api import compile_grouped_gemm
from accel.diagnostics import AccelError
from accel.dialect.perf_config import PerfConfig
from accel.target.database import get_arch
from accel.tuning.grouped_dispatch import SHIPPED_TABLE, dispatch, load_table, shape_key
from accel.tuning.grouped_launch import GroupedLaunch, auto_mode
from accel.tuning.validity import check_config
from accel.dialect.gemm import GemmShape

GFX942 = get_arch("gfx942")
SMALL = "v4:16,32,4,16,16,16,8,1,1,2,0,0,1,1"


def _dispatch(**kw):
    args = dict(groups=4, n=64, k=64, max_seq_len=32, total_rows=128, in_type="bf16",
                out_type="bf16")
    args.update(kw)
    return dispatch(GFX942, **args)


def _table(tmp_path, entries, arch="gfx942"):
    path = tmp_path / "table.json"
    path.write_text(json.dumps({arch: entries}))
    return load_table(path)


def test_key_is_the_seeds():
    assert shape_key(120, 256, 512, 7680) == "B120D256K512N7680"


def test_shipped_table_entries_are_valid_for_their_keys():
    table = load_table()
    assert table["gfx942"], "the shipped table has gfx942 entries"
    for key, entry in table["gfx942"].items():
        g, k, n, msl = (int(x) for x in
                        key.replace("B", " ").replace("D", " ").replace("K", " ")
                        .replace("N", " ").split())
        chosen = _dispatch(groups=g, n=n, k=k, max_seq_len=msl, total_rows=g * msl,
                           table=table)
        assert chosen.source == "table"
        assert str(chosen.config) == str(PerfConfig.parse(entry["perf_config"]))


def test_table_entry_wins_over_the_heuristic(tmp_path):
    table = _table(tmp_path, {"B4D64K64N32": {"perf_config": SMALL, "mode": "uniform"}})
    chosen = _dispatch(table=table)
    assert (str(chosen.config), chosen.mode, chosen.source) == (SMALL, "uniform", "table")


def test_explicit_values_win_over_the_table(tmp_path):
    table = _table(tmp_path, {"B4D64K64N32": {"perf_config": SMALL, "mode": "uniform"}})
    explicit = PerfConfig.parse("v4:32,32,4,32,32,32,8,1,1,2,0,0,1,1")
    chosen = _dispatch(table=table, perf_config=explicit, mode="compact")
    assert (chosen.config, chosen.mode, chosen.source) == (explicit, "compact", "explicit")
    # An explicit mode alone still takes the table's perf config.
    chosen = _dispatch(table=table, mode="compact")
    assert (str(chosen.config), chosen.mode, chosen.source) == (SMALL, "compact", "table")


def test_a_users_table_replaces_the_shipped_one(tmp_path):
    key = next(iter(load_table()["gfx942"]))
    g, k, n, msl = 120, 256, 256, 7680
    assert key == shape_key(g, k, n, msl)
    empty = _table(tmp_path, {})
    chosen = _dispatch(groups=g, n=n, k=k, max_seq_len=msl, total_rows=g * msl, table=empty)
    assert chosen.source == "heuristic"


def test_heuristic_off_table_is_a_legal_config():
    for shape in ((4, 64, 64, 32), (7, 40, 24, 9), (1024, 256, 256, 100)):
        g, n, k, msl = shape
        chosen = _dispatch(groups=g, n=n, k=k, max_seq_len=msl, total_rows=g * msl)
        assert chosen.source == "heuristic"
        assert check_config(GFX942, "bf16", GemmShape(g, msl, n, k), chosen.config) == []


@pytest.mark.parametrize("entry, message", [
    ({"perf_config": "v4:16,32,16,16,16,16,8,1,1,2,0,0,1,1"},
     "entry gfx942/B4D192K64N32: k-tile 128 does not divide K = 192"),
    ({"perf_config": "v4:256,256,8,128,128,32,8,1,2,2,0,0,1,1"},
     "entry gfx942/B4D192K64N32: perf config 'v4:256,256,8,128,128,32,8,1,2,2,0,0,1,1' is "
     "invalid for bf16: lds: A and B tiles need 131072 bytes (double-buffered), more than "
     "the 65536 bytes of LDS"),
    ({"perf_config": "v4:16"}, "entry gfx942/B4D192K64N32: perf config 'v4:16': v4 takes 14"),
])
def test_invalid_entries_are_diagnostics(tmp_path, entry, message):
    table = _table(tmp_path, {"B4D192K64N32": entry})
    with pytest.raises(AccelError, match=message.replace("(", r"\(").replace(")", r"\)")):
        _dispatch(k=192, table=table)


@pytest.mark.parametrize("text, message", [
    ("{", "not valid JSON"),
    ('{"gfx942": {"B4D64": {"perf_config": "v4:1"}}}', "the key is not B<G>D<K>K<N>N<max_seq_len>"),
    ('{"gfx942": {"B4D64K64N32": {"perf_config": "x", "tile": 3}}}', "unknown field 'tile'"),
    ('{"gfx942": {"B4D64K64N32": {"perf_config": "x", "mode": "skew"}}}',
     "mode must be one of uniform, compact"),
    ('{"gfx942": []}', "'gfx942' must map shape keys to entries"),
])
def test_malformed_tables_are_diagnostics(tmp_path, text, message):
    path = tmp_path / "t.json"
    path.write_text(text)
    with pytest.raises(AccelError, match=message.replace("(", r"\(")):
        load_table(path)


def test_auto_mode_rule_on_unmeasured_shapes():
    # Property: compact exactly when its grid bound is below the uniform grid, so auto
    # never launches more main-kernel workgroups than the other mode would.
    rng = np.random.default_rng(0)
    for _ in range(300):
        g, msl, mpb = int(rng.integers(1, 2000)), int(rng.integers(1, 9000)), int(
            rng.choice([16, 32, 64, 128, 256]))
        rows = int(rng.integers(msl, g * msl + 1))
        mode = auto_mode(g, rows, msl, mpb)
        grids = {m: GroupedLaunch(g, rows, msl, mpb, 1, m).grid[0] for m in ("uniform", "compact")}
        assert grids[mode] == min(grids.values())
        assert (mode == "compact") == (grids["compact"] < grids["uniform"])
    # Buffers for every group at full length: uniform; for a tenth of that: compact.
    assert auto_mode(120, 120 * 7680, 7680, 128) == "uniform"
    assert auto_mode(120, 12 * 7680, 7680, 128) == "compact"


def test_list_capacity_bounds_every_length_vector():
    # Property: no lengths summing to at most L_max (each clamped to max_seq_len) occupy
    # more tiles than the compact grid holds.
    rng = np.random.default_rng(1)
    for _ in range(300):
        g, msl, mpb = int(rng.integers(1, 300)), int(rng.integers(1, 500)), int(
            rng.choice([16, 32, 128]))
        rows = int(rng.integers(1, g * msl + 1))
        cuts = np.sort(rng.integers(0, rows + 1, g - 1))
        lengths = np.diff(np.concatenate([[0], cuts, [rng.integers(cuts[-1] if g > 1 else 0,
                                                                   rows + 1)]]))
        tiles = sum(-(-min(int(x), msl) // mpb) for x in lengths)
        assert tiles <= GroupedLaunch(g, rows, msl, mpb, 1, "compact").list_capacity


# ---- the library's result ------------------------------------------------------------------
def test_metadata_contract_compact():
    r = compile_grouped_gemm("gfx942", groups=5, n=40, k=32, max_seq_len=20, total_rows=40,
                             perf_config=SMALL, assembly=False)
    meta = r.metadata()
    prep, main = meta["kernels"]
    assert prep["op"] == "grouped_tile_list" and main["op"] == "grouped_gemm"
    assert [a["name"] for a in prep["args"]] == ["seq_offsets", "tile_map"]
    assert [a["name"] for a in main["args"]] == ["A", "B", "C", "bias", "seq_offsets", "tile_map"]
    shapes = {a["name"]: (a["dtype"], a["shape"], a["bytes"]) for a in main["args"]}
    assert shapes == {"A": ("bf16", [40, 32], 2560), "B": ("bf16", [200, 32], 12800),
                      "C": ("bf16", [40, 40], 3200), "bias": ("bf16", [200], 400),
                      "seq_offsets": ("i32", [6], 24), "tile_map": ("i32", [8], 32)}
    # Grid rule: capacity min(5 * 2, (40 + 5 * 15) // 16 = 7) = 7 list positions, 2 N tiles.
    assert main["grid"] == [7, 2, 1] and prep["grid"] == [1, 1, 1]
    assert meta["workspace"]["bytes"] == 32   # 7 positions + the sentinel
    (buf,) = meta["workspace"]["buffers"]
    assert buf["name"] == "tile_map" and buf["kernels"] == [prep["symbol"], main["symbol"]]
    assert [k.symbol for k in r.kernels] == [prep["symbol"], main["symbol"]]
    assert all(k.code_object[:4] == b"\x7fELF" for k in r.kernels)


def test_metadata_contract_uniform_has_no_workspace_buffer():
    r = compile_grouped_gemm("gfx1201", groups=3, n=32, k=32, max_seq_len=16, total_rows=48,
                             b_layout="row", bias=False, mode="uniform", assembly=False)
    (main,) = r.metadata()["kernels"]
    assert [a["name"] for a in main["args"]] == ["A", "B", "C", "seq_offsets"]
    assert main["args"][1]["shape"] == [3, 32, 32]
    assert r.metadata()["workspace"] == {"bytes": 0, "buffers": []}


def test_compile_is_deterministic():
    kw = dict(groups=6, n=24, k=40, max_seq_len=10, total_rows=30, assembly=True)
    a, b = compile_grouped_gemm("gfx1100", **kw), compile_grouped_gemm("gfx1100", **kw)
    assert [(k.code_object, k.assembly) for k in a.kernels] == \
        [(k.code_object, k.assembly) for k in b.kernels]
    assert json.dumps(a.metadata()) == json.dumps(b.metadata())


@pytest.mark.parametrize("kw, message", [
    (dict(in_type="i8"), "element type 'i8' is not one of f16, bf16"),
    (dict(out_type="f16"), "output type 'f16' is not supported for bf16 inputs"),
    (dict(groups=0), "groups must be a positive integer, got 0"),
    (dict(b_layout="transposed"), "b_layout must be one of stacked, row"),
    (dict(mode="skew"), "mode must be one of uniform, compact or auto"),
    (dict(bias="yes"), "bias must be a bool"),
    (dict(max_seq_len=100), r"max_seq_len must be in \[1, total_rows = 64\]"),
    (dict(perf_config="v4:256,256,16,128,128,32,8,1,2,2,0,0,1,1"), "invalid perf config"),
    (dict(dispatch_table="/no/such/table.json"), "dispatch table /no/such/table.json: cannot read"),
])
def test_bad_arguments_are_one_line_errors(kw, message):
    args = dict(groups=3, n=32, k=32, max_seq_len=40, total_rows=64, assembly=False)
    args.update(kw)
    with pytest.raises(AccelError, match=message):
        compile_grouped_gemm("gfx942", **args)


def test_shipped_table_is_the_documented_file():
    assert SHIPPED_TABLE.name == "grouped_dispatch.json" and SHIPPED_TABLE.exists()
