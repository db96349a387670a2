// RUN: accel-opt --accel-from-migraphx --split-input-file %s | FileCheck %s
// Dot operands the gemm reads in place without a stride-1 side or with K of two digits
// (accel.migraphx.strided): no accel.copy.

// batch-first: the batch innermost in memory (stride 1), A's K stride 2 and B's N
// stride 2; both are taken K-innermost (A row, B transposed) and read an element per
// load.
// CHECK-LABEL: func.func @batch_first
// CHECK-NOT: accel.copy
// CHECK: "accel.gemm"(%{{.*}}) {a_layout = "row", {{.*}}b_layout = "transposed"{{.*}} : (memref<2x37x12xf16, strided<[1, 48, 2]>>, memref<2x29x12xf16, strided<[1, 2, 58]>>, memref<2x37x29xf16>) -> ()
func.func @batch_first(%a: !migraphx.shaped<2x24x37xf16, 1x2x48>, %b: !migraphx.shaped<2x29x12xf16, 1x2x58>) -> !migraphx.shaped<2x37x29xf16, 1073x29x1> attributes {rock.arch = "gfx942"} {
  %as = migraphx.slice %a {axes = [1], starts = [0], ends = [12]} : <2x24x37xf16, 1x2x48> -> <2x12x37xf16, 1x2x48>
  %at = migraphx.transpose %as {permutation = [0, 2, 1]} : <2x12x37xf16, 1x2x48> -> <2x37x12xf16, 1x48x2>
  %bt = migraphx.transpose %b {permutation = [0, 2, 1]} : <2x29x12xf16, 1x2x58> -> <2x12x29xf16, 1x58x2>
  %0 = migraphx.dot %at, %bt : <2x37x12xf16, 1x48x2>, <2x12x29xf16, 1x58x2> -> <2x37x29xf16, 1073x29x1>
  return %0 : !migraphx.shaped<2x37x29xf16, 1073x29x1>
}

// -----

// One value per batch broadcast to [G, M, K]: strides (1, 0, 0).
// CHECK-LABEL: func.func @scalar_per_batch
// CHECK-NOT: accel.copy
// CHECK: memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [3, 21, 24], strides: [1, 0, 0]
// CHECK: "accel.gemm"
func.func @scalar_per_batch(%s: !migraphx.shaped<3x1x1xf32, 1x1x1>, %b: !migraphx.shaped<3x24x35xf32, 840x35x1>) -> !migraphx.shaped<3x21x35xf32, 735x35x1> attributes {rock.arch = "gfx942"} {
  %a = migraphx.multibroadcast %s {out_lens = [3, 21, 24]} : <3x1x1xf32, 1x1x1> -> <3x21x24xf32, 1x0x0>
  %0 = migraphx.dot %a, %b : <3x21x24xf32, 1x0x0>, <3x24x35xf32, 840x35x1> -> <3x21x35xf32, 735x35x1>
  return %0 : !migraphx.shaped<3x21x35xf32, 735x35x1>
}

// -----

// Heads merged into K (transpose [0, 2, 1, 3] + reshape): K = 3 heads of stride 592
// times 16 of stride 1, M of stride 16: A is the rank-4 [1, 37, 3, 16].
// CHECK-LABEL: func.func @heads_in_k
// CHECK-NOT: accel.copy
// CHECK: "accel.gemm"(%{{.*}}) {a_layout = "row"{{.*}} : (memref<1x37x3x16xf16, strided<[1776, 16, 592, 1]>>, memref<1x48x40xf16>, memref<1x37x40xf16>) -> ()
func.func @heads_in_k(%h: !migraphx.shaped<1x3x37x16xf16, 1776x592x16x1>, %w: !migraphx.shaped<1x48x40xf16, 1920x40x1>) -> !migraphx.shaped<1x37x40xf16, 1480x40x1> attributes {rock.arch = "gfx942"} {
  %t = migraphx.transpose %h {permutation = [0, 2, 1, 3]} : <1x3x37x16xf16, 1776x592x16x1> -> <1x37x3x16xf16, 1776x16x592x1>
  %a = migraphx.reshape %t {dims = [1, 37, 48]} : <1x37x3x16xf16, 1776x16x592x1> -> <1x37x48xf16, 1776x48x1>
  %0 = migraphx.dot %a, %w : <1x37x48xf16, 1776x48x1>, <1x48x40xf16, 1920x40x1> -> <1x37x40xf16, 1480x40x1>
  return %0 : !migraphx.shaped<1x37x40xf16, 1480x40x1>
}

// -----

// K of three digits (heads of two levels) is still a copy, which says why.
// CHECK-LABEL: func.func @k_of_three_digits
// CHECK: "accel.copy"({{.*}}reason = "a dot operand A with K of several strides"
func.func @k_of_three_digits(%h: !migraphx.shaped<2x3x37x16xf16, 3552x592x16x1>, %w: !migraphx.shaped<1x96x40xf16, 3840x40x1>) -> !migraphx.shaped<1x37x40xf16, 1480x40x1> attributes {rock.arch = "gfx942"} {
  %t = migraphx.transpose %h {permutation = [2, 0, 1, 3]} : <2x3x37x16xf16, 3552x592x16x1> -> <37x2x3x16xf16, 16x3552x592x1>
  %a = migraphx.reshape %t {dims = [1, 37, 96]} : <37x2x3x16xf16, 16x3552x592x1> -> <1x37x96xf16, 3552x96x1>
  %0 = migraphx.dot %a, %w : <1x37x96xf16, 3552x96x1>, <1x96x40xf16, 3840x40x1> -> <1x37x40xf16, 1480x40x1>
  return %0 : !migraphx.shaped<1x37x40xf16, 1480x40x1>
}
