// RUN: accel-opt %s --pass-pipeline='builtin.module(accel-plan-kernel, accel-gemm-to-gpu)' | FileCheck %s

// The gemm becomes a launch of its kernel: grid (N tiles, M tiles, G), 1-D block.
// CHECK: module attributes {gpu.container_module}
// CHECK-LABEL: func.func @f
// CHECK-NOT: accel.gemm
// CHECK: gpu.launch_func @accel_gemm_g2_m64_n48_k40_f16_f32_rt_gfx942::@accel_gemm_g2_m64_n48_k40_f16_f32_rt_gfx942
// CHECK-SAME: args(%{{.*}} : memref<2x64x40xf16>, %{{.*}} : memref<2x48x40xf16>, %{{.*}} : memref<2x64x48xf32>)
// CHECK: gpu.module @accel_gemm_g2_m64_n48_k40_f16_f32_rt_gfx942
// LDS tiles of 4 slabs x 32 rows x kpack 8, each slab padded by 8/4 = 2 rows against
// bank conflicts (codegen/global_copy.py, row_key): 4 * 34 * 8 = 1088 f16.
// CHECK: gpu.func @accel_gemm_g2_m64_n48_k40_f16_f32_rt_gfx942({{.*}}) workgroup({{.*}}memref<1088xf16, #gpu.address_space<workgroup>>{{.*}}memref<1088xf16, #gpu.address_space<workgroup>>) kernel
// CHECK-SAME: known_block_size = array<i32: 64, 1, 1>, known_grid_size = array<i32: 2, 2, 2>
// K=40 is not a multiple of kPerBlock=32: the loads carry a validity predicate that
// sends an invalid vector's batch index to G=2 (past the end of the buffer).
// CHECK: arith.select %{{.*}}, %{{.*}}, %c2
// CHECK: amdgpu.raw_buffer_load
// CHECK: amdgpu.mfma 32x32x8
// CHECK: amdgpu.raw_buffer_store
func.func @f(%a: memref<2x64x40xf16>, %b: memref<2x48x40xf16>, %c: memref<2x64x48xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", a_layout = "row", b_layout = "transposed", c_layout = "row", perf_config = "v4:32,32,4,32,32,32,8,1,1,2,0,0,1,1"} : (memref<2x64x40xf16>, memref<2x48x40xf16>, memref<2x64x48xf32>) -> ()
  return
}
