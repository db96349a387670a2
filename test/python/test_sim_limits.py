"""accel-run bounds what it simulates: the grid the kernel was built for, an estimated
work limit (refused before anything runs, with a smaller shape to try), progress on a
terminal only, and running out of memory as one line."""

from __future__ import annotations

import io
import os
import resource
import subprocess
import sys

import pytest

from accel.check import check_gemm
from accel.sim import compile_kernel, find_kernel, parse_module
from accel.sim.arch import sim_arch
from accel.sim.run import WorkLimitError
from accel.tools import accel_run
from accel.tools.accel_run import DEFAULT_WORK_LIMIT, Progress, smaller_gemm

from test_robustness import assert_one_error, run_main

LOOP_KERNEL = """module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @loop(%X: memref<64xf32>) kernel attributes {
        known_block_size = array<i32: 64, 1, 1>, known_grid_size = array<i32: 4, 4, 1>} {
      %t = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c10 = arith.constant 10 : index
      scf.for %i = %c0 to %c10 step %c1 {
        %v = memref.load %X[%t] : memref<64xf32>
        %w = arith.addf %v, %v : f32
        memref.store %w, %X[%t] : memref<64xf32>
      }
      gpu.return
    }
  }
}
"""


@pytest.fixture
def loop_file(tmp_path):
    f = tmp_path / "loop.mlir"
    f.write_text(LOOP_KERNEL)
    return f


def test_work_estimate_counts_loop_trips(loop_file):
    module = parse_module(path=str(loop_file))
    with module.context:
        kernel = compile_kernel(find_kernel(module, "loop"), sim_arch("gfx942"))
    # thread_id, 3 constants, the for and its 3-op body 10 times (yield not counted
    # as an op of its own: it is the body's terminator, one more op), gpu.return.
    assert kernel.ops_per_thread == 1 + 3 + 1 + 10 * 4 + 1
    assert kernel.known_grid == (4, 4, 1) and kernel.known_block == (64, 1, 1)
    assert kernel.wave_instructions((4, 4, 1), (64, 1, 1), 64) == 16 * kernel.ops_per_thread


def test_grid_must_be_the_known_grid(loop_file):
    rc, err, _ = run_main("accel-run", [str(loop_file), "--kernel", "loop",
                                        "--grid", "4096,4096,4096"])
    assert ("built for grid (4, 4, 1), launched with (4096, 4096, 4096)"
            in assert_one_error(rc, err))


def test_grid_and_block_default_to_the_known_sizes(loop_file):
    rc, err, out = run_main("accel-run", [str(loop_file), "--kernel", "loop"])
    assert rc == 0, err
    assert "grid (4, 4, 1), block (64, 1, 1)" in out


def test_kernel_over_the_work_limit_is_refused(loop_file):
    rc, err, _ = run_main("accel-run", [str(loop_file), "--kernel", "loop", "--work-limit", "100"])
    line = assert_one_error(rc, err)
    assert "wave-instructions, more than the limit of 100" in line
    assert "--grid" in line and "--work-limit" in line


def test_gemm_over_the_limit_is_refused_fast_with_a_shape_that_fits():
    rc, err, out = run_main("accel-run", ["gemm", "--arch", "gfx942", "-m", "4096", "-n", "4096",
                                          "-k", "4096"])
    line = assert_one_error(rc, err)
    assert line.startswith("accel-run: error: simulator:") and out == ""
    shape = [int(x) for x in line.split("try ")[1].split(",")[0].split()[1::2]]
    assert len(shape) == 3 and max(shape) < 4096
    assert "--work-limit (0 = none)" in line


class Started(Exception):
    pass


def _stop(*_, **__):
    raise Started


@pytest.mark.parametrize("arch, shape", [
    ("gfx942", (1, 4096, 4096, 4096)), ("gfx1100", (1, 4096, 4096, 4096)),
    ("gfx1100", (1, 64, 20000, 4096)), ("gfx1201", (2, 1000, 3000, 2000)),
    ("gfx942", (120000, 16, 16, 16)),
])
def test_the_suggested_shape_is_within_the_limit(arch, shape, monkeypatch):
    """The property behind the message: the shape it names passes the same check (the
    run is stopped where the simulation of its GEMM launch would begin)."""
    g, m, n, k = shape
    with pytest.raises(WorkLimitError) as info:
        check_gemm(arch, g=g, m=m, n=n, k=k, work_limit=DEFAULT_WORK_LIMIT)
    g, m, n, k = smaller_gemm(g, m, n, k, info.value.estimate, info.value.limit)
    monkeypatch.setattr("accel.sim.host_ops.run_compiled", _stop)
    with pytest.raises(Started):
        check_gemm(arch, g=g, m=m, n=n, k=k, work_limit=DEFAULT_WORK_LIMIT)


class FakeTerminal(io.StringIO):
    def __init__(self, tty: bool):
        super().__init__()
        self.tty = tty

    def isatty(self):
        return self.tty


@pytest.mark.parametrize("tty", [True, False])
def test_progress_only_on_a_terminal_and_only_for_long_runs(monkeypatch, tty):
    clock = iter([0.0, 1.0, 5.0, 5.1, 6.0])   # start, then one per call
    monkeypatch.setattr(accel_run.time, "monotonic", lambda: next(clock))
    stream = FakeTerminal(tty)
    p = Progress(stream)
    p("k", 1, 10)      # 1 s in: too early
    p("k", 5, 10)      # 5 s: drawn
    p("k", 6, 10)      # 0.1 s after the last: not redrawn
    p("k", 9, 10)      # drawn
    p.finish()
    text = stream.getvalue()
    if not tty:
        assert text == ""
        return
    lines = text.split("\r")[1:]
    # The rate is this launch's since its first report: 4 workgroups in 4 s, then 8 in 5 s.
    assert len(lines) == 3 and "k: 5/10 workgroups (50%), 5 s, about 5 s of" in lines[0]
    assert "9/10 workgroups (90%), 6 s, about 1 s of" in lines[1] and lines[2] == "\033[K"


HUGE_HOST = """module attributes {gpu.container_module} {
  func.func @main(%a: memref<1073741824xf16>, %b: memref<1073741824xf16>,
                  %c: memref<1073741824xf16>) {
    return
  }
}
"""


@pytest.mark.skipif(not hasattr(resource, "RLIMIT_AS"), reason="needs RLIMIT_AS")
def test_out_of_memory_is_one_line(tmp_path):
    f = tmp_path / "huge.mlir"
    f.write_text(HUGE_HOST)

    def limit_memory():
        # 3 GiB of address space: the tool starts (~1.5 GiB mapped), two 2 GiB
        # operands cannot both be made.
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

    p = subprocess.run([sys.executable, "-m", "accel.tools.accel_run", "host", str(f),
                        "--func", "main"], capture_output=True, timeout=120,
                       preexec_fn=limit_memory, env={**os.environ, "OMP_NUM_THREADS": "1"})
    err = p.stderr.decode()
    assert p.returncode == 1 and "Traceback" not in err, err
    assert err.startswith("accel-run: error: out of memory") and err.count("\n") == 1, err
