// RUN: accel-opt %s --split-input-file --verify-diagnostics | FileCheck %s
// accel.gemm's A, B (row or transposed) and gmn epilogue operands may be strided views
// of a larger buffer; each rule of dialect/operand_layouts.py check_operand_view, one
// case each.

// A K slice with rows 40 apart, B broadcast over the batch (stride 0) and transposed,
// the epilogue operand one [M, N] matrix for both batches: accepted, printed as given.
// CHECK-LABEL: func.func @accepted
// CHECK: "accel.gemm"(%arg0, %arg1, %arg2, %arg3) {{.*}} : (memref<2x4x16xf16, strided<[160, 40, 1], offset: 8>>, memref<2x8x16xf16, strided<[0, 16, 1]>>, memref<2x4x8xf32>, memref<2x4x8xf32, strided<[0, 8, 1]>>) -> ()
func.func @accepted(%a: memref<2x4x16xf16, strided<[160, 40, 1], offset: 8>>, %b: memref<2x8x16xf16, strided<[0, 16, 1]>>, %c: memref<2x4x8xf32>, %e: memref<2x4x8xf32, strided<[0, 8, 1]>>) {
  "accel.gemm"(%a, %b, %c, %e) {arch = "gfx942", b_layout = "transposed", epilogue = "%0 = add %acc, %e0", epilogue_operands = ["gmn"]} : (memref<2x4x16xf16, strided<[160, 40, 1], offset: 8>>, memref<2x8x16xf16, strided<[0, 16, 1]>>, memref<2x4x8xf32>, memref<2x4x8xf32, strided<[0, 8, 1]>>) -> ()
  return
}

// -----

// A and B need no contiguous side: a batch-first A (batch stride 1, K stride 2) and a
// B of one value per batch (strides 1, 0, 0) are read an element per load.
// CHECK-LABEL: func.func @no_contiguous_side
// CHECK: "accel.gemm"(%arg0, %arg1, %arg2) {{.*}} : (memref<2x4x16xf16, strided<[1, 64, 2]>>, memref<2x16x8xf16, strided<[1, 0, 0]>>, memref<2x4x8xf32>) -> ()
func.func @no_contiguous_side(%a: memref<2x4x16xf16, strided<[1, 64, 2]>>, %b: memref<2x16x8xf16, strided<[1, 0, 0]>>, %c: memref<2x4x8xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942"} : (memref<2x4x16xf16, strided<[1, 64, 2]>>, memref<2x16x8xf16, strided<[1, 0, 0]>>, memref<2x4x8xf32>) -> ()
  return
}

// -----

// An epilogue operand's loads are vectors along its contiguous side: it must have one.
func.func @inner_stride(%a: memref<2x4x16xf16>, %b: memref<2x16x8xf16>, %c: memref<2x4x8xf32>, %e: memref<2x4x8xf32, strided<[64, 16, 2]>>) {
  // expected-error@+1 {{epilogue operand 0's innermost dimension must have stride 1 (buffer loads read vectors along it), got memref<2x4x8xf32, strided<[64, 16, 2]>>}}
  "accel.gemm"(%a, %b, %c, %e) {arch = "gfx942", epilogue = "%0 = add %acc, %e0", epilogue_operands = ["gmn"]} : (memref<2x4x16xf16>, memref<2x16x8xf16>, memref<2x4x8xf32>, memref<2x4x8xf32, strided<[64, 16, 2]>>) -> ()
  return
}

// -----

// Every batch on one element (all strides 0): max(size * stride) is 0, so a buffer
// load would read 0 for the one element there is.
func.func @all_broadcast(%a: memref<2x4x16xf16, strided<[0, 0, 0], offset: 4>>, %b: memref<2x16x8xf16>, %c: memref<2x4x8xf32>) {
  // expected-error@+1 {{A's last element lies 0 elements past its first, outside the 0 a buffer load of memref<2x4x16xf16, strided<[0, 0, 0], offset: 4>> checks (max(size * stride)): its dimensions overlap}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942"} : (memref<2x4x16xf16, strided<[0, 0, 0], offset: 4>>, memref<2x16x8xf16>, memref<2x4x8xf32>) -> ()
  return
}

// -----

// Batches 8 apart overlap rows 16 apart: the last element (8 + 3 * 16 + 15 = 71) lies
// past max(size * stride) = 64, where a buffer load would read 0.
func.func @overlap(%a: memref<2x4x16xf16, strided<[8, 16, 1]>>, %b: memref<2x16x8xf16>, %c: memref<2x4x8xf32>) {
  // expected-error@+1 {{A's last element lies 71 elements past its first, outside the 64 a buffer load of memref<2x4x16xf16, strided<[8, 16, 1]>> checks (max(size * stride)): its dimensions overlap}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942"} : (memref<2x4x16xf16, strided<[8, 16, 1]>>, memref<2x16x8xf16>, memref<2x4x8xf32>) -> ()
  return
}

// -----

// The kernel's addressing is static.
func.func @dynamic(%a: memref<2x4x16xf16, strided<[64, 16, 1], offset: ?>>, %b: memref<2x16x8xf16>, %c: memref<2x4x8xf32>) {
  // expected-error@+1 {{A must have static strides and offset, got memref<2x4x16xf16, strided<[64, 16, 1], offset: ?>>}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942"} : (memref<2x4x16xf16, strided<[64, 16, 1], offset: ?>>, memref<2x16x8xf16>, memref<2x4x8xf32>) -> ()
  return
}

// -----

// The accel layout is the tile's exact order: no view of it.
func.func @accel_view(%a: memref<1x1x1x2x32x8xf16, strided<[1024, 1024, 1024, 512, 8, 1]>>, %b: memref<1x16x32xf16>, %c: memref<1x32x32xf32>) {
  // expected-error@+1 {{A in the accel layout must be a contiguous row-major memref, got memref<1x1x1x2x32x8xf16, strided<[1024, 1024, 1024, 512, 8, 1]>>}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", a_layout = "accel", perf_config = "v4:32,32,2,32,32,32,8,1,1,2,0,0,1,1"} : (memref<1x1x1x2x32x8xf16, strided<[1024, 1024, 1024, 512, 8, 1]>>, memref<1x16x32xf16>, memref<1x32x32xf32>) -> ()
  return
}

// -----

// C may be a strided view (dialect/gemm_verifier.py check_c_view), but its stores may
// not alias: batch stride 0 writes both batches at one address.
func.func @c_view(%a: memref<2x4x16xf16>, %b: memref<2x16x8xf16>, %c: memref<2x4x8xf32, strided<[0, 8, 1]>>) {
  // expected-error@+1 {{C has stride 0 on a dimension of 2 elements: its stores would write one address several times, got memref<2x4x8xf32, strided<[0, 8, 1]>>}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942"} : (memref<2x4x16xf16>, memref<2x16x8xf16>, memref<2x4x8xf32, strided<[0, 8, 1]>>) -> ()
  return
}

// -----

// Only a full [G, M, N] operand is read through strides; a bias row is packed.
func.func @n_view(%a: memref<2x4x16xf16>, %b: memref<2x16x8xf16>, %c: memref<2x4x8xf32>, %e: memref<8xf32, strided<[2]>>) {
  // expected-error@+1 {{epilogue operand 0 must be a contiguous row-major memref, got memref<8xf32, strided<[2]>>}}
  "accel.gemm"(%a, %b, %c, %e) {arch = "gfx942", epilogue = "%0 = add %acc, %e0", epilogue_operands = ["n"]} : (memref<2x4x16xf16>, memref<2x16x8xf16>, memref<2x4x8xf32>, memref<8xf32, strided<[2]>>) -> ()
  return
}

// -----

// C written through a strided view: rows 16 apart, and C transposed (M of stride 1).
// CHECK-LABEL: func.func @strided_c
// CHECK: "accel.gemm"(%arg0, %arg1, %arg2) {{.*}} : (memref<2x4x16xf16>, memref<2x16x8xf16>, memref<2x4x8xf32, strided<[80, 16, 1], offset: 4>>) -> ()
// CHECK: "accel.gemm"(%arg0, %arg1, %arg3) {{.*}} : (memref<2x4x16xf16>, memref<2x16x8xf16>, memref<2x4x8xf32, strided<[32, 1, 4]>>) -> ()
func.func @strided_c(%a: memref<2x4x16xf16>, %b: memref<2x16x8xf16>, %c: memref<2x4x8xf32, strided<[80, 16, 1], offset: 4>>, %t: memref<2x4x8xf32, strided<[32, 1, 4]>>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942"} : (memref<2x4x16xf16>, memref<2x16x8xf16>, memref<2x4x8xf32, strided<[80, 16, 1], offset: 4>>) -> ()
  "accel.gemm"(%a, %b, %t) {arch = "gfx942"} : (memref<2x4x16xf16>, memref<2x16x8xf16>, memref<2x4x8xf32, strided<[32, 1, 4]>>) -> ()
  return
}
