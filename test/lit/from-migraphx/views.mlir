// RUN: accel-opt --accel-from-migraphx %s | FileCheck %s
// migraphx.slice and migraphx.broadcast are views: the slice moves the start (3 * 64 +
// 5 = 197) and keeps the row stride 64, folded into the addressing of the copy that
// makes A row-major; the broadcast of B over a unit batch reads B in place.
// CHECK: #[[SLICED:.*]] = affine_map<(d0, d1, d2) -> (d1 * 64 + d2 + 197)>
// CHECK-LABEL: func.func @slice
// CHECK: %[[COPY:.*]] = memref.alloc() : memref<1x37x40xf16>
// CHECK: "accel.copy"(%{{.*}}, %[[COPY]]) {arch = "gfx942", input_map = #[[SLICED]], {{.*}}shape = array<i64: 1, 37, 40>} : (memref<{{.*}}xf16>, memref<1x37x40xf16>) -> ()
// CHECK: %[[B3:.*]] = memref.expand_shape %arg1
// CHECK: "accel.gemm"(%[[COPY]], %[[B3]], %arg2)
func.func @slice(%a: !migraphx.shaped<1x48x64xf16, 3072x64x1>, %b: !migraphx.shaped<40x24xf16, 24x1>) -> !migraphx.shaped<1x37x24xf32, 888x24x1> attributes {arch = "gfx942"} {
  %as = migraphx.slice %a {axes = [1, 2], starts = [3, 5], ends = [40, 45]} : <1x48x64xf16, 3072x64x1> -> <1x37x40xf16, 3072x64x1>
  %bb = migraphx.broadcast %b {axis = 1 : i64, out_lens = [1, 40, 24]} : <40x24xf16, 24x1> -> <1x40x24xf16, 0x24x1>
  %0 = migraphx.dot %as, %bb : <1x37x40xf16, 3072x64x1>, <1x40x24xf16, 0x24x1> -> <1x37x24xf32, 888x24x1>
  return %0 : !migraphx.shaped<1x37x24xf32, 888x24x1>
}
