// accel-layout folds tensor chains (linalg.transpose, tensor.collapse_shape /
// tensor.reshape) in front of bufferization.to_buffer: the gemm reads the 6-D tensor.
// RUN: accel-opt %s --accel-layout | FileCheck %s

// CHECK-LABEL: func.func @seed_001_tensors
// CHECK-NEXT: %[[A:.*]] = bufferization.to_buffer %arg0 : tensor<1x2x3x4x32x4xf16> to memref<1x2x3x4x32x4xf16>
// CHECK-NEXT: %[[B:.*]] = bufferization.to_buffer %arg1 : tensor<1x1x3x4x32x4xf16> to memref<1x1x3x4x32x4xf16>
// CHECK-NEXT: "accel.gemm"(%[[A]], %[[B]], %arg2) {a_layout = "accel", arch = "gfx942", b_layout = "accel"
// CHECK-NEXT: return
func.func @seed_001_tensors(%a6: tensor<1x2x3x4x32x4xf16>, %b6: tensor<1x1x3x4x32x4xf16>, %c: memref<1x64x32xf32>) {
  %e = tensor.empty() : tensor<1x2x32x3x4x4xf16>
  %t = linalg.transpose ins(%a6 : tensor<1x2x3x4x32x4xf16>) outs(%e : tensor<1x2x32x3x4x4xf16>) permutation = [0, 1, 4, 2, 3, 5]
  %r = tensor.collapse_shape %t [[0], [1, 2], [3, 4, 5]] : tensor<1x2x32x3x4x4xf16> into tensor<1x64x48xf16>
  %a = bufferization.to_buffer %r : tensor<1x64x48xf16> to memref<1x64x48xf16>
  %eb = tensor.empty() : tensor<1x1x32x3x4x4xf16>
  %tb = linalg.transpose ins(%b6 : tensor<1x1x3x4x32x4xf16>) outs(%eb : tensor<1x1x32x3x4x4xf16>) permutation = [0, 1, 4, 2, 3, 5]
  %shape = arith.constant dense<[1, 32, 48]> : tensor<3xi64>
  %rb = tensor.reshape %tb(%shape) : (tensor<1x1x32x3x4x4xf16>, tensor<3xi64>) -> tensor<1x32x48xf16>
  %eb2 = tensor.empty() : tensor<1x48x32xf16>
  %tb2 = linalg.transpose ins(%rb : tensor<1x32x48xf16>) outs(%eb2 : tensor<1x48x32xf16>) permutation = [0, 2, 1]
  %b = bufferization.to_buffer %tb2 : tensor<1x48x32xf16> to memref<1x48x32xf16>
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", a_layout = "row", b_layout = "row", c_layout = "row", perf_config = "v4:32,32,4,16,16,16,4,1,1,2,0,0,1,1"} : (memref<1x64x48xf16>, memref<1x48x32xf16>, memref<1x64x32xf32>) -> ()
  return
}
