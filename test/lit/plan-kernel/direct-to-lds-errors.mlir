// RUN: not accel-opt %s --pass-pipeline='builtin.module(accel-plan-kernel)' --split-input-file 2>&1 | FileCheck %s

// B row-major is D-contiguous: its kpack runs are not contiguous in global memory.
// CHECK: direct-to-lds-errors.mlir:[[# @LINE + 2]]:3: error: scheduleVersion 3 (direct-to-LDS) needs B K-contiguous in global memory (A row-major, B transposed); B is row
func.func @f(%a: memref<1x64x256xf16>, %b: memref<1x256x64xf16>, %c: memref<1x64x64xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:64,64,4,32,32,16,8,1,3,2,0,0,1,1"} : (memref<1x64x256xf16>, memref<1x256x64xf16>, memref<1x64x64xf32>) -> ()
  return
}

// -----

// An odd K: the dword of k = 254, 255 would hold k = 255 of the next row.
// CHECK: direct-to-lds-errors.mlir:[[# @LINE + 2]]:3: error: scheduleVersion 4 (direct-to-LDS) moves dwords of 2 f16 along K: kpack (8) and K (255) must be multiples of 2
func.func @f(%a: memref<1x64x255xf16>, %b: memref<1x64x255xf16>, %c: memref<1x64x64xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", b_layout = "transposed", perf_config = "v4:64,64,4,32,32,16,8,1,4,2,0,0,1,1"} : (memref<1x64x255xf16>, memref<1x64x255xf16>, memref<1x64x64xf32>) -> ()
  return
}

// -----

// CHECK: direct-to-lds-errors.mlir:[[# @LINE + 2]]:3: error: scheduleVersion 3 (direct-to-LDS) has no split-K (splitKFactor must be 1)
func.func @f(%a: memref<1x64x256xf16>, %b: memref<1x64x256xf16>, %c: memref<1x64x64xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", b_layout = "transposed", perf_config = "v4:64,64,4,32,32,16,8,2,3,2,0,0,1,1"} : (memref<1x64x256xf16>, memref<1x64x256xf16>, memref<1x64x64xf32>) -> ()
  return
}
