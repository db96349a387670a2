// RUN: accel-opt %s --pass-pipeline='builtin.module(accel-plan-kernel)' --split-input-file | FileCheck %s

// splitKFactor 3 over K = 200, 7 k-tiles of kPerBlock 32: three slices of ceil(7 / 3) = 3
// k-tiles (the last one runs past K and adds zeros), combined in an f32 workspace by a
// second kernel. The partial kernel stores f32: 4 per 128 bits; the reduction keeps
// C's width (8 f16) capped at 128 bits of f32: 4.
// CHECK-LABEL: func.func @split
// CHECK: c_vector = 8 : i64
// CHECK-SAME: split_k = {combine = "workspace", k_tiles = 3 : i64, partial_vector = 4 : i64, reduce_vector = 4 : i64, slices = 3 : i64}
func.func @split(%a: memref<2x37x200xf16>, %b: memref<2x200x64xf16>, %c: memref<2x37x64xf16>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:32,32,4,32,32,32,8,3,1,2,0,0,1,1"} : (memref<2x37x200xf16>, memref<2x200x64xf16>, memref<2x37x64xf16>) -> ()
  return
}

// -----

// C in the accel layout stores 8 f16 (a kpack run) whatever N is, but the reduction's
// workspace rows are N = 18 long: its width divides N too (4 would read columns 18-19
// from the next row into C's padding).
// CHECK-LABEL: func.func @split_accel_c
// CHECK: c_vector = 8 : i64
// CHECK-SAME: split_k = {combine = "workspace", k_tiles = 3 : i64, partial_vector = 2 : i64, reduce_vector = 2 : i64, slices = 3 : i64}
func.func @split_accel_c(%a: memref<2x37x200xf16>, %b: memref<2x200x18xf16>, %c: memref<2x2x1x4x32x8xf16>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", c_layout = "accel", perf_config = "v4:32,32,4,32,32,32,8,3,1,2,0,0,1,1"} : (memref<2x37x200xf16>, memref<2x200x18xf16>, memref<2x2x1x4x32x8xf16>) -> ()
  return
}

// -----

// i8 partials are i32: integer sums, exact in any order.
// CHECK-LABEL: func.func @split_i8
// CHECK: split_k = {combine = "workspace", k_tiles = 1 : i64, partial_vector = 4 : i64, reduce_vector = 4 : i64, slices = 16 : i64}
func.func @split_i8(%a: memref<1x16x1024xi8>, %b: memref<1x1024x64xi8>, %c: memref<1x16x64xi32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:16,64,8,16,16,16,8,16,1,2,0,0,1,1"} : (memref<1x16x1024xi8>, memref<1x1024x64xi8>, memref<1x16x64xi32>) -> ()
  return
}

// -----

// splitKFactor 1: one kernel, no split_k attribute.
// CHECK-LABEL: func.func @whole_k
// CHECK-NOT: split_k
func.func @whole_k(%a: memref<2x37x200xf16>, %b: memref<2x200x64xf16>, %c: memref<2x37x64xf16>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:32,32,4,32,32,32,8,1,1,2,0,0,1,1"} : (memref<2x37x200xf16>, memref<2x200x64xf16>, memref<2x37x64xf16>) -> ()
  return
}
