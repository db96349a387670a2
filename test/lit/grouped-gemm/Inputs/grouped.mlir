func.func @f(%a: memref<64x32xf16>, %b: memref<96x32xf16>, %s: memref<4xi32>, %c: memref<64x32xf32>, %bias: memref<96xf32>) {
  "accel.grouped_gemm"(%a, %b, %s, %c, %bias) {arch = "gfx1100", max_seq_len = 40 : i64, perf_config = "v4:16,32,4,16,16,16,8,1,2,2,0,0,1,1"} : (memref<64x32xf16>, memref<96x32xf16>, memref<4xi32>, memref<64x32xf32>, memref<96xf32>) -> ()
  return
}
