// A is a K slice of a wider buffer (rows 320 apart), B one matrix for both batches.
func.func @g(%buf: memref<40960xf16>, %b: memref<256x48xf16>, %c: memref<2x64x48xf32>) {
  %a = memref.reinterpret_cast %buf to offset: [64], sizes: [2, 64, 256], strides: [20480, 320, 1] : memref<40960xf16> to memref<2x64x256xf16, strided<[20480, 320, 1], offset: 64>>
  %bf = memref.collapse_shape %b [[0, 1]] : memref<256x48xf16> into memref<12288xf16>
  %bb = memref.reinterpret_cast %bf to offset: [0], sizes: [2, 256, 48], strides: [0, 48, 1] : memref<12288xf16> to memref<2x256x48xf16, strided<[0, 48, 1]>>
  "accel.gemm"(%a, %bb, %c) {arch = "gfx942"} : (memref<2x64x256xf16, strided<[20480, 320, 1], offset: 64>>, memref<2x256x48xf16, strided<[0, 48, 1]>>, memref<2x64x48xf32>) -> ()
  return
}
