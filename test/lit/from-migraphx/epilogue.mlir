// RUN: accel-opt --accel-from-migraphx %s | FileCheck %s
// The elementwise chain after a dot fuses into the gemm's epilogue op list (accel.gemm
// `epilogue`, dialect/epilogue_program.py) when each value of the chain has the next op
// as its only use; the chain's other operands become extra operands after C, each read
// as the buffer its view broadcasts ("n" [N], "gn" [G, N], "gmn" [G, M, N], "m" [M],
// "" a scalar). B's argument strides 1536x1x32 put it in memory as [G, N, K]: the gemm
// reads it "transposed".

// dot -> add (multibroadcast [N] bias) -> relu: one gemm writing the out-parameter.
// CHECK-LABEL: func.func @bias_relu(%{{.*}}: memref<2x64x32xf16>, %{{.*}}: memref<2x48x32xf16>, %{{.*}}: memref<48xf32>, %{{.*}}: memref<2x64x48xf32>) attributes {arch = "gfx1100", kernel}
// CHECK-NEXT: "accel.gemm"(%arg0, %arg1, %arg3, %arg2) {a_layout = "row", arch = "gfx1100", b_layout = "transposed", c_layout = "row", epilogue = "%0 = add %acc, %e0; %1 = relu %0", epilogue_operands = ["n"]} : (memref<2x64x32xf16>, memref<2x48x32xf16>, memref<2x64x48xf32>, memref<48xf32>) -> ()
// CHECK-NEXT: return
func.func @bias_relu(%a: !migraphx.shaped<2x64x32xf16, 2048x32x1>, %b: !migraphx.shaped<2x32x48xf16, 1536x1x32>, %bias: !migraphx.shaped<48xf32, 1>) -> !migraphx.shaped<2x64x48xf32, 3072x48x1> attributes {kernel, arch = "gfx1100"} {
  %0 = migraphx.dot %a, %b : <2x64x32xf16, 2048x32x1>, <2x32x48xf16, 1536x1x32> -> <2x64x48xf32, 3072x48x1>
  %1 = migraphx.multibroadcast %bias {out_dyn_dims = [], out_lens = [2, 64, 48]} : <48xf32, 1> -> <2x64x48xf32, 0x0x1>
  %2 = migraphx.add %0, %1 : <2x64x48xf32, 3072x48x1>, <2x64x48xf32, 0x0x1> -> <2x64x48xf32, 3072x48x1>
  %3 = migraphx.relu %2 : <2x64x48xf32, 3072x48x1> -> <2x64x48xf32, 3072x48x1>
  return %3 : !migraphx.shaped<2x64x48xf32, 3072x48x1>
}

// A per-batch [G, 1, N] bias added on the left, then a convert to f32: the convert that
// ends the chain is C's own conversion (C is f32), so no step stands for it.
// CHECK-LABEL: func.func @batch_bias
// CHECK:      %[[GBIAS:.*]] = memref.collapse_shape %arg2 {{.*}} : memref<2x1x48xf16> into memref<2x48xf16>
// CHECK-NEXT: "accel.gemm"(%arg0, %arg1, %arg3, %[[GBIAS]]) {{.*}}epilogue = "%0 = add %e0, %acc", epilogue_operands = ["gn"]} : ({{.*}}, memref<2x64x48xf32>, memref<2x48xf16>) -> ()
// CHECK-NOT:  linalg.generic
func.func @batch_bias(%a: !migraphx.shaped<2x64x32xf16, 2048x32x1>, %b: !migraphx.shaped<2x32x48xf16, 1536x48x1>, %bias: !migraphx.shaped<2x1x48xf16, 48x48x1>) -> !migraphx.shaped<2x64x48xf32, 3072x48x1> attributes {kernel, arch = "gfx942"} {
  %0 = migraphx.dot %a, %b : <2x64x32xf16, 2048x32x1>, <2x32x48xf16, 1536x48x1> -> <2x64x48xf16, 3072x48x1>
  %1 = migraphx.multibroadcast %bias {out_dyn_dims = [], out_lens = [2, 64, 48]} : <2x1x48xf16, 48x48x1> -> <2x64x48xf16, 48x0x1>
  %2 = migraphx.add %1, %0 : <2x64x48xf16, 48x0x1>, <2x64x48xf16, 3072x48x1> -> <2x64x48xf16, 3072x48x1>
  %3 = migraphx.convert %2 : <2x64x48xf16, 3072x48x1> -> <2x64x48xf32, 3072x48x1>
  return %3 : !migraphx.shaped<2x64x48xf32, 3072x48x1>
}

// relu, then a full [G, M, N] tensor added: both fuse, the tensor as a "gmn" operand.
// CHECK-LABEL: func.func @relu_then_add
// CHECK:      "accel.gemm"(%arg0, %arg1, %arg3, %arg2) {{.*}}epilogue = "%0 = relu %acc; %1 = add %0, %e0", epilogue_operands = ["gmn"]}
// CHECK-NOT:  linalg.generic
func.func @relu_then_add(%a: !migraphx.shaped<1x16x8xf16, 128x8x1>, %b: !migraphx.shaped<1x8x32xf16, 256x32x1>, %bias: !migraphx.shaped<1x16x32xf32, 512x32x1>) -> !migraphx.shaped<1x16x32xf32, 512x32x1> attributes {kernel, arch = "gfx1201"} {
  %0 = migraphx.dot %a, %b : <1x16x8xf16, 128x8x1>, <1x8x32xf16, 256x32x1> -> <1x16x32xf32, 512x32x1>
  %1 = migraphx.relu %0 : <1x16x32xf32, 512x32x1> -> <1x16x32xf32, 512x32x1>
  %2 = migraphx.add %1, %bias : <1x16x32xf32, 512x32x1>, <1x16x32xf32, 512x32x1> -> <1x16x32xf32, 512x32x1>
  return %2 : !migraphx.shaped<1x16x32xf32, 512x32x1>
}

// A scaled sigmoid gate with a per-row [M, 1] scale, a scalar literal, a where over an
// si8 mask, and a convert inside the chain (rounding to f16, then on in f32).
// CHECK-LABEL: func.func @chain
// CHECK:      "accel.gemm"(%arg0, %arg1, %arg4, %{{.*}}, %[[C:.*]], %arg3, %[[C]]) {{.*}}epilogue = "%0 = mul %acc, %e0; %1 = sub %0, %e1; %2 = sigmoid %1; %3 = convert_f16 %2; %4 = convert_f32 %3; %5 = where %e2, %4, %e3", epilogue_operands = ["m", "", "gmn", ""]}
// CHECK-NOT:  linalg.generic
func.func @chain(%a: !migraphx.shaped<1x16x8xf32, 128x8x1>, %b: !migraphx.shaped<1x8x32xf32, 256x32x1>, %s: !migraphx.shaped<16x1xf32, 1x1>, %mask: !migraphx.shaped<1x16x32xsi8, 512x32x1>) -> !migraphx.shaped<1x16x32xf32, 512x32x1> attributes {kernel, arch = "gfx942"} {
  %0 = migraphx.dot %a, %b : <1x16x8xf32, 128x8x1>, <1x8x32xf32, 256x32x1> -> <1x16x32xf32, 512x32x1>
  %sb = migraphx.multibroadcast %s {out_dyn_dims = [], out_lens = [1, 16, 32]} : <16x1xf32, 1x1> -> <1x16x32xf32, 0x1x0>
  %1 = migraphx.mul %0, %sb : <1x16x32xf32, 512x32x1>, <1x16x32xf32, 0x1x0> -> <1x16x32xf32, 512x32x1>
  %c = migraphx.literal(dense<0.5> : tensor<1xf32>) : <1xf32, 1>
  %cb = migraphx.multibroadcast %c {out_dyn_dims = [], out_lens = [1, 16, 32]} : <1xf32, 1> -> <1x16x32xf32, 0x0x0>
  %2 = migraphx.sub %1, %cb : <1x16x32xf32, 512x32x1>, <1x16x32xf32, 0x0x0> -> <1x16x32xf32, 512x32x1>
  %3 = migraphx.sigmoid %2 : <1x16x32xf32, 512x32x1> -> <1x16x32xf32, 512x32x1>
  %4 = migraphx.convert %3 : <1x16x32xf32, 512x32x1> -> <1x16x32xf16, 512x32x1>
  %5 = migraphx.convert %4 : <1x16x32xf16, 512x32x1> -> <1x16x32xf32, 512x32x1>
  %6 = migraphx.where %mask, %5, %cb : <1x16x32xsi8, 512x32x1>, <1x16x32xf32, 512x32x1>, <1x16x32xf32, 0x0x0> -> <1x16x32xf32, 512x32x1>
  return %6 : !migraphx.shaped<1x16x32xf32, 512x32x1>
}

// The sum has a second use besides the relu (relu(s) + s): the region after the dot
// takes all three ops, the op list reading the sum twice.
// CHECK-LABEL: func.func @shared_sum
// CHECK:      "accel.gemm"(%arg0, %arg1, %arg3, %arg2) {{.*}}epilogue = "%0 = add %acc, %e0; %1 = relu %0; %2 = add %1, %0", epilogue_operands = ["n"]}
// CHECK-NOT:  linalg.generic
func.func @shared_sum(%a: !migraphx.shaped<1x16x8xf16, 128x8x1>, %b: !migraphx.shaped<1x8x32xf16, 256x32x1>, %bias: !migraphx.shaped<32xf32, 1>) -> !migraphx.shaped<1x16x32xf32, 512x32x1> attributes {kernel, arch = "gfx1201"} {
  %0 = migraphx.dot %a, %b : <1x16x8xf16, 128x8x1>, <1x8x32xf16, 256x32x1> -> <1x16x32xf32, 512x32x1>
  %1 = migraphx.multibroadcast %bias {out_dyn_dims = [], out_lens = [1, 16, 32]} : <32xf32, 1> -> <1x16x32xf32, 0x0x1>
  %2 = migraphx.add %0, %1 : <1x16x32xf32, 512x32x1>, <1x16x32xf32, 0x0x1> -> <1x16x32xf32, 512x32x1>
  %3 = migraphx.relu %2 : <1x16x32xf32, 512x32x1> -> <1x16x32xf32, 512x32x1>
  %4 = migraphx.add %3, %2 : <1x16x32xf32, 512x32x1>, <1x16x32xf32, 512x32x1> -> <1x16x32xf32, 512x32x1>
  return %4 : !migraphx.shaped<1x16x32xf32, 512x32x1>
}

// Views inside the chain (dot -> reshape -> transpose -> add): the add fuses, its
// operand mapped back to the dot's [G, M, N] (a copy here: the inverse views are no
// buffer of that shape); the result, the views undone, is C with M of stride 1 in the
// out-parameter, which the gemm writes in place.
// CHECK-LABEL: func.func @through_views
// CHECK:      %[[X:.*]] = memref.alloc() : memref<2x12x21xf16>
// CHECK:      "accel.copy"(%arg2, %[[X]]) {{.*}} : (memref<2x21x4x3xf16>, memref<2x12x21xf16>) -> ()
// CHECK:      %[[C:.*]] = memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [2, 12, 21], strides: [252, 1, 12]
// CHECK:      "accel.gemm"(%arg0, %arg1, %[[C]], %[[X]]) {{.*}}epilogue = "%0 = add %acc, %e0", epilogue_operands = ["gmn"]}
// CHECK-NOT:  accel.copy
// CHECK:      return
func.func @through_views(%a: !migraphx.shaped<2x12x40xf16, 480x40x1>, %b: !migraphx.shaped<2x40x21xf16, 840x21x1>, %x: !migraphx.shaped<2x21x4x3xf16, 252x12x3x1>) -> !migraphx.shaped<2x21x4x3xf16, 252x12x3x1> attributes {arch = "gfx942"} {
  %0 = migraphx.dot %a, %b : <2x12x40xf16, 480x40x1>, <2x40x21xf16, 840x21x1> -> <2x12x21xf16, 252x21x1>
  %1 = migraphx.reshape %0 {dims = [2, 4, 3, 21]} : <2x12x21xf16, 252x21x1> -> <2x4x3x21xf16, 252x63x21x1>
  %2 = migraphx.transpose %1 {permutation = [0, 3, 1, 2]} : <2x4x3x21xf16, 252x63x21x1> -> <2x21x4x3xf16, 252x1x63x21>
  %3 = migraphx.add %2, %x : <2x21x4x3xf16, 252x1x63x21>, <2x21x4x3xf16, 252x12x3x1> -> <2x21x4x3xf16, 252x12x3x1>
  return %3 : !migraphx.shaped<2x21x4x3xf16, 252x12x3x1>
}

// An operand computed by an elementwise op of its own (used only there): its add is a
// step on the extra operands it reads; nothing stays on the host.
// CHECK-LABEL: func.func @operand_tree
// CHECK:      "accel.gemm"(%arg0, %arg1, %arg3, %arg2, %{{.*}}) {{.*}}epilogue = "%0 = add %e0, %e1; %1 = div %acc, %0", epilogue_operands = ["gmn", "gmn"]}
// CHECK-NOT:  linalg.generic
func.func @operand_tree(%a: !migraphx.shaped<1x5x4xf32, 20x4x1>, %b: !migraphx.shaped<1x4x3xf32, 12x3x1>, %d: !migraphx.shaped<1x5x3xf32, 15x3x1>) -> !migraphx.shaped<1x5x3xf32, 15x3x1> attributes {arch = "gfx942"} {
  %0 = migraphx.dot %a, %b : <1x5x4xf32, 20x4x1>, <1x4x3xf32, 12x3x1> -> <1x5x3xf32, 15x3x1>
  %cst = migraphx.literal(dense<1.000000e+00> : tensor<1x5x3xf32>) : <1x5x3xf32, 0x0x0>
  %1 = migraphx.add %d, %cst : <1x5x3xf32, 15x3x1>, <1x5x3xf32, 0x0x0> -> <1x5x3xf32, 15x3x1>
  %2 = migraphx.div %0, %1 : <1x5x3xf32, 15x3x1>, <1x5x3xf32, 15x3x1> -> <1x5x3xf32, 15x3x1>
  return %2 : !migraphx.shaped<1x5x3xf32, 15x3x1>
}

// The product feeds two ops (x * s + (x + e)): the region after the dot is one op list
// that reads %acc twice.
// CHECK-LABEL: func.func @region
// CHECK:      "accel.gemm"(%arg0, %arg1, %arg4, %arg2, %arg3) {{.*}}epilogue = "%0 = mul %acc, %e0; %1 = add %acc, %e1; %2 = add %0, %1", epilogue_operands = ["gmn", "gmn"]}
// CHECK-NOT:  linalg.generic
func.func @region(%a: !migraphx.shaped<1x5x4xf32, 20x4x1>, %b: !migraphx.shaped<1x4x3xf32, 12x3x1>, %s: !migraphx.shaped<1x5x3xf32, 15x3x1>, %e: !migraphx.shaped<1x5x3xf32, 15x3x1>) -> !migraphx.shaped<1x5x3xf32, 15x3x1> attributes {arch = "gfx942"} {
  %0 = migraphx.dot %a, %b : <1x5x4xf32, 20x4x1>, <1x4x3xf32, 12x3x1> -> <1x5x3xf32, 15x3x1>
  %1 = migraphx.mul %0, %s : <1x5x3xf32, 15x3x1>, <1x5x3xf32, 15x3x1> -> <1x5x3xf32, 15x3x1>
  %2 = migraphx.add %0, %e : <1x5x3xf32, 15x3x1>, <1x5x3xf32, 15x3x1> -> <1x5x3xf32, 15x3x1>
  %3 = migraphx.add %1, %2 : <1x5x3xf32, 15x3x1>, <1x5x3xf32, 15x3x1> -> <1x5x3xf32, 15x3x1>
  return %3 : !migraphx.shaped<1x5x3xf32, 15x3x1>
}
