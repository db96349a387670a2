// RUN: accel-opt --split-input-file --accel-from-migraphx %s | FileCheck %s
// Grouped-query attention: 6 query heads (5 rows each) on 2 key/value heads, each
// repeated over a group of 3 (multibroadcast of a unit axis: B's batch digits
// (2, 1152) (3, 0)), the keys rows 0..40 of a 48-row cache (batch stride 48 * 24).
// A's heads follow its rows (head stride 120 = 5 * 24), so each group is one A of
// 15 rows: one gemm of batch 2, M 15, B a strided view of the cache, C the result
// reshaped to [2, 15, 40]; no copy.
// CHECK-LABEL: func.func @gqa
// CHECK-NOT: accel.copy
// CHECK: %[[B:.*]] = memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [2, 40, 24], strides: [1152, 24, 1] : memref<2304xf16> to memref<2x40x24xf16, strided<[1152, 24, 1]>>
// CHECK: %[[A:.*]] = memref.expand_shape %{{.*}} output_shape [2, 15, 24] : memref<720xf16> into memref<2x15x24xf16>
// CHECK: %[[C:.*]] = memref.expand_shape %{{.*}} output_shape [2, 15, 40] : memref<1200xf32> into memref<2x15x40xf32>
// CHECK: "accel.gemm"(%[[A]], %[[B]], %[[C]]) {a_layout = "row", arch = "gfx942", b_layout = "transposed", c_layout = "row"} : (memref<2x15x24xf16>, memref<2x40x24xf16, strided<[1152, 24, 1]>>, memref<2x15x40xf32>) -> ()
// CHECK-NOT: accel.copy
func.func @gqa(%q: !migraphx.shaped<1x6x5x24xf16, 720x120x24x1>, %kv: !migraphx.shaped<1x2x48x24xf16, 2304x1152x24x1>) -> !migraphx.shaped<1x6x5x40xf32, 1200x200x40x1> attributes {rock.arch = "gfx942"} {
  %ks = migraphx.slice %kv {axes = [2], starts = [0], ends = [40]} : <1x2x48x24xf16, 2304x1152x24x1> -> <1x2x40x24xf16, 2304x1152x24x1>
  %kr = migraphx.reshape %ks {dims = [1, 2, 1, 40, 24]} : <1x2x40x24xf16, 2304x1152x24x1> -> <1x2x1x40x24xf16, 2304x1152x1152x24x1>
  %kb = migraphx.multibroadcast %kr {out_lens = [1, 2, 3, 40, 24]} : <1x2x1x40x24xf16, 2304x1152x1152x24x1> -> <1x2x3x40x24xf16, 2304x1152x0x24x1>
  %k = migraphx.reshape %kb {dims = [1, 6, 40, 24]} : <1x2x3x40x24xf16, 2304x1152x0x24x1> -> <1x6x40x24xf16, 6912x1152x24x1>
  %kt = migraphx.transpose %k {permutation = [0, 1, 3, 2]} : <1x6x40x24xf16, 6912x1152x24x1> -> <1x6x24x40xf16, 6912x1152x1x24>
  %0 = migraphx.dot %q, %kt : <1x6x5x24xf16, 720x120x24x1>, <1x6x24x40xf16, 6912x1152x1x24> -> <1x6x5x40xf32, 1200x200x40x1>
  return %0 : !migraphx.shaped<1x6x5x40xf32, 1200x200x40x1>
}

// -----

// The same heads interleaved with the rows (A = [1, 5, 6, 24] transposed: a head's
// rows 144 apart, after no other head's): the group's rows are no single stride, so
// no taller gemm exists; B is copied as before, the copy saying why, and A read in
// place.
// CHECK-LABEL: func.func @interleaved
// CHECK: memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [6, 5, 24], strides: [24, 144, 1]
// CHECK-NOT: memref.reinterpret_cast
// CHECK: "accel.copy"({{.*}}reason = "a dot operand B with the batch of several strides"
// CHECK: "accel.gemm"({{.*}}) {a_layout = "row", arch = "gfx942", b_layout = "row", c_layout = "row"} : (memref<6x5x24xf16, strided<[24, 144, 1]>>, memref<6x24x40xf16>, memref<6x5x40xf32>) -> ()
func.func @interleaved(%q: !migraphx.shaped<1x5x6x24xf16, 720x144x24x1>, %kv: !migraphx.shaped<1x2x48x24xf16, 2304x1152x24x1>) -> !migraphx.shaped<1x6x5x40xf32, 1200x200x40x1> attributes {rock.arch = "gfx942"} {
  %ks = migraphx.slice %kv {axes = [2], starts = [0], ends = [40]} : <1x2x48x24xf16, 2304x1152x24x1> -> <1x2x40x24xf16, 2304x1152x24x1>
  %kr = migraphx.reshape %ks {dims = [1, 2, 1, 40, 24]} : <1x2x40x24xf16, 2304x1152x24x1> -> <1x2x1x40x24xf16, 2304x1152x1152x24x1>
  %kb = migraphx.multibroadcast %kr {out_lens = [1, 2, 3, 40, 24]} : <1x2x1x40x24xf16, 2304x1152x1152x24x1> -> <1x2x3x40x24xf16, 2304x1152x0x24x1>
  %k = migraphx.reshape %kb {dims = [1, 6, 40, 24]} : <1x2x3x40x24xf16, 2304x1152x0x24x1> -> <1x6x40x24xf16, 6912x1152x24x1>
  %kt = migraphx.transpose %k {permutation = [0, 1, 3, 2]} : <1x6x40x24xf16, 6912x1152x24x1> -> <1x6x24x40xf16, 6912x1152x1x24>
  %qt = migraphx.transpose %q {permutation = [0, 2, 1, 3]} : <1x5x6x24xf16, 720x144x24x1> -> <1x6x5x24xf16, 720x24x144x1>
  %0 = migraphx.dot %qt, %kt : <1x6x5x24xf16, 720x24x144x1>, <1x6x24x40xf16, 6912x1152x1x24> -> <1x6x5x40xf32, 1200x200x40x1>
  return %0 : !migraphx.shaped<1x6x5x40xf32, 1200x200x40x1>
}

// -----

// A's heads follow its rows (130 = 5 * 26) but A is a slice starting at column 1 (2
// bytes: no 16-byte multiple), which no gemm reads in place: the grouped B view built
// first is erased, and both operands are copied, each copy saying why.
// CHECK-LABEL: func.func @unaligned_query
// CHECK-NOT: strided<[1152
// CHECK: "accel.copy"({{.*}}reason = "a dot operand A with offset or strides not multiples of 16 bytes"
// CHECK-NOT: strided<[1152
// CHECK: "accel.copy"({{.*}}reason = "a dot operand B with the batch of several strides"
// CHECK-NOT: strided<[1152
// CHECK: "accel.gemm"({{.*}}) {a_layout = "row", arch = "gfx942", b_layout = "row", c_layout = "row"} : (memref<6x5x24xf16>, memref<6x24x40xf16>, memref<6x5x40xf32>) -> ()
func.func @unaligned_query(%q: !migraphx.shaped<1x6x5x26xf16, 780x130x26x1>, %kv: !migraphx.shaped<1x2x48x24xf16, 2304x1152x24x1>) -> !migraphx.shaped<1x6x5x40xf32, 1200x200x40x1> attributes {rock.arch = "gfx942"} {
  %ks = migraphx.slice %kv {axes = [2], starts = [0], ends = [40]} : <1x2x48x24xf16, 2304x1152x24x1> -> <1x2x40x24xf16, 2304x1152x24x1>
  %kr = migraphx.reshape %ks {dims = [1, 2, 1, 40, 24]} : <1x2x40x24xf16, 2304x1152x24x1> -> <1x2x1x40x24xf16, 2304x1152x1152x24x1>
  %kb = migraphx.multibroadcast %kr {out_lens = [1, 2, 3, 40, 24]} : <1x2x1x40x24xf16, 2304x1152x1152x24x1> -> <1x2x3x40x24xf16, 2304x1152x0x24x1>
  %k = migraphx.reshape %kb {dims = [1, 6, 40, 24]} : <1x2x3x40x24xf16, 2304x1152x0x24x1> -> <1x6x40x24xf16, 6912x1152x24x1>
  %kt = migraphx.transpose %k {permutation = [0, 1, 3, 2]} : <1x6x40x24xf16, 6912x1152x24x1> -> <1x6x24x40xf16, 6912x1152x1x24>
  %qs = migraphx.slice %q {axes = [3], starts = [1], ends = [25]} : <1x6x5x26xf16, 780x130x26x1> -> <1x6x5x24xf16, 780x130x26x1>
  %0 = migraphx.dot %qs, %kt : <1x6x5x24xf16, 780x130x26x1>, <1x6x24x40xf16, 6912x1152x1x24> -> <1x6x5x40xf32, 1200x200x40x1>
  return %0 : !migraphx.shaped<1x6x5x40xf32, 1200x200x40x1>
}
