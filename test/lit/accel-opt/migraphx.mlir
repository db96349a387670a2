// MIGraphX syntax is detected and translated to generic MLIR before parsing;
// --migraphx forces it. Syntax errors point into this file, at the original lines.
// RUN: accel-opt %s --split-input-file | FileCheck %s
// RUN: not accel-opt %s --split-input-file --migraphx --verify-diagnostics 2>&1 | FileCheck %s --check-prefix=FORCED

// CHECK: func.func @transpose(%arg0: !migraphx.shaped<2x3xf16, 3x1>) -> !migraphx.shaped<3x2xf16, 1x3>
// CHECK-NEXT: "migraphx.transpose"(%arg0) {permutation = [1, 0]}
func.func @transpose(%a: !migraphx.shaped<2x3xf16, 3x1>) -> !migraphx.shaped<3x2xf16, 1x3> {
  %0 = migraphx.transpose %a {permutation = [1, 0]} : <2x3xf16, 3x1> -> <3x2xf16, 1x3>
  return %0 : !migraphx.shaped<3x2xf16, 1x3>
}

// -----

// Plain MLIR is not translated unless --migraphx says so.
// CHECK: // -----
// CHECK: func.func @plain(%arg0: memref<2xf16>) {
// FORCED: migraphx.mlir:[[# @LINE + 1]]:22: error: unexpected error: unexpected 'memref'
func.func @plain(%a: memref<2xf16>) {
  return
}
