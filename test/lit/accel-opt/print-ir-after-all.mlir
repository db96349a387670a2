// --mlir-print-ir-after-all prints the module to stderr after every pass, mlir-opt's way.
// RUN: accel-opt %s --pass-pipeline='builtin.module(canonicalize, cse)' --mlir-print-ir-after-all 2>&1 >/dev/null | FileCheck %s

// CHECK: // -----// IR Dump After canonicalize //----- //
// CHECK-NEXT: module {
// CHECK-NOT: arith.addi
// CHECK: // -----// IR Dump After cse //----- //
// CHECK-NEXT: module {
func.func @f() -> i32 {
  %a = arith.constant 1 : i32
  %b = arith.constant 2 : i32
  %c = arith.addi %a, %b : i32
  return %c : i32
}
