// RUN: accel-opt %s --pass-pipeline='builtin.module(accel-plan-kernel, accel-gemm-to-gpu)' | FileCheck %s

// A lane holds a run of consecutive columns of one row of C (C^T = B^T A^T, see
// codegen/mma.py) and stores it in vectors of up to 128 bits whose width divides N
// (codegen/epilogue.py).
// gfx942 MFMA 16x16: 4 columns per lane; N = 48.
// CHECK-LABEL: gpu.module @accel_gemm_g1_m32_n48_k32_f16_f16_gfx942
// CHECK: amdgpu.raw_buffer_store %{{.*}} : vector<4xf16> -> memref<1x32x48xf16>
// gfx1201: 8 columns per lane, one 128-bit store of f16.
// CHECK-LABEL: gpu.module @accel_gemm_g1_m32_n48_k32_f16_f16_gfx1201
// CHECK: amdgpu.raw_buffer_store %{{.*}} : vector<8xf16> -> memref<1x32x48xf16>
// f32 out: 8 columns are 256 bits, stored as two 128-bit halves.
// CHECK-LABEL: gpu.module @accel_gemm_g1_m32_n48_k32_f16_f32_gfx1100
// CHECK-COUNT-2: amdgpu.raw_buffer_store %{{.*}} : vector<4xf32> -> memref<1x32x48xf32>
// N = 45 is odd: a vector could straddle the end of a row, so one element per store.
// CHECK-LABEL: gpu.module @accel_gemm_g1_m32_n45_k32_f16_f16_gfx1201
// CHECK-NOT: vector<{{[0-9]+}}xf16> -> memref<1x32x45xf16>
// CHECK: amdgpu.raw_buffer_store %{{.*}} : f16 -> memref<1x32x45xf16>
func.func @f(%a: memref<1x32x32xf16>, %b: memref<1x32x48xf16>, %c: memref<1x32x48xf16>,
             %d: memref<1x32x48xf32>, %e: memref<1x32x45xf16>, %b45: memref<1x32x45xf16>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", a_layout = "row", b_layout = "row", c_layout = "row", perf_config = "v4:32,16,4,16,16,16,8,1,1,2,0,0,1,1"} : (memref<1x32x32xf16>, memref<1x32x48xf16>, memref<1x32x48xf16>) -> ()
  "accel.gemm"(%a, %b, %c) {arch = "gfx1201", a_layout = "row", b_layout = "row", c_layout = "row", perf_config = "v4:32,16,4,16,16,16,8,1,1,2,0,0,1,1"} : (memref<1x32x32xf16>, memref<1x32x48xf16>, memref<1x32x48xf16>) -> ()
  "accel.gemm"(%a, %b, %d) {arch = "gfx1100", a_layout = "row", b_layout = "row", c_layout = "row", perf_config = "v4:32,16,4,16,16,16,8,1,1,2,0,0,1,1"} : (memref<1x32x32xf16>, memref<1x32x48xf16>, memref<1x32x48xf32>) -> ()
  "accel.gemm"(%a, %b45, %e) {arch = "gfx1201", a_layout = "row", b_layout = "row", c_layout = "row", perf_config = "v4:32,16,4,16,16,16,8,1,1,2,0,0,1,1"} : (memref<1x32x32xf16>, memref<1x32x45xf16>, memref<1x32x45xf16>) -> ()
  return
}
