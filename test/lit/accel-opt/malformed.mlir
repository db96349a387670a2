// Malformed input: one `file:line:col: error:` line, exit 1, no traceback, and no
// -o file, not even a partial one.
// RUN: rm -f %t
// RUN: not accel-opt %s -o %t 2>&1 | FileCheck %s
// RUN: not ls %t

// CHECK: malformed.mlir:[[# @LINE + 2]]:20: error: use of undeclared SSA value name{{$}}
func.func @f(%a: memref<1x16x16xf16>) {
  "accel.pack"(%a, %nope) {transposed = false} : (memref<1x16x16xf16>, memref<1x1x1x4x16x4xf16>) -> ()
  return
}

// Nothing else: one line, no traceback.
// CHECK-NOT: {{.}}
