"""accel-layout end to end: operands rewritten into the accel layout at run time (pack
kernels and the GEMM in one host function), a constant weight packed at compile time,
and C produced in the accel layout (unpack kernel), all run in the simulator."""

from __future__ import annotations

import re

import numpy as np
import pytest

from accel.api import compile_module, gemm_module_text
from accel.bindings import ir, new_context
from accel.check import check_gemm, compare, random_operand, reference
from accel.dialect.accel_tile import AccelTile, pack, unpack
from accel.dialect.element_types import NUMPY_TYPES
from accel.dialect.gemm import GemmOp
from accel.dialect.ir_helpers import collect_ops
from accel.pipelines.textual import run_pipeline
from accel.sim import run_host

ARCHES = ("gfx942", "gfx1100", "gfx1201")
REST = "accel-lower-pack, accel-plan-kernel, accel-gemm-to-gpu"


def plain_gemm(arch, g, m, n, k, t, out, trans_a=False, trans_b=False, perf_config=None):
    return gemm_module_text(arch, g=g, m=m, n=n, k=k, in_type=t, out_type=out,
                            trans_a=trans_a, trans_b=trans_b, a_layout="row", b_layout="row",
                            perf_config=perf_config, accumulate=False)


def kernels_of(report) -> list[str]:
    """Which kind of kernel each launch ran, from the symbol names the passes give."""
    return [re.match(r"accel_(un)?pack(_t)?|accel_gemm", launch.kernel.split("::")[1])[0]
            for launch in report.launches]


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("t,out,trans_a", [("f16", "f16", True), ("i8", "i32", False)])
def test_runtime_operands_packed_by_kernels(arch, t, out, trans_a):
    g, m, n, k = 2, 50, 40, 70            # ragged: the packs zero-fill D and K padding
    with new_context():
        module = ir.Module.parse(plain_gemm(arch, g, m, n, k, t, out, trans_a=trans_a))
        run_pipeline(module, f"accel-affix-perf-config, accel-layout{{a=accel b=accel}}, {REST}")
        rng = np.random.default_rng(20)
        a = random_operand(rng, t, (g, m, k))
        b = random_operand(rng, t, (g, k, n))
        a_arg = np.ascontiguousarray(a.transpose(0, 2, 1)) if trans_a else a
        c = np.full((g, m, n), np.nan if out != "i32" else 7777, dtype=NUMPY_TYPES[out])
        report = run_host(module, "gemm", [a_arg, b, c], arch=arch)
    assert kernels_of(report) == ["accel_pack_t" if trans_a else "accel_pack",
                                  "accel_pack_t", "accel_gemm"]
    ref, tol = reference(a, b, t, out)
    result = compare(c, ref, tol)
    assert result.ok, result.describe(c, ref)


def global_text(name: str, values: np.ndarray, t: str) -> str:
    shape = "x".join(map(str, values.shape))
    raw = values.tobytes().hex().upper()
    return f'memref.global "private" constant @{name} : memref<{shape}x{t}> = dense<"0x{raw}">\n'


@pytest.mark.parametrize("arch,t", [("gfx942", "f16"), ("gfx1100", "bf16")])
def test_constant_weight_packed_at_compile_time(arch, t):
    g, m, n, k = 1, 40, 36, 50
    rng = np.random.default_rng(21)
    w = random_operand(rng, t, (g, k, n))
    text = plain_gemm(arch, g, m, n, k, t, "f32")
    # B becomes a constant global read by memref.get_global.
    text = text.replace(f"%b: memref<1x{k}x{n}x{t}>, ", "").replace(
        "{\n", f"{{\n  %b = memref.get_global @w : memref<1x{k}x{n}x{t}>\n", 1)
    with new_context():
        module = ir.Module.parse(global_text("w", w, t) + text)
        run_pipeline(module, f"accel-affix-perf-config, accel-layout, {REST}")
        assert "@w_accel" in str(module)
        a = random_operand(rng, t, (g, m, k))
        c = np.full((g, m, n), np.nan, dtype=np.float32)
        report = run_host(module, "gemm", [a, c], arch=arch)
    assert kernels_of(report) == ["accel_gemm"], "no pack kernel runs for a constant"
    ref, tol = reference(a, w, t, "f32")
    result = compare(c, ref, tol)
    assert result.ok, result.describe(c, ref)


@pytest.mark.parametrize("arch", ARCHES)
def test_c_in_accel_layout_unpacked_by_kernel(arch):
    g, m, n, k = 1, 50, 40, 32
    with new_context():
        module = ir.Module.parse(plain_gemm(arch, g, m, n, k, "f16", "f32"))
        run_pipeline(module, f"accel-affix-perf-config, accel-layout{{c=accel}}, {REST}")
        rng = np.random.default_rng(22)
        a = random_operand(rng, "f16", (g, m, k))
        b = random_operand(rng, "f16", (g, k, n))
        c = np.full((g, m, n), np.nan, dtype=np.float32)
        report = run_host(module, "gemm", [a, b, c], arch=arch)
    assert kernels_of(report) == ["accel_gemm", "accel_unpack"]
    ref, tol = reference(a, b, "f16", "f32")
    result = compare(c, ref, tol)
    assert result.ok, result.describe(c, ref)


@pytest.mark.parametrize("arch", ARCHES)
def test_check_gemm_with_accel_operands_from_the_caller(arch):
    """The accel-run gemm path: A and B handed over already packed (api a/b_layout)."""
    cfg = "v4:32,32,4,16,16,16,8,1,1,2,0,0,1,1"
    r = check_gemm(arch, g=2, m=33, n=20, k=40, in_type="f16", out_type="f32",
                   a_layout="accel", b_layout="accel", perf_config=cfg, seed=23)
    assert r.comparison.ok, r.comparison.describe(r.got, r.ref)
    assert len(r.launches) == 1 and r.perf_config == cfg


CHAIN_CONFIG = "v4:32,32,4,16,16,16,8,1,1,2,0,0,1,1"   # mPB 32, kPB 4 x 8 = 32


def chain_module_text(arch: str, m: int, k1: int, n1: int, n2: int) -> str:
    """Seed 001's chain with a ragged M: A1 arrives in the accel layout (6-D, M padded to
    64) and is read through transpose + reshape + a subview of its first m rows; gemm 1
    (bias_relu) writes C1 in the accel layout, which gemm 2 reads as its A."""
    pm, pk = -(-m // 32) * 32, k1
    a6 = f"memref<1x{pm // 32}x{pk // 32}x4x32x8xf16>"
    at = f"memref<1x{pm // 32}x32x{pk // 32}x4x8xf16"
    c6 = f"memref<1x{pm // 32}x{-(-n1 // 32)}x4x32x8xf16>"
    strides = f"[{pm * pk}, {32 * pk}, 8, 1024, 256, 1]"
    return f"""
func.func @chain(%a6: {a6}, %b1: memref<1x{k1}x{n1}xf16>, %c1: {c6}, %bias: memref<{n1}xf16>,
                 %b2: memref<1x{n1}x{n2}xf16>, %c2: memref<1x{m}x{n2}xf32>) {{
  %t = memref.transpose %a6 (g, db, kb, kq, dp, kk) -> (g, db, dp, kb, kq, kk) : {a6} to {at}, strided<{strides}>>
  %abuf = memref.alloc() : {at}>
  memref.copy %t, %abuf : {at}, strided<{strides}>> to {at}>
  %a64 = memref.collapse_shape %abuf [[0], [1, 2], [3, 4, 5]] : {at}> into memref<1x{pm}x{pk}xf16>
  %rows = memref.subview %a64[0, 0, 0] [1, {m}, {pk}] [1, 1, 1] : memref<1x{pm}x{pk}xf16> to memref<1x{m}x{pk}xf16, strided<[{pm * pk}, {pk}, 1]>>
  %a1 = memref.alloc() : memref<1x{m}x{pk}xf16>
  memref.copy %rows, %a1 : memref<1x{m}x{pk}xf16, strided<[{pm * pk}, {pk}, 1]>> to memref<1x{m}x{pk}xf16>
  "accel.gemm"(%a1, %b1, %c1, %bias) {{arch = "{arch}", c_layout = "accel", epilogue = "bias_relu", perf_config = "{CHAIN_CONFIG}"}} : (memref<1x{m}x{pk}xf16>, memref<1x{k1}x{n1}xf16>, {c6}, memref<{n1}xf16>) -> ()
  "accel.gemm"(%c1, %b2, %c2) {{arch = "{arch}", a_layout = "accel", perf_config = "{CHAIN_CONFIG}"}} : ({c6}, memref<1x{n1}x{n2}xf16>, memref<1x{m}x{n2}xf32>) -> ()
  memref.dealloc %abuf : {at}>
  memref.dealloc %a1 : memref<1x{m}x{pk}xf16>
  return
}}
"""


@pytest.mark.parametrize("arch", ARCHES)
def test_accel_layout_chain_bias_relu_keeps_padding_rows_zero(arch):
    """accel-layout folds gemm 1's A (seed 001's chain, 45 of 64 rows): A and C are then
    both 6-D, so M = 45 is recorded as `m`. Without it the kernel took M = 64 and wrote
    relu(bias) into C1's padding rows 45..63; they must be exactly 0, as accel.pack would
    leave them, for C1 to be an accel-layout operand. C1 starts as NaN, so an unwritten
    element shows."""
    m, k1, n1, n2 = 45, 64, 48, 24
    text = chain_module_text(arch, m, k1, n1, n2)
    # The library compiles both gemms for the true M (its metadata's shape).
    shapes = [k.metadata["shape"]["m"] for k in compile_module(text).kernels]
    assert shapes == [m, m]
    tile = AccelTile(32, 4, 8)
    with new_context():
        module = ir.Module.parse(text)
        run_pipeline(module, "accel-affix-perf-config, accel-layout")
        first, second = (GemmOp(op) for op in collect_ops(module, GemmOp.OP_NAME))
        assert (first.a_layout, first.c_layout, first.exact_m) == ("accel", "accel", m)
        assert second.exact_m is None
        run_pipeline(module, REST)
        rng = np.random.default_rng(31)
        a, b1, b2 = (random_operand(rng, "f16", s) for s in ((1, m, k1), (1, k1, n1),
                                                             (1, n1, n2)))
        bias = random_operand(rng, "f16", (n1,))
        c1 = np.full(tile.shape(1, m, n1), np.nan, np.float16)
        c2 = np.full((1, m, n2), np.nan, np.float32)
        run_host(module, "chain", [pack(a, tile), b1, c1, bias, b2, c2], arch=arch)
    padding = ~pack(np.ones((1, m, n1), np.int8), tile).astype(bool)
    assert (c1[padding] == 0).all(), "C1's accel-layout padding is not zero"
    mid = unpack(c1, m, n1)
    ref, tol = reference(a, b1, "f16", "f16", bias=bias, relu=True)
    result = compare(mid, ref, tol)
    assert result.ok, result.describe(mid, ref)
    ref, tol = reference(mid, b2, "f16", "f32")
    result = compare(c2, ref, tol)
    assert result.ok, result.describe(c2, ref)
