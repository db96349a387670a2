// RUN: accel-opt %s --pass-pipeline='builtin.module(accel-gemm-to-gpu)' | FileCheck %s

// The emitter follows the kernel plan on the gemm, not its own judgement: this plan
// asks for 4-wide A loads (accel-plan-kernel would pick 8), B copied inside the loop
// rather than a k-tile ahead, 2-wide C stores (it would pick 4), and A's loads with
// global indices (no sgprOffset) while B's take the tile origin as sgprOffset.
// CHECK: gpu.module @accel_gemm_planned
// CHECK: amdgpu.raw_buffer_load %arg0[%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}] : memref<{{.*}} -> vector<4xf16>
// CHECK: scf.for {{.*}} -> (vector<4xf32>, vector<4xf16>, vector<4xf16>) : i32
// CHECK: amdgpu.raw_buffer_load %arg1[%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}] sgprOffset %{{.*}} -> vector<8xf16>
// CHECK: amdgpu.raw_buffer_store {{.*}} : vector<2xf32> -> memref<1x64x48xf32>
func.func @f(%a: memref<1x64x256xf16>, %b: memref<1x256x48xf16>, %c: memref<1x64x48xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:32,16,4,16,16,16,8,1,1,2,0,0,1,1",
    kernel_symbol = "accel_gemm_planned", mma = "v_mfma_f32_16x16x16_f16", k_steps_per_read = 2, lds_buffers = 1, pipeline_depth = 1, sched_barriers = true, load_wait_once = true, lds_read_ahead = true, interleave_reads = false, direct_to_lds = false, c_vector = 2, waves_per_eu = 0, grid_group = 1,
    a_copy = {ahead = true, k_chunk = 1, permute = false, rows_first = false, sgpr_offset = "none", slab_pad = 2, swizzle = true, swizzle_bit = 0, swizzle_shift = 0, vector = 4},
    b_copy = {ahead = false, k_chunk = 2, permute = false, rows_first = false, sgpr_offset = "tile", slab_pad = 2, swizzle = true, swizzle_bit = 0, swizzle_shift = 0, vector = 8}} : (memref<1x64x256xf16>, memref<1x256x48xf16>, memref<1x64x48xf32>) -> ()
  return
}
