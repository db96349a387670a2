// RUN: accel-opt %s --pass-pipeline='builtin.module(accel-plan-kernel)' | FileCheck %s

// The symbol spells shape, types, layouts and arch; gemms of one shape built with
// different perf configs get _v1, _v2, ... in program order, equal ones share one.
// CHECK: kernel_symbol = "accel_gemm_g1_m40_n48_k32_f16_f32_gfx942"
// CHECK: kernel_symbol = "accel_gemm_g1_m40_n48_k32_f16_f32_gfx942_v1"
// CHECK: kernel_symbol = "accel_gemm_g1_m40_n48_k32_f16_f32_gfx942"
// CHECK: kernel_symbol = "accel_gemm_g1_m40_n48_k32_f16_f32_rt_acc_gfx942"
// An operand read as a strided view (here A, rows 64 apart) adds a digest of the view
// types: the same plan over a packed A builds another kernel.
// CHECK: kernel_symbol = "accel_gemm_g1_m40_n48_k32_f16_f32_sv{{[0-9a-f]+}}_gfx942"
func.func @f(%a: memref<1x40x32xf16>, %b: memref<1x32x48xf16>, %bt: memref<1x48x32xf16>, %c: memref<1x40x48xf32>, %av: memref<1x40x32xf16, strided<[2560, 64, 1]>>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:32,32,4,32,32,32,8,1,1,2,0,0,1,1"} : (memref<1x40x32xf16>, memref<1x32x48xf16>, memref<1x40x48xf32>) -> ()
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:16,16,2,16,16,16,8,1,1,2,0,0,1,1"} : (memref<1x40x32xf16>, memref<1x32x48xf16>, memref<1x40x48xf32>) -> ()
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:32,32,4,32,32,32,8,1,1,2,0,0,1,1"} : (memref<1x40x32xf16>, memref<1x32x48xf16>, memref<1x40x48xf32>) -> ()
  "accel.gemm"(%a, %bt, %c) {arch = "gfx942", b_layout = "transposed", accumulate, perf_config = "v4:32,32,4,32,32,32,8,1,1,2,0,0,1,1"} : (memref<1x40x32xf16>, memref<1x48x32xf16>, memref<1x40x48xf32>) -> ()
  "accel.gemm"(%av, %b, %c) {arch = "gfx942", perf_config = "v4:32,32,4,32,32,32,8,1,1,2,0,0,1,1"} : (memref<1x40x32xf16, strided<[2560, 64, 1]>>, memref<1x32x48xf16>, memref<1x40x48xf32>) -> ()
  return
}
