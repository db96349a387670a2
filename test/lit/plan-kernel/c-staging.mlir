// RUN: accel-opt %s --pass-pipeline='builtin.module(accel-plan-kernel)' --split-input-file | FileCheck %s

// c_staging: outputSwizzle 1 passes C through LDS. gfx942 MFMA 16x16 leaves a lane 4
// columns (64 bits of f16): it writes them as one unit and reads back 8 (128 bits) of a
// row, stored 8 at a time (N = 64); a wave's 32 rows x 32 columns of f16 staged in
// two passes of 16 whole rows fit A's 4 KB tile buffer (4 waves x 16 x 32 x 2 bytes;
// 32 rows x 16 columns would fit too: whole rows win).
// CHECK-LABEL: func.func @mfma16_f16
// CHECK: c_staging = {buffer = "a", columns = 32 : i64, rows = 16 : i64, span = 8 : i64, unit = 4 : i64, vector = 8 : i64}
func.func @mfma16_f16(%a: memref<1x64x64xf16>, %b: memref<1x64x64xf16>, %c: memref<1x64x64xf16>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:64,64,4,32,32,16,8,1,1,1,0,0,1,1"} : (memref<1x64x64xf16>, memref<1x64x64xf16>, memref<1x64x64xf16>) -> ()
  return
}

// -----

// The larger operand buffer holds the rows (B's, 128 x 32 f16 = 8 KB), the largest
// block that fits there: 4 waves x 16 rows x 32 columns of f32 = 8 KB, two passes
// of the wave's 32 rows. N = 250 takes two f32 per store.
// CHECK-LABEL: func.func @passes
// CHECK: c_staging = {buffer = "b", columns = 32 : i64, rows = 16 : i64, span = 4 : i64, unit = 4 : i64, vector = 2 : i64}
func.func @passes(%a: memref<1x256x64xf16>, %b: memref<1x64x250xf16>, %c: memref<1x256x250xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx1201", perf_config = "v4:32,128,4,32,32,16,8,1,1,1,0,0,1,1"} : (memref<1x256x64xf16>, memref<1x64x250xf16>, memref<1x256x250xf32>) -> ()
  return
}

// -----

// A split-K gemm stages its partial product, in the accumulator type (f32). Its wave
// tile is one 16 x 16 MMA tile (4 waves x 1 KB of f32), more than A's 2 KB tile buffer,
// which grows (gemm-to-gpu/c-staging.mlir).
// CHECK-LABEL: func.func @split_k
// CHECK: c_staging = {buffer = "a", columns = 16 : i64, rows = 16 : i64, span = 4 : i64, unit = 4 : i64, vector = 4 : i64}
// CHECK-SAME: split_k =
func.func @split_k(%a: memref<1x32x512xf16>, %b: memref<1x512x32xf16>, %c: memref<1x32x32xf16>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx1100", perf_config = "v4:32,32,4,16,16,16,8,4,1,1,0,0,1,1"} : (memref<1x32x512xf16>, memref<1x512x32xf16>, memref<1x32x32xf16>) -> ()
  return
}

// -----

// Row blocks narrower than the wave's tile when whole rows do not fit: 8 waves of a
// 64 x 64 f16 tile with MFMA 32x32 take 8 x 32 x 64 x 2 = 32 KB a 32-row pass; B's
// buffer (256 x 32 f16, 16 KB) holds 32 x 32 blocks: four passes.
// CHECK-LABEL: func.func @column_blocks
// CHECK: c_staging = {buffer = "b", columns = 32 : i64, rows = 32 : i64, span = 8 : i64, unit = 8 : i64, vector = 8 : i64}
func.func @column_blocks(%a: memref<1x128x64xf16>, %b: memref<1x64x256xf16>, %c: memref<1x128x256xf16>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:128,256,4,64,64,32,8,1,1,1,0,0,1,1"} : (memref<1x128x64xf16>, memref<1x64x256xf16>, memref<1x128x256xf16>) -> ()
  return
}

// -----

// outputSwizzle 0 and 2 store C from the accumulators: no c_staging.
// CHECK-LABEL: func.func @accumulators
// CHECK-NOT: c_staging
func.func @accumulators(%a: memref<1x64x64xf16>, %b: memref<1x64x64xf16>, %c: memref<1x64x64xf16>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:64,64,4,32,32,16,8,1,1,2,0,0,1,1"} : (memref<1x64x64xf16>, memref<1x64x64xf16>, memref<1x64x64xf16>) -> ()
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:64,64,4,32,32,16,8,1,1,0,0,0,1,1"} : (memref<1x64x64xf16>, memref<1x64x64xf16>, memref<1x64x64xf16>) -> ()
  return
}
