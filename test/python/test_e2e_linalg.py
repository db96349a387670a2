"""End to end from linalg: accel-from-linalg -> affix -> layout -> lower-pack ->
gemm-to-gpu, the host function run in the simulator, C checked elementwise."""

from __future__ import annotations

import numpy as np
import pytest

from accel.bindings import ir, new_context
from accel.check import compare, random_operand, reference
from accel.dialect.element_types import NUMPY_TYPES
from accel.pipelines.textual import run_pipeline
from accel.sim import run_host

ARCHES = ("gfx942", "gfx1100", "gfx1201")


def compile_linalg(text: str, arch: str) -> ir.Module:
    module = ir.Module.parse(text)
    run_pipeline(module, f"accel-from-linalg{{arch={arch}}}, accel-affix-perf-config, "
                         "accel-layout, accel-lower-pack, accel-plan-kernel, accel-gemm-to-gpu")
    return module


# Ragged sizes: no tile divides M=50 or N=36.
TENSOR_MATMUL = """
func.func @mm(%a: tensor<50x40xf16>, %b: tensor<40x36xf16>) -> tensor<50x36xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<50x36xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<50x36xf32>) -> tensor<50x36xf32>
  %r = linalg.matmul ins(%a, %b : tensor<50x40xf16>, tensor<40x36xf16>) outs(%f : tensor<50x36xf32>) -> tensor<50x36xf32>
  return %r : tensor<50x36xf32>
}
"""


@pytest.mark.parametrize("arch", ARCHES)
def test_tensor_matmul(arch):
    rng = np.random.default_rng(10)
    a = random_operand(rng, "f16", (50, 40))
    b = random_operand(rng, "f16", (40, 36))
    c = np.full((50, 36), np.nan, dtype=np.float32)   # the result became this out-parameter
    with new_context():
        run_host(compile_linalg(TENSOR_MATMUL, arch), "mm", [a, b, c], arch=arch)
    ref, tol = reference(a[None], b[None], "f16", "f32")
    result = compare(c, ref[0], tol[0])
    assert result.ok, result.describe(c, ref[0])


def batch_transposed_a(t: str, out: str) -> str:
    """batch_matmul with A stored [G, K, M]; on memrefs linalg accumulates into C."""
    return f"""
func.func @bmm(%a: memref<3x24x33x{t}>, %b: memref<3x24x20x{t}>, %c: memref<3x33x20x{out}>) {{
  linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%a, %b : memref<3x24x33x{t}>, memref<3x24x20x{t}>) outs(%c : memref<3x33x20x{out}>)
  return
}}
"""


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("t,out", [("bf16", "f32"), ("i8", "i32")])
def test_batch_matmul_transposed_a_accumulates(arch, t, out):
    rng = np.random.default_rng(11)
    a_kmajor = random_operand(rng, t, (3, 24, 33))
    b = random_operand(rng, t, (3, 24, 20))
    c0 = random_operand(rng, "i8", (3, 33, 20)).astype(NUMPY_TYPES[out])
    c = c0.copy()
    with new_context():
        run_host(compile_linalg(batch_transposed_a(t, out), arch), "bmm", [a_kmajor, b, c],
                 arch=arch)
    ref, tol = reference(a_kmajor.transpose(0, 2, 1), b, t, out, c0=c0)
    result = compare(c, ref, tol)
    assert result.ok, result.describe(c, ref)
