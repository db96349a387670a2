// RUN: accel-opt --split-input-file --accel-from-migraphx %s | FileCheck %s
// RUN: accel-opt --split-input-file --verify-diagnostics --accel-from-migraphx %S/Inputs/quant-dot-errors.mlir

// i8 x i8 -> i32, batched: one accel.gemm accumulating in i32.
// CHECK-LABEL: func.func @q_i8
// CHECK-SAME:  (%[[A:.*]]: memref<2x64x32xi8>, %[[B:.*]]: memref<2x32x48xi8>, %[[C:.*]]: memref<2x64x48xi32>)
// CHECK-NEXT:  "accel.gemm"(%[[A]], %[[B]], %[[C]]) {a_layout = "row", arch = "gfx942", b_layout = "row", c_layout = "row"}
// CHECK-NEXT:  return
func.func @q_i8(%a: !migraphx.shaped<2x64x32xi8, 2048x32x1>, %b: !migraphx.shaped<2x32x48xi8, 1536x48x1>) -> !migraphx.shaped<2x64x48xi32, 3072x48x1> attributes {kernel, arch = "gfx942"} {
  %0 = migraphx.quant_dot %a, %b : <2x64x32xi8, 2048x32x1>, <2x32x48xi8, 1536x48x1> -> <2x64x48xi32, 3072x48x1>
  return %0 : !migraphx.shaped<2x64x48xi32, 3072x48x1>
}

// -----

// fp8 x bf8 -> f32 with a transposed B, on gfx942's FNUZ formats.
// CHECK-LABEL: func.func @q_fp8_bf8
// CHECK:       "accel.gemm"({{.*}}) {a_layout = "row", arch = "gfx942", b_layout = "transposed", c_layout = "row"} : (memref<1x64x32xf8E4M3FNUZ>, memref<1x48x32xf8E5M2FNUZ>, memref<1x64x48xf32>) -> ()
func.func @q_fp8_bf8(%a: !migraphx.shaped<64x32xf8E4M3FNUZ, 32x1>, %b: !migraphx.shaped<48x32xf8E5M2FNUZ, 32x1>) -> !migraphx.shaped<64x48xf32, 48x1> attributes {kernel, arch = "gfx942"} {
  %bt = migraphx.transpose %b {permutation = [1, 0]} : <48x32xf8E5M2FNUZ, 32x1> -> <32x48xf8E5M2FNUZ, 1x32>
  %0 = migraphx.quant_dot %a, %bt : <64x32xf8E4M3FNUZ, 32x1>, <32x48xf8E5M2FNUZ, 1x32> -> <64x48xf32, 48x1>
  return %0 : !migraphx.shaped<64x48xf32, 48x1>
}

// -----

// The OCP pair on gfx1201, with a fused bias + relu epilogue.
// CHECK-LABEL: func.func @q_ocp_bias_relu
// CHECK:       "accel.gemm"({{.*}}) {a_layout = "row", arch = "gfx1201", b_layout = "row", c_layout = "row", epilogue = "bias_relu"} : (memref<1x16x64xf8E5M2>, memref<1x64x32xf8E4M3FN>, memref<1x16x32xf32>, memref<32xf32>) -> ()
func.func @q_ocp_bias_relu(%a: !migraphx.shaped<16x64xf8E5M2, 64x1>, %b: !migraphx.shaped<64x32xf8E4M3FN, 32x1>, %bias: !migraphx.shaped<32xf32, 1>) -> !migraphx.shaped<16x32xf32, 32x1> attributes {kernel, arch = "gfx1201"} {
  %0 = migraphx.quant_dot %a, %b : <16x64xf8E5M2, 64x1>, <64x32xf8E4M3FN, 32x1> -> <16x32xf32, 32x1>
  %bb = migraphx.multibroadcast %bias {out_lens = [16, 32]} : <32xf32, 1> -> <16x32xf32, 0x1>
  %1 = migraphx.add %0, %bb : <16x32xf32, 32x1>, <16x32xf32, 0x1> -> <16x32xf32, 32x1>
  %2 = migraphx.relu %1 : <16x32xf32, 32x1> -> <16x32xf32, 32x1>
  return %2 : !migraphx.shaped<16x32xf32, 32x1>
}
