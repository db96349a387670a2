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


def test_gemm_mode_compiles_simulates_and_passes(capsys):
    rc = main(["gemm", "--arch", "gfx1100", "-g", "2", "-m", "33", "-n", "20", "-k", "40",
               "-t", "f16", "--out-type", "f32", "--trans-b"])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "f16 -> f32, A row, B transposed" in out
    assert "MMA v_wmma_f32_16x16x16_f16" in out
    assert "mismatches 0 of 1320" in out
    assert out.rstrip().endswith("PASS")


def test_gemm_mode_fails_on_a_wrong_element(capsys, monkeypatch):
    """A reference that disagrees with the kernel in one element makes the run FAIL."""
    import accel.check as check

    real = check.reference

    def off_by_one(*args, **kw):
        ref, tol = real(*args, **kw)
        ref = ref.copy()
        ref[0, 2, 3] += 1.0
        return ref, tol

    monkeypatch.setattr(check, "reference", off_by_one)
    rc = main(["gemm", "--arch", "gfx942", "-m", "16", "-n", "16", "-k", "16", "-t", "i8"])
    out = capsys.readouterr().out
    assert rc == 1
    assert "mismatches 1 of 256" in out and "first at (0, 2, 3)" in out
    assert out.rstrip().endswith("FAIL")


def test_gemm_mode_bad_perf_config_is_one_line(capsys):
    rc = main(["gemm", "--arch", "gfx942", "-m", "16", "-n", "16", "-k", "16",
               "--perf-config", "v4:1,2,3"])
    err = capsys.readouterr().err.strip()
    assert rc == 1 and "error:" in err and "\n" not in err


HOST = """module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @scale(%X: memref<4x8xf32>) kernel {
      %t = gpu.thread_id x
      %b = gpu.block_id x
      %v = memref.load %X[%b, %t] : memref<4x8xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %X[%b, %t] : memref<4x8xf32>
      gpu.return
    }
  }
  func.func @main(%x: memref<4x8xf32>, %y: memref<2xf32>) {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    gpu.launch_func @m::@scale blocks in (%c4, %c1, %c1) threads in (%c8, %c1, %c1) args(%x : memref<4x8xf32>)
    return
  }
}
"""


def test_host_mode_runs_launches_on_random_inputs(tmp_path, capsys):
    f = tmp_path / "h.mlir"
    f.write_text(HOST)
    rc = main(["host", str(f), "--func", "main", "--seed", "3"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "1 kernel launches" in out and "m::scale: grid (4, 1, 1), block (8, 1, 1)" in out
    assert "argument #0 (4x8xf32): 32 elements changed" in out
    assert "argument #1 (2xf32): unchanged" in out


def test_host_mode_unknown_function_is_one_line(tmp_path, capsys):
    f = tmp_path / "h.mlir"
    f.write_text(HOST)
    rc = main(["host", str(f), "--func", "nope"])
    err = capsys.readouterr().err.strip()
    assert rc == 1 and "no func.func @nope" in err and "\n" not in err


def test_gemm_mode_unsupported_types_have_no_position(capsys):
    rc = main(["gemm", "--arch", "gfx942", "-m", "8", "-n", "8", "-k", "8",
               "--out-type", "i32"])
    err = capsys.readouterr().err.strip()
    assert rc == 1 and err.startswith("accel-run: error: output type i32 is not supported")
