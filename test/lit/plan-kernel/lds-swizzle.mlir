// RUN: accel-opt %s --pass-pipeline='builtin.module(accel-plan-kernel)' --split-input-file | FileCheck %s

// LDS rows are XOR-swizzled when one row (a kpack run) is one 16-byte bank slot:
// f16 kpack 8. The swizzle maps bit 1 of d // 8 to slot bit 2 for the 32x32 MFMA
// (its lanes read rows i and i+16 together), bit 0 otherwise. Slabs are padded by
// 8 / kpackPerBlock rows (1 when kpackPerBlock >= 8).
// CHECK-LABEL: func.func @mfma32_kpb4
// CHECK: a_copy = {{[{][^}]*}}slab_pad = 2 : i64, swizzle = true, swizzle_bit = 1 : i64
// CHECK-SAME: b_copy = {{[{][^}]*}}slab_pad = 2 : i64, swizzle = true, swizzle_bit = 1 : i64
func.func @mfma32_kpb4(%a: memref<1x64x64xf16>, %b: memref<1x64x64xf16>, %c: memref<1x64x64xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:64,64,4,32,32,32,8,1,1,2,0,0,1,1"} : (memref<1x64x64xf16>, memref<1x64x64xf16>, memref<1x64x64xf32>) -> ()
  return
}

// -----

// CHECK-LABEL: func.func @mfma16_kpb8
// CHECK: a_copy = {{[{][^}]*}}slab_pad = 1 : i64, swizzle = true, swizzle_bit = 0 : i64
func.func @mfma16_kpb8(%a: memref<1x64x64xf16>, %b: memref<1x64x64xf16>, %c: memref<1x64x64xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:64,64,8,32,32,16,8,1,1,2,0,0,1,1"} : (memref<1x64x64xf16>, memref<1x64x64xf16>, memref<1x64x64xf32>) -> ()
  return
}

// -----

// kpack 4 (8-byte rows): no swizzle, no padding.
// CHECK-LABEL: func.func @kpack4
// CHECK: a_copy = {{[{][^}]*}}slab_pad = 0 : i64, swizzle = false
func.func @kpack4(%a: memref<1x64x64xf16>, %b: memref<1x64x64xf16>, %c: memref<1x64x64xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:64,64,8,32,32,16,4,1,1,2,0,0,1,1"} : (memref<1x64x64xf16>, memref<1x64x64xf16>, memref<1x64x64xf32>) -> ()
  return
}

// -----

// A tile that fills the 64 KiB of LDS exactly (256x256 x 64 of f16, one buffer) has no
// room for the padding: it goes without, and A's K-contiguous copy goes down 8 rows
// first instead (rows_first); B row-major, a transposing copy, needs neither.
// CHECK-LABEL: func.func @lds_full
// CHECK: a_copy = {{[{][^}]*}}rows_first = true, {{[^}]*}}slab_pad = 0 : i64, swizzle = true
// CHECK-SAME: b_copy = {{[{][^}]*}}rows_first = false, {{[^}]*}}slab_pad = 0 : i64, swizzle = true
func.func @lds_full(%a: memref<1x256x64xf16>, %b: memref<1x64x256xf16>, %c: memref<1x256x256xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:256,256,8,128,128,32,8,1,1,2,0,0,1,1"} : (memref<1x256x64xf16>, memref<1x64x256xf16>, memref<1x256x256xf32>) -> ()
  return
}

// -----

// Padded slabs keep the plain order: rows_first = false.
// CHECK-LABEL: func.func @padded_in_k_order
// CHECK: a_copy = {{[{][^}]*}}rows_first = false, {{[^}]*}}slab_pad = 1 : i64
func.func @padded_in_k_order(%a: memref<1x64x64xf16>, %b: memref<1x64x64xf16>, %c: memref<1x64x64xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:64,64,8,32,32,16,8,1,1,2,0,0,1,1"} : (memref<1x64x64xf16>, memref<1x64x64xf16>, memref<1x64x64xf32>) -> ()
  return
}

// -----

// A transposing copy of 16-element units (i8 B row-major, 128-bit loads) keys its
// swizzle by 16-row blocks (swizzle_shift 1), where the 32x32 MFMA's rows i and i+16
// are bit 0; A (K-contiguous, 16-byte rows of one 8-row block) keeps shift 0 and bit 1.
// CHECK-LABEL: func.func @byte_units_mfma32
// CHECK: a_copy = {{[{][^}]*}}swizzle_bit = 1 : i64, swizzle_shift = 0 : i64
// CHECK-SAME: b_copy = {{[{][^}]*}}swizzle_bit = 0 : i64, swizzle_shift = 1 : i64, vector = 16
func.func @byte_units_mfma32(%a: memref<1x64x128xi8>, %b: memref<1x128x64xi8>, %c: memref<1x64x64xi32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:64,64,8,32,32,32,16,1,1,2,0,0,1,1"} : (memref<1x64x128xi8>, memref<1x128x64xi8>, memref<1x64x64xi32>) -> ()
  return
}

// -----

// ... but not on gfx1100, whose lanes read rows i and i+8 together (bit 0 of d // 8).
// CHECK-LABEL: func.func @byte_units_rdna3
// CHECK: b_copy = {{[{][^}]*}}swizzle_bit = 0 : i64, swizzle_shift = 0 : i64, vector = 16
func.func @byte_units_rdna3(%a: memref<1x64x128xi8>, %b: memref<1x128x64xi8>, %c: memref<1x64x64xi32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx1100", perf_config = "v4:32,32,8,16,16,16,16,1,1,2,0,0,1,1"} : (memref<1x64x128xi8>, memref<1x128x64xi8>, memref<1x64x64xi32>) -> ()
  return
}
