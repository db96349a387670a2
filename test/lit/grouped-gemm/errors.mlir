// RUN: not accel-opt %s --pass-pipeline='builtin.module(accel-grouped-gemm-to-gpu)' 2>&1 | FileCheck %s

// The lowering needs the dispatch's decisions.
// CHECK: errors.mlir:6:3: error: 'accel.grouped_gemm' has no perf_config and mode; run accel-grouped-dispatch first
func.func @f(%a: memref<64x32xbf16>, %b: memref<96x32xbf16>, %s: memref<4xi32>, %c: memref<64x32xbf16>) {
  "accel.grouped_gemm"(%a, %b, %s, %c) {arch = "gfx942", max_seq_len = 40 : i64} : (memref<64x32xbf16>, memref<96x32xbf16>, memref<4xi32>, memref<64x32xbf16>) -> ()
  return
}
