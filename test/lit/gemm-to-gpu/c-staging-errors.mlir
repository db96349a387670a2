// RUN: not accel-opt %s --pass-pipeline='builtin.module(accel-gemm-to-gpu)' --split-input-file 2>&1 | FileCheck %s

// A hand-written c_staging the kernel cannot follow is a diagnostic at the gemm.
// Rows that are not whole 16-row MMA tiles:
// CHECK: c-staging-errors.mlir:7:3: error: kernel plan: c_staging cannot be followed: rows 8 are not whole 16-row MMA tiles of mPerWave; rerun accel-plan-kernel
func.func @rows(%a: memref<1x64x64xf16>, %b: memref<1x64x64xf16>, %c: memref<1x64x64xf16>) {
  "accel.gemm"(%a, %b, %c) {a_copy = {ahead = true, k_chunk = 1 : i64, permute = false, rows_first = false, sgpr_offset = "k_tile", slab_pad = 2 : i64, swizzle = true, swizzle_bit = 0 : i64, swizzle_shift = 0 : i64, vector = 8 : i64}, arch = "gfx942", b_copy = {ahead = true, k_chunk = 2 : i64, permute = false, rows_first = false, sgpr_offset = "k_tile", slab_pad = 2 : i64, swizzle = true, swizzle_bit = 0 : i64, swizzle_shift = 0 : i64, vector = 8 : i64}, c_staging = {buffer = "a", columns = 32 : i64, rows = 8 : i64, span = 8 : i64, unit = 4 : i64, vector = 8 : i64}, c_vector = 4 : i64, grid_group = 1 : i64, k_steps_per_read = 2 : i64, kernel_symbol = "accel_gemm_g1_m64_n64_k64_f16_f16_gfx942", lds_buffers = 1 : i64, pipeline_depth = 1 : i64, lds_read_ahead = false, interleave_reads = false, direct_to_lds = false, load_wait_once = true, mma = "v_mfma_f32_16x16x16_f16", perf_config = "v4:64,64,4,32,32,16,8,1,1,1,0,0,1,1", sched_barriers = true, waves_per_eu = 0 : i64} : (memref<1x64x64xf16>, memref<1x64x64xf16>, memref<1x64x64xf16>) -> ()
  return
}

// -----

// A store vector wider than the lane's read-back span:
// CHECK: c-staging-errors.mlir:16:3: error: 'c_staging.vector' must not exceed 'c_staging.span'
func.func @vector(%a: memref<1x64x64xf16>, %b: memref<1x64x64xf16>, %c: memref<1x64x64xf16>) {
  "accel.gemm"(%a, %b, %c) {a_copy = {ahead = true, k_chunk = 1 : i64, permute = false, rows_first = false, sgpr_offset = "k_tile", slab_pad = 2 : i64, swizzle = true, swizzle_bit = 0 : i64, swizzle_shift = 0 : i64, vector = 8 : i64}, arch = "gfx942", b_copy = {ahead = true, k_chunk = 2 : i64, permute = false, rows_first = false, sgpr_offset = "k_tile", slab_pad = 2 : i64, swizzle = true, swizzle_bit = 0 : i64, swizzle_shift = 0 : i64, vector = 8 : i64}, c_staging = {buffer = "a", columns = 32 : i64, rows = 16 : i64, span = 4 : i64, unit = 4 : i64, vector = 8 : i64}, c_vector = 4 : i64, grid_group = 1 : i64, k_steps_per_read = 2 : i64, kernel_symbol = "accel_gemm_g1_m64_n64_k64_f16_f16_gfx942", lds_buffers = 1 : i64, pipeline_depth = 1 : i64, lds_read_ahead = false, interleave_reads = false, direct_to_lds = false, load_wait_once = true, mma = "v_mfma_f32_16x16x16_f16", perf_config = "v4:64,64,4,32,32,16,8,1,1,1,0,0,1,1", sched_barriers = true, waves_per_eu = 0 : i64} : (memref<1x64x64xf16>, memref<1x64x64xf16>, memref<1x64x64xf16>) -> ()
  return
}

// -----

// A key missing:
// CHECK: c-staging-errors.mlir:25:3: error: attribute 'c_staging' must have the keys buffer, columns, rows, span, unit, vector, got buffer, rows, span, unit, vector
func.func @keys(%a: memref<1x64x64xf16>, %b: memref<1x64x64xf16>, %c: memref<1x64x64xf16>) {
  "accel.gemm"(%a, %b, %c) {a_copy = {ahead = true, k_chunk = 1 : i64, permute = false, rows_first = false, sgpr_offset = "k_tile", slab_pad = 2 : i64, swizzle = true, swizzle_bit = 0 : i64, swizzle_shift = 0 : i64, vector = 8 : i64}, arch = "gfx942", b_copy = {ahead = true, k_chunk = 2 : i64, permute = false, rows_first = false, sgpr_offset = "k_tile", slab_pad = 2 : i64, swizzle = true, swizzle_bit = 0 : i64, swizzle_shift = 0 : i64, vector = 8 : i64}, c_staging = {buffer = "a", rows = 16 : i64, span = 8 : i64, unit = 4 : i64, vector = 8 : i64}, c_vector = 4 : i64, grid_group = 1 : i64, k_steps_per_read = 2 : i64, kernel_symbol = "accel_gemm_g1_m64_n64_k64_f16_f16_gfx942", lds_buffers = 1 : i64, pipeline_depth = 1 : i64, lds_read_ahead = false, interleave_reads = false, direct_to_lds = false, load_wait_once = true, mma = "v_mfma_f32_16x16x16_f16", perf_config = "v4:64,64,4,32,32,16,8,1,1,1,0,0,1,1", sched_barriers = true, waves_per_eu = 0 : i64} : (memref<1x64x64xf16>, memref<1x64x64xf16>, memref<1x64x64xf16>) -> ()
  return
}
