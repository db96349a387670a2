// -o writes the result to a file and nothing to stdout.
// RUN: rm -f %t
// RUN: accel-opt %s -o %t | FileCheck %s --allow-empty --check-prefix=STDOUT
// RUN: FileCheck %s < %t

// STDOUT-NOT: {{.}}
// CHECK: "accel.pack"(%arg0, %arg1) {transposed = false}
func.func @f(%p: memref<1x64x64xf16>, %k: memref<1x2x1x8x32x8xf16>) {
  "accel.pack"(%p, %k) {transposed = false} : (memref<1x64x64xf16>, memref<1x2x1x8x32x8xf16>) -> ()
  return
}
