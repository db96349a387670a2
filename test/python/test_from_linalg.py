"""accel-from-linalg through the Python API: layouts, accumulate, and the arch option."""

import pytest

from accel.bindings import ir, new_context
from accel.diagnostics import AccelError
from accel.dialect.gemm import GemmOp
from accel.dialect.ir_helpers import collect_ops
from accel.pipelines.textual import run_pipeline

MAPS = {
    ("row", "row"): "",
    ("transposed", "row"): "indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, "
                           "affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]",
    ("row", "transposed"): "indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, "
                           "affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]",
}


def gemm_of(src: str, arch: str = "gfx1100") -> GemmOp:
    with new_context():
        module = ir.Module.parse(src)
        run_pipeline(module, f"accel-from-linalg{{arch={arch}}}")
        module.operation.verify()
        (op,) = collect_ops(module, "accel.gemm")
        g = GemmOp(op)
        g.verify()
        return g.a_layout, g.b_layout, g.accumulate, g.shape()


@pytest.mark.parametrize("layouts", list(MAPS))
def test_matmul_layouts(layouts):
    a_t = "memref<32x64xf16>" if layouts[0] == "transposed" else "memref<64x32xf16>"
    b_t = "memref<48x32xf16>" if layouts[1] == "transposed" else "memref<32x48xf16>"
    src = f"""func.func @f(%a: {a_t}, %b: {b_t}, %c: memref<64x48xf32>) {{
      linalg.matmul {MAPS[layouts]} ins(%a, %b : {a_t}, {b_t}) outs(%c : memref<64x48xf32>)
      return }}"""
    a, b, acc, shape = gemm_of(src)
    assert (a, b, acc) == (*layouts, True)
    assert (shape.g, shape.m, shape.n, shape.k) == (1, 64, 48, 32)


def test_zero_fill_means_overwrite():
    src = """func.func @f(%a: memref<2x8x4xbf16>, %b: memref<2x4x16xbf16>, %c: memref<2x8x16xf32>) {
      %z = arith.constant 0.0 : f32
      linalg.fill ins(%z : f32) outs(%c : memref<2x8x16xf32>)
      linalg.batch_matmul ins(%a, %b : memref<2x8x4xbf16>, memref<2x4x16xbf16>) outs(%c : memref<2x8x16xf32>)
      return }"""
    assert gemm_of(src)[2] is False


def test_fill_followed_by_another_writer_keeps_accumulate():
    src = """func.func @f(%a: memref<2x8x4xbf16>, %b: memref<2x4x16xbf16>, %c: memref<2x8x16xf32>, %d: memref<2x8x16xf32>) {
      %z = arith.constant 0.0 : f32
      linalg.fill ins(%z : f32) outs(%c : memref<2x8x16xf32>)
      memref.copy %d, %c : memref<2x8x16xf32> to memref<2x8x16xf32>
      linalg.batch_matmul ins(%a, %b : memref<2x8x4xbf16>, memref<2x4x16xbf16>) outs(%c : memref<2x8x16xf32>)
      return }"""
    assert gemm_of(src)[2] is True


def test_unknown_arch_is_an_error():
    with pytest.raises(AccelError):
        gemm_of("func.func @f() { return }", arch="gfx000")
