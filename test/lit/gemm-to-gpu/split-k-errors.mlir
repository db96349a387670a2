// A split_k plan that does not fit the gemm is refused by accel-gemm-to-gpu (the plan
// is accel-plan-kernel's, dialect/split_k_plan.py).
// RUN: not accel-opt %s --pass-pipeline='builtin.module(accel-gemm-to-gpu)' --split-input-file 2>&1 | FileCheck %s

// A split plan on a gemm whose perf config does not split.
// CHECK: split-k-errors.mlir:[[# @LINE + 2]]:3: error: kernel plan: split_k does not match splitKFactor 1; rerun accel-plan-kernel
func.func @f(%a: memref<1x16x64xf16>, %b: memref<1x64x16xf16>, %c: memref<1x16x16xf32>) {
  "accel.gemm"(%a, %b, %c) {a_copy = {ahead = true, k_chunk = 1 : i64, permute = false, rows_first = false, sgpr_offset = "k_tile", slab_pad = 4 : i64, swizzle = true, swizzle_bit = 0 : i64, swizzle_shift = 0 : i64, vector = 8 : i64}, arch = "gfx942", b_copy = {ahead = true, k_chunk = 2 : i64, permute = false, rows_first = false, sgpr_offset = "k_tile", slab_pad = 4 : i64, swizzle = true, swizzle_bit = 0 : i64, swizzle_shift = 0 : i64, vector = 8 : i64}, c_vector = 4 : i64, grid_group = 1 : i64, interleave_reads = false, direct_to_lds = false, k_steps_per_read = 1 : i64, kernel_symbol = "accel_gemm_g1_m16_n16_k64_f16_f32_gfx942", lds_buffers = 1 : i64, pipeline_depth = 1 : i64, lds_read_ahead = false, load_wait_once = true, mma = "v_mfma_f32_16x16x16_f16", sched_barriers = true, waves_per_eu = 0 : i64, perf_config = "v4:16,16,2,16,16,16,8,1,1,2,0,0,1,1", split_k = {combine = "workspace", k_tiles = 2 : i64, partial_vector = 4 : i64, reduce_vector = 4 : i64, slices = 2 : i64}} : (memref<1x16x64xf16>, memref<1x64x16xf16>, memref<1x16x16xf32>) -> ()
  return
}

// -----

// A split-K perf config without its plan.
// CHECK: split-k-errors.mlir:[[# @LINE + 2]]:3: error: kernel plan: split_k does not match splitKFactor 2; rerun accel-plan-kernel
func.func @f(%a: memref<1x16x64xf16>, %b: memref<1x64x16xf16>, %c: memref<1x16x16xf32>) {
  "accel.gemm"(%a, %b, %c) {a_copy = {ahead = true, k_chunk = 1 : i64, permute = false, rows_first = false, sgpr_offset = "k_tile", slab_pad = 4 : i64, swizzle = true, swizzle_bit = 0 : i64, swizzle_shift = 0 : i64, vector = 8 : i64}, arch = "gfx942", b_copy = {ahead = true, k_chunk = 2 : i64, permute = false, rows_first = false, sgpr_offset = "k_tile", slab_pad = 4 : i64, swizzle = true, swizzle_bit = 0 : i64, swizzle_shift = 0 : i64, vector = 8 : i64}, c_vector = 4 : i64, grid_group = 1 : i64, interleave_reads = false, direct_to_lds = false, k_steps_per_read = 1 : i64, kernel_symbol = "accel_gemm_g1_m16_n16_k64_f16_f32_gfx942", lds_buffers = 1 : i64, pipeline_depth = 1 : i64, lds_read_ahead = false, load_wait_once = true, mma = "v_mfma_f32_16x16x16_f16", sched_barriers = true, waves_per_eu = 0 : i64, perf_config = "v4:16,16,2,16,16,16,8,2,1,2,0,0,1,1"} : (memref<1x16x64xf16>, memref<1x64x16xf16>, memref<1x16x16xf32>) -> ()
  return
}

// -----

// Partials meet in a workspace, never through atomics.
// CHECK: split-k-errors.mlir:[[# @LINE + 2]]:3: error: 'split_k.combine' must be one of workspace
func.func @f(%a: memref<1x16x64xf16>, %b: memref<1x64x16xf16>, %c: memref<1x16x16xf32>) {
  "accel.gemm"(%a, %b, %c) {a_copy = {ahead = true, k_chunk = 1 : i64, permute = false, rows_first = false, sgpr_offset = "k_tile", slab_pad = 4 : i64, swizzle = true, swizzle_bit = 0 : i64, swizzle_shift = 0 : i64, vector = 8 : i64}, arch = "gfx942", b_copy = {ahead = true, k_chunk = 2 : i64, permute = false, rows_first = false, sgpr_offset = "k_tile", slab_pad = 4 : i64, swizzle = true, swizzle_bit = 0 : i64, swizzle_shift = 0 : i64, vector = 8 : i64}, c_vector = 4 : i64, grid_group = 1 : i64, interleave_reads = false, direct_to_lds = false, k_steps_per_read = 1 : i64, kernel_symbol = "accel_gemm_g1_m16_n16_k64_f16_f32_gfx942", lds_buffers = 1 : i64, pipeline_depth = 1 : i64, lds_read_ahead = false, load_wait_once = true, mma = "v_mfma_f32_16x16x16_f16", sched_barriers = true, waves_per_eu = 0 : i64, perf_config = "v4:16,16,2,16,16,16,8,2,1,2,0,0,1,1", split_k = {combine = "atomic", k_tiles = 2 : i64, partial_vector = 4 : i64, reduce_vector = 4 : i64, slices = 2 : i64}} : (memref<1x16x64xf16>, memref<1x64x16xf16>, memref<1x16x16xf32>) -> ()
  return
}

// -----

// Vector widths are powers of two.
// CHECK: split-k-errors.mlir:[[# @LINE + 2]]:3: error: 'split_k.reduce_vector' must be a power of two, got 3
func.func @f(%a: memref<1x16x64xf16>, %b: memref<1x64x16xf16>, %c: memref<1x16x16xf32>) {
  "accel.gemm"(%a, %b, %c) {a_copy = {ahead = true, k_chunk = 1 : i64, permute = false, rows_first = false, sgpr_offset = "k_tile", slab_pad = 4 : i64, swizzle = true, swizzle_bit = 0 : i64, swizzle_shift = 0 : i64, vector = 8 : i64}, arch = "gfx942", b_copy = {ahead = true, k_chunk = 2 : i64, permute = false, rows_first = false, sgpr_offset = "k_tile", slab_pad = 4 : i64, swizzle = true, swizzle_bit = 0 : i64, swizzle_shift = 0 : i64, vector = 8 : i64}, c_vector = 4 : i64, grid_group = 1 : i64, interleave_reads = false, direct_to_lds = false, k_steps_per_read = 1 : i64, kernel_symbol = "accel_gemm_g1_m16_n16_k64_f16_f32_gfx942", lds_buffers = 1 : i64, pipeline_depth = 1 : i64, lds_read_ahead = false, load_wait_once = true, mma = "v_mfma_f32_16x16x16_f16", sched_barriers = true, waves_per_eu = 0 : i64, perf_config = "v4:16,16,2,16,16,16,8,2,1,2,0,0,1,1", split_k = {combine = "workspace", k_tiles = 2 : i64, partial_vector = 4 : i64, reduce_vector = 3 : i64, slices = 2 : i64}} : (memref<1x16x64xf16>, memref<1x64x16xf16>, memref<1x16x16xf32>) -> ()
  return
}
