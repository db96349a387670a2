"""outputSwizzle 1: C through LDS (codegen/c_staging.py), simulated and checked elementwise.

Every case runs the same GEMM with outputSwizzle 0 too: the staged kernel must agree
with numpy element for element, and its LDS accesses must add no bank-conflict clocks
to the ones the k-tile loop already has (the simulator's bank model, sim/lds.py).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from accel import compile_gemm
from accel.check import check_gemm
from accel.dialect.perf_config import PerfConfig
from accel.diagnostics import AccelError

from test_codegen import check, wave_config
from test_split_k import assert_close, run as run_split

# (arch, in type, out type, perf config with outputSwizzle {}): every chip, both gfx942
# MFMA sizes, every element type and output type, one pass and several, whole rows and
# narrower blocks (the 128x256 tiles), the operand buffer as it is and grown.
CASES = [
    ("gfx942", "f16", "f16", "v4:64,64,4,32,32,16,8,1,1,{},0,0,1,1"),
    ("gfx942", "f16", "f32", "v4:64,64,4,32,32,16,8,1,1,{},0,0,1,1"),
    ("gfx942", "bf16", "bf16", "v4:64,64,4,32,32,32,8,1,1,{},0,0,1,1"),
    ("gfx942", "bf16", "f32", "v4:64,32,4,32,32,32,8,1,2,{},0,0,1,1"),
    ("gfx942", "i8", "i32", "v4:64,64,2,32,32,16,16,1,1,{},0,0,1,1"),
    ("gfx942", "f32", "f32", "v4:32,32,8,16,16,16,1,1,1,{},0,0,1,1"),
    ("gfx942", "f8E4M3FNUZ", "f16", "v4:64,64,8,32,32,32,16,1,1,{},0,0,1,1"),
    ("gfx942", "f16", "f16", "v4:128,64,4,128,32,32,8,1,1,{},0,0,1,1"),
    ("gfx942", "f16", "f32", "v4:48,48,4,48,48,16,8,1,1,{},0,0,1,1"),
    ("gfx942", "f16", "f16", "v4:128,256,4,64,64,32,8,1,1,{},0,0,1,1"),
    ("gfx1100", "f16", "f16", "v4:64,64,4,32,32,16,8,1,1,{},0,0,1,1"),
    ("gfx1100", "bf16", "f32", "v4:64,64,4,64,32,16,8,1,2,{},0,0,1,1"),
    ("gfx1100", "i8", "i32", "v4:32,64,2,16,32,16,16,1,1,{},0,0,1,1"),
    ("gfx1201", "f16", "f32", "v4:64,64,4,32,32,16,8,1,1,{},0,0,1,1"),
    ("gfx1201", "f16", "f16", "v4:128,256,2,64,64,16,8,1,1,{},0,0,1,1"),
    ("gfx1201", "bf16", "bf16", "v4:32,32,4,16,16,16,8,1,1,{},0,0,1,1"),
    ("gfx1201", "i8", "i32", "v4:64,32,2,32,16,16,16,1,1,{},0,0,1,1"),
    ("gfx1201", "f8E5M2", "f32", "v4:64,64,2,32,32,16,16,1,1,{},0,0,1,1"),
]


def conflicts(r) -> int:
    return sum(sum(launch.report.bank_conflicts.values()) for launch in r.launches)


def lds_ops(r) -> int:
    return sum(len(launch.report.bank_conflicts) for launch in r.launches)


@pytest.mark.parametrize("arch,in_t,out_t,cfg", CASES)
@pytest.mark.parametrize("n", [59, 64])
def test_staged_c_matches_numpy_without_bank_conflicts(arch, in_t, out_t, cfg, n):
    """G = 2, ragged M; N = 59 stores single elements (N odd), 64 whole vectors."""
    runs = [check_gemm(arch, g=2, m=77, n=n, k=40, in_type=in_t, out_type=out_t,
                       perf_config=cfg.format(swizzle), seed=1) for swizzle in (1, 0)]
    staged, plain = runs
    assert staged.comparison.ok, staged.comparison.describe(staged.got, staged.ref)
    assert lds_ops(staged) > lds_ops(plain)          # the staging's LDS writes and reads
    assert conflicts(staged) == conflicts(plain)


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100", "gfx1201"])
@pytest.mark.parametrize("epilogue,batched", [("bias", False), ("bias_relu", True),
                                              ("relu", False)])
def test_staged_c_after_the_fused_epilogue(arch, epilogue, batched):
    """The op list runs in the accumulators before the staging: bias [N] or [G, N]
    loads masked at ragged N, relu, f16 out."""
    cfg = "v4:64,64,4,32,32,16,8,1,1,1,0,0,1,1"
    r = check_gemm(arch, g=2, m=45, n=36, k=40, out_type="f16", perf_config=cfg,
                   epilogue=epilogue, batched_bias=batched, seed=2)
    assert r.comparison.ok, r.comparison.describe(r.got, r.ref)


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100", "gfx1201"])
@pytest.mark.parametrize("in_t,out_t", [("f16", "f16"), ("i8", "i32")])
def test_staged_c_with_accumulate(arch, in_t, out_t):
    """C += A*B + bias: C_old is read where the accumulators sit, the sum staged."""
    kpack = 8 if in_t != "i8" else 16
    cfg = wave_config(arch, in_t, 32, 64, 4 if in_t != "i8" else 2, kpack)
    check(arch, in_t, out_t, 2, 40, 50, 64, cfg=cfg.replace(output_swizzle=1),
          accumulate=True, epilogue="bias")


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100", "gfx1201"])
def test_split_k_partials_are_staged(arch):
    """The partial kernel stages its accumulator-typed workspace rows; the reduction
    applies the epilogue."""
    cfg = PerfConfig.parse("v4:32,32,4,16,16,16,8,3,1,1,0,0,1,1", "mfma")
    got, ref, tol, launches, kernel = run_split(arch, "f16", "f16", 2, 37, 50, 200, 3,
                                                cfg=cfg, epilogue="bias_relu")
    assert_close(got, ref, tol)
    assert len(launches) == 2 and kernel.c_staging is not None


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100", "gfx1201"])
def test_staged_c_in_the_grouped_grid_order(arch):
    """gridGroupSize 3 moves the workgroup's tile (codegen/grid_order.py); the staged
    rows follow it."""
    r = check_gemm(arch, m=150, n=97, k=48, out_type="f32", seed=4,
                   perf_config="v4:32,32,4,16,16,16,8,1,1,1,0,3,1,1")
    assert r.comparison.ok, r.comparison.describe(r.got, r.ref)


def stores(asm: str) -> dict[str, int]:
    """Global store instructions of an assembly listing, by mnemonic."""
    found: dict[str, int] = {}
    for name in re.findall(r"^\s+((?:buffer|global)_store_\w+)", asm, re.M):
        found[name] = found.get(name, 0) + 1
    return found


def test_mfma_16x16_with_a_16_bit_c_stores_128_bit_vectors():
    """MFMA 16x16 leaves a lane 4 columns of a row (64 bits of f16); staged, a lane
    stores 128 bits of a row: half the store instructions (per k-tile loop exit)."""
    cfg = "v4:64,64,4,32,32,16,8,1,1,{},0,0,1,1"
    asm = [compile_gemm("gfx942", m=512, n=512, k=256, perf_config=cfg.format(s),
                        out_type="f16").kernels[0].assembly for s in (0, 1)]
    assert stores(asm[0]) == {"buffer_store_dwordx2": 4}
    assert stores(asm[1]) == {"buffer_store_dwordx4": 2}


def test_staging_grows_lds_only_when_one_mma_tile_of_rows_does_not_fit():
    """32 rows x 64 columns of f32 for each of 4 waves (32 KB) do not fit A's 8 KB tile
    buffer: it grows, within gfx942's 64 KB; 16-row MMA tiles of f16 fit."""
    big = compile_gemm("gfx942", m=256, n=256, k=64, out_type="f32",
                       perf_config="v4:128,128,4,64,64,32,8,1,1,1,0,0,1,1")
    plain = compile_gemm("gfx942", m=256, n=256, k=64, out_type="f32",
                         perf_config="v4:128,128,4,64,64,32,8,1,1,0,0,0,1,1")
    small = [compile_gemm("gfx942", m=256, n=256, k=64, out_type="f16",
                          perf_config=f"v4:64,64,4,32,32,16,8,1,1,{s},0,0,1,1") for s in (0, 1)]
    lds = lambda r: r.kernels[0].metadata["lds_bytes"]
    assert lds(plain) < lds(big) <= 64 * 1024
    assert lds(small[0]) == lds(small[1])


def test_same_input_same_bytes():
    cfg = "v4:64,64,4,32,32,16,8,1,1,1,0,0,1,1"
    a, b = (compile_gemm("gfx1201", m=77, n=60, k=64, perf_config=cfg, assembly=False)
            .kernels[0].code_object for _ in range(2))
    assert a == b


@pytest.mark.parametrize("kwargs,message", [
    (dict(perf_config="v4:256,256,2,64,64,32,4,1,1,1,0,0,1,1"), "bytes of LDS"),
])
def test_unbuildable_staging_is_a_one_line_diagnostic(kwargs, message):
    args = dict(m=256, n=256, k=64, out_type="f32",
                perf_config="v4:64,64,4,32,32,16,8,1,1,1,0,0,1,1")
    args.update(kwargs)
    with pytest.raises(AccelError) as e:
        compile_gemm("gfx942", **args)
    assert message in str(e.value) and "\n" not in str(e.value)
