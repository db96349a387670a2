// RUN: not accel-opt %s --pass-pipeline='builtin.module(accel-gemm-to-gpu)' 2>&1 | FileCheck %s

// CHECK: errors.mlir:5:3: error: 'accel.gemm' has no perf_config; run accel-affix-perf-config first
func.func @f(%a: memref<1x16x16xf16>, %b: memref<1x16x16xf16>, %c: memref<1x16x16xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", a_layout = "row", b_layout = "row", c_layout = "row"} : (memref<1x16x16xf16>, memref<1x16x16xf16>, memref<1x16x16xf32>) -> ()
  return
}
