// RUN: accel-opt %s --pass-pipeline='builtin.module(accel-plan-kernel)' --split-input-file | FileCheck %s

// bf16_round: a bf16 C is rounded in i32 ops and packed with v_perm_b32 on gfx942 ...
// CHECK-LABEL: func.func @gfx942_bf16
// CHECK: bf16_round = "i32"
func.func @gfx942_bf16(%a: memref<1x64x64xbf16>, %b: memref<1x64x64xbf16>, %c: memref<1x64x64xbf16>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:64,64,8,32,32,32,8,1,1,2,0,0,1,1"} : (memref<1x64x64xbf16>, memref<1x64x64xbf16>, memref<1x64x64xbf16>) -> ()
  return
}

// -----

// ... but left to LLVM where the accumulators fill the AGPRs (128x128 per wave: 256
// registers a lane), whose VGPRs and main loops it moved both ways ...
// CHECK-LABEL: func.func @gfx942_full_agprs
// CHECK: bf16_round = "truncf"
func.func @gfx942_full_agprs(%a: memref<1x256x64xbf16>, %b: memref<1x64x256xbf16>, %c: memref<1x256x256xbf16>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:256,256,4,128,128,32,4,1,1,2,0,0,1,1"} : (memref<1x256x64xbf16>, memref<1x64x256xbf16>, memref<1x256x256xbf16>) -> ()
  return
}

// -----

// ... and in i32 on gfx1100 and gfx1201, on every tile.
// CHECK-LABEL: func.func @gfx1100_bf16
// CHECK: bf16_round = "i32"
func.func @gfx1100_bf16(%a: memref<1x128x64xbf16>, %b: memref<1x64x128xbf16>, %c: memref<1x128x128xbf16>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx1100", perf_config = "v4:128,128,2,64,64,16,16,1,1,2,0,0,1,1"} : (memref<1x128x64xbf16>, memref<1x64x128xbf16>, memref<1x128x128xbf16>) -> ()
  return
}

// -----

// CHECK-LABEL: func.func @gfx1201_bf16
// CHECK: bf16_round = "i32"
func.func @gfx1201_bf16(%a: memref<1x64x64xbf16>, %b: memref<1x64x64xbf16>, %c: memref<1x64x64xbf16>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx1201", perf_config = "v4:64,64,8,32,32,16,8,1,1,2,0,0,1,1"} : (memref<1x64x64xbf16>, memref<1x64x64xbf16>, memref<1x64x64xbf16>) -> ()
  return
}

// -----

// A convert_bf16 inside the op list rounds to bf16 too, whatever C's type.
// CHECK-LABEL: func.func @convert_step
// CHECK: bf16_round = "i32"
func.func @convert_step(%a: memref<1x64x64xf16>, %b: memref<1x64x64xf16>, %c: memref<1x64x64xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx1201", epilogue = "%0 = convert_bf16 %acc", epilogue_operands = [], perf_config = "v4:64,64,8,32,32,16,8,1,1,2,0,0,1,1"} : (memref<1x64x64xf16>, memref<1x64x64xf16>, memref<1x64x64xf32>) -> ()
  return
}

// -----

// Nothing rounded to bf16 (an f16 C, an f32 C), no attribute.
// CHECK-LABEL: func.func @f16_out
// CHECK-NOT: bf16_round
// CHECK: return
func.func @f16_out(%a: memref<1x64x64xbf16>, %b: memref<1x64x64xbf16>, %c: memref<1x64x64xf16>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx1201", perf_config = "v4:64,64,8,32,32,16,8,1,1,2,0,0,1,1"} : (memref<1x64x64xbf16>, memref<1x64x64xbf16>, memref<1x64x64xf16>) -> ()
  return
}

// -----

// CHECK-LABEL: func.func @f32_out
// CHECK-NOT: bf16_round
// CHECK: return
func.func @f32_out(%a: memref<1x64x64xbf16>, %b: memref<1x64x64xbf16>, %c: memref<1x64x64xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:64,64,8,32,32,32,8,1,1,2,0,0,1,1"} : (memref<1x64x64xbf16>, memref<1x64x64xbf16>, memref<1x64x64xf32>) -> ()
  return
}
