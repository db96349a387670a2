// A verifier error is reported at the op's location in the input file, exit 1.
// RUN: not accel-opt %s 2>&1 | FileCheck %s

// CHECK: verifier-error.mlir:[[# @LINE + 2]]:3: error: A has M=32 but C has M=16{{$}}
func.func @f(%a: memref<1x32x16xf16>, %b: memref<1x16x16xf16>, %c: memref<1x16x16xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942"} : (memref<1x32x16xf16>, memref<1x16x16xf16>, memref<1x16x16xf32>) -> ()
  return
}

// Nothing else: one line, no traceback.
// CHECK-NOT: {{.}}
