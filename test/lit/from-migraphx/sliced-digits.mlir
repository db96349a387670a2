// RUN: accel-opt --accel-from-migraphx --split-input-file %s | FileCheck %s
// A slice inside a dimension's digits is a window of it (accel.migraphx.view), which an
// elementwise kernel reads in place through its input map; a gemm operand, which needs
// one stride per dimension, still gets a copy that says why.

// AMDMIGraphX's int4_unpack_dequantizelinear: group scales and zero points [2, 2, 2]
// repeated 3 times along K (strides 4, 2, 0, 1), regrouped to K = 6 (digits (2, 2)
// and (3, 0)) and sliced to 5 rows: row r of K is row r floordiv 3 of the group
// buffer. Both are read in place by the dequantize kernel (the unpack folded into it).
// CHECK: #[[GROUP:.*]] = affine_map<(d0, d1, d2) -> (d0, d1 floordiv 3, d2)>
// CHECK-LABEL: func.func @int4_group_scales
// CHECK-NOT: accel.copy
// CHECK: "accel.elementwise"(%arg1, %arg2, %arg3, %[[DEQ:.*]]) {arch = "gfx942", input_maps = [unit, #[[GROUP]], #[[GROUP]]], operands = ["gmn", "gmn", "gmn"], packing = ["s4", "", ""], program = "%0 = sub %e0, %e2; %1 = mul %0, %e1"} : (memref<2x5x1xi8>, memref<2x2x2xf32>, memref<2x2x2xi8>, memref<2x5x2xf32>) -> ()
// CHECK: "accel.gemm"(%arg0, %[[DEQ]], %arg4) {a_layout = "row", arch = "gfx942", b_layout = "row", c_layout = "row"}
func.func @int4_group_scales(%arg0: !migraphx.shaped<2x3x5xf32, 15x5x1>, %arg1: !migraphx.shaped<2x5x1xsi8, 5x1x1>, %arg2: !migraphx.shaped<2x2x2xf32, 4x2x1>, %arg3: !migraphx.shaped<2x2x2xsi8, 4x2x1>) -> !migraphx.shaped<2x3x2xf32, 6x2x1> attributes {arch = "gfx942"} {
  %0 = migraphx.reshape %arg2 {dims = [2, 2, 1, 2]} : <2x2x2xf32, 4x2x1> -> <2x2x1x2xf32, 4x2x2x1>
  %1 = migraphx.multibroadcast %0 {out_dyn_dims = [], out_lens = [2, 2, 3, 2]} : <2x2x1x2xf32, 4x2x2x1> -> <2x2x3x2xf32, 4x2x0x1>
  %2 = migraphx.reshape %1 {dims = [2, 6, 2]} : <2x2x3x2xf32, 4x2x0x1> -> <2x6x2xf32, 12x2x1>
  %3 = migraphx.slice %2 {axes = [1], ends = [5], starts = [0]} : <2x6x2xf32, 12x2x1> -> <2x5x2xf32, 12x2x1>
  %4 = migraphx.reshape %arg3 {dims = [2, 2, 1, 2]} : <2x2x2xsi8, 4x2x1> -> <2x2x1x2xsi8, 4x2x2x1>
  %5 = migraphx.multibroadcast %4 {out_dyn_dims = [], out_lens = [2, 2, 3, 2]} : <2x2x1x2xsi8, 4x2x2x1> -> <2x2x3x2xsi8, 4x2x0x1>
  %6 = migraphx.reshape %5 {dims = [2, 6, 2]} : <2x2x3x2xsi8, 4x2x0x1> -> <2x6x2xsi8, 12x2x1>
  %7 = migraphx.slice %6 {axes = [1], ends = [5], starts = [0]} : <2x6x2xsi8, 12x2x1> -> <2x5x2xsi8, 12x2x1>
  %8 = migraphx.unpack %arg1 {axis = 2 : i64} : <2x5x1xsi8, 5x1x1> -> <2x5x2xsi8, 10x2x1>
  %9 = migraphx.dequantizelinear %8, %3, %7 : <2x5x2xsi8, 10x2x1>, <2x5x2xf32, 12x2x1>, !migraphx.shaped<2x5x2xsi8, 12x2x1> -> <2x5x2xf32, 10x2x1>
  %10 = migraphx.dot %arg0, %9 : <2x3x5xf32, 15x5x1>, <2x5x2xf32, 10x2x1> -> <2x3x2xf32, 6x2x1>
  return %10 : !migraphx.shaped<2x3x2xf32, 6x2x1>
}

// -----

// The window starts at row 2 of the 6 (rows 2..6): row r is group (r + 2) floordiv 3.
// CHECK: #[[FROM2:.*]] = affine_map<(d0, d1, d2) -> (d0, (d1 + 2) floordiv 3, d2)>
// CHECK-LABEL: func.func @window_from_row_2
// CHECK-NOT: accel.copy
// CHECK: "accel.elementwise"(%arg0, %arg1, %arg2) {arch = "gfx942", input_maps = [unit, #[[FROM2]]], operands = ["gmn", "gmn"], program = "%0 = mul %e0, %e1"} : (memref<2x4x2xf32>, memref<2x2x2xf32>, memref<2x4x2xf32>) -> ()
func.func @window_from_row_2(%x: !migraphx.shaped<2x4x2xf32, 8x2x1>, %s: !migraphx.shaped<2x2x2xf32, 4x2x1>) -> !migraphx.shaped<2x4x2xf32, 8x2x1> attributes {arch = "gfx942"} {
  %0 = migraphx.reshape %s {dims = [2, 2, 1, 2]} : <2x2x2xf32, 4x2x1> -> <2x2x1x2xf32, 4x2x2x1>
  %1 = migraphx.multibroadcast %0 {out_lens = [2, 2, 3, 2]} : <2x2x1x2xf32, 4x2x2x1> -> <2x2x3x2xf32, 4x2x0x1>
  %2 = migraphx.reshape %1 {dims = [2, 6, 2]} : <2x2x3x2xf32, 4x2x0x1> -> <2x6x2xf32, 12x2x1>
  %3 = migraphx.slice %2 {axes = [1], ends = [6], starts = [2]} : <2x6x2xf32, 12x2x1> -> <2x4x2xf32, 12x2x1>
  %4 = migraphx.dequantizelinear %x, %3 : <2x4x2xf32, 8x2x1>, <2x4x2xf32, 12x2x1> -> <2x4x2xf32, 8x2x1>
  return %4 : !migraphx.shaped<2x4x2xf32, 8x2x1>
}

// -----

// The windowed K fed straight to a dot: B needs one stride per dimension, so it is
// copied row-major first (its copy reads the window through the same map).
// CHECK: #[[COPYMAP:.*]] = affine_map<(d0, d1, d2) -> (d0, d1 floordiv 3, d2)>
// CHECK-LABEL: func.func @window_as_gemm_operand
// CHECK: %[[B:.*]] = memref.alloc() : memref<2x5x2xf16>
// CHECK: "accel.copy"(%arg1, %[[B]]) {arch = "gfx942", input_map = #[[COPYMAP]], {{.*}}reason = "a dot operand B with K of several strides", shape = array<i64: 2, 5, 2>}
// CHECK: "accel.gemm"(%arg0, %[[B]], %arg2)
func.func @window_as_gemm_operand(%a: !migraphx.shaped<2x3x5xf16, 15x5x1>, %s: !migraphx.shaped<2x2x2xf16, 4x2x1>) -> !migraphx.shaped<2x3x2xf16, 6x2x1> attributes {arch = "gfx942"} {
  %0 = migraphx.reshape %s {dims = [2, 2, 1, 2]} : <2x2x2xf16, 4x2x1> -> <2x2x1x2xf16, 4x2x2x1>
  %1 = migraphx.multibroadcast %0 {out_lens = [2, 2, 3, 2]} : <2x2x1x2xf16, 4x2x2x1> -> <2x2x3x2xf16, 4x2x0x1>
  %2 = migraphx.reshape %1 {dims = [2, 6, 2]} : <2x2x3x2xf16, 4x2x0x1> -> <2x6x2xf16, 12x2x1>
  %3 = migraphx.slice %2 {axes = [1], ends = [5], starts = [0]} : <2x6x2xf16, 12x2x1> -> <2x5x2xf16, 12x2x1>
  %4 = migraphx.dot %a, %3 : <2x3x5xf16, 15x5x1>, <2x5x2xf16, 12x2x1> -> <2x3x2xf16, 6x2x1>
  return %4 : !migraphx.shaped<2x3x2xf16, 6x2x1>
}

// -----

// The window merged into an elementwise kernel's batch ([2, 5, 1, 2] is [G, M, N] =
// [10, 1, 2]): the map splits G back into batch g floordiv 5 and row g mod 5 of the
// window, then that row into its digits.
// CHECK: #[[SPLIT:.*]] = affine_map<(d0, d1, d2) -> (d0 floordiv 5, (d0 mod 5) floordiv 3, d2)>
// CHECK-LABEL: func.func @window_in_the_batch
// CHECK-NOT: accel.copy
// CHECK: "accel.elementwise"(%{{.*}}, %arg1, %{{.*}}) {arch = "gfx942", input_maps = [unit, #[[SPLIT]]], operands = ["gmn", "gmn"], program = "%0 = mul %e0, %e1"} : (memref<10x1x2xf32>, memref<2x2x2xf32>, memref<10x1x2xf32>) -> ()
func.func @window_in_the_batch(%x: !migraphx.shaped<2x5x1x2xf32, 10x2x2x1>, %s: !migraphx.shaped<2x2x2xf32, 4x2x1>) -> !migraphx.shaped<2x5x1x2xf32, 10x2x2x1> attributes {arch = "gfx942"} {
  %0 = migraphx.reshape %s {dims = [2, 2, 1, 2]} : <2x2x2xf32, 4x2x1> -> <2x2x1x2xf32, 4x2x2x1>
  %1 = migraphx.multibroadcast %0 {out_lens = [2, 2, 3, 2]} : <2x2x1x2xf32, 4x2x2x1> -> <2x2x3x2xf32, 4x2x0x1>
  %2 = migraphx.reshape %1 {dims = [2, 6, 2]} : <2x2x3x2xf32, 4x2x0x1> -> <2x6x2xf32, 12x2x1>
  %3 = migraphx.slice %2 {axes = [1], ends = [5], starts = [0]} : <2x6x2xf32, 12x2x1> -> <2x5x2xf32, 12x2x1>
  %4 = migraphx.reshape %3 {dims = [2, 5, 1, 2]} : <2x5x2xf32, 12x2x1> -> <2x5x1x2xf32, 10x2x2x1>
  %5 = migraphx.dequantizelinear %x, %4 : <2x5x1x2xf32, 10x2x2x1>, <2x5x1x2xf32, 10x2x2x1> -> <2x5x1x2xf32, 10x2x2x1>
  return %5 : !migraphx.shaped<2x5x1x2xf32, 10x2x2x1>
}
