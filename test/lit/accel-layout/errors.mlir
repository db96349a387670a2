// accel-layout diagnostics, at the gemm.
// RUN: accel-opt %s --split-input-file --verify-diagnostics --accel-layout='a=transposed'

func.func @no_perf_config(%a: memref<1x48x64xf16>, %b: memref<1x48x32xf16>, %c: memref<1x64x32xf32>) {
  // expected-error@+1 {{accel-layout needs a perf_config on 'accel.gemm' (run accel-affix-perf-config first)}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", a_layout = "transposed", b_layout = "row", c_layout = "row"} : (memref<1x48x64xf16>, memref<1x48x32xf16>, memref<1x64x32xf32>) -> ()
  return
}

// -----

func.func @plain_to_plain(%a: memref<1x64x48xf16>, %b: memref<1x48x32xf16>, %c: memref<1x64x32xf32>) {
  // expected-error@+1 {{accel-layout cannot turn A from 'row' into 'transposed' layout; it only converts into 'accel'}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", a_layout = "row", b_layout = "row", c_layout = "row", perf_config = "v4:32,32,4,16,16,16,4,1,1,2,0,0,1,1"} : (memref<1x64x48xf16>, memref<1x48x32xf16>, memref<1x64x32xf32>) -> ()
  return
}
