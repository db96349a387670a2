// gfx1100 f16 128x128x2 with 64x64 waves: LLVM's allocation (234 VGPRs, 6 waves, at most
// 240) leaves no layout of values that puts its v_wmma on three banks; the last resort
// of accel-wmma-banks reorders LLVM's register ranges whole and says so. The f16
// results' 16-bit halves it lifts above v127 take the VOP3 (_e64) form, the one LLVM
// prints there; the main loop is LLVM's, instruction for instruction.
// RUN: accel-opt %s --accel-kernel-pipeline='arch=gfx1100 format=isa' | FileCheck %s
// CHECK: gpu.binary @accel_gemm_g1_m2048_n2048_k2048_f16_f16_gfx1100
// CHECK-SAME: assembly = "; accel-wmma-banks: 32 of 32 v_wmma on three VGPR banks (as allocated: 0), LLVM's VGPR ranges reordered
// CHECK-SAME: v_cvt_f16_f32_e64 v{{(12[89]|1[3-9][0-9]|2[0-9][0-9])}}.{{[lh]}},
// CHECK-NOT: v_cvt_f16_f32_e32 v{{(12[89]|1[3-9][0-9]|2[0-9][0-9])}}.
// CHECK-SAME: .vgpr_count: 234
func.func @f(%a: memref<1x2048x2048xf16>, %b: memref<1x2048x2048xf16>, %c: memref<1x2048x2048xf16>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx1100", a_layout = "row", b_layout = "row", c_layout = "row", perf_config = "v4:128,128,2,64,64,16,16,1,1,2,0,0,1,1"} : (memref<1x2048x2048xf16>, memref<1x2048x2048xf16>, memref<1x2048x2048xf16>) -> ()
  return
}
