// accel-layout folds memref chains that already read the accel layout of the perf
// config (mPB = nPB = 32, kpackPerBlock = 4, kpack = 4): the gemm reads the 6-D buffer.
// RUN: accel-opt %s --split-input-file --accel-layout | FileCheck %s

// Seed 001: transpose [0,1,4,2,3,5] + reshape to [G, D, K]; B gets one more [0,2,1].
// CHECK-LABEL: func.func @seed_001
// CHECK-NEXT: "accel.gemm"(%arg0, %arg1, %arg2) {a_layout = "accel", arch = "gfx942", b_layout = "accel"
// CHECK-NEXT: return
func.func @seed_001(%a6: memref<1x2x3x4x32x4xf16>, %b6: memref<1x1x3x4x32x4xf16>, %c: memref<1x64x32xf32>) {
  %t = memref.transpose %a6 (g, db, kb, kq, dp, kk) -> (g, db, dp, kb, kq, kk) : memref<1x2x3x4x32x4xf16> to memref<1x2x32x3x4x4xf16, strided<[3072, 1536, 4, 512, 128, 1]>>
  %abuf = memref.alloc() : memref<1x2x32x3x4x4xf16>
  memref.copy %t, %abuf : memref<1x2x32x3x4x4xf16, strided<[3072, 1536, 4, 512, 128, 1]>> to memref<1x2x32x3x4x4xf16>
  %a = memref.collapse_shape %abuf [[0], [1, 2], [3, 4, 5]] : memref<1x2x32x3x4x4xf16> into memref<1x64x48xf16>
  %bbuf = memref.alloc() : memref<1x1x32x3x4x4xf16>
  linalg.transpose ins(%b6 : memref<1x1x3x4x32x4xf16>) outs(%bbuf : memref<1x1x32x3x4x4xf16>) permutation = [0, 1, 4, 2, 3, 5]
  %bnk = memref.collapse_shape %bbuf [[0], [1, 2], [3, 4, 5]] : memref<1x1x32x3x4x4xf16> into memref<1x32x48xf16>
  %b = memref.alloc() : memref<1x48x32xf16>
  linalg.transpose ins(%bnk : memref<1x32x48xf16>) outs(%b : memref<1x48x32xf16>) permutation = [0, 2, 1]
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", a_layout = "row", b_layout = "row", c_layout = "row", perf_config = "v4:32,32,4,16,16,16,4,1,1,2,0,0,1,1"} : (memref<1x64x48xf16>, memref<1x48x32xf16>, memref<1x64x32xf32>) -> ()
  memref.dealloc %abuf : memref<1x2x32x3x4x4xf16>
  return
}

// -----

// B consumed transposed ([G, N, K]) needs no extra transpose.
// CHECK-LABEL: func.func @b_transposed
// CHECK-NEXT: "accel.gemm"(%arg0, %arg1, %arg2) {a_layout = "row", arch = "gfx942", b_layout = "accel"
func.func @b_transposed(%a: memref<1x64x48xf16>, %b6: memref<1x1x3x4x32x4xf16>, %c: memref<1x64x32xf32>) {
  %bbuf = memref.alloc() : memref<1x1x32x3x4x4xf16>
  linalg.transpose ins(%b6 : memref<1x1x3x4x32x4xf16>) outs(%bbuf : memref<1x1x32x3x4x4xf16>) permutation = [0, 1, 4, 2, 3, 5]
  %b = memref.collapse_shape %bbuf [[0], [1, 2], [3, 4, 5]] : memref<1x1x32x3x4x4xf16> into memref<1x32x48xf16>
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", a_layout = "row", b_layout = "transposed", c_layout = "row", perf_config = "v4:32,32,4,16,16,16,4,1,1,2,0,0,1,1"} : (memref<1x64x48xf16>, memref<1x32x48xf16>, memref<1x64x32xf32>) -> ()
  return
}

// -----

// The 6-D buffer arrives flat (expand_shape); transpose and reshape are reinterpret_casts.
// CHECK-LABEL: func.func @reinterpret_cast
// CHECK-NEXT: %[[A6:.*]] = memref.expand_shape %arg0
// CHECK-NEXT: "accel.gemm"(%[[A6]], %arg1, %arg2) {a_layout = "accel"
// CHECK-NEXT: return
func.func @reinterpret_cast(%flat: memref<3072xf16>, %b: memref<1x48x32xf16>, %c: memref<1x64x32xf32>) {
  %a6 = memref.expand_shape %flat [[0, 1, 2, 3, 4, 5]] output_shape [1, 2, 3, 4, 32, 4] : memref<3072xf16> into memref<1x2x3x4x32x4xf16>
  %t = memref.reinterpret_cast %a6 to offset: [0], sizes: [1, 2, 32, 3, 4, 4], strides: [3072, 1536, 4, 512, 128, 1] : memref<1x2x3x4x32x4xf16> to memref<1x2x32x3x4x4xf16, strided<[3072, 1536, 4, 512, 128, 1]>>
  %buf = memref.alloc() : memref<1x2x32x3x4x4xf16>
  memref.copy %t, %buf : memref<1x2x32x3x4x4xf16, strided<[3072, 1536, 4, 512, 128, 1]>> to memref<1x2x32x3x4x4xf16>
  %a = memref.reinterpret_cast %buf to offset: [0], sizes: [1, 64, 48], strides: [3072, 48, 1] : memref<1x2x32x3x4x4xf16> to memref<1x64x48xf16>
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", a_layout = "row", b_layout = "row", c_layout = "row", perf_config = "v4:32,32,4,16,16,16,4,1,1,2,0,0,1,1"} : (memref<1x64x48xf16>, memref<1x48x32xf16>, memref<1x64x32xf32>) -> ()
  return
}
