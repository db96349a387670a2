// RUN: accel-opt %s --pass-pipeline='builtin.module(accel-plan-kernel)' --split-input-file | FileCheck %s

// A tile is loaded a k-tile ahead (held in registers across the MMAs) unless a held
// value would be a sub-dword scalar (B with N = 77: f16 scalars) ...
// CHECK-LABEL: func.func @scalar_b
// CHECK: a_copy = {ahead = true
// CHECK-SAME: b_copy = {ahead = false
func.func @scalar_b(%a: memref<1x64x64xf16>, %b: memref<1x64x77xf16>, %c: memref<1x64x77xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx1100", perf_config = "v4:32,32,4,16,16,16,8,1,1,2,0,0,1,1"} : (memref<1x64x64xf16>, memref<1x64x77xf16>, memref<1x64x77xf32>) -> ()
  return
}

// -----

// ... or, on gfx942, the MFMA accumulators fill the 256 AGPRs (128x128 per wave).
// CHECK-LABEL: func.func @agprs_full
// CHECK: a_copy = {ahead = false
// CHECK-SAME: b_copy = {ahead = false
func.func @agprs_full(%a: memref<1x256x64xf16>, %b: memref<1x64x256xf16>, %c: memref<1x256x256xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:256,256,8,128,128,32,8,1,1,2,0,0,1,1"} : (memref<1x256x64xf16>, memref<1x64x256xf16>, memref<1x256x256xf32>) -> ()
  return
}
