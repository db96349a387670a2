// RUN: accel-opt --accel-from-migraphx %s | FileCheck %s
// migraphx.slice and migraphx.broadcast are views: the slice moves the start (3 * 64 +
// 5 = 197) and keeps the row stride 64. A start of 197 f16 is no 16-byte multiple, so
// the gemm's vector loads cannot read it in place: a copy, whose addressing folds the
// view, makes A row-major and says why; the broadcast of B over a unit batch reads B
// in place.
// CHECK: #[[SLICED:.*]] = affine_map<(d0, d1, d2) -> (d1 * 64 + d2 + 197)>
// The map of @two_strides' operand (below), printed with the others at the top.
// CHECK-DAG: #[[TWO:.*]] = affine_map<(d0, d1, d2) -> (d1 mod 3, d1 floordiv 3, d2)>
// CHECK-LABEL: func.func @slice
// CHECK: %[[COPY:.*]] = memref.alloc() : memref<1x37x40xf16>
// CHECK: "accel.copy"(%{{.*}}, %[[COPY]]) {arch = "gfx942", input_map = #[[SLICED]], {{.*}}reason = "a dot operand A with offset or strides not multiples of 16 bytes", shape = array<i64: 1, 37, 40>} : (memref<{{.*}}xf16>, memref<1x37x40xf16>) -> ()
// CHECK: %[[B3:.*]] = memref.expand_shape %arg1
// CHECK: "accel.gemm"(%[[COPY]], %[[B3]], %arg2)
func.func @slice(%a: !migraphx.shaped<1x48x64xf16, 3072x64x1>, %b: !migraphx.shaped<40x24xf16, 24x1>) -> !migraphx.shaped<1x37x24xf32, 888x24x1> attributes {arch = "gfx942"} {
  %as = migraphx.slice %a {axes = [1, 2], starts = [3, 5], ends = [40, 45]} : <1x48x64xf16, 3072x64x1> -> <1x37x40xf16, 3072x64x1>
  %bb = migraphx.broadcast %b {axis = 1 : i64, out_lens = [1, 40, 24]} : <40x24xf16, 24x1> -> <1x40x24xf16, 0x24x1>
  %0 = migraphx.dot %as, %bb : <1x37x40xf16, 3072x64x1>, <1x40x24xf16, 0x24x1> -> <1x37x24xf32, 888x24x1>
  return %0 : !migraphx.shaped<1x37x24xf32, 888x24x1>
}

// An aligned slice (rows 8..40, columns 16..48: start 8 * 64 + 16 = 528) and a B
// broadcast over two batches (batch stride 0) are read in place by the gemm as strided
// memrefs over their buffers: no copy.
// CHECK-LABEL: func.func @aligned_slice
// CHECK-NOT: accel.copy
// CHECK-DAG: memref.reinterpret_cast %{{.*}} to offset: [528], sizes: [2, 32, 32], strides: [3072, 64, 1] : memref<6144xf16> to memref<2x32x32xf16, strided<[3072, 64, 1], offset: 528>>
// CHECK-DAG: memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [2, 32, 24], strides: [0, 24, 1] : memref<768xf16> to memref<2x32x24xf16, strided<[0, 24, 1]>>
// CHECK: "accel.gemm"(%{{.*}}, %{{.*}}, %arg2) {a_layout = "row", arch = "gfx942", b_layout = "row", c_layout = "row"} : (memref<2x32x32xf16, strided<[3072, 64, 1], offset: 528>>, memref<2x32x24xf16, strided<[0, 24, 1]>>, memref<2x32x24xf32>) -> ()
func.func @aligned_slice(%a: !migraphx.shaped<2x48x64xf16, 3072x64x1>, %b: !migraphx.shaped<32x24xf16, 24x1>) -> !migraphx.shaped<2x32x24xf32, 768x24x1> attributes {arch = "gfx942"} {
  %as = migraphx.slice %a {axes = [1, 2], starts = [8, 16], ends = [40, 48]} : <2x48x64xf16, 3072x64x1> -> <2x32x32xf16, 3072x64x1>
  %bb = migraphx.multibroadcast %b {out_lens = [2, 32, 24]} : <32x24xf16, 24x1> -> <2x32x24xf16, 0x24x1>
  %0 = migraphx.dot %as, %bb : <2x32x32xf16, 3072x64x1>, <2x32x24xf16, 0x24x1> -> <2x32x24xf32, 768x24x1>
  return %0 : !migraphx.shaped<2x32x24xf32, 768x24x1>
}

// A transposed slice: A^T's rows are columns 16..48 of [2, 32, 64] (M contiguous, K
// rows 64 apart), read as A "transposed" [G, K, M] at offset 16.
// CHECK-LABEL: func.func @transposed_slice
// CHECK-NOT: accel.copy
// CHECK: "accel.gemm"(%{{.*}}, %{{.*}}, %arg2) {a_layout = "transposed", {{.*}}} : (memref<2x32x32xf16, strided<[2048, 64, 1], offset: 16>>, memref<2x32x24xf16>, memref<2x32x24xf32>) -> ()
func.func @transposed_slice(%a: !migraphx.shaped<2x32x64xf16, 2048x64x1>, %b: !migraphx.shaped<2x32x24xf16, 768x24x1>) -> !migraphx.shaped<2x32x24xf32, 768x24x1> attributes {arch = "gfx942"} {
  %as = migraphx.slice %a {axes = [2], starts = [16], ends = [48]} : <2x32x64xf16, 2048x64x1> -> <2x32x32xf16, 2048x64x1>
  %at = migraphx.transpose %as {permutation = [0, 2, 1]} : <2x32x32xf16, 2048x64x1> -> <2x32x32xf16, 2048x1x64>
  %0 = migraphx.dot %at, %b : <2x32x32xf16, 2048x1x64>, <2x32x24xf16, 768x24x1> -> <2x32x24xf32, 768x24x1>
  return %0 : !migraphx.shaped<2x32x24xf32, 768x24x1>
}

// An elementwise operand whose M has two strides (a transpose regrouped by a reshape:
// m = m0 * 3 + m1 lands at m1 * 10 + m0 * 5) is no broadcast kind: the kernel reads it
// in place through its index map of the argument's [3, 2, 5] buffer, no copy.
// CHECK-LABEL: func.func @two_strides
// CHECK-NOT: accel.copy
// CHECK: "accel.elementwise"(%arg0, %{{.*}}, %{{.*}}) {arch = "gfx942", input_maps = [#[[TWO]], unit], operands = ["gmn", "gmn"], program = "%0 = add %e0, %e1"} : (memref<3x2x5xf32>, memref<1x6x5xf32>, memref<1x6x5xf32>) -> ()
func.func @two_strides(%x: !migraphx.shaped<3x2x5xf32, 10x5x1>, %y: !migraphx.shaped<6x5xf32, 5x1>) -> !migraphx.shaped<6x5xf32, 5x1> attributes {arch = "gfx942"} {
  %t = migraphx.transpose %x {permutation = [1, 0, 2]} : <3x2x5xf32, 10x5x1> -> <2x3x5xf32, 5x10x1>
  %r = migraphx.reshape %t {dims = [6, 5]} : <2x3x5xf32, 5x10x1> -> <6x5xf32, 5x1>
  %0 = migraphx.add %r, %y : <6x5xf32, 5x1>, <6x5xf32, 5x1> -> <6x5xf32, 5x1>
  return %0 : !migraphx.shaped<6x5xf32, 5x1>
}
