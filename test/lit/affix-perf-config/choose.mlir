// Without a perf_config the pass chooses one and records the launch.
// RUN: accel-opt %s --split-input-file --accel-affix-perf-config | FileCheck %s

// Seed 000 (W7900): 528x528x1024 runs fastest on 64x64x64 with N padded to 576.
// CHECK-LABEL: func.func @pads_to_the_64_tile
// CHECK: "accel.gemm"
// CHECK-SAME: block_size = {{[0-9]+}} : i64
// CHECK-SAME: grid_size = 81 : i64
// CHECK-SAME: padded_k = 1024 : i64, padded_m = 576 : i64, padded_n = 576 : i64
// CHECK-SAME: perf_config = "v4:64,64,{{[0-9]+}},{{[0-9]+}},{{[0-9]+}},16,{{[0-9]+}},1,1,2,0,0,1,1"
func.func @pads_to_the_64_tile(%a: memref<1x528x1024xbf16>, %b: memref<1x1024x528xbf16>, %c: memref<1x528x528xbf16>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx1100", a_layout = "row", b_layout = "row", c_layout = "row"} : (memref<1x528x1024xbf16>, memref<1x1024x528xbf16>, memref<1x528x528xbf16>) -> ()
  return
}

// -----

// M=48 stays on 16-row tiles (a 32- or 64-row tile would pad M by a third).
// CHECK-LABEL: func.func @m48
// CHECK: padded_m = 48 : i64
// CHECK-SAME: perf_config = "v4:16,
func.func @m48(%a: memref<1x48x4096xbf16>, %b: memref<1x4096x4096xbf16>, %c: memref<1x48x4096xbf16>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx1100", a_layout = "row", b_layout = "row", c_layout = "row"} : (memref<1x48x4096xbf16>, memref<1x4096x4096xbf16>, memref<1x48x4096xbf16>) -> ()
  return
}

// -----

// One element: the 16x16 floor, K padded to the 16-deep k-tile; the batch is the grid.
// CHECK-LABEL: func.func @one_element_batched
// CHECK: block_size = 64 : i64
// CHECK-SAME: grid_size = 5 : i64
// CHECK-SAME: padded_k = 16 : i64, padded_m = 16 : i64, padded_n = 16 : i64
// CHECK-SAME: perf_config = "v4:16,16,{{[0-9]+}},16,16,16,
func.func @one_element_batched(%a: memref<5x1x1xf16>, %b: memref<5x1x1xf16>, %c: memref<5x1x1xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", a_layout = "row", b_layout = "row", c_layout = "row"} : (memref<5x1x1xf16>, memref<5x1x1xf16>, memref<5x1x1xf32>) -> ()
  return
}
