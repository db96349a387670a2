// RUN: accel-opt --accel-from-migraphx %s | FileCheck %s
// A is blocked 32 x 8 x 8 but the perf config asks for mPerBlock 64, kpack 4: the
// chain is not this gemm's accel layout, so A is copied into a row-major buffer.
// CHECK:      #[[UNBLOCK:.*]] = affine_map<(d0, d1, d2) -> (d0, d1 floordiv 32, d2 floordiv 64, (d2 floordiv 8) mod 8, d1 mod 32, d2 mod 8)>
// CHECK:      func.func @other_blocking(%[[A:.*]]: memref<1x4x2x8x32x8xf16>, %[[B:.*]]: memref<1x128x64xf16>, %[[C:.*]]: memref<1x128x64xf32>)
// CHECK-NEXT: %[[ROW:.*]] = memref.alloc() : memref<1x128x128xf16>
// CHECK-NEXT: "accel.copy"(%[[A]], %[[ROW]]) {arch = "gfx942", input_map = #[[UNBLOCK]], {{.*}}shape = array<i64: 1, 128, 128>} : (memref<1x4x2x8x32x8xf16>, memref<1x128x128xf16>) -> ()
// CHECK:      "accel.gemm"(%[[ROW]], %[[B]], %[[C]]) {a_layout = "row", arch = "gfx942", b_layout = "row", c_layout = "row", perf_config = "v4:64,64,8,32,32,16,4,1,2,2,0,0,1,1"}
func.func @other_blocking(%a: !migraphx.shaped<1x4x2x8x32x8xf16, 16384x4096x2048x256x8x1>, %b: !migraphx.shaped<1x128x64xf16, 8192x64x1>) -> !migraphx.shaped<1x128x64xf32, 8192x64x1> attributes {kernel, arch = "gfx942"} {
  %aT = migraphx.transpose %a {permutation = [0, 1, 4, 2, 3, 5]} : <1x4x2x8x32x8xf16, 16384x4096x2048x256x8x1> -> <1x4x32x2x8x8xf16, 16384x4096x8x2048x256x1>
  %aR = migraphx.reshape %aT {dims = [1, 128, 128]} : <1x4x32x2x8x8xf16, 16384x4096x8x2048x256x1> -> <1x128x128xf16, 16384x128x1>
  %0 = migraphx.dot %aR, %b {perf_config = "v4:64,64,8,32,32,16,4,1,2,2,0,0,1,1"} : <1x128x128xf16, 16384x128x1>, <1x128x64xf16, 8192x64x1> -> <1x128x64xf32, 8192x64x1>
  return %0 : !migraphx.shaped<1x128x64xf32, 8192x64x1>
}
