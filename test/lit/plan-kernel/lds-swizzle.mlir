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
// room for the padding: it goes without.
// CHECK-LABEL: func.func @lds_full
// CHECK: a_copy = {{[{][^}]*}}slab_pad = 0 : i64, swizzle = true
// CHECK-SAME: b_copy = {{[{][^}]*}}slab_pad = 0 : i64, swizzle = true
func.func @lds_full(%a: memref<1x256x64xf16>, %b: memref<1x64x256xf16>, %c: memref<1x256x256xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:256,256,8,128,128,32,8,1,1,2,0,0,1,1"} : (memref<1x256x64xf16>, memref<1x64x256xf16>, memref<1x256x256xf32>) -> ()
  return
}
