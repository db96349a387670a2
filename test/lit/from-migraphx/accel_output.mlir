// RUN: accel-opt --accel-from-migraphx %s | FileCheck %s
// The result type has packed strides, so its buffer holds C in the accel layout
// [G, M/32, N/64, 8, 32, 8]; seed 001's output reshape + transpose spell exactly that,
// so the gemm writes it directly with c_layout = "accel", and m = 128, n = 1280 (no 6-D
// shape holds the exact M, N).
// CHECK:      func.func @accel_c(%[[A:.*]]: memref<1x4x80x8x32x8xf16>, %[[B:.*]]: memref<1x40x80x8x32x8xf16>, %[[C:.*]]: memref<1x4x20x8x32x8xf16>)
// CHECK-NEXT: "accel.gemm"(%[[A]], %[[B]], %[[C]]) {a_layout = "accel", arch = "gfx942", b_layout = "accel", c_layout = "accel", m = 128 : i64, n = 1280 : i64, perf_config = "v3:32,32,8,16,16,8,1,2,2,1,1"}
// CHECK-NEXT: return
module {
  func.func @accel_c(%a: !migraphx.shaped<1x4x80x8x32x8xf16, 655360x163840x2048x256x8x1>, %b: !migraphx.shaped<1x40x80x8x32x8xf16, 6553600x163840x2048x256x8x1>) -> !migraphx.shaped<1x4x20x8x32x8xf16, 163840x40960x2048x256x8x1> attributes{kernel, arch = "gfx942"} {
    %aT = migraphx.transpose %a {permutation = [0, 1, 4, 2, 3, 5]} : <1x4x80x8x32x8xf16, 655360x163840x2048x256x8x1> -> <1x4x32x80x8x8xf16, 655360x8x163840x2048x256x1>
    %bT = migraphx.transpose %b {permutation = [0, 1, 4, 2, 3, 5]} : <1x40x80x8x32x8xf16, 6553600x163840x2048x256x8x1> -> <1x40x32x80x8x8xf16, 6553600x8x163840x2048x256x1>
    %aR = migraphx.reshape %aT {dims = [1, 128, 5120]} : <1x4x32x80x8x8xf16, 655360x8x163840x2048x256x1> -> <1x128x5120xf16, 655360x5120x1>
    %bR = migraphx.reshape %bT {dims = [1, 1280, 5120]} : <1x40x32x80x8x8xf16, 6553600x8x163840x2048x256x1> -> <1x1280x5120xf16, 6553600x5120x1>
    %bT2 = migraphx.transpose %bR {permutation = [0, 2, 1]} : <1x1280x5120xf16, 6553600x5120x1> -> <1x5120x1280xf16, 6553600x1x5120>
    %0 = migraphx.dot %aR, %bT2 {perf_config="v3:32,32,8,16,16,8,1,2,2,1,1"} : <1x128x5120xf16, 655360x5120x1>, <1x5120x1280xf16, 6553600x1x5120> -> <1x128x1280xf16, 163840x1280x1>
    %outR = migraphx.reshape %0 {dims = [1, 4, 32, 20, 8, 8]} : <1x128x1280xf16, 163840x1280x1> -> <1x4x32x20x8x8xf16, 163840x40960x1280x64x8x1>
    %outT = migraphx.transpose %outR {permutation = [0, 1, 3, 4, 2, 5]} : <1x4x32x20x8x8xf16, 163840x40960x1280x64x8x1> -> <1x4x20x8x32x8xf16, 163840x40960x2048x256x8x1>
    return %outT : !migraphx.shaped<1x4x20x8x32x8xf16, 163840x40960x2048x256x8x1>
  }
}
