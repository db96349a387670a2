"""A dot's result returned through a wider stride or a transpose is written by the gemm
in place, through a strided view of the out-parameter (accel.migraphx.boundary
Boundary.strided_out): no temporary, no accel.copy, one kernel launch; exact against
numpy in the simulator on every chip. The three functions are the MIGraphX corpus's
(rocMLIR's MIGraphXToTosa/migraphx-to-tosa-non-contiguous-strides.mlir #0 and #1,
fusion/pr-e2e/mixr-gemm/mixr-gemm-transpose.e2e.mlir), with the arch filled in.

Every element of the out-parameter's buffer outside the result's view holds NaN and
must keep it: the kernel writes the view's elements and nothing else."""

from __future__ import annotations

import numpy as np
import pytest

from accel.bindings import ir, new_context
from accel.check import OUT_EPS, compare, random_operand, reference
from accel.dialect.element_types import NUMPY_TYPES
from accel.dialect.ir_helpers import collect_ops
from accel.migraphx import translate
from accel.pipelines.textual import run_pipeline
from accel.sim import run_host

ARCHES = ("gfx942", "gfx1100", "gfx1201")
FRONT = "accel-from-migraphx"
REST = ("accel-affix-perf-config, accel-layout, accel-lower-pack, accel-plan-kernel, "
        "accel-gemm-to-gpu, accel-copy-to-gpu")

SIGMOID_WIDE_BATCH = """
func.func @mlir_dot_sigmoid(%arg0: !migraphx.shaped<4x24x16xf16, 384x16x1>, %arg1: !migraphx.shaped<4x16x24xf16, 384x24x1>) -> !migraphx.shaped<4x24x24xf16, 1152x24x1> attributes {kernel = "mixr", arch = "##ARCH##"} {
  %0 = migraphx.dot %arg0, %arg1 : <4x24x16xf16, 384x16x1>, <4x16x24xf16, 384x24x1> -> <4x24x24xf16, 576x24x1>
  %1 = migraphx.sigmoid %0 : <4x24x24xf16, 576x24x1> -> <4x24x24xf16, 1152x24x1>
  return %1 : !migraphx.shaped<4x24x24xf16, 1152x24x1>
}
"""

SIGMOID_RAGGED = """
func.func @mlir_dot_sigmoid(%arg0: !migraphx.shaped<4x5x16xf16, 80x16x1>, %arg1: !migraphx.shaped<4x16x24xf16, 384x24x1>) -> !migraphx.shaped<4x5x24xf16, 288x24x1> attributes {arch = "##ARCH##", kernel = "mixr", num_cu = 32 : i64} {
  %0 = migraphx.dot %arg0, %arg1 : <4x5x16xf16, 80x16x1>, <4x16x24xf16, 384x24x1> -> <4x5x24xf16, 120x24x1>
  %1 = migraphx.sigmoid %0 : <4x5x24xf16, 120x24x1> -> <4x5x24xf16, 288x24x1>
  return %1 : !migraphx.shaped<4x5x24xf16, 288x24x1>
}
"""

TRANSPOSE = """
func.func @dot_transpose(%arg0: !migraphx.shaped<1x5x4xf32, 20x4x1>, %arg1: !migraphx.shaped<1x4x3xf32, 12x3x1>) -> !migraphx.shaped<1x3x5xf32, 15x5x1> attributes{kernel, arch = "##ARCH##"} {
  %0 = migraphx.dot %arg0, %arg1 : <1x5x4xf32, 20x4x1>, <1x4x3xf32, 12x3x1> -> <1x5x3xf32, 15x3x1>
  %2 = migraphx.transpose %0 {permutation = [0:i64, 2:i64, 1:i64]} : <1x5x3xf32, 15x3x1> -> <1x3x5xf32, 15x5x1>
  return %2 : !migraphx.shaped<1x3x5xf32, 15x5x1>
}
"""

# (text, A, B, the result's shape, strides, the C type the gemm writes, sigmoid?)
CASES = {
    "wide_batch": (SIGMOID_WIDE_BATCH, (4, 24, 16), (4, 16, 24), (4, 24, 24), (1152, 24, 1),
                   "memref<4x24x24xf16, strided<[1152, 24, 1]>>", True),
    "ragged": (SIGMOID_RAGGED, (4, 5, 16), (4, 16, 24), (4, 5, 24), (288, 24, 1),
               "memref<4x5x24xf16, strided<[288, 24, 1]>>", True),
    "transpose": (TRANSPOSE, (1, 5, 4), (1, 4, 3), (1, 3, 5), (15, 5, 1),
                  "memref<1x5x3xf32, strided<[15, 1, 5]>>", False),
}


def arch_cases():
    # f32 dots have no MMA instruction on the WMMA chips.
    return [(arch, name) for name in CASES for arch in ARCHES
            if not (name == "transpose" and arch != "gfx942")]


@pytest.mark.parametrize("arch,name", arch_cases())
def test_result_written_in_place(arch, name):
    text, a_shape, b_shape, shape, strides, c_type, sigmoid = CASES[name]
    t = "f32" if name == "transpose" else "f16"
    rng = np.random.default_rng(3)
    a, b = random_operand(rng, t, a_shape), random_operand(rng, t, b_shape)
    size = sum((d - 1) * s for d, s in zip(shape, strides)) + 1
    with new_context():
        module = ir.Module.parse(translate(text.replace("##ARCH##", arch), "input.mlir"))
        run_pipeline(module, FRONT)
        converted = str(module)
        assert "accel.copy" not in converted and "memref.alloc" not in converted
        (gemm,) = collect_ops(module, "accel.gemm")
        assert str(gemm.operands[2].type) == c_type
        run_pipeline(module, REST)
        (launch,) = collect_ops(module, "gpu.launch_func")
        assert "accel_gemm" in str(launch.attributes["kernel"])
        # A packed result crosses in its own shape, a strided one as a flat buffer.
        packed = size == int(np.prod(shape))
        out = np.full(shape if packed else (size,), np.nan, dtype=NUMPY_TYPES[t])
        func_name = ir.StringAttr(collect_ops(module, "func.func")[0].attributes["sym_name"])
        run_host(module, func_name.value, [a, b, out], arch=arch)
    flat = out.reshape(-1)
    got = np.lib.stride_tricks.as_strided(flat, shape, [s * flat.itemsize for s in strides])
    ref, tol = reference(a, b, t, "f32")
    if sigmoid:
        ref = 1 / (1 + np.exp(-ref))
        tol = tol / 4 + OUT_EPS["f16"] * np.abs(ref) + 2.0**-24
    else:
        ref, tol = ref.transpose(0, 2, 1), np.broadcast_to(tol, ref.shape).transpose(0, 2, 1)
    result = compare(np.array(got), ref, tol)
    assert result.ok, result.describe(np.array(got), ref)
    inside = np.zeros(flat.size, dtype=bool)
    np.lib.stride_tricks.as_strided(inside, shape, strides)[...] = True
    assert np.isnan(flat[~inside]).all()


UNALIGNED = """
func.func @unaligned(%a: !migraphx.shaped<2x8x16xf16, 128x16x1>, %b: !migraphx.shaped<2x16x8xf16, 128x8x1>) -> !migraphx.shaped<2x8x8xf16, 100x12x1> attributes {arch = "gfx942"} {
  %0 = migraphx.dot %a, %b : <2x8x16xf16, 128x16x1>, <2x16x8xf16, 128x8x1> -> <2x8x8xf16, 100x12x1>
  return %0 : !migraphx.shaped<2x8x8xf16, 100x12x1>
}
"""


def test_unaligned_wider_rows_are_copied():
    """Rows 12 f16 apart (24 bytes) do not align the C stores' vectors: the gemm writes
    a temporary and a copy kernel moves it, saying why."""
    with new_context():
        module = ir.Module.parse(translate(UNALIGNED, "input.mlir"))
        run_pipeline(module, FRONT)
        (copy,) = collect_ops(module, "accel.copy")
        assert "no kernel wrote into its result in place" in str(copy.attributes["reason"])
        (gemm,) = collect_ops(module, "accel.gemm")
        assert "strided" not in str(gemm.operands[2].type)
