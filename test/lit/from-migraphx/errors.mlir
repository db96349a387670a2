// RUN: accel-opt --accel-from-migraphx --split-input-file --verify-diagnostics %s
// RUN: not accel-opt --accel-from-migraphx --split-input-file %s 2>&1 | FileCheck %s

// A dot operand of rank 1.
// CHECK: errors.mlir:[[# @LINE + 3]]:3: error: dot operand A must have rank >= 2, got rank 1
func.func @rank(%a: !migraphx.shaped<32xf16, 1>, %b: !migraphx.shaped<32x16xf16, 16x1>) -> !migraphx.shaped<16xf32, 1> attributes {arch = "gfx942"} {
  // expected-error@+1 {{dot operand A must have rank >= 2, got rank 1}}
  %0 = migraphx.dot %a, %b : <32xf16, 1>, <32x16xf16, 16x1> -> <16xf32, 1>
  return %0 : !migraphx.shaped<16xf32, 1>
}

// -----

// CHECK: errors.mlir:[[# @LINE + 3]]:3: error: permutation [0, 2, 2] is not a permutation of the 3 dimensions of the operand
func.func @perm(%a: !migraphx.shaped<1x64x32xf16, 2048x32x1>) -> !migraphx.shaped<1x32x64xf16, 2048x1x32> attributes {arch = "gfx942"} {
  // expected-error@+1 {{permutation [0, 2, 2] is not a permutation}}
  %0 = migraphx.transpose %a {permutation = [0, 2, 2]} : <1x64x32xf16, 2048x32x1> -> <1x32x64xf16, 2048x1x32>
  return %0 : !migraphx.shaped<1x32x64xf16, 2048x1x32>
}

// -----

// CHECK: errors.mlir:[[# @LINE + 3]]:3: error: dot operand element types differ: f16 vs f32
func.func @types(%a: !migraphx.shaped<1x64x32xf16, 2048x32x1>, %b: !migraphx.shaped<1x32x16xf32, 512x16x1>) -> !migraphx.shaped<1x64x16xf32, 1024x16x1> attributes {arch = "gfx942"} {
  // expected-error@+1 {{dot operand element types differ: f16 vs f32}}
  %0 = migraphx.dot %a, %b : <1x64x32xf16, 2048x32x1>, <1x32x16xf32, 512x16x1> -> <1x64x16xf32, 1024x16x1>
  return %0 : !migraphx.shaped<1x64x16xf32, 1024x16x1>
}

// -----

// CHECK: errors.mlir:[[# @LINE + 3]]:3: error: dot reduction sizes differ: A has K=32, B has K=16
func.func @k(%a: !migraphx.shaped<1x64x32xf16, 2048x32x1>, %b: !migraphx.shaped<1x16x16xf16, 256x16x1>) -> !migraphx.shaped<1x64x16xf32, 1024x16x1> attributes {arch = "gfx942"} {
  // expected-error@+1 {{dot reduction sizes differ}}
  %0 = migraphx.dot %a, %b : <1x64x32xf16, 2048x32x1>, <1x16x16xf16, 256x16x1> -> <1x64x16xf32, 1024x16x1>
  return %0 : !migraphx.shaped<1x64x16xf32, 1024x16x1>
}

// -----

// CHECK: errors.mlir:[[# @LINE + 3]]:3: error: result type !migraphx.shaped<1x64x32xf16, 2048x32x1> does not match the computed shape [1, 32, 64]
func.func @result_shape(%a: !migraphx.shaped<1x64x32xf16, 2048x32x1>) -> !migraphx.shaped<1x64x32xf16, 2048x32x1> attributes {arch = "gfx942"} {
  // expected-error@+1 {{does not match the computed shape [1, 32, 64]}}
  %0 = migraphx.transpose %a {permutation = [0, 2, 1]} : <1x64x32xf16, 2048x32x1> -> <1x64x32xf16, 2048x32x1>
  return %0 : !migraphx.shaped<1x64x32xf16, 2048x32x1>
}

// -----

// CHECK: errors.mlir:[[# @LINE + 3]]:3: error: reshape to [1, 64, 64] changes the element count (2048 -> 4096)
func.func @reshape(%a: !migraphx.shaped<1x64x32xf16, 2048x32x1>) -> !migraphx.shaped<1x64x64xf16, 4096x64x1> attributes {arch = "gfx942"} {
  // expected-error@+1 {{changes the element count}}
  %0 = migraphx.reshape %a {dims = [1, 64, 64]} : <1x64x32xf16, 2048x32x1> -> <1x64x64xf16, 4096x64x1>
  return %0 : !migraphx.shaped<1x64x64xf16, 4096x64x1>
}

// -----

// The gemm verifier's rules hold at the dot: i8 inputs accumulate to i32 only.
// CHECK: errors.mlir:[[# @LINE + 3]]:3: error: output type f32 is not supported for i8 inputs
func.func @out_type(%a: !migraphx.shaped<1x64x32xi8, 2048x32x1>, %b: !migraphx.shaped<1x32x16xi8, 512x16x1>) -> !migraphx.shaped<1x64x16xf32, 1024x16x1> attributes {arch = "gfx942"} {
  // expected-error@+1 {{output type f32 is not supported for i8 inputs}}
  %0 = migraphx.dot %a, %b : <1x64x32xi8, 2048x32x1>, <1x32x16xi8, 512x16x1> -> <1x64x16xf32, 1024x16x1>
  return %0 : !migraphx.shaped<1x64x16xf32, 1024x16x1>
}
