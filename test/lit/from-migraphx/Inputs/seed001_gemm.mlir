module {
  func.func @mfma_layout(%a: !migraphx.shaped<1x4x80x8x32x8xf16, 655360x163840x2048x256x8x1>, %b: !migraphx.shaped<1x40x80x8x32x8xf16, 6553600x163840x2048x256x8x1>) -> !migraphx.shaped<1x128x1280xf16, 163840x1280x1> attributes{kernel, arch = "##TOKEN_ARCH##"} {
    %aTranspose = migraphx.transpose %a {permutation = [0, 1, 4, 2, 3, 5]} : !migraphx.shaped<1x4x80x8x32x8xf16, 655360x163840x2048x256x8x1> -> !migraphx.shaped<1x4x32x80x8x8xf16, 655360x8x163840x2048x256x1>
    %bTranspose = migraphx.transpose %b {permutation = [0, 1, 4, 2, 3, 5]} : !migraphx.shaped<1x40x80x8x32x8xf16, 6553600x163840x2048x256x8x1> -> !migraphx.shaped<1x40x32x80x8x8xf16, 6553600x8x163840x2048x256x1>
    %aReshaped = migraphx.reshape %aTranspose {dims = [1, 128, 5120]} : <1x4x32x80x8x8xf16, 655360x8x163840x2048x256x1> -> !migraphx.shaped<1x128x5120xf16, 655360x5120x1>
    %bReshaped = migraphx.reshape %bTranspose {dims = [1, 1280, 5120]} : <1x40x32x80x8x8xf16, 6553600x8x163840x2048x256x1> -> !migraphx.shaped<1x1280x5120xf16, 6553600x5120x1>
    %bTranspose2 = migraphx.transpose %bReshaped {permutation = [0, 2, 1]} : !migraphx.shaped<1x1280x5120xf16, 6553600x5120x1> -> !migraphx.shaped<1x5120x1280xf16, 6553600x1x5120>
    %0 = migraphx.dot %aReshaped, %bTranspose2 {perf_config="v3:32,32,8,16,16,8,1,2,2,1,1"} : <1x128x5120xf16, 655360x5120x1>, <1x5120x1280xf16, 6553600x1x5120> -> <1x128x1280xf16, 163840x1280x1>
    return %0 : !migraphx.shaped<1x128x1280xf16, 163840x1280x1>
  }
}
