// An elementwise op no gemm epilogue takes is an error naming why (never left as
// host-only IR: accel compiles elementwise work only inside a gemm's epilogue).
// RUN: accel-opt --accel-from-migraphx --split-input-file --verify-diagnostics %s
// RUN: not accel-opt --accel-from-migraphx --split-input-file %s 2>&1 | FileCheck %s

// An elementwise op that reads no dot's value.
// CHECK: unfused.mlir:[[# @LINE + 3]]:3: error: 'migraphx.relu' cannot fuse into a gemm's epilogue: it does not compute on a dot's result
func.func @no_dot(%a: !migraphx.shaped<4x4xf16, 4x1>) -> !migraphx.shaped<4x4xf16, 4x1> attributes {arch = "gfx942"} {
  // expected-error@+1 {{it does not compute on a dot's result}}
  %0 = migraphx.relu %a : <4x4xf16, 4x1> -> <4x4xf16, 4x1>
  return %0 : !migraphx.shaped<4x4xf16, 4x1>
}

// -----

// An i8 gemm's epilogue computes in i32: exp has no integer form.
// CHECK: unfused.mlir:[[# @LINE + 4]]:3: error: 'migraphx.exp' cannot fuse into a gemm's epilogue: 'exp' is a float operation and an i8 gemm's epilogue computes in i32
func.func @float_op_on_i8(%a: !migraphx.shaped<1x32x64xsi8, 2048x64x1>, %b: !migraphx.shaped<1x64x32xsi8, 2048x32x1>) -> !migraphx.shaped<1x32x32xsi32, 1024x32x1> attributes {arch = "gfx942"} {
  %0 = migraphx.quant_dot %a, %b : <1x32x64xsi8, 2048x64x1>, <1x64x32xsi8, 2048x32x1> -> <1x32x32xsi32, 1024x32x1>
  // expected-error@+1 {{'exp' is a float operation and an i8 gemm's epilogue computes in i32}}
  %1 = migraphx.exp %0 : <1x32x32xsi32, 1024x32x1> -> <1x32x32xsi32, 1024x32x1>
  return %1 : !migraphx.shaped<1x32x32xsi32, 1024x32x1>
}

// -----

// Unsigned values do not fuse.
// CHECK: unfused.mlir:[[# @LINE + 4]]:3: error: 'migraphx.convert' cannot fuse into a gemm's epilogue: the epilogue computes on signed and float values, not unsigned ones
func.func @unsigned(%a: !migraphx.shaped<1x32x64xf16, 2048x64x1>, %b: !migraphx.shaped<1x64x32xf16, 2048x32x1>) -> !migraphx.shaped<1x32x32xui8, 1024x32x1> attributes {arch = "gfx942"} {
  %0 = migraphx.dot %a, %b : <1x32x64xf16, 2048x64x1>, <1x64x32xf16, 2048x32x1> -> <1x32x32xf16, 1024x32x1>
  // expected-error@+1 {{the epilogue computes on signed and float values, not unsigned ones}}
  %1 = migraphx.convert %0 : <1x32x32xf16, 1024x32x1> to <1x32x32xui8, 1024x32x1>
  return %1 : !migraphx.shaped<1x32x32xui8, 1024x32x1>
}

// -----

// A chain whose value C cannot hold: the gemm writes f32, f16 or bf16 for f16 inputs.
// CHECK: unfused.mlir:[[# @LINE + 4]]:3: error: 'migraphx.convert' cannot fuse into a gemm's epilogue: a gemm of f16 ending there would write C as i8, which accel.gemm does not write (it writes f32, f16, bf16)
func.func @c_type(%a: !migraphx.shaped<1x32x64xf16, 2048x64x1>, %b: !migraphx.shaped<1x64x32xf16, 2048x32x1>) -> !migraphx.shaped<1x32x32xsi8, 1024x32x1> attributes {arch = "gfx942"} {
  %0 = migraphx.dot %a, %b : <1x32x64xf16, 2048x64x1>, <1x64x32xf16, 2048x32x1> -> <1x32x32xf16, 1024x32x1>
  // expected-error@+1 {{a gemm of f16 ending there would write C as i8, which accel.gemm does not write (it writes f32, f16, bf16)}}
  %1 = migraphx.convert %0 : <1x32x32xf16, 1024x32x1> to <1x32x32xsi8, 1024x32x1>
  return %1 : !migraphx.shaped<1x32x32xsi8, 1024x32x1>
}
