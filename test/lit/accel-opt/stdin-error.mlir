// Diagnostics on stdin input name "<stdin>", as mlir-opt's do.
// RUN: not accel-opt < %s 2>&1 | FileCheck %s

// CHECK: <stdin>:[[# @LINE + 2]]:3: error: unknown arch 'gfx000'
func.func @f(%a: memref<1x16x16xf16>, %b: memref<1x16x16xf16>, %c: memref<1x16x16xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx000"} : (memref<1x16x16xf16>, memref<1x16x16xf16>, memref<1x16x16xf32>) -> ()
  return
}
