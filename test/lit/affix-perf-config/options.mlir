// The cu-count and perf-config options.
// RUN: accel-opt %s --accel-affix-perf-config='perf-config=v4:32,32,4,32,32,32,8,1,1,2,0,0,1,1' | FileCheck %s --check-prefix=FORCED
// RUN: accel-opt %s --accel-affix-perf-config | FileCheck %s --check-prefix=MI300X
// RUN: accel-opt %s --accel-affix-perf-config='cu-count=16' | FileCheck %s --check-prefix=SMALL
// RUN: not accel-opt %s --accel-affix-perf-config='perf-config=v4:32,32,4,32,32,4,8,1,1,2,0,0,1,1' 2>&1 | FileCheck %s --check-prefix=BAD

// FORCED: grid_size = 256 : i64
// FORCED-SAME: perf_config = "v4:32,32,4,32,32,32,8,1,1,2,0,0,1,1"
// 304 CUs: every tile is latency-bound on 512^3 (four 128-deep k-tiles), so the
// narrowest whose B rows are whole 128-byte lines, 16x64x128, gives 256 workgroups one
// k-tile each per CU (origami's best: 64x16x128, its mirror).
// MI300X: grid_size = 256 : i64
// MI300X-SAME: perf_config = "v4:16,64,
// On a 16-CU part the wide tiles win.
// SMALL: perf_config = "v4:{{64|128|256}},{{64|128|256}},
// BAD: options.mlir:18:3: error: invalid perf config 'v4:32,32,4,32,32,4,8,1,1,2,0,0,1,1': mma-tile
func.func @f(%a: memref<1x512x512xf16>, %b: memref<1x512x512xf16>, %c: memref<1x512x512xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", a_layout = "row", b_layout = "row", c_layout = "row"} : (memref<1x512x512xf16>, memref<1x512x512xf16>, memref<1x512x512xf32>) -> ()
  return
}
