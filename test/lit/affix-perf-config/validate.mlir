// A given perf_config is kept when valid, and its launch recorded.
// RUN: accel-opt %s --accel-affix-perf-config | FileCheck %s

// 128x128 in 4 waves of 64x64 (256 threads); grid (1024/128) x (512/128) x 2.
// CHECK-LABEL: func.func @kept
// CHECK: block_size = 256 : i64
// CHECK-SAME: grid_size = 64 : i64
// CHECK-SAME: padded_k = 256 : i64, padded_m = 512 : i64, padded_n = 1024 : i64
// CHECK-SAME: perf_config = "v4:128,128,4,64,64,32,8,1,1,2,0,0,1,1"
func.func @kept(%a: memref<2x512x256xf16>, %b: memref<2x256x1024xf16>, %c: memref<2x512x1024xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", a_layout = "row", b_layout = "row", c_layout = "row", perf_config = "v4:128,128,4,64,64,32,8,1,1,2,0,0,1,1"} : (memref<2x512x256xf16>, memref<2x256x1024xf16>, memref<2x512x1024xf32>) -> ()
  return
}
