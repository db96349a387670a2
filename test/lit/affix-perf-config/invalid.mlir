// An invalid perf_config is an error at the gemm naming the broken rule.
// RUN: accel-opt %s --split-input-file --verify-diagnostics --accel-affix-perf-config

func.func @mfma_4x4(%a: memref<1x64x64xf16>, %b: memref<1x64x64xf16>, %c: memref<1x64x64xf32>) {
  // expected-error@+1 {{mma-tile: mnPerXdl 4 is not a usable MFMA tile for f16 on gfx942 (use 16 or 32) (the 4x4x4 MFMA is not supported by codegen)}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", a_layout = "row", b_layout = "row", c_layout = "row", perf_config = "v4:64,64,4,32,32,4,8,1,1,2,0,0,1,1"} : (memref<1x64x64xf16>, memref<1x64x64xf16>, memref<1x64x64xf32>) -> ()
  return
}

// -----

func.func @wmma_32(%a: memref<1x64x64xf16>, %b: memref<1x64x64xf16>, %c: memref<1x64x64xf32>) {
  // expected-error@+1 {{mma-tile: mnPerXdl 32 is not a usable WMMA tile for f16 on gfx1100 (use 16)}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx1100", a_layout = "row", b_layout = "row", c_layout = "row", perf_config = "v4:64,64,4,32,32,32,8,1,1,2,0,0,1,1"} : (memref<1x64x64xf16>, memref<1x64x64xf16>, memref<1x64x64xf32>) -> ()
  return
}

// -----

func.func @too_many_registers(%a: memref<1x128x64xf16>, %b: memref<1x64x128xf16>, %c: memref<1x128x128xf32>) {
  // expected-error@+1 {{registers: about}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx1100", a_layout = "row", b_layout = "row", c_layout = "row", perf_config = "v4:128,128,4,128,128,16,16,1,1,2,0,0,1,1"} : (memref<1x128x64xf16>, memref<1x64x128xf16>, memref<1x128x128xf32>) -> ()
  return
}

// -----

func.func @lds_double_buffered(%a: memref<1x256x64xf16>, %b: memref<1x64x256xf16>, %c: memref<1x256x256xf32>) {
  // expected-error@+1 {{lds: A and B tiles need 131072 bytes (double-buffered), more than the 65536 bytes of LDS}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", a_layout = "row", b_layout = "row", c_layout = "row", perf_config = "v4:256,256,8,128,128,32,8,1,2,2,0,0,1,1"} : (memref<1x256x64xf16>, memref<1x64x256xf16>, memref<1x256x256xf32>) -> ()
  return
}
