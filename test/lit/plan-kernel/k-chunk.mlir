// RUN: accel-opt %s --pass-pipeline='builtin.module(accel-plan-kernel)' --split-input-file | FileCheck %s

// A D-contiguous operand (B row-major, A transposed) is transposed in registers: a
// thread joins k_chunk K rows. k_chunk is kpack (8), halved while threads of the block
// would go without a unit: a 32x16x32 B tile is 64 vectors of 8, shared by 64 threads,
// so 2 rows each. A K-contiguous copy does not transpose (k_chunk 1).
// CHECK-LABEL: func.func @small_tile
// CHECK: a_copy = {{[{][^}]*}}k_chunk = 1 : i64
// CHECK-SAME: b_copy = {{[{][^}]*}}k_chunk = 2 : i64
func.func @small_tile(%a: memref<1x64x256xf16>, %b: memref<1x256x48xf16>, %c: memref<1x64x48xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:32,16,4,16,16,16,8,1,1,2,0,0,1,1"} : (memref<1x64x256xf16>, memref<1x256x48xf16>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// A 128x128x64 tile on 256 threads: 1024 vectors of B, 128 units of 8 rows, so 4 rows
// (256 units). A transposed transposes too.
// CHECK-LABEL: func.func @large_tile
// CHECK: a_copy = {{[{][^}]*}}k_chunk = 4 : i64
// CHECK-SAME: b_copy = {{[{][^}]*}}k_chunk = 4 : i64
func.func @large_tile(%a: memref<1x256x256xf16>, %b: memref<1x256x256xf16>, %c: memref<1x256x256xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", a_layout = "transposed", perf_config = "v4:128,128,8,64,64,32,8,1,1,2,0,0,1,1"} : (memref<1x256x256xf16>, memref<1x256x256xf16>, memref<1x256x256xf32>) -> ()
  return
}
