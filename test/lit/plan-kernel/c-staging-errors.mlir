// RUN: not accel-opt %s --pass-pipeline='builtin.module(accel-plan-kernel)' --split-input-file 2>&1 | FileCheck %s

// An accel-layout C is written in its kpack runs; staging writes row-major rows.
// CHECK: c-staging-errors.mlir:6:3: error: perf config v4:32,32,4,32,32,32,8,1,1,1,0,0,1,1: outputSwizzle 1 (C through LDS) writes a row-major C; an accel-layout C is stored in its kpack runs (use outputSwizzle 0 or 2)
func.func @accel_c(%a: memref<2x37x200xf16>, %b: memref<2x200x18xf16>, %c: memref<2x2x1x4x32x8xf16>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", c_layout = "accel", perf_config = "v4:32,32,4,32,32,32,8,1,1,1,0,0,1,1"} : (memref<2x37x200xf16>, memref<2x200x18xf16>, memref<2x2x1x4x32x8xf16>) -> ()
  return
}

// -----

// The swizzle works on whole powers of two of units per staged row.
// CHECK: c-staging-errors.mlir:15:3: error: perf config v4:48,48,4,48,48,16,8,1,1,1,0,0,1,1: outputSwizzle 1 (C through LDS) needs nPerWave / 4 to be a power of two (its LDS swizzle), got nPerWave 48
func.func @npw(%a: memref<1x96x64xf16>, %b: memref<1x64x96xf16>, %c: memref<1x96x96xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:48,48,4,48,48,16,8,1,1,1,0,0,1,1"} : (memref<1x96x64xf16>, memref<1x64x96xf16>, memref<1x96x96xf32>) -> ()
  return
}

// -----

// One MMA tile's rows of every wave (4 waves x 32 rows x 256 columns of f32) exceed
// gfx942's LDS.
// CHECK: c-staging-errors.mlir:25:3: error: perf config v4:256,256,4,64,256,32,8,1,1,1,0,0,1,1: outputSwizzle 1 (C through LDS) needs 147584 bytes of LDS, more than the 65536 of gfx942
func.func @lds(%a: memref<1x256x64xf16>, %b: memref<1x64x256xf16>, %c: memref<1x256x256xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:256,256,4,64,256,32,8,1,1,1,0,0,1,1"} : (memref<1x256x64xf16>, memref<1x64x256xf16>, memref<1x256x256xf32>) -> ()
  return
}
