func.func @gemm(%a: memref<1x40x64xf8E4M3FNUZ>, %b: memref<1x64x24xf8E5M2FNUZ>, %c: memref<1x40x24xbf16>) attributes {arch = "gfx942"} {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942"} : (memref<1x40x64xf8E4M3FNUZ>, memref<1x64x24xf8E5M2FNUZ>, memref<1x40x24xbf16>) -> ()
  return
}
