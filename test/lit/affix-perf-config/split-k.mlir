// Without a perf config, a skinny deep GEMM is split along K when tuning/split_k.py
// estimates it faster; one that fills the chip is not. A given split-K config is kept,
// its grid counting every slice.
// RUN: accel-opt %s --accel-affix-perf-config --split-input-file | FileCheck %s

// 48x4096x4096 on MI300X: the 16x64 tile makes 3 x 64 = 192 workgroups for 304 CUs,
// each over all 4096 of K; four slices make 768 of a quarter of K each.
// CHECK-LABEL: func.func @skinny
// CHECK: grid_size = 768 : i64
// CHECK-SAME: perf_config = "v4:16,64,16,16,32,16,8,4,1,2,0,0,1,1"
func.func @skinny(%a: memref<1x48x4096xf16>, %b: memref<1x4096x4096xf16>, %c: memref<1x48x4096xf16>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", a_layout = "row", b_layout = "row", c_layout = "row"} : (memref<1x48x4096xf16>, memref<1x4096x4096xf16>, memref<1x48x4096xf16>) -> ()
  return
}

// -----

// CHECK-LABEL: func.func @square
// CHECK: perf_config = "v4:{{[0-9]+,[0-9]+,[0-9]+,[0-9]+,[0-9]+,[0-9]+,[0-9]+,}}1,
func.func @square(%a: memref<1x4096x4096xf16>, %b: memref<1x4096x4096xf16>, %c: memref<1x4096x4096xf16>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", a_layout = "row", b_layout = "row", c_layout = "row"} : (memref<1x4096x4096xf16>, memref<1x4096x4096xf16>, memref<1x4096x4096xf16>) -> ()
  return
}

// -----

// CHECK-LABEL: func.func @given
// CHECK: grid_size = 24 : i64
// CHECK-SAME: perf_config = "v4:32,32,4,32,32,32,8,3,1,2,0,0,1,1"
func.func @given(%a: memref<2x37x200xf16>, %b: memref<2x200x64xf16>, %c: memref<2x37x64xf16>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", a_layout = "row", b_layout = "row", c_layout = "row", perf_config = "v4:32,32,4,32,32,32,8,3,1,2,0,0,1,1"} : (memref<2x37x200xf16>, memref<2x200x64xf16>, memref<2x37x64xf16>) -> ()
  return
}
