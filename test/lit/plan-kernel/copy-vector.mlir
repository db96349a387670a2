// RUN: accel-opt %s --pass-pipeline='builtin.module(accel-plan-kernel)' --split-input-file | FileCheck %s

// Global load width: the widest vector (at most 128 bits) dividing the extent that is
// contiguous in memory, so a vector is wholly inside a row or wholly past its end.
// A row-major is K-contiguous (K = 256: 8 x f16); B row-major is N-contiguous (N = 48: 8).
// CHECK-LABEL: func.func @aligned
// CHECK: a_copy = {{[{][^}]*}}vector = 8 : i64}
// CHECK-SAME: b_copy = {{[{][^}]*}}vector = 8 : i64}
func.func @aligned(%a: memref<1x64x256xf16>, %b: memref<1x256x48xf16>, %c: memref<1x64x48xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:32,16,4,16,16,16,8,1,1,2,0,0,1,1"} : (memref<1x64x256xf16>, memref<1x256x48xf16>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// A ragged K (250) narrows A's loads to pairs; a ragged N (77) makes B's scalar.
// CHECK-LABEL: func.func @ragged
// CHECK: a_copy = {{[{][^}]*}}vector = 2 : i64}
// CHECK-SAME: b_copy = {{[{][^}]*}}vector = 1 : i64}
func.func @ragged(%a: memref<1x64x250xf16>, %b: memref<1x250x77xf16>, %c: memref<1x64x77xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:32,16,4,16,16,16,8,1,1,2,0,0,1,1"} : (memref<1x64x250xf16>, memref<1x250x77xf16>, memref<1x64x77xf32>) -> ()
  return
}

// -----

// Transposed B is K-contiguous; i8 vectors are 16 elements.
// CHECK-LABEL: func.func @transposed_i8
// CHECK: a_copy = {{[{][^}]*}}vector = 16 : i64}
// CHECK-SAME: b_copy = {{[{][^}]*}}vector = 16 : i64}
func.func @transposed_i8(%a: memref<1x64x64xi8>, %b: memref<1x64x64xi8>, %c: memref<1x64x64xi32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx1100", b_layout = "transposed", perf_config = "v4:32,32,4,16,16,16,16,1,1,2,0,0,1,1"} : (memref<1x64x64xi8>, memref<1x64x64xi8>, memref<1x64x64xi32>) -> ()
  return
}

// -----

// The loads take the k-tile's offset as sgprOffset; a tile copied inside the loop (not
// loaded ahead: gfx942 with the AGPRs full of accumulators) its D tile's too.
// CHECK-LABEL: func.func @k_tile_in_soffset
// CHECK: a_copy = {ahead = true, {{[^}]*}}sgpr_offset = "k_tile"
// CHECK-SAME: b_copy = {ahead = true, {{[^}]*}}sgpr_offset = "k_tile"
func.func @k_tile_in_soffset(%a: memref<1x64x256xf16>, %b: memref<1x256x48xf16>, %c: memref<1x64x48xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx1201", perf_config = "v4:32,16,4,16,16,16,8,1,1,2,0,0,1,1"} : (memref<1x64x256xf16>, memref<1x256x48xf16>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// CHECK-LABEL: func.func @tile_in_soffset
// CHECK: a_copy = {ahead = false, {{[^}]*}}sgpr_offset = "tile"
// CHECK-SAME: b_copy = {ahead = false, {{[^}]*}}sgpr_offset = "tile"
func.func @tile_in_soffset(%a: memref<1x256x64xf16>, %b: memref<1x64x256xf16>, %c: memref<1x256x256xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:256,256,8,128,128,32,8,1,1,2,0,0,1,1"} : (memref<1x256x64xf16>, memref<1x64x256xf16>, memref<1x256x256xf32>) -> ()
  return
}

// -----

// A view with no stride-1 side (batch-first A: batch stride 1, K stride 2) and one of a
// broadcast scalar per batch (B: strides 1, 0, 0) are loaded one element at a time,
// whatever their extents; the LDS tile and what follows are as for packed operands
// (same slab padding and swizzle).
// CHECK-LABEL: func.func @no_contiguous_side
// CHECK: a_copy = {{[{][^}]*}}slab_pad = 2 : i64, swizzle = true, {{[^}]*}}vector = 1 : i64}
// CHECK-SAME: b_copy = {{[{][^}]*}}vector = 1 : i64}
func.func @no_contiguous_side(%a: memref<2x64x256xf16, strided<[1, 520, 2]>>, %b: memref<2x256x48xf16, strided<[1, 0, 0]>>, %c: memref<2x64x48xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:32,16,4,16,16,16,8,1,1,2,0,0,1,1"} : (memref<2x64x256xf16, strided<[1, 520, 2]>>, memref<2x256x48xf16, strided<[1, 0, 0]>>, memref<2x64x48xf32>) -> ()
  return
}

// -----

// K of two digits ([G, M, K1, K0]: 3 heads of K0 = 20, K = 60): a vector stays inside
// one K0 run (4 f16 divide 20, 8 do not), and a k-tile (kPerBlock 32) crosses a run,
// so no tile origin is an SGPR offset the elements lie past (sgpr_offset "none").
// With K0 = 64 (a multiple of kPerBlock), both as for a packed A.
// CHECK-LABEL: func.func @k_of_two_digits
// CHECK: a_copy = {{[{][^}]*}}sgpr_offset = "none", {{[^}]*}}vector = 4 : i64}
// CHECK-LABEL: func.func @whole_k_tiles_per_digit
// CHECK: a_copy = {{[{][^}]*}}sgpr_offset = "k_tile", {{[^}]*}}vector = 8 : i64}
func.func @k_of_two_digits(%a: memref<1x64x3x20xf16, strided<[3840, 20, 1280, 1]>>, %b: memref<1x60x48xf16>, %c: memref<1x64x48xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:32,16,4,16,16,16,8,1,1,2,0,0,1,1"} : (memref<1x64x3x20xf16, strided<[3840, 20, 1280, 1]>>, memref<1x60x48xf16>, memref<1x64x48xf32>) -> ()
  return
}
func.func @whole_k_tiles_per_digit(%a: memref<1x64x3x64xf16, strided<[12288, 64, 4096, 1]>>, %b: memref<1x192x48xf16>, %c: memref<1x64x48xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:32,16,4,16,16,16,8,1,1,2,0,0,1,1"} : (memref<1x64x3x64xf16, strided<[12288, 64, 4096, 1]>>, memref<1x192x48xf16>, memref<1x64x48xf32>) -> ()
  return
}
