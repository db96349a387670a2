"""accel-layout end to end: operands rewritten into the accel layout at run time (pack
kernels and the GEMM in one host function), a constant weight packed at compile time,
and C produced in the accel layout (unpack kernel), all run in the simulator."""

from __future__ import annotations

import re

import numpy as np
import pytest

from accel.api import gemm_module_text
from accel.bindings import ir, new_context
from accel.check import check_gemm, compare, random_operand, reference
from accel.dialect.element_types import NUMPY_TYPES
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
