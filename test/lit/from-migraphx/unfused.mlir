// An elementwise op no gemm epilogue takes becomes a kernel of its own (accel.elementwise,
// never host-only IR), which records why the gemm did not take it; what no kernel
// computes is an error naming why.
// RUN: accel-opt --accel-from-migraphx --split-input-file --verify-diagnostics %s | FileCheck %s

// An elementwise op that reads no dot's value, written straight into the result.
// CHECK-LABEL: func.func @no_dot(%arg0: memref<4x4xf16>, %arg1: memref<4x4xf16>)
// CHECK: %[[X:.*]] = memref.expand_shape %arg0 {{.*}} into memref<1x4x4xf16>
// CHECK: %[[OUT:.*]] = memref.expand_shape %arg1 {{.*}} into memref<1x4x4xf16>
// CHECK: "accel.elementwise"(%[[X]], %[[OUT]]) {arch = "gfx942", operands = ["gmn"], program = "%0 = relu %e0"} : (memref<1x4x4xf16>, memref<1x4x4xf16>) -> ()
// CHECK-NOT: linalg.generic
func.func @no_dot(%a: !migraphx.shaped<4x4xf16, 4x1>) -> !migraphx.shaped<4x4xf16, 4x1> attributes {arch = "gfx942"} {
  %0 = migraphx.relu %a : <4x4xf16, 4x1> -> <4x4xf16, 4x1>
  return %0 : !migraphx.shaped<4x4xf16, 4x1>
}

// -----

// An i8 gemm's epilogue computes in i32: exp has no integer form, so it is a kernel
// after the gemm, computing in f32 (exp of the i32 product, truncated back to i32).
// CHECK-LABEL: func.func @float_op_on_i8
// CHECK: %[[C:.*]] = memref.alloc() : memref<1x32x32xi32>
// CHECK: "accel.gemm"(%arg0, %arg1, %[[C]])
// CHECK: "accel.elementwise"(%[[C]], %arg2) {arch = "gfx942", operands = ["gmn"], program = "%0 = exp %e0", unfused = "'exp' is a float operation and an i8 gemm's epilogue computes in i32"}
func.func @float_op_on_i8(%a: !migraphx.shaped<1x32x64xsi8, 2048x64x1>, %b: !migraphx.shaped<1x64x32xsi8, 2048x32x1>) -> !migraphx.shaped<1x32x32xsi32, 1024x32x1> attributes {arch = "gfx942"} {
  %0 = migraphx.quant_dot %a, %b : <1x32x64xsi8, 2048x64x1>, <1x64x32xsi8, 2048x32x1> -> <1x32x32xsi32, 1024x32x1>
  %1 = migraphx.exp %0 : <1x32x32xsi32, 1024x32x1> -> <1x32x32xsi32, 1024x32x1>
  return %1 : !migraphx.shaped<1x32x32xsi32, 1024x32x1>
}

// -----

// A chain whose value C cannot hold (the gemm writes f32, f16 or bf16 for f16 inputs):
// the convert to i8 is a kernel (an empty program: its input, converted).
// CHECK-LABEL: func.func @c_type
// CHECK: "accel.gemm"(%arg0, %arg1, %[[C:.*]]) {{.*}} : (memref<1x32x64xf16>, memref<1x64x32xf16>, memref<1x32x32xf16>) -> ()
// CHECK: "accel.elementwise"(%[[C]], %arg2) {arch = "gfx942", operands = ["gmn"], program = "", unfused = "a gemm of f16 ending there would write C as i8, which accel.gemm does not write (it writes f32, f16, bf16)"} : (memref<1x32x32xf16>, memref<1x32x32xi8>) -> ()
func.func @c_type(%a: !migraphx.shaped<1x32x64xf16, 2048x64x1>, %b: !migraphx.shaped<1x64x32xf16, 2048x32x1>) -> !migraphx.shaped<1x32x32xsi8, 1024x32x1> attributes {arch = "gfx942"} {
  %0 = migraphx.dot %a, %b : <1x32x64xf16, 2048x64x1>, <1x64x32xf16, 2048x32x1> -> <1x32x32xf16, 1024x32x1>
  %1 = migraphx.convert %0 : <1x32x32xf16, 1024x32x1> to <1x32x32xsi8, 1024x32x1>
  return %1 : !migraphx.shaped<1x32x32xsi8, 1024x32x1>
}

// -----

// A broadcast operand is read in place ([N] here), and so is a transposed one, through
// its index map of the argument's [6, 4] buffer; the result, returned through a
// transpose, goes to a buffer that is copied out.
// CHECK-LABEL: func.func @operands
// CHECK-NOT: accel.copy
// CHECK: "accel.elementwise"(%arg0, %arg1, %{{.*}}) {arch = "gfx942", input_maps = [#{{.*}}, unit], operands = ["gmn", "n"], program = "%0 = add %e0, %e1"} : (memref<6x4xf32>, memref<6xf32>, memref<1x4x6xf32>) -> ()
// CHECK: "accel.copy"({{.*}}reason = "a returned value that no kernel wrote into its result in place"
func.func @operands(%a: !migraphx.shaped<6x4xf32, 4x1>, %b: !migraphx.shaped<6xf32, 1>) -> !migraphx.shaped<6x4xf32, 1x6> attributes {arch = "gfx942"} {
  %0 = migraphx.transpose %a {permutation = [1, 0]} : <6x4xf32, 4x1> -> <4x6xf32, 1x4>
  %1 = migraphx.multibroadcast %b {out_dyn_dims = [], out_lens = [4, 6]} : <6xf32, 1> -> <4x6xf32, 0x1>
  %2 = migraphx.add %0, %1 : <4x6xf32, 1x4>, <4x6xf32, 0x1> -> <4x6xf32, 6x1>
  %3 = migraphx.transpose %2 {permutation = [1, 0]} : <4x6xf32, 6x1> -> <6x4xf32, 1x6>
  return %3 : !migraphx.shaped<6x4xf32, 1x6>
}

// -----

// Unsigned values: no kernel computes on them.
// CHECK-NOT: accel.elementwise
func.func @unsigned(%a: !migraphx.shaped<1x32x64xf16, 2048x64x1>, %b: !migraphx.shaped<1x64x32xf16, 2048x32x1>) -> !migraphx.shaped<1x32x32xui8, 1024x32x1> attributes {arch = "gfx942"} {
  %0 = migraphx.dot %a, %b : <1x32x64xf16, 2048x64x1>, <1x64x32xf16, 2048x32x1> -> <1x32x32xf16, 1024x32x1>
  // expected-error@+1 {{'migraphx.convert' on ui8 values: accel's kernels compute on signed and float values}}
  %1 = migraphx.convert %0 : <1x32x32xf16, 1024x32x1> to <1x32x32xui8, 1024x32x1>
  return %1 : !migraphx.shaped<1x32x32xui8, 1024x32x1>
}
