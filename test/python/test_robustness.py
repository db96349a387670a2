"""Bad input, as a demanding user gives it, to every tool and to the library.

DESIGN.md's "Errors" rule: bad input gets a one-line diagnostic (`file:line:col: error:`
where there is a position, else `tool: error:`) and a non-zero exit, never a Python
traceback and never a partly written output file. The exit codes are 1 for an error
in the input and 2 for a command-line usage error (argparse's convention), both one
line. The library raises only AccelError.

Most cases run the tools' `main` in-process (a traceback there is an exception out of
`main`); one subprocess per kind of failure checks what a shell really sees.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import accel
from accel.diagnostics import AccelError
from accel.tools import accel_compile, accel_opt, accel_run, accel_select

LIT = Path(__file__).resolve().parents[1] / "lit"
SEED_001 = (LIT / "from-migraphx" / "Inputs" / "seed001_gemm.mlir").read_text()
TOOLS = {"accel-opt": accel_opt.main, "accel-compile": accel_compile.main,
         "accel-run": accel_run.main, "accel-select": accel_select.main}
CONFIG = "v4:32,32,4,16,16,16,8,1,1,2,0,0,1,1"
GEMM_FLAGS = ["--arch", "gfx942", "-m", "64", "-n", "48", "-k", "32"]
# One diagnostic: `file:line:col: error: ...` or `tool: error: ...`; MLIR may add notes.
ERROR_LINE = re.compile(r"^(\S.*?:\d+:\d+|[\w-]+): error: \S")
NOTE_LINE = re.compile(r"^\S.*?:\d+:\d+: note: ")


def gemm_text(ta="memref<1x64x32xf16>", tb="memref<1x32x48xf16>", tc="memref<1x64x48xf32>",
              attrs='arch = "gfx942"') -> str:
    return (f"func.func @g(%a: {ta}, %b: {tb}, %c: {tc}) {{\n"
            f'  "accel.gemm"(%a, %b, %c) {{{attrs}}} : ({ta}, {tb}, {tc}) -> ()\n'
            f"  return\n}}\n")


# ---- running the tools --------------------------------------------------------------
def run_main(tool: str, argv: list[str]) -> tuple[int, str, str]:
    """(exit code, stderr, stdout) of a tool's main, in-process; argparse's exit too."""
    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        try:
            rc = TOOLS[tool](argv)
        except SystemExit as e:
            rc = e.code
    return rc, err.getvalue(), out.getvalue()


def run_process(tool: str, argv: list[str], stdin: bytes = b"") -> tuple[int, str, str]:
    module = "accel.tools." + tool.replace("-", "_")
    p = subprocess.run([sys.executable, "-m", module, *argv], input=stdin,
                       capture_output=True, timeout=120)
    return p.returncode, p.stderr.decode(errors="replace"), p.stdout.decode(errors="replace")


def run_on_text(tool: str, tmp: Path, text: str, *argv: str) -> tuple[int, str, str]:
    path = tmp / "input.mlir"
    path.write_text(text)
    return run_main(tool, [str(path), *argv])


def assert_one_error(rc: int, err: str, code: int = 1) -> str:
    """The failure is exit `code` and one error line (plus MLIR's notes); returns it."""
    assert "Traceback" not in err
    lines = err.strip("\n").split("\n")
    assert rc == code, err
    assert ERROR_LINE.match(lines[0]), err
    assert all(NOTE_LINE.match(ln) for ln in lines[1:]), err
    return lines[0]


def files_in(path: Path) -> list[str]:
    return sorted(p.name for p in path.iterdir()) if path.exists() else []


# ---- the library --------------------------------------------------------------------
@pytest.mark.parametrize("memref_type", [
    "memref<1x64x32xf16, strided<[4096, 64, 1]>>",            # rows with gaps
    "memref<1x64x32xf16, strided<[2048, 32, 1], offset: 8>>",  # an offset view
    "memref<1x64x32xf16, affine_map<(g, m, k) -> (g, k, m)>>",  # a permuted layout map
    "memref<1x64x32xf16, 3>",                                   # LDS, not global memory
    "memref<1x64x32xf16, #gpu.address_space<global>>",
])
def test_gemm_operand_must_be_a_plain_global_buffer(memref_type):
    # A kernel takes a bare pointer and indexes it row-major: a view would be misread.
    with pytest.raises(AccelError, match="A must be (a contiguous row-major memref|in the "
                                         "default .global. memory space)"):
        accel.compile_module(gemm_text(ta=memref_type), assembly=False)


def test_contiguous_strided_spelling_is_a_plain_buffer():
    # The same buffer as memref<1x64x32xf16>, with the strides written out.
    ta = "memref<1x64x32xf16, strided<[2048, 32, 1]>>"
    assert accel.compile_module(gemm_text(ta=ta), assembly=False).kernels


def test_pack_operand_must_be_a_plain_global_buffer(tmp_path):
    text = ("func.func @f(%a: memref<1x64x32xf16, strided<[4096, 64, 1]>>, "
            "%b: memref<1x2x1x4x32x8xf16>) {\n"
            '  "accel.pack"(%a, %b) {transposed = false} : (memref<1x64x32xf16, '
            "strided<[4096, 64, 1]>>, memref<1x2x1x4x32x8xf16>) -> ()\n  return\n}\n")
    rc, err, _ = run_on_text("accel-opt", tmp_path, text)
    assert "plain operand must be a contiguous row-major memref" in assert_one_error(rc, err)
