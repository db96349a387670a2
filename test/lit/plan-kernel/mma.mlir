// RUN: accel-opt %s --pass-pipeline='builtin.module(accel-plan-kernel)' --split-input-file | FileCheck %s

// The MMA instruction: on gfx942 mnPerXdl picks the 32x32 or the 16x16 MFMA; WMMA chips
// have one 16x16x16 instruction per element type.
// CHECK-LABEL: func.func @mfma32
// CHECK: mma = "v_mfma_f32_32x32x8_f16"
func.func @mfma32(%a: memref<1x64x64xf16>, %b: memref<1x64x64xf16>, %c: memref<1x64x64xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:64,64,8,32,32,32,8,1,1,2,0,0,1,1"} : (memref<1x64x64xf16>, memref<1x64x64xf16>, memref<1x64x64xf32>) -> ()
  return
}

// -----

// CHECK-LABEL: func.func @mfma16
// CHECK: mma = "v_mfma_f32_16x16x16_f16"
func.func @mfma16(%a: memref<1x64x64xf16>, %b: memref<1x64x64xf16>, %c: memref<1x64x64xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:64,64,8,32,32,16,8,1,1,2,0,0,1,1"} : (memref<1x64x64xf16>, memref<1x64x64xf16>, memref<1x64x64xf32>) -> ()
  return
}

// -----

// CHECK-LABEL: func.func @mfma_i8
// CHECK: mma = "v_mfma_i32_16x16x32_i8"
func.func @mfma_i8(%a: memref<1x64x64xi8>, %b: memref<1x64x64xi8>, %c: memref<1x64x64xi32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:64,64,4,32,32,16,16,1,1,2,0,0,1,1"} : (memref<1x64x64xi8>, memref<1x64x64xi8>, memref<1x64x64xi32>) -> ()
  return
}

// -----

// CHECK-LABEL: func.func @wmma_bf16
// CHECK: mma = "v_wmma_f32_16x16x16_bf16"
func.func @wmma_bf16(%a: memref<1x64x64xbf16>, %b: memref<1x64x64xbf16>, %c: memref<1x64x64xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx1201", perf_config = "v4:64,64,8,32,32,16,8,1,1,2,0,0,1,1"} : (memref<1x64x64xbf16>, memref<1x64x64xbf16>, memref<1x64x64xf32>) -> ()
  return
}
