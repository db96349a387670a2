// Each chunk is parsed and printed on its own; outputs are joined by the marker.
// RUN: accel-opt --split-input-file %s | FileCheck %s

// CHECK: func.func @first
// CHECK-NOT: func.func @second
// CHECK: // -----
// CHECK-NEXT: module {
// CHECK-NEXT: func.func @second
func.func @first() {
  return
}

// -----

func.func @second() {
  return
}
