"""accel-run: runs a kernel file on random inputs; bad input is one diagnostic line."""

import numpy as np

from accel.tools.accel_run import main

KERNEL = """module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @scale(%X: memref<4x8xf32>, %Y: memref<4x8xf32>, %s: f32) kernel {
      %t = gpu.thread_id x
      %b = gpu.block_id x
      %v = memref.load %X[%b, %t] : memref<4x8xf32>
      %w = arith.mulf %v, %s : f32
      memref.store %w, %Y[%b, %t] : memref<4x8xf32>
      gpu.return
    }
  }
}
"""


def test_runs_kernel_and_reports_what_it_wrote(tmp_path, capsys):
    f = tmp_path / "k.mlir"
    f.write_text(KERNEL)
    rc = main([str(f), "--kernel", "m::scale", "--grid", "4", "--block", "8,1,1",
               "--scalar", "2.0", "--seed", "5"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "argument #0 (4x8xf32): unchanged" in out
    assert "argument #1 (4x8xf32): 32 elements changed" in out
    x = np.random.default_rng(5).uniform(-1.0, 1.0, (4, 8)).astype(np.float32)
    assert f"sum={(2 * x).astype(np.float64).sum():.6g}" in out
    assert "LDS races: 0" in out


def test_kernel_subcommand_and_missing_scalar(tmp_path, capsys):
    f = tmp_path / "k.mlir"
    f.write_text(KERNEL)
    rc = main(["kernel", str(f), "--kernel", "scale", "--block", "8"])
    assert rc == 1
    assert "argument #2 is a scalar" in capsys.readouterr().err


def test_malformed_input_is_one_located_line(tmp_path, capsys):
    f = tmp_path / "bad.mlir"
    f.write_text(KERNEL.replace("arith.mulf %v, %s : f32", "arith.mulf %v : f32"))
    rc = main([str(f), "--kernel", "scale", "--block", "8"])
    err = capsys.readouterr().err.strip()
    assert rc == 1
    assert err.startswith(f"{f}:7:") and ": error: " in err and "\n" not in err


def test_simulation_error_is_located(tmp_path, capsys):
    f = tmp_path / "k.mlir"
    f.write_text(KERNEL)
    rc = main([str(f), "--kernel", "scale", "--block", "9", "--scalar", "1"])
    err = capsys.readouterr().err.strip()
    assert rc == 1
    assert err.startswith(f"{f}:6:12: error: simulator: out-of-bounds memref.load")
