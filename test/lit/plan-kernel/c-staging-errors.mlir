// RUN: not accel-opt %s --pass-pipeline='builtin.module(accel-plan-kernel)' --split-input-file 2>&1 | FileCheck %s

// An accel-layout C is written in its kpack runs; staging writes row-major rows.
// CHECK: c-staging-errors.mlir:6:3: error: perf config v4:32,32,4,32,32,32,8,1,1,1,0,0,1,1: outputSwizzle 1 (C through LDS) writes a row-major C; an accel-layout C is stored in its kpack runs (use outputSwizzle 0 or 2)
func.func @accel_c(%a: memref<2x37x200xf16>, %b: memref<2x200x18xf16>, %c: memref<2x2x1x4x32x8xf16>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", c_layout = "accel", perf_config = "v4:32,32,4,32,32,32,8,1,1,1,0,0,1,1"} : (memref<2x37x200xf16>, memref<2x200x18xf16>, memref<2x2x1x4x32x8xf16>) -> ()
  return
}

// -----

// One 32 x 32 MMA tile of f32 from each of 16 waves (64 KB) next to the 4 KB tile
// buffers exceeds gfx942's LDS.
// CHECK: c-staging-errors.mlir:16:3: error: perf config v4:256,256,2,64,64,32,4,1,1,1,0,0,1,1: outputSwizzle 1 (C through LDS) needs 69632 bytes of LDS, more than the 65536 of gfx942
func.func @lds(%a: memref<1x256x64xf16>, %b: memref<1x64x256xf16>, %c: memref<1x256x256xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:256,256,2,64,64,32,4,1,1,1,0,0,1,1"} : (memref<1x256x64xf16>, memref<1x64x256xf16>, memref<1x256x256xf32>) -> ()
  return
}
