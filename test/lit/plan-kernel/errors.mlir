// RUN: not accel-opt %s --pass-pipeline='builtin.module(accel-plan-kernel)' --split-input-file 2>&1 | FileCheck %s

// CHECK: errors.mlir:5:3: error: 'accel.gemm' has no perf_config; run accel-affix-perf-config first
func.func @f(%a: memref<1x16x16xf16>, %b: memref<1x16x16xf16>, %c: memref<1x16x16xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942"} : (memref<1x16x16xf16>, memref<1x16x16xf16>, memref<1x16x16xf32>) -> ()
  return
}

// -----

// CHECK: errors.mlir:13:3: error: perf config v4:32,32,4,32,32,4,8,1,1,2,0,0,1,1 cannot be lowered for f16 on gfx942: mma-tile: mnPerXdl 4
func.func @f(%a: memref<1x32x32xf16>, %b: memref<1x32x32xf16>, %c: memref<1x32x32xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:32,32,4,32,32,4,8,1,1,2,0,0,1,1"} : (memref<1x32x32xf16>, memref<1x32x32xf16>, memref<1x32x32xf32>) -> ()
  return
}
