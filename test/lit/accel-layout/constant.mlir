// A constant weight is packed at compile time into a new constant global (no kernel).
// RUN: accel-opt %s --split-input-file --accel-layout | FileCheck %s

// B row [1, K=20, N=3], ragged: K padded to 32 (kPB = 16), N to 32. Element (k, n)
// lands at [0, 0, k/16, (k%16)/4, n, k%4]; the rest is zero.
// CHECK: memref.global "private" constant @w_accel : memref<1x1x2x4x32x4xf16> = dense<"0x
// CHECK-NOT: @w :
// CHECK-LABEL: func.func @global_weight
// CHECK-NEXT: %[[W:.*]] = memref.get_global @w_accel : memref<1x1x2x4x32x4xf16>
// CHECK-NEXT: "accel.gemm"(%arg0, %[[W]], %arg1) {a_layout = "row", arch = "gfx942", b_layout = "accel"
memref.global "private" constant @w : memref<1x20x3xf16> = dense<1.0>
func.func @global_weight(%a: memref<1x5x20xf16>, %c: memref<1x5x3xf32>) {
  %w = memref.get_global @w : memref<1x20x3xf16>
  "accel.gemm"(%a, %w, %c) {arch = "gfx942", a_layout = "row", b_layout = "row", c_layout = "row", perf_config = "v4:32,32,4,16,16,16,4,1,1,2,0,0,1,1"} : (memref<1x5x20xf16>, memref<1x20x3xf16>, memref<1x5x3xf32>) -> ()
  return
}

// -----

// A tensor constant left by a front end; the packed values are checked elementwise
// (1x1x1x1x2x2, dPB=2, kpack=2: [[1,2],[3,4]] stays [[1,2],[3,4]] for A row).
// CHECK: memref.global "private" constant @accel_weight_accel : memref<1x1x1x1x2x2xi8> = dense<{{\[\[\[\[\[\[}}1, 2], [3, 4]]]]]]>
// CHECK-LABEL: func.func @tensor_constant
// CHECK-NEXT: %[[A:.*]] = memref.get_global @accel_weight_accel
// CHECK-NEXT: "accel.gemm"(%[[A]], %arg0, %arg1) {a_layout = "accel"
func.func @tensor_constant(%b: memref<1x2x2xi8>, %c: memref<1x2x2xi32>) {
  %cst = arith.constant dense<[[[1, 2], [3, 4]]]> : tensor<1x2x2xi8>
  %a = bufferization.to_buffer %cst : tensor<1x2x2xi8> to memref<1x2x2xi8>
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", a_layout = "row", b_layout = "row", c_layout = "row", perf_config = "v4:2,2,1,2,2,2,2,1,1,2,0,0,1,1"} : (memref<1x2x2xi8>, memref<1x2x2xi8>, memref<1x2x2xi32>) -> ()
  return
}

// -----

// Transposed A [G, K, M] = [[1,2],[3,4]] packs as (m, k) -> [.., m, k]: [[1,3],[2,4]].
// CHECK: memref.global "private" constant @t_accel : memref<1x1x1x1x2x2xi8> = dense<{{\[\[\[\[\[\[}}1, 3], [2, 4]]]]]]>
// CHECK-LABEL: func.func @transposed_constant
memref.global "private" constant @t : memref<1x2x2xi8> = dense<[[[1, 2], [3, 4]]]>
func.func @transposed_constant(%b: memref<1x2x2xi8>, %c: memref<1x2x2xi32>) {
  %a = memref.get_global @t : memref<1x2x2xi8>
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", a_layout = "transposed", b_layout = "row", c_layout = "row", perf_config = "v4:2,2,1,2,2,2,2,1,1,2,0,0,1,1"} : (memref<1x2x2xi8>, memref<1x2x2xi8>, memref<1x2x2xi32>) -> ()
  return
}
