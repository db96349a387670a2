// RUN: accel-opt --split-input-file --pass-pipeline='builtin.module(accel-from-linalg{arch=gfx942})' %s | FileCheck %s

// Tensors: bufferized, the result becomes an out-parameter the gemm writes in place;
// the zero fill of the accumulator is dropped and the gemm overwrites C.
// CHECK-LABEL: func.func @tensor_matmul
// CHECK-SAME:  (%[[A:.*]]: memref<64x32xf16>, %[[B:.*]]: memref<32x48xf16>, %[[C:.*]]: memref<64x48xf32>)
// CHECK-NEXT:  %[[A3:.*]] = memref.expand_shape %[[A]] {{\[}}[0, 1], [2]] output_shape [1, 64, 32]
// CHECK-NEXT:  %[[B3:.*]] = memref.expand_shape %[[B]] {{\[}}[0, 1], [2]] output_shape [1, 32, 48]
// CHECK-NEXT:  %[[C3:.*]] = memref.expand_shape %[[C]] {{\[}}[0, 1], [2]] output_shape [1, 64, 48]
// CHECK-NEXT:  "accel.gemm"(%[[A3]], %[[B3]], %[[C3]]) {a_layout = "row", arch = "gfx942", b_layout = "row", c_layout = "row"}
// CHECK-NEXT:  return
func.func @tensor_matmul(%a: tensor<64x32xf16>, %b: tensor<32x48xf16>) -> tensor<64x48xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x48xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<64x48xf32>) -> tensor<64x48xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x32xf16>, tensor<32x48xf16>) outs(%f : tensor<64x48xf32>) -> tensor<64x48xf32>
  return %r : tensor<64x48xf32>
}

// -----

// Memrefs, no fill: linalg.matmul adds into C, so the gemm accumulates.
// CHECK-LABEL: func.func @accumulate
// CHECK:       "accel.gemm"({{.*}}) {a_layout = "row", accumulate, arch = "gfx942", b_layout = "row", c_layout = "row"}
func.func @accumulate(%a: memref<2x64x32xbf16>, %b: memref<2x32x48xbf16>, %c: memref<2x64x48xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<2x64x32xbf16>, memref<2x32x48xbf16>) outs(%c : memref<2x64x48xf32>)
  return
}

// -----

// A fill that is not zero is kept, and the gemm accumulates onto it.
// CHECK-LABEL: func.func @nonzero_fill
// CHECK:       linalg.fill
// CHECK-NEXT:  "accel.gemm"({{.*}}) {a_layout = "row", accumulate,
func.func @nonzero_fill(%a: memref<2x64x32xf16>, %b: memref<2x32x48xf16>, %c: memref<2x64x48xf32>) {
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%c : memref<2x64x48xf32>)
  linalg.batch_matmul ins(%a, %b : memref<2x64x32xf16>, memref<2x32x48xf16>) outs(%c : memref<2x64x48xf32>)
  return
}

// -----

// Transposed operands are matmuls with permuted indexing_maps (this MLIR has no
// matmul_transpose_a/_b ops).
// CHECK-LABEL: func.func @batch_transposed
// CHECK:       "accel.gemm"(%arg0, %arg1, %arg2) {a_layout = "transposed", accumulate, arch = "gfx942", b_layout = "transposed", c_layout = "row"} : (memref<2x32x64xf16>, memref<2x48x32xf16>, memref<2x64x48xf32>)
func.func @batch_transposed(%a: memref<2x32x64xf16>, %b: memref<2x48x32xf16>, %c: memref<2x64x48xf32>) {
  linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%a, %b : memref<2x32x64xf16>, memref<2x48x32xf16>) outs(%c : memref<2x64x48xf32>)
  return
}

// -----

// CHECK-LABEL: func.func @transpose_b
// CHECK:       "accel.gemm"({{.*}}) {a_layout = "row", accumulate, arch = "gfx942", b_layout = "transposed", c_layout = "row"} : (memref<1x64x32xi8>, memref<1x48x32xi8>, memref<1x64x48xi32>)
func.func @transpose_b(%a: memref<64x32xi8>, %b: memref<48x32xi8>, %c: memref<64x48xi32>) {
  linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %b : memref<64x32xi8>, memref<48x32xi8>) outs(%c : memref<64x48xi32>)
  return
}

// -----

// fp8 x bf8 (A and B of different fp8 formats) with f32 accumulation.
// CHECK-LABEL: func.func @fp8_pair
// CHECK:       "accel.gemm"({{.*}}) {a_layout = "row", arch = "gfx942", b_layout = "transposed", c_layout = "row"} : (memref<1x64x32xf8E4M3FNUZ>, memref<1x48x32xf8E5M2FNUZ>, memref<1x64x48xf32>) -> ()
func.func @fp8_pair(%a: tensor<64x32xf8E4M3FNUZ>, %b: tensor<48x32xf8E5M2FNUZ>) -> tensor<64x48xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x48xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<64x48xf32>) -> tensor<64x48xf32>
  %r = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %b : tensor<64x32xf8E4M3FNUZ>, tensor<48x32xf8E5M2FNUZ>) outs(%f : tensor<64x48xf32>) -> tensor<64x48xf32>
  return %r : tensor<64x48xf32>
}
