// RUN: not accel-opt %s --split-input-file --pass-pipeline='builtin.module(accel-grouped-dispatch{table=%S/Inputs/bad-table.json})' 2>&1 | FileCheck %s --check-prefix=ENTRY
// RUN: not accel-opt %s --split-input-file --pass-pipeline='builtin.module(accel-grouped-dispatch)' 2>&1 | FileCheck %s --check-prefix=EXPLICIT

// A table entry whose k-tile (64) does not divide K (96) is a diagnostic at the op.
// ENTRY: dispatch-errors.mlir:7:3: error: dispatch table {{.*}}bad-table.json: entry gfx942/B3D96K32N20: k-tile 64 does not divide K = 96
func.func @entry(%a: memref<60x96xbf16>, %b: memref<96x96xbf16>, %s: memref<4xi32>, %c: memref<60x32xbf16>) {
  "accel.grouped_gemm"(%a, %b, %s, %c) {arch = "gfx942", max_seq_len = 20 : i64} : (memref<60x96xbf16>, memref<96x96xbf16>, memref<4xi32>, memref<60x32xbf16>) -> ()
  return
}

// -----

// An explicit perf config is checked like accel.gemm's (here: over LDS).
// EXPLICIT: dispatch-errors.mlir:16:3: error: invalid perf config 'v4:256,256,8,128,128,32,8,1,2,2,0,0,1,1': lds: A and B tiles need 131072 bytes
func.func @explicit(%a: memref<60x96xbf16>, %b: memref<96x96xbf16>, %s: memref<4xi32>, %c: memref<60x32xbf16>) {
  "accel.grouped_gemm"(%a, %b, %s, %c) {arch = "gfx942", max_seq_len = 20 : i64, perf_config = "v4:256,256,8,128,128,32,8,1,2,2,0,0,1,1"} : (memref<60x96xbf16>, memref<96x96xbf16>, memref<4xi32>, memref<60x32xbf16>) -> ()
  return
}
