// Chains that do not produce the perf config's accel layout are left alone.
// RUN: accel-opt %s --split-input-file --accel-layout | FileCheck %s

// [0,1,4,3,2,5] yields the same 1x64x48 shape in another element order.
// CHECK-LABEL: func.func @wrong_permutation
// CHECK: linalg.transpose {{.*}} permutation = [0, 1, 4, 3, 2, 5]
// CHECK: "accel.gemm"(%collapse_shape, %arg1, %arg2) {a_layout = "row"
func.func @wrong_permutation(%a6: memref<1x2x3x4x32x4xf16>, %b: memref<1x48x32xf16>, %c: memref<1x64x32xf32>) {
  %buf = memref.alloc() : memref<1x2x32x4x3x4xf16>
  linalg.transpose ins(%a6 : memref<1x2x3x4x32x4xf16>) outs(%buf : memref<1x2x32x4x3x4xf16>) permutation = [0, 1, 4, 3, 2, 5]
  %a = memref.collapse_shape %buf [[0], [1, 2], [3, 4, 5]] : memref<1x2x32x4x3x4xf16> into memref<1x64x48xf16>
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", a_layout = "row", b_layout = "row", c_layout = "row", perf_config = "v4:32,32,4,16,16,16,4,1,1,2,0,0,1,1"} : (memref<1x64x48xf16>, memref<1x48x32xf16>, memref<1x64x32xf32>) -> ()
  return
}

// -----

// The chain blocks M by 16; the perf config by 32.
// CHECK-LABEL: func.func @mismatched_block
// CHECK: linalg.transpose {{.*}} permutation = [0, 1, 4, 2, 3, 5]
// CHECK: "accel.gemm"(%collapse_shape, %arg1, %arg2) {a_layout = "row"
func.func @mismatched_block(%a6: memref<1x4x3x4x16x4xf16>, %b: memref<1x48x32xf16>, %c: memref<1x64x32xf32>) {
  %buf = memref.alloc() : memref<1x4x16x3x4x4xf16>
  linalg.transpose ins(%a6 : memref<1x4x3x4x16x4xf16>) outs(%buf : memref<1x4x16x3x4x4xf16>) permutation = [0, 1, 4, 2, 3, 5]
  %a = memref.collapse_shape %buf [[0], [1, 2], [3, 4, 5]] : memref<1x4x16x3x4x4xf16> into memref<1x64x48xf16>
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", a_layout = "row", b_layout = "row", c_layout = "row", perf_config = "v4:32,32,4,16,16,16,4,1,1,2,0,0,1,1"} : (memref<1x64x48xf16>, memref<1x48x32xf16>, memref<1x64x32xf32>) -> ()
  return
}

// -----

// kpack differs: the chain's 1x2x6x2x32x4 is K blocked as 2x4, the config's as 4x4.
// CHECK-LABEL: func.func @mismatched_kpack
// CHECK: "accel.gemm"(%collapse_shape, %arg1, %arg2) {a_layout = "row"
func.func @mismatched_kpack(%a6: memref<1x2x6x2x32x4xf16>, %b: memref<1x48x32xf16>, %c: memref<1x64x32xf32>) {
  %buf = memref.alloc() : memref<1x2x32x6x2x4xf16>
  linalg.transpose ins(%a6 : memref<1x2x6x2x32x4xf16>) outs(%buf : memref<1x2x32x6x2x4xf16>) permutation = [0, 1, 4, 2, 3, 5]
  %a = memref.collapse_shape %buf [[0], [1, 2], [3, 4, 5]] : memref<1x2x32x6x2x4xf16> into memref<1x64x48xf16>
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", a_layout = "row", b_layout = "row", c_layout = "row", perf_config = "v4:32,32,4,16,16,16,4,1,1,2,0,0,1,1"} : (memref<1x64x48xf16>, memref<1x48x32xf16>, memref<1x64x32xf32>) -> ()
  return
}
