// RUN: accel-opt --accel-from-migraphx %s | FileCheck %s
// A bias add and relu after the dot stay separate ops (the GEMM epilogue cannot fuse
// them yet): each is an elementwise linalg.generic on memrefs; the last writes the
// out-parameter. B's argument strides 1536x1x32 put it in memory as [G, N, K]:
// the argument becomes that buffer and the gemm reads it "transposed".
// CHECK-DAG:  #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG:  #[[BCAST:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK:      func.func @bias_relu(%[[A:.*]]: memref<2x64x32xf16>, %[[B:.*]]: memref<2x48x32xf16>, %[[BIAS:.*]]: memref<48xf32>, %[[OUT:.*]]: memref<2x64x48xf32>) attributes {arch = "gfx1100", kernel}
// CHECK-NEXT: %[[C:.*]] = memref.alloc() : memref<2x64x48xf32>
// CHECK-NEXT: "accel.gemm"(%[[A]], %[[B]], %[[C]]) {a_layout = "row", arch = "gfx1100", b_layout = "transposed", c_layout = "row"}
// CHECK-NEXT: %[[SUM:.*]] = memref.alloc() : memref<2x64x48xf32>
// CHECK-NEXT: linalg.generic {indexing_maps = [#[[ID]], #[[BCAST]], #[[ID]]], {{.*}} ins(%[[C]], %[[BIAS]] : {{.*}}) outs(%[[SUM]] : memref<2x64x48xf32>)
// CHECK:      arith.addf
// CHECK:      linalg.generic {{.*}} ins(%[[SUM]] : memref<2x64x48xf32>) outs(%[[OUT]] : memref<2x64x48xf32>)
// CHECK:      arith.maximumf
// CHECK:      return
func.func @bias_relu(%a: !migraphx.shaped<2x64x32xf16, 2048x32x1>, %b: !migraphx.shaped<2x32x48xf16, 1536x1x32>, %bias: !migraphx.shaped<48xf32, 1>) -> !migraphx.shaped<2x64x48xf32, 3072x48x1> attributes {kernel, arch = "gfx1100"} {
  %0 = migraphx.dot %a, %b : <2x64x32xf16, 2048x32x1>, <2x32x48xf16, 1536x1x32> -> <2x64x48xf32, 3072x48x1>
  %1 = migraphx.multibroadcast %bias {out_dyn_dims = [], out_lens = [2, 64, 48]} : <48xf32, 1> -> <2x64x48xf32, 0x0x1>
  %2 = migraphx.add %0, %1 : <2x64x48xf32, 3072x48x1>, <2x64x48xf32, 0x0x1> -> <2x64x48xf32, 3072x48x1>
  %3 = migraphx.relu %2 : <2x64x48xf32, 3072x48x1> -> <2x64x48xf32, 3072x48x1>
  return %3 : !migraphx.shaped<2x64x48xf32, 3072x48x1>
}
