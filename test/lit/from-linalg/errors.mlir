// RUN: not accel-opt --split-input-file --pass-pipeline='builtin.module(accel-from-linalg{arch=gfx942})' %s 2>&1 | FileCheck %s
// RUN: not accel-opt --pass-pipeline='builtin.module(accel-from-linalg)' %s 2>&1 | FileCheck %s --check-prefix=NOARCH
// NOARCH: error: accel-from-linalg requires the 'arch' option

func.func @strided(%a: memref<64x32xf16, strided<[64, 1]>>, %b: memref<32x48xf16>, %c: memref<64x48xf32>) {
  // CHECK: errors.mlir:[[# @LINE + 1]]:3: error: 'linalg.matmul' operand A has layout strided<[64, 1]>; accel.gemm reads packed (identity-layout) buffers
  linalg.matmul ins(%a, %b : memref<64x32xf16, strided<[64, 1]>>, memref<32x48xf16>) outs(%c : memref<64x48xf32>)
  return
}

// -----

func.func @broadcast(%a: memref<64x32xf16>, %b: memref<2x32x48xf16>, %c: memref<2x64x48xf32>) {
  // CHECK: errors.mlir:[[# @LINE + 1]]:3: error: 'linalg.batch_matmul' indexing maps
  linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%a, %b : memref<64x32xf16>, memref<2x32x48xf16>) outs(%c : memref<2x64x48xf32>)
  return
}

// -----

func.func @f64(%a: memref<64x32xf64>, %b: memref<32x48xf64>, %c: memref<64x48xf64>) {
  // CHECK: errors.mlir:[[# @LINE + 1]]:3: error: element type f64 is not supported on gfx942
  linalg.matmul ins(%a, %b : memref<64x32xf64>, memref<32x48xf64>) outs(%c : memref<64x48xf64>)
  return
}

// -----

func.func @ocp_on_gfx942(%a: memref<64x32xf8E4M3FN>, %b: memref<32x48xf8E4M3FN>, %c: memref<64x48xf32>) {
  // CHECK: errors.mlir:[[# @LINE + 1]]:3: error: f8E4M3FN is an OCP fp8 format; gfx942 has the FNUZ formats f8E4M3FNUZ and f8E5M2FNUZ
  linalg.matmul ins(%a, %b : memref<64x32xf8E4M3FN>, memref<32x48xf8E4M3FN>) outs(%c : memref<64x48xf32>)
  return
}
