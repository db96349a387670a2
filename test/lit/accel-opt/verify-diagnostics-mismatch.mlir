// --verify-diagnostics fails, saying why, when an expected diagnostic is missing or an
// unexpected one appears.
// RUN: not accel-opt %s --split-input-file --verify-diagnostics 2>&1 | FileCheck %s

// CHECK: verify-diagnostics-mismatch.mlir:[[# @LINE + 2]]:3: error: unexpected error: accel operand must be rank 6, got rank 3
func.func @unexpected(%p: memref<1x16x16xf16>, %k: memref<1x16x16xf16>) {
  "accel.pack"(%p, %k) {transposed = false} : (memref<1x16x16xf16>, memref<1x16x16xf16>) -> ()
  return
}

// -----

// CHECK: verify-diagnostics-mismatch.mlir:[[# @LINE + 2]]:6: error: expected error "something else" was not produced
func.func @missing() {
  // expected-error@+1 {{something else}}
  return
}

// -----

// The message matches but the line does not: both problems are reported.
// CHECK: verify-diagnostics-mismatch.mlir:[[# @LINE + 4]]:3: error: unexpected error: accel operand must be rank 6
// CHECK: verify-diagnostics-mismatch.mlir:[[# @LINE + 2]]:6: error: expected error "accel operand must be rank 6" was not produced
func.func @wrong_line(%p: memref<1x16x16xf16>, %k: memref<1x16x16xf16>) {
  // expected-error@+2 {{accel operand must be rank 6}}
  "accel.pack"(%p, %k) {transposed = false} : (memref<1x16x16xf16>, memref<1x16x16xf16>) -> ()
  return
}
