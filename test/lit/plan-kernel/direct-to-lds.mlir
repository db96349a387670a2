// RUN: accel-opt %s --pass-pipeline='builtin.module(accel-plan-kernel)' --split-input-file | FileCheck %s

// scheduleVersion 3 (direct-to-LDS, one buffer) on gfx942 with A row-major and B
// transposed: both operands go into LDS by gather_to_lds, a dword a lane (vector 2 of
// f16), nothing held in registers (ahead false), no slab padding (a wave writes 64
// consecutive dwords); the row swizzle stays.
// CHECK-LABEL: func.func @version3
// CHECK: a_copy = {ahead = false, k_chunk = 1 : i64, permute = false, rows_first = false, sgpr_offset = "none", slab_pad = 0 : i64, swizzle = true, swizzle_bit = 0 : i64, swizzle_shift = 0 : i64, vector = 2 : i64}
// CHECK-SAME: b_copy = {ahead = false, k_chunk = 1 : i64, permute = false, rows_first = false, sgpr_offset = "none", slab_pad = 0 : i64, swizzle = true, swizzle_bit = 0 : i64, swizzle_shift = 0 : i64, vector = 2 : i64}
// CHECK-SAME: direct_to_lds = true
// CHECK-SAME: lds_buffers = 1 : i64
func.func @version3(%a: memref<1x64x256xf16>, %b: memref<1x64x256xf16>, %c: memref<1x64x64xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", b_layout = "transposed", perf_config = "v4:64,64,4,32,32,16,8,1,3,2,0,0,1,1"} : (memref<1x64x256xf16>, memref<1x64x256xf16>, memref<1x64x64xf32>) -> ()
  return
}

// -----

// scheduleVersion 4: the same with two LDS buffers; i8 moves 4 elements a dword.
// CHECK-LABEL: func.func @version4_i8
// CHECK: vector = 4 : i64}
// CHECK-SAME: direct_to_lds = true
// CHECK-SAME: lds_buffers = 2 : i64
func.func @version4_i8(%a: memref<1x64x256xi8>, %b: memref<1x64x256xi8>, %c: memref<1x64x64xi32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", b_layout = "transposed", perf_config = "v4:64,64,4,32,32,16,16,1,4,2,0,0,1,1"} : (memref<1x64x256xi8>, memref<1x64x256xi8>, memref<1x64x64xi32>) -> ()
  return
}

// -----

// scheduleVersion 1 keeps the copy through registers.
// CHECK-LABEL: func.func @version1
// CHECK: direct_to_lds = false
func.func @version1(%a: memref<1x64x256xf16>, %b: memref<1x64x256xf16>, %c: memref<1x64x64xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", b_layout = "transposed", perf_config = "v4:64,64,4,32,32,16,8,1,1,2,0,0,1,1"} : (memref<1x64x256xf16>, memref<1x64x256xf16>, memref<1x64x64xf32>) -> ()
  return
}
