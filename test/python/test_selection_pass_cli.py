"""accel-affix-perf-config run from Python, and the accel-select command line."""

import json

import pytest

from accel.bindings import ir, new_context
from accel.diagnostics import AccelError
from accel.dialect.gemm import GemmOp
from accel.dialect.ir_helpers import collect_ops
from accel.passes.registry import load_all
from accel.tools import accel_select

GEMM = """
func.func @f(%a: memref<2x100x64xf16>, %b: memref<2x64x300xf16>, %c: memref<2x100x300xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", a_layout = "row", b_layout = "row", c_layout = "row"EXTRA} : (memref<2x100x64xf16>, memref<2x64x300xf16>, memref<2x100x300xf32>) -> ()
  return
}
"""


def run_pass(text, **options):
    with new_context():
        module = ir.Module.parse(text)
        load_all()["accel-affix-perf-config"].from_options(options).run(module)
        gemm = GemmOp(collect_ops(module, "accel.gemm")[0])
        return gemm.perf_config, gemm.block_size, gemm.grid_size, gemm.padded


def test_pass_chooses_and_records_launch():
    config, block, grid, padded = run_pass(GEMM.replace("EXTRA", ""))
    assert block == config.block_size(64)
    pm, pn, pk = padded
    assert grid == (pm // config.m_per_block) * (pn // config.n_per_block) * 2
    assert pm - 100 < config.m_per_block and pn - 300 < config.n_per_block and pk == 64


def test_pass_rejects_an_invalid_config_at_the_op():
    bad = GEMM.replace("EXTRA", ', perf_config = "v4:64,64,4,32,32,4,8,1,1,2,0,0,1,1"')
    with pytest.raises(AccelError, match="mma-tile: mnPerXdl 4") as info:
        run_pass(bad)
    assert info.value.location is not None


def test_pass_rejects_a_negative_cu_count():
    with pytest.raises(AccelError, match="cu-count"):
        run_pass(GEMM.replace("EXTRA", ""), **{"cu-count": "-1"})


def test_cli_table_json_and_check(capsys):
    assert accel_select.main(["--arch", "gfx1100", "-m", "528", "-n", "528", "-k", "1024",
                              "-t", "bf16", "--top", "1"]) == 0
    out = capsys.readouterr().out
    # Seed 000's measured 64x64 tile; 128 deep, past its ladder's 64 (origami's best too).
    assert "64x64x128" in out.splitlines()[2] and "rejected:" in out
    assert accel_select.main(["--arch", "gfx942", "-m", "8", "-n", "64", "-k", "64", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["best"] == data["ranked"][0]["perf_config"]
    assert accel_select.main(["--arch", "gfx942", "-m", "64", "-n", "64", "-k", "64",
                              "--check", "v4:64,64,4,32,32,4,8,1,1,2,0,0,1,1"]) == 1
    assert capsys.readouterr().out.startswith("mma-tile: mnPerXdl 4")
    # A valid config is placed among the candidates: 256x256 on gfx942 loads nothing
    # ahead (its 128x128 wave tile), so it ranks behind the 128x256 choice.
    assert accel_select.main(["--arch", "gfx942", "-m", "4096", "-n", "4096", "-k", "4096",
                              "--check", "v4:256,256,16,128,128,32,4,1,1,2,0,0,1,1"]) == 0
    out = capsys.readouterr().out
    assert ": valid; ranked " in out and "loads not ahead" in out and "the choice, v4:128,256," in out
    assert accel_select.main(["--arch", "gfx1100", "-m", "48", "-n", "4096", "-k", "4096",
                              "--check", "v4:64,64,16,32,32,16,8,1,1,2,0,0,1,1"]) == 0
    assert "not ranked: padding: pads the 48x4096 output to 64x4096" in capsys.readouterr().out


def test_cli_errors_are_one_line(capsys):
    assert accel_select.main(["--arch", "gfx1100", "-m", "1", "-n", "1", "-k", "1",
                              "-t", "f32"]) == 1
    err = capsys.readouterr().err
    assert err == "accel-select: error: element type f32 has no MMA instruction on gfx1100\n"
