// RUN: accel-opt %s --pass-pipeline='builtin.module(accel-plan-kernel)' --split-input-file | FileCheck %s

// C stores: the widest vector (at most 128 bits) dividing a lane's run of c_len
// consecutive columns and the run contiguous in C. 32x32 MFMA, f32 out: 16 columns per
// lane, 4 per 128-bit store; f16 out: 8.
// CHECK-LABEL: func.func @f32_out
// CHECK: c_vector = 4 : i64
func.func @f32_out(%a: memref<1x64x64xf16>, %b: memref<1x64x64xf16>, %c: memref<1x64x64xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:64,64,8,32,32,32,8,1,1,2,0,0,1,1"} : (memref<1x64x64xf16>, memref<1x64x64xf16>, memref<1x64x64xf32>) -> ()
  return
}

// -----

// CHECK-LABEL: func.func @f16_out
// CHECK: c_vector = 8 : i64
func.func @f16_out(%a: memref<1x64x64xf16>, %b: memref<1x64x64xf16>, %c: memref<1x64x64xf16>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:64,64,8,32,32,32,8,1,1,2,0,0,1,1"} : (memref<1x64x64xf16>, memref<1x64x64xf16>, memref<1x64x64xf16>) -> ()
  return
}

// -----

// A ragged N (77) leaves scalar stores.
// CHECK-LABEL: func.func @ragged_n
// CHECK: c_vector = 1 : i64
func.func @ragged_n(%a: memref<1x64x64xf16>, %b: memref<1x64x77xf16>, %c: memref<1x64x77xf16>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:64,64,8,32,32,32,8,1,1,2,0,0,1,1"} : (memref<1x64x64xf16>, memref<1x64x77xf16>, memref<1x64x77xf16>) -> ()
  return
}
