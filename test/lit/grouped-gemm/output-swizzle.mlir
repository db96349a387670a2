// RUN: not accel-opt %s --pass-pipeline='builtin.module(accel-grouped-gemm-to-gpu)' 2>&1 | FileCheck %s

// A grouped GEMM's C rows come from a run-time window: it stores from the accumulators.
// CHECK: output-swizzle.mlir:6:3: error: perf config v4:16,32,4,16,16,16,8,1,1,1,0,0,1,1: a grouped GEMM stores C from the accumulators (outputSwizzle must be 0 or 2)
func.func @f(%a: memref<60x32xbf16>, %b: memref<3x32x40xbf16>, %s: memref<4xi32>, %c: memref<60x40xf32>) {
  "accel.grouped_gemm"(%a, %b, %s, %c) {arch = "gfx942", max_seq_len = 20 : i64, b_layout = "row", mode = "uniform", perf_config = "v4:16,32,4,16,16,16,8,1,1,1,0,0,1,1"} : (memref<60x32xbf16>, memref<3x32x40xbf16>, memref<4xi32>, memref<60x40xf32>) -> ()
  return
}
