// --pass-pipeline runs upstream passes; the accel ops survive them unchanged.
// RUN: accel-opt %s --pass-pipeline='builtin.module(canonicalize)' | FileCheck %s
// A pipeline MLIR cannot parse is a command-line error, reported before any input is read.
// RUN: not accel-opt %s --pass-pipeline='builtin.module(no-such-pass)' 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK-LABEL: func.func @f
// CHECK-NEXT: "accel.gemm"
// CHECK-NEXT: return
// BAD: accel-opt: error: invalid pass pipeline 'no-such-pass': 'no-such-pass' does not refer to a registered pass or pass pipeline
func.func @f(%a: memref<1x16x16xf16>, %b: memref<1x16x16xf16>, %c: memref<1x16x16xf32>) {
  %unused = arith.constant 0 : i32
  "accel.gemm"(%a, %b, %c) {arch = "gfx1201"} : (memref<1x16x16xf16>, memref<1x16x16xf16>, memref<1x16x16xf32>) -> ()
  return
}
