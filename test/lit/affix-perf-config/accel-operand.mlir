// An operand already in the accel layout fixes dPerBlock, kpackPerBlock and kpack.
// RUN: accel-opt %s --split-input-file --accel-affix-perf-config | FileCheck %s
// RUN: accel-opt %s --split-input-file --verify-diagnostics --accel-affix-perf-config='perf-config=v4:64,64,4,32,32,32,8,1,1,2,0,0,1,1' -o /dev/null

// Seed 001's A: [1, 128/32, 5120/64, 8, 32, 8] -> mPB 32, kpackPerBlock 8, kpack 8.
// CHECK-LABEL: func.func @a_accel
// CHECK: perf_config = "v4:32,{{[0-9]+}},8,{{[0-9]+}},{{[0-9]+}},{{16|32}},8,
func.func @a_accel(%a: memref<1x4x80x8x32x8xf16>, %b: memref<1x5120x1280xf16>, %c: memref<1x128x1280xf16>) {
  // expected-error@+1 {{A accel layout [.., 8, 32, 8] disagrees with perf config}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", a_layout = "accel", b_layout = "row", c_layout = "row"} : (memref<1x4x80x8x32x8xf16>, memref<1x5120x1280xf16>, memref<1x128x1280xf16>) -> ()
  return
}
