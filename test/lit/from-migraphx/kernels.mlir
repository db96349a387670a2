// The MIGraphX ops around a GEMM that are not one epilogue step become accel.elementwise
// kernels: reduce_sum / reduce_max over the last axis (row reductions), softmax (three
// kernels), quantizelinear and dequantizelinear (op lists).
// RUN: accel-opt --accel-from-migraphx --split-input-file --verify-diagnostics %s | FileCheck %s

// rocMLIR's mixr-dot-add-reduce-sum: the add fuses into the gemm, reduce_sum is a row
// sum of its result written into the [1, 5, 1] out-parameter.
// CHECK-LABEL: func.func @dot_add_reduce_sum
// CHECK: "accel.gemm"(%arg0, %arg1, %[[C:.*]], %arg2) {{{.*}}epilogue = "%0 = add %acc, %e0"{{.*}}} : (memref<1x5x4xbf16>, memref<1x4x3xbf16>, memref<1x5x3xbf16>, memref<1x5x3xbf16>) -> ()
// CHECK: "accel.elementwise"(%[[C]], %arg3) {arch = "gfx942", n = 3 : i64, operands = ["gmn"], program = "", reduce = "sum"} : (memref<1x5x3xbf16>, memref<1x5x1xbf16>) -> ()
func.func @dot_add_reduce_sum(%arg0: !migraphx.shaped<1x5x4xbf16, 20x4x1>, %arg1: !migraphx.shaped<1x4x3xbf16, 12x3x1>, %arg2: !migraphx.shaped<1x5x3xbf16, 15x3x1>) -> !migraphx.shaped<1x5x1xbf16, 5x1x1> attributes {arch = "gfx942"} {
  %0 = migraphx.dot %arg0, %arg1 : <1x5x4xbf16, 20x4x1>, <1x4x3xbf16, 12x3x1> -> <1x5x3xbf16, 15x3x1>
  %1 = migraphx.add %0, %arg2 {} : <1x5x3xbf16, 15x3x1>, <1x5x3xbf16, 15x3x1> -> <1x5x3xbf16, 15x3x1>
  %2 = migraphx.reduce_sum %1 {axes = [2 : i64]} : <1x5x3xbf16, 15x3x1> -> <1x5x1xbf16, 5x1x1>
  return %2 : !migraphx.shaped<1x5x1xbf16, 5x1x1>
}

// -----

// softmax over the last axis: the row max (f32), the row sum of exp(x - max), then
// exp(x - max) / sum into the result; the [G, M] rows broadcast as "gm".
// CHECK-LABEL: func.func @softmax
// CHECK: %[[MAX:.*]] = memref.alloc() : memref<2x2x3x1xf32>
// CHECK: "accel.elementwise"(%{{.*}}, %{{.*}}) {arch = "gfx1100", n = 8 : i64, operands = ["gmn"], program = "", reduce = "max"} : (memref<4x3x8xf16>, memref<4x3x1xf32>) -> ()
// CHECK: memref.collapse_shape %[[MAX]] {{.*}} into memref<4x3xf32>
// CHECK: %[[SUM:.*]] = memref.alloc() : memref<2x2x3x1xf32>
// CHECK: "accel.elementwise"(%{{.*}}, %{{.*}}, %{{.*}}) {arch = "gfx1100", n = 8 : i64, operands = ["gmn", "gm"], program = "%0 = sub %e0, %e1; %1 = exp %0", reduce = "sum"} : (memref<4x3x8xf16>, memref<4x3xf32>, memref<4x3x1xf32>) -> ()
// CHECK: memref.collapse_shape %[[MAX]] {{.*}} into memref<4x3xf32>
// CHECK: memref.collapse_shape %[[SUM]] {{.*}} into memref<4x3xf32>
// CHECK: %[[OUT:.*]] = memref.collapse_shape %arg1 {{.*}} into memref<4x3x8xf16>
// CHECK: "accel.elementwise"(%{{.*}}, %{{.*}}, %{{.*}}, %[[OUT]]) {arch = "gfx1100", operands = ["gmn", "gm", "gm"], program = "%0 = sub %e0, %e1; %1 = exp %0; %2 = div %1, %e2"} : (memref<4x3x8xf16>, memref<4x3xf32>, memref<4x3xf32>, memref<4x3x8xf16>) -> ()
func.func @softmax(%x: !migraphx.shaped<2x2x3x8xf16, 48x24x8x1>) -> !migraphx.shaped<2x2x3x8xf16, 48x24x8x1> attributes {arch = "gfx1100"} {
  %0 = migraphx.softmax %x {axis = 3 : i64} : <2x2x3x8xf16, 48x24x8x1> -> <2x2x3x8xf16, 48x24x8x1>
  return %0 : !migraphx.shaped<2x2x3x8xf16, 48x24x8x1>
}

// -----

// quantizelinear: x / scale rounded half to even (clamped to +-512, then 1.5 * 2^23
// added and taken away), plus the zero point, saturated to i8; then the i8 gemm.
// CHECK-LABEL: func.func @quantize
// CHECK: "accel.elementwise"(%{{.*}}, %{{.*}}, %{{.*}}, %[[Q:.*]]) {arch = "gfx942", operands = ["gmn", "gmn", "gmn"], program = "%0 = div %e0, %e1; %1 = clip %0, -512, 512; %2 = add %1, 12582912; %3 = sub %2, 12582912; %4 = add %3, %e2; %5 = clip %4, -128, 127"} : (memref<1x2x2xf32>, memref<1x2x2xf32>, memref<1x2x2xi8>, memref<1x2x2xi8>) -> ()
// CHECK: "accel.gemm"(%{{.*}}, %{{.*}}, %{{.*}})
func.func @quantize(%input: !migraphx.shaped<2x2xf32, 2x1>, %scale: !migraphx.shaped<2x2xf32, 2x1>, %bias: !migraphx.shaped<2x2xi8, 2x1>) -> !migraphx.shaped<2x2xi32, 2x1> attributes {arch = "gfx942"} {
  %result = migraphx.quantizelinear %input, %scale, %bias : <2x2xf32, 2x1>, <2x2xf32, 2x1>, !migraphx.shaped<2x2xi8, 2x1> -> <2x2xi8, 2x1>
  %dot_result = migraphx.quant_dot %result, %result : <2x2xi8, 2x1>, <2x2xi8, 2x1> -> <2x2xi32, 2x1>
  return %dot_result : !migraphx.shaped<2x2xi32, 2x1>
}

// -----

// dequantizelinear after an i8 gemm (no i8 gemm writes f32): (x - zero) * scale in
// f32, the scalar scale given as <1x1x1> and read as one value.
// CHECK-LABEL: func.func @dequantize
// CHECK: "accel.gemm"
// CHECK: "accel.elementwise"(%[[P:.*]], %{{.*}}, %{{.*}}, %arg4) {arch = "gfx942", operands = ["gmn", "", "gmn"], program = "%0 = sub %e0, %e2; %1 = mul %0, %e1"} : (memref<1x16x16xi32>, memref<1xf32>, memref<1x16x16xi32>, memref<1x16x16xf32>) -> ()
func.func @dequantize(%a: !migraphx.shaped<1x16x32xsi8, 512x32x1>, %b: !migraphx.shaped<1x32x16xsi8, 512x16x1>, %s: !migraphx.shaped<1x1x1xf32, 1x1x1>, %z: !migraphx.shaped<1x16x16xsi32, 256x16x1>) -> !migraphx.shaped<1x16x16xf32, 256x16x1> attributes {arch = "gfx942"} {
  %0 = migraphx.quant_dot %a, %b : <1x16x32xsi8, 512x32x1>, <1x32x16xsi8, 512x16x1> -> <1x16x16xsi32, 256x16x1>
  %1 = migraphx.dequantizelinear %0, %s, %z : <1x16x16xsi32, 256x16x1>, <1x1x1xf32, 1x1x1>, !migraphx.shaped<1x16x16xsi32, 256x16x1> -> <1x16x16xf32, 256x16x1>
  return %1 : !migraphx.shaped<1x16x16xf32, 256x16x1>
}

// -----

func.func @reduce_axis(%x: !migraphx.shaped<2x3x8xf32, 24x8x1>) -> !migraphx.shaped<2x1x8xf32, 8x8x1> attributes {arch = "gfx942"} {
  // expected-error@+1 {{'migraphx.reduce_max' over axes [1]: accel reduces over the last axis only}}
  %0 = migraphx.reduce_max %x {axes = [1 : i64]} : <2x3x8xf32, 24x8x1> -> <2x1x8xf32, 8x8x1>
  return %0 : !migraphx.shaped<2x1x8xf32, 8x8x1>
}

// -----

// MIGraphX's int4 weights (two values a byte, the low nibble first): the unpack is a
// kernel reading the bytes as int4 pairs, folded into the dequantizelinear that reads it.
// CHECK-LABEL: func.func @unpack(
// CHECK: "accel.elementwise"(%{{.*}}, %{{.*}}, %{{.*}}) {arch = "gfx942", operands = ["gmn", "gmn"], packing = ["u4", ""], program = "%0 = mul %e0, %e1"} : (memref<1x4x2xi8>, memref<1x4x4xf16>, memref<1x4x4xf16>) -> ()
// CHECK-NEXT: return
func.func @unpack(%w: !migraphx.shaped<4x2xui8, 2x1>, %s: !migraphx.shaped<4x4xf16, 4x1>) -> !migraphx.shaped<4x4xf16, 4x1> attributes {arch = "gfx942"} {
  %0 = migraphx.unpack %w {axis = 1 : i64} : <4x2xui8, 2x1> -> <4x4xui8, 4x1>
  %1 = migraphx.dequantizelinear %0, %s : <4x4xui8, 4x1>, <4x4xf16, 4x1> -> <4x4xf16, 4x1>
  return %1 : !migraphx.shaped<4x4xf16, 4x1>
}

// -----

func.func @unpack_axis(%w: !migraphx.shaped<4x2xsi8, 2x1>) -> !migraphx.shaped<8x2xsi8, 2x1> attributes {arch = "gfx942"} {
  // expected-error@+1 {{'migraphx.unpack' over axes [0]: accel reduces over the last axis only}}
  %0 = migraphx.unpack %w {axis = 0 : i64} : <4x2xsi8, 2x1> -> <8x2xsi8, 2x1>
  return %0 : !migraphx.shaped<8x2xsi8, 2x1>
}

// -----

// A kernel's value read by one op only is computed in that op's kernel (its steps first,
// rounded to its f16 type as its buffer would have held it): sub and exp are one
// kernel, and exp's value, read twice, stays a buffer of its own.
// CHECK-LABEL: func.func @merged
// CHECK: %[[E:.*]] = memref.alloc() : memref<2x8xf16>
// CHECK-NOT: memref.alloc
// CHECK: "accel.elementwise"(%{{.*}}, %{{.*}}, %{{.*}}) {arch = "gfx942", operands = ["gmn", "gmn"], program = "%0 = sub %e0, %e1; %1 = convert_f16 %0; %2 = exp %1"}
// CHECK: memref.expand_shape %[[E]]
// CHECK: memref.expand_shape %[[E]]
// CHECK: "accel.elementwise"(%{{.*}}, %{{.*}}, %{{.*}}) {arch = "gfx942", operands = ["gmn", "gmn"], program = "%0 = mul %e0, %e1"}
// CHECK-NOT: memref.alloc
// CHECK: return
func.func @merged(%x: !migraphx.shaped<2x8xf16, 8x1>, %y: !migraphx.shaped<2x8xf16, 8x1>) -> !migraphx.shaped<2x8xf16, 8x1> attributes {arch = "gfx942"} {
  %0 = migraphx.sub %x, %y : <2x8xf16, 8x1>, <2x8xf16, 8x1> -> <2x8xf16, 8x1>
  %1 = migraphx.exp %0 : <2x8xf16, 8x1> -> <2x8xf16, 8x1>
  %2 = migraphx.mul %1, %1 : <2x8xf16, 8x1>, <2x8xf16, 8x1> -> <2x8xf16, 8x1>
  return %2 : !migraphx.shaped<2x8xf16, 8x1>
}

// -----

// Not merged where the computation type would change: the i32 division stays a kernel;
// the convert to f32 and the exp are one (the exp reads the i32 value as f32).
// CHECK-LABEL: func.func @types_differ
// CHECK: program = "%0 = div %e0, %e1"} : (memref<1x2x8xi32>, memref<1x2x8xi32>, memref<1x2x8xi32>) -> ()
// CHECK: program = "%0 = exp %e0"} : (memref<1x2x8xi32>, memref<1x2x8xf32>) -> ()
func.func @types_differ(%x: !migraphx.shaped<2x8xsi32, 8x1>, %y: !migraphx.shaped<2x8xsi32, 8x1>) -> !migraphx.shaped<2x8xf32, 8x1> attributes {arch = "gfx942"} {
  %0 = migraphx.div %x, %y : <2x8xsi32, 8x1>, <2x8xsi32, 8x1> -> <2x8xsi32, 8x1>
  %1 = migraphx.convert %0 : <2x8xsi32, 8x1> to <2x8xf32, 8x1>
  %2 = migraphx.exp %1 : <2x8xf32, 8x1> -> <2x8xf32, 8x1>
  return %2 : !migraphx.shaped<2x8xf32, 8x1>
}

// -----

// Not merged where the second op reads the value through a transpose: it reads the
// first kernel's buffer in place through the transpose's index map, at other indices
// than the first kernel computes.
// CHECK-LABEL: func.func @transposed_between
// CHECK: "accel.elementwise"(%{{.*}}, %{{.*}}) {arch = "gfx942", operands = ["gmn"], program = "%0 = exp %e0"}
// CHECK-NOT: accel.copy
// CHECK: "accel.elementwise"(%{{.*}}, %{{.*}}) {arch = "gfx942", input_maps = [#{{.*}}], operands = ["gmn"], program = "%0 = relu %e0"} : (memref<2x8xf32>, memref<1x8x2xf32>) -> ()
func.func @transposed_between(%x: !migraphx.shaped<2x8xf32, 8x1>) -> !migraphx.shaped<8x2xf32, 2x1> attributes {arch = "gfx942"} {
  %0 = migraphx.exp %x : <2x8xf32, 8x1> -> <2x8xf32, 8x1>
  %1 = migraphx.transpose %0 {permutation = [1, 0]} : <2x8xf32, 8x1> -> <8x2xf32, 1x8>
  %2 = migraphx.relu %1 : <8x2xf32, 1x8> -> <8x2xf32, 2x1>
  return %2 : !migraphx.shaped<8x2xf32, 2x1>
}
