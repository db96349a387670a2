// RUN: accel-opt --accel-from-migraphx %s | FileCheck %s
// A bias add and a relu after the dot fuse into the gemm's epilogue (accel.gemm
// `epilogue`, the bias as 4th operand) when each value of the chain has the next op as
// its only use and the bias is an [N] or [G, N] buffer broadcast over rows. B's argument
// strides 1536x1x32 put it in memory as [G, N, K]: the gemm reads it "transposed".

// dot -> add (multibroadcast [N] bias) -> relu: one gemm writing the out-parameter.
// CHECK-LABEL: func.func @bias_relu(%{{.*}}: memref<2x64x32xf16>, %{{.*}}: memref<2x48x32xf16>, %{{.*}}: memref<48xf32>, %{{.*}}: memref<2x64x48xf32>) attributes {arch = "gfx1100", kernel}
// CHECK-NEXT: "accel.gemm"(%arg0, %arg1, %arg3, %arg2) {a_layout = "row", arch = "gfx1100", b_layout = "transposed", c_layout = "row", epilogue = "bias_relu"} : (memref<2x64x32xf16>, memref<2x48x32xf16>, memref<2x64x48xf32>, memref<48xf32>) -> ()
// CHECK-NEXT: return
func.func @bias_relu(%a: !migraphx.shaped<2x64x32xf16, 2048x32x1>, %b: !migraphx.shaped<2x32x48xf16, 1536x1x32>, %bias: !migraphx.shaped<48xf32, 1>) -> !migraphx.shaped<2x64x48xf32, 3072x48x1> attributes {kernel, arch = "gfx1100"} {
  %0 = migraphx.dot %a, %b : <2x64x32xf16, 2048x32x1>, <2x32x48xf16, 1536x1x32> -> <2x64x48xf32, 3072x48x1>
  %1 = migraphx.multibroadcast %bias {out_dyn_dims = [], out_lens = [2, 64, 48]} : <48xf32, 1> -> <2x64x48xf32, 0x0x1>
  %2 = migraphx.add %0, %1 : <2x64x48xf32, 3072x48x1>, <2x64x48xf32, 0x0x1> -> <2x64x48xf32, 3072x48x1>
  %3 = migraphx.relu %2 : <2x64x48xf32, 3072x48x1> -> <2x64x48xf32, 3072x48x1>
  return %3 : !migraphx.shaped<2x64x48xf32, 3072x48x1>
}

// A per-batch [G, 1, N] bias (broadcast over rows), added on the left: epilogue "bias"
// with the bias viewed as [G, N]; the dot's result flows to a temporary, the convert
// after the add stays a linalg.generic.
// CHECK-LABEL: func.func @batch_bias
// CHECK:      %[[GBIAS:.*]] = memref.collapse_shape %arg2 {{.*}} : memref<2x1x48xf16> into memref<2x48xf16>
// CHECK-NEXT: %[[C:.*]] = memref.alloc() : memref<2x64x48xf16>
// CHECK-NEXT: "accel.gemm"(%arg0, %arg1, %[[C]], %[[GBIAS]]) {{.*}}epilogue = "bias"}
// CHECK:      linalg.generic {{.*}} ins(%[[C]] : memref<2x64x48xf16>) outs(%arg3 : memref<2x64x48xf32>)
// CHECK:      arith.extf
func.func @batch_bias(%a: !migraphx.shaped<2x64x32xf16, 2048x32x1>, %b: !migraphx.shaped<2x32x48xf16, 1536x48x1>, %bias: !migraphx.shaped<2x1x48xf16, 48x48x1>) -> !migraphx.shaped<2x64x48xf32, 3072x48x1> attributes {kernel, arch = "gfx942"} {
  %0 = migraphx.dot %a, %b : <2x64x32xf16, 2048x32x1>, <2x32x48xf16, 1536x48x1> -> <2x64x48xf16, 3072x48x1>
  %1 = migraphx.multibroadcast %bias {out_dyn_dims = [], out_lens = [2, 64, 48]} : <2x1x48xf16, 48x48x1> -> <2x64x48xf16, 48x0x1>
  %2 = migraphx.add %1, %0 : <2x64x48xf16, 48x0x1>, <2x64x48xf16, 3072x48x1> -> <2x64x48xf16, 3072x48x1>
  %3 = migraphx.convert %2 : <2x64x48xf16, 3072x48x1> -> <2x64x48xf32, 3072x48x1>
  return %3 : !migraphx.shaped<2x64x48xf32, 3072x48x1>
}

// relu alone fuses; the add after it cannot (relu(x) + b is not an epilogue of ours).
// CHECK-LABEL: func.func @relu_then_add
// CHECK:      "accel.gemm"(%arg0, %arg1, %[[R:.*]]) {{.*}}epilogue = "relu"}
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[R]], %arg2 : {{.*}}) outs(%arg3 : memref<1x16x32xf32>)
// CHECK:      arith.addf
func.func @relu_then_add(%a: !migraphx.shaped<1x16x8xf16, 128x8x1>, %b: !migraphx.shaped<1x8x32xf16, 256x32x1>, %bias: !migraphx.shaped<1x16x32xf32, 512x32x1>) -> !migraphx.shaped<1x16x32xf32, 512x32x1> attributes {kernel, arch = "gfx1201"} {
  %0 = migraphx.dot %a, %b : <1x16x8xf16, 128x8x1>, <1x8x32xf16, 256x32x1> -> <1x16x32xf32, 512x32x1>
  %1 = migraphx.relu %0 : <1x16x32xf32, 512x32x1> -> <1x16x32xf32, 512x32x1>
  %2 = migraphx.add %1, %bias : <1x16x32xf32, 512x32x1>, <1x16x32xf32, 512x32x1> -> <1x16x32xf32, 512x32x1>
  return %2 : !migraphx.shaped<1x16x32xf32, 512x32x1>
}

// An added full [G, M, N] tensor is not a bias: the add stays a linalg.generic.
// CHECK-LABEL: func.func @full_add
// CHECK:      %[[C:.*]] = memref.alloc() : memref<2x16x32xf32>
// CHECK-NEXT: "accel.gemm"(%arg0, %arg1, %[[C]]) {a_layout = "row", arch = "gfx1201", b_layout = "row", c_layout = "row"}
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[C]], %arg2 : {{.*}}) outs(%arg3 : memref<2x16x32xf32>)
func.func @full_add(%a: !migraphx.shaped<2x16x8xf16, 128x8x1>, %b: !migraphx.shaped<2x8x32xf16, 256x32x1>, %x: !migraphx.shaped<2x16x32xf32, 512x32x1>) -> !migraphx.shaped<2x16x32xf32, 512x32x1> attributes {kernel, arch = "gfx1201"} {
  %0 = migraphx.dot %a, %b : <2x16x8xf16, 128x8x1>, <2x8x32xf16, 256x32x1> -> <2x16x32xf32, 512x32x1>
  %1 = migraphx.add %0, %x : <2x16x32xf32, 512x32x1>, <2x16x32xf32, 512x32x1> -> <2x16x32xf32, 512x32x1>
  return %1 : !migraphx.shaped<2x16x32xf32, 512x32x1>
}

// The sum has a second use besides the relu: the add fuses, the relu does not.
// CHECK-LABEL: func.func @shared_sum
// CHECK:      "accel.gemm"(%arg0, %arg1, %[[S:.*]], %arg2) {{.*}}epilogue = "bias"}
// CHECK:      linalg.generic {{.*}} ins(%[[S]] : memref<1x16x32xf32>)
// CHECK:      arith.maximumf
// CHECK:      linalg.generic {{.*}} ins(%{{.*}}, %[[S]] : {{.*}})
// CHECK:      arith.addf
func.func @shared_sum(%a: !migraphx.shaped<1x16x8xf16, 128x8x1>, %b: !migraphx.shaped<1x8x32xf16, 256x32x1>, %bias: !migraphx.shaped<32xf32, 1>) -> !migraphx.shaped<1x16x32xf32, 512x32x1> attributes {kernel, arch = "gfx1201"} {
  %0 = migraphx.dot %a, %b : <1x16x8xf16, 128x8x1>, <1x8x32xf16, 256x32x1> -> <1x16x32xf32, 512x32x1>
  %1 = migraphx.multibroadcast %bias {out_dyn_dims = [], out_lens = [1, 16, 32]} : <32xf32, 1> -> <1x16x32xf32, 0x0x1>
  %2 = migraphx.add %0, %1 : <1x16x32xf32, 512x32x1>, <1x16x32xf32, 0x0x1> -> <1x16x32xf32, 512x32x1>
  %3 = migraphx.relu %2 : <1x16x32xf32, 512x32x1> -> <1x16x32xf32, 512x32x1>
  %4 = migraphx.add %3, %2 : <1x16x32xf32, 512x32x1>, <1x16x32xf32, 512x32x1> -> <1x16x32xf32, 512x32x1>
  return %4 : !migraphx.shaped<1x16x32xf32, 512x32x1>
}
