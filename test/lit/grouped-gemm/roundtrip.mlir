// RUN: accel-opt %s | FileCheck %s
// A valid grouped gemm verifies and prints back unchanged (a fixed point).
// RUN: accel-opt %s | accel-opt | FileCheck %s

// Stacked B (G*N, K), the bias as a 5th operand, the mode left to the dispatch.
// CHECK-LABEL: func.func @stacked_bias
// CHECK: "accel.grouped_gemm"(%arg0, %arg1, %arg2, %arg3, %arg4) {arch = "gfx942", max_seq_len = 40 : i64} : (memref<64x32xbf16>, memref<96x32xbf16>, memref<4xi32>, memref<64x32xbf16>, memref<96xbf16>) -> ()
func.func @stacked_bias(%a: memref<64x32xbf16>, %b: memref<96x32xbf16>, %s: memref<4xi32>, %c: memref<64x32xbf16>, %bias: memref<96xbf16>) {
  "accel.grouped_gemm"(%a, %b, %s, %c, %bias) {arch = "gfx942", max_seq_len = 40 : i64} : (memref<64x32xbf16>, memref<96x32xbf16>, memref<4xi32>, memref<64x32xbf16>, memref<96xbf16>) -> ()
  return
}

// Row B [G, K, N], f32 output, every decision given.
// CHECK-LABEL: func.func @row_f32
// CHECK: "accel.grouped_gemm"(%arg0, %arg1, %arg2, %arg3) {arch = "gfx1100", b_layout = "row", config_source = "explicit", max_seq_len = 16 : i64, mode = "uniform", perf_config = "v4:16,16,8,16,16,16,8,1,1,2,0,0,1,1"} : (memref<64x32xf16>, memref<3x32x24xf16>, memref<4xi32>, memref<64x24xf32>) -> ()
func.func @row_f32(%a: memref<64x32xf16>, %b: memref<3x32x24xf16>, %s: memref<4xi32>, %c: memref<64x24xf32>) {
  "accel.grouped_gemm"(%a, %b, %s, %c) {arch = "gfx1100", b_layout = "row", mode = "uniform", config_source = "explicit", max_seq_len = 16 : i64, perf_config = "v4:16,16,8,16,16,16,8,1,1,2,0,0,1,1"} : (memref<64x32xf16>, memref<3x32x24xf16>, memref<4xi32>, memref<64x24xf32>) -> ()
  return
}
