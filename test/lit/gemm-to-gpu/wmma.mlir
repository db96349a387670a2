// RUN: accel-opt %s --pass-pipeline='builtin.module(accel-plan-kernel, accel-gemm-to-gpu)' | FileCheck %s

// kpack 16 f16 rows are 32 bytes: no swizzle, no padding (16 x 32 f16 per operand).
// CHECK: workgroup(%{{.*}} : memref<512xf16, #gpu.address_space<workgroup>>
// gfx1100 takes 16 f16 per lane; gfx1201 takes 8 (K split between half-waves).
// CHECK: amdgpu.wmma 16x16x16 {{.*}} : vector<16xf16>, vector<16xf16>, vector<8xf32>
// scheduleVersion 2 doubles the LDS tiles: 2 x (2 slabs x (32 + 4 padding rows) x 8).
// CHECK: workgroup(%{{.*}} : memref<1152xf16, #gpu.address_space<workgroup>>
// CHECK: amdgpu.wmma 16x16x16 {{.*}} : vector<8xf16>, vector<8xf16>, vector<8xf32>
func.func @f(%a: memref<1x16x32xf16>, %b: memref<1x32x16xf16>, %c: memref<1x16x16xf32>,
             %d: memref<1x32x64xf16>, %e: memref<1x64x32xf16>, %o: memref<1x32x32xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx1100", a_layout = "row", b_layout = "row", c_layout = "row", perf_config = "v4:16,16,2,16,16,16,16,1,1,2,0,0,1,1"} : (memref<1x16x32xf16>, memref<1x32x16xf16>, memref<1x16x16xf32>) -> ()
  "accel.gemm"(%d, %e, %o) {arch = "gfx1201", a_layout = "row", b_layout = "row", c_layout = "row", perf_config = "v4:32,32,2,16,16,16,8,1,2,2,0,0,1,1"} : (memref<1x32x64xf16>, memref<1x64x32xf16>, memref<1x32x32xf32>) -> ()
  return
}
