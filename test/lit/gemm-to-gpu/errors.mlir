// RUN: not accel-opt %s --pass-pipeline='builtin.module(accel-gemm-to-gpu)' --split-input-file 2>&1 | FileCheck %s

// CHECK: errors.mlir:5:3: error: 'accel.gemm' has no perf_config; run accel-affix-perf-config first
func.func @f(%a: memref<1x16x16xf16>, %b: memref<1x16x16xf16>, %c: memref<1x16x16xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", a_layout = "row", b_layout = "row", c_layout = "row"} : (memref<1x16x16xf16>, memref<1x16x16xf16>, memref<1x16x16xf32>) -> ()
  return
}

// -----

// CHECK: errors.mlir:13:3: error: 'accel.gemm' has no kernel plan; run accel-plan-kernel first
func.func @f(%a: memref<1x16x16xf16>, %b: memref<1x16x16xf16>, %c: memref<1x16x16xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:16,16,2,16,16,16,8,1,1,2,0,0,1,1"} : (memref<1x16x16xf16>, memref<1x16x16xf16>, memref<1x16x16xf32>) -> ()
  return
}
