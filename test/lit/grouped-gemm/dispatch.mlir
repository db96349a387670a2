// RUN: accel-opt %s --split-input-file --pass-pipeline='builtin.module(accel-grouped-dispatch)' | FileCheck %s
// RUN: accel-opt %s --split-input-file --pass-pipeline='builtin.module(accel-grouped-dispatch{table=%S/Inputs/table.json})' | FileCheck %s --check-prefix=TABLE

// No perf config and no table entry for B3D32K32N40 in the shipped table: the heuristic
// chooses, and compact is taken because the buffers (64 rows) cannot hold 3 groups of 40.
// CHECK-LABEL: func.func @off_table
// CHECK: config_source = "heuristic", max_seq_len = 40 : i64, mode = "compact", perf_config = "v4:
// The user's table has the key: its perf config and its mode win over the heuristic.
// TABLE-LABEL: func.func @off_table
// TABLE: config_source = "table", max_seq_len = 40 : i64, mode = "uniform", perf_config = "v4:16,32,4,16,16,16,8,1,1,2,0,0,1,1"
func.func @off_table(%a: memref<64x32xbf16>, %b: memref<96x32xbf16>, %s: memref<4xi32>, %c: memref<64x32xbf16>) {
  "accel.grouped_gemm"(%a, %b, %s, %c) {arch = "gfx942", max_seq_len = 40 : i64} : (memref<64x32xbf16>, memref<96x32xbf16>, memref<4xi32>, memref<64x32xbf16>) -> ()
  return
}

// -----

// An explicit perf config and mode are kept, whatever the table says.
// CHECK-LABEL: func.func @explicit
// CHECK: config_source = "explicit", max_seq_len = 40 : i64, mode = "compact", perf_config = "v4:32,32,4,32,32,32,8,1,1,2,0,0,1,1"
// TABLE-LABEL: func.func @explicit
// TABLE: config_source = "explicit", max_seq_len = 40 : i64, mode = "compact", perf_config = "v4:32,32,4,32,32,32,8,1,1,2,0,0,1,1"
func.func @explicit(%a: memref<64x32xbf16>, %b: memref<96x32xbf16>, %s: memref<4xi32>, %c: memref<64x32xbf16>) {
  "accel.grouped_gemm"(%a, %b, %s, %c) {arch = "gfx942", max_seq_len = 40 : i64, mode = "compact", perf_config = "v4:32,32,4,32,32,32,8,1,1,2,0,0,1,1"} : (memref<64x32xbf16>, memref<96x32xbf16>, memref<4xi32>, memref<64x32xbf16>) -> ()
  return
}

// -----

// Buffers for every group at max_seq_len (3 x 20 = 60 rows): auto is uniform.
// CHECK-LABEL: func.func @full_buffers
// CHECK: mode = "uniform"
// A table entry without a mode leaves the mode to the same rule.
// TABLE-LABEL: func.func @full_buffers
// TABLE: config_source = "table", max_seq_len = 20 : i64, mode = "uniform", perf_config = "v4:16,32,2,16,16,16,8,1,1,2,0,0,1,1"
func.func @full_buffers(%a: memref<60x32xbf16>, %b: memref<96x32xbf16>, %s: memref<4xi32>, %c: memref<60x32xbf16>) {
  "accel.grouped_gemm"(%a, %b, %s, %c) {arch = "gfx942", max_seq_len = 20 : i64} : (memref<60x32xbf16>, memref<96x32xbf16>, memref<4xi32>, memref<60x32xbf16>) -> ()
  return
}
