// RUN: accel-opt %s --pass-pipeline='builtin.module(accel-plan-kernel)' --split-input-file | FileCheck %s

// A transposing copy of 16-bit rows joins its K runs with byte permutes (v_perm_b32)
// on RDNA, where LLVM builds them from shuffles with 16-bit register moves; B row-major
// transposes, A row-major does not.
// CHECK-LABEL: func.func @rdna3
// CHECK: a_copy = {{[{][^}]*}}k_chunk = 1 : i64, permute = false
// CHECK-SAME: b_copy = {{[{][^}]*}}k_chunk = 4 : i64, permute = true
func.func @rdna3(%a: memref<1x256x256xf16>, %b: memref<1x256x256xf16>, %c: memref<1x256x256xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx1100", perf_config = "v4:128,256,8,64,32,16,8,1,1,2,0,0,1,1"} : (memref<1x256x256xf16>, memref<1x256x256xf16>, memref<1x256x256xf32>) -> ()
  return
}

// -----

// CHECK-LABEL: func.func @rdna4_bf16
// CHECK: b_copy = {{[{][^}]*}}permute = true
func.func @rdna4_bf16(%a: memref<1x256x256xbf16>, %b: memref<1x256x256xbf16>, %c: memref<1x256x256xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx1201", perf_config = "v4:64,64,8,32,16,16,8,1,1,2,0,0,1,1"} : (memref<1x256x256xbf16>, memref<1x256x256xbf16>, memref<1x256x256xf32>) -> ()
  return
}

// -----

// gfx942: LLVM already selects one v_perm_b32 per dword from the shuffles.
// CHECK-LABEL: func.func @cdna3
// CHECK: b_copy = {{[{][^}]*}}k_chunk = 4 : i64, permute = false
func.func @cdna3(%a: memref<1x256x256xf16>, %b: memref<1x256x256xf16>, %c: memref<1x256x256xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:128,128,8,64,64,32,8,1,1,2,0,0,1,1"} : (memref<1x256x256xf16>, memref<1x256x256xf16>, memref<1x256x256xf32>) -> ()
  return
}

// -----

// 8-bit rows permute on every chip, four K rows at a time: a 128x128x128 i8 tile's B
// (1024 vectors of 16) on 256 threads joins 4 rows (permute); a 64x64x128 one's (512
// vectors) on 256 threads joins 2, whose 16-bit K runs are not whole dwords (no permute).
// CHECK-LABEL: func.func @cdna3_i8
// CHECK: b_copy = {{[{][^}]*}}k_chunk = 4 : i64, permute = true
func.func @cdna3_i8(%a: memref<1x256x256xi8>, %b: memref<1x256x256xi8>, %c: memref<1x256x256xi32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:128,128,8,64,64,32,16,1,1,2,0,0,1,1"} : (memref<1x256x256xi8>, memref<1x256x256xi8>, memref<1x256x256xi32>) -> ()
  return
}

// -----

// CHECK-LABEL: func.func @rdna3_i8
// CHECK: b_copy = {{[{][^}]*}}k_chunk = 2 : i64, permute = false
func.func @rdna3_i8(%a: memref<1x256x256xi8>, %b: memref<1x256x256xi8>, %c: memref<1x256x256xi32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx1100", perf_config = "v4:64,64,8,32,16,16,16,1,1,2,0,0,1,1"} : (memref<1x256x256xi8>, memref<1x256x256xi8>, memref<1x256x256xi32>) -> ()
  return
}
