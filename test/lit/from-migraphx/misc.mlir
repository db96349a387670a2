// RUN: accel-opt --accel-from-migraphx %s | FileCheck %s
// 2-D dot (G = 1 through expand_shape), a transposed B, a literal scale broadcast
// over the product and a convert to f16 into the out-parameter: the scale is a scalar
// epilogue operand, the convert C's own conversion; nothing is left on the host.
// CHECK:      memref.global "private" constant @__migraphx_literal_0 : memref<1xf32> = dense<1.250000e-01>
// CHECK:      func.func @misc(%[[A:.*]]: memref<64x32xf16>, %[[B:.*]]: memref<48x32xf16>, %[[OUT:.*]]: memref<64x48xf16>)
// CHECK-NEXT: %[[S:.*]] = memref.get_global @__migraphx_literal_0 : memref<1xf32>
// CHECK-NEXT: %[[A3:.*]] = memref.expand_shape %[[A]] {{\[}}[0, 1], [2]] output_shape [1, 64, 32]
// CHECK-NEXT: %[[B3:.*]] = memref.expand_shape %[[B]] {{\[}}[0, 1], [2]] output_shape [1, 48, 32]
// CHECK-NEXT: %[[C:.*]] = memref.expand_shape %[[OUT]] {{\[}}[0, 1], [2]] output_shape [1, 64, 48]
// CHECK-NEXT: "accel.gemm"(%[[A3]], %[[B3]], %[[C]], %[[S]]) {a_layout = "row", arch = "gfx1201", b_layout = "transposed", c_layout = "row", epilogue = "%0 = mul %acc, %e0", epilogue_operands = [""]}
// CHECK-NOT:  linalg.generic
func.func @misc(%a: !migraphx.shaped<64x32xf16, 32x1>, %b: !migraphx.shaped<48x32xf16, 32x1>) -> !migraphx.shaped<64x48xf16, 48x1> attributes {kernel, arch = "gfx1201"} {
  %bt = migraphx.transpose %b {permutation = [1, 0]} : <48x32xf16, 32x1> -> <32x48xf16, 1x32>
  %0 = migraphx.dot %a, %bt : <64x32xf16, 32x1>, <32x48xf16, 1x32> -> <64x48xf32, 48x1>
  %s = migraphx.literal(dense<1.250000e-01> : tensor<1xf32>) : <1xf32, 0>
  %sb = migraphx.multibroadcast %s {out_dyn_dims = [], out_lens = [64, 48]} : <1xf32, 0> -> <64x48xf32, 0x0>
  %1 = migraphx.mul %0, %sb : <64x48xf32, 48x1>, <64x48xf32, 0x0> -> <64x48xf32, 48x1>
  %2 = migraphx.convert %1 {target_type = 1 : i64} : <64x48xf32, 48x1> to <64x48xf16, 48x1>
  return %2 : !migraphx.shaped<64x48xf16, 48x1>
}
