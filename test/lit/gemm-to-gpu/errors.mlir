// RUN: not accel-opt %s --pass-pipeline='builtin.module(accel-gemm-to-gpu)' --split-input-file 2>&1 | FileCheck %s

// CHECK: errors.mlir:5:3: error: 'accel.gemm' has no perf_config; run accel-affix-perf-config first
func.func @f(%a: memref<1x16x16xf16>, %b: memref<1x16x16xf16>, %c: memref<1x16x16xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", a_layout = "row", b_layout = "row", c_layout = "row"} : (memref<1x16x16xf16>, memref<1x16x16xf16>, memref<1x16x16xf32>) -> ()
  return
}

// -----

// CHECK: errors.mlir:13:3: error: 'accel.gemm' has no kernel plan; run accel-plan-kernel first
func.func @f(%a: memref<1x16x16xf16>, %b: memref<1x16x16xf16>, %c: memref<1x16x16xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:16,16,2,16,16,16,8,1,1,2,0,0,1,1"} : (memref<1x16x16xf16>, memref<1x16x16xf16>, memref<1x16x16xf32>) -> ()
  return
}

// -----

// CHECK: errors.mlir:[[# @LINE + 2]]:3: error: kernel plan: a_copy.permute needs a transposing copy of whole dwords (16-bit vectors, or 8-bit vectors of 4 and 4 K rows)
func.func @f(%a: memref<1x64x256xf16>, %b: memref<1x256x48xf16>, %c: memref<1x64x48xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:32,16,4,16,16,16,8,1,1,2,0,0,1,1",
    kernel_symbol = "accel_gemm_planned", mma = "v_mfma_f32_16x16x16_f16", k_steps_per_read = 2, lds_buffers = 1, pipeline_depth = 1, sched_barriers = true, load_wait_once = true, lds_read_ahead = true, interleave_reads = false, direct_to_lds = false, c_vector = 2, waves_per_eu = 0, grid_group = 1,
    a_copy = {ahead = true, k_chunk = 1, permute = true, rows_first = false, sgpr_offset = "k_tile", slab_pad = 2, swizzle = true, swizzle_bit = 0, swizzle_shift = 0, vector = 4},
    b_copy = {ahead = false, k_chunk = 2, permute = false, rows_first = false, sgpr_offset = "k_tile", slab_pad = 2, swizzle = true, swizzle_bit = 0, swizzle_shift = 0, vector = 8}} : (memref<1x64x256xf16>, memref<1x256x48xf16>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// CHECK: errors.mlir:[[# @LINE + 2]]:3: error: 'a_copy.sgpr_offset' must be one of 'none', 'k_tile', 'tile'
func.func @f(%a: memref<1x64x256xf16>, %b: memref<1x256x48xf16>, %c: memref<1x64x48xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:32,16,4,16,16,16,8,1,1,2,0,0,1,1",
    kernel_symbol = "accel_gemm_planned", mma = "v_mfma_f32_16x16x16_f16", k_steps_per_read = 2, lds_buffers = 1, pipeline_depth = 1, sched_barriers = true, load_wait_once = true, lds_read_ahead = true, interleave_reads = false, direct_to_lds = false, c_vector = 2, waves_per_eu = 0, grid_group = 1,
    a_copy = {ahead = true, k_chunk = 1, permute = false, rows_first = false, sgpr_offset = "d_tile", slab_pad = 2, swizzle = true, swizzle_bit = 0, swizzle_shift = 0, vector = 4},
    b_copy = {ahead = false, k_chunk = 2, permute = false, rows_first = false, sgpr_offset = "tile", slab_pad = 2, swizzle = true, swizzle_bit = 0, swizzle_shift = 0, vector = 8}} : (memref<1x64x256xf16>, memref<1x256x48xf16>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// CHECK: errors.mlir:[[# @LINE + 2]]:3: error: interleave_reads needs lds_read_ahead
func.func @f(%a: memref<1x64x256xf16>, %b: memref<1x256x48xf16>, %c: memref<1x64x48xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:32,16,4,16,16,16,8,1,1,2,0,0,1,1",
    kernel_symbol = "accel_gemm_planned", mma = "v_mfma_f32_16x16x16_f16", k_steps_per_read = 2, lds_buffers = 1, pipeline_depth = 1, sched_barriers = true, load_wait_once = true, lds_read_ahead = false, interleave_reads = true, direct_to_lds = false, c_vector = 2, waves_per_eu = 0, grid_group = 1,
    a_copy = {ahead = true, k_chunk = 1, permute = false, rows_first = false, sgpr_offset = "k_tile", slab_pad = 2, swizzle = true, swizzle_bit = 0, swizzle_shift = 0, vector = 4},
    b_copy = {ahead = false, k_chunk = 2, permute = false, rows_first = false, sgpr_offset = "tile", slab_pad = 2, swizzle = true, swizzle_bit = 0, swizzle_shift = 0, vector = 8}} : (memref<1x64x256xf16>, memref<1x256x48xf16>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// CHECK: errors.mlir:[[# @LINE + 2]]:3: error: kernel plan: b_copy.rows_first needs a K-contiguous plain operand and a tile of whole 8-row blocks
func.func @f(%a: memref<1x64x256xf16>, %b: memref<1x256x48xf16>, %c: memref<1x64x48xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:32,16,4,16,16,16,8,1,1,2,0,0,1,1",
    kernel_symbol = "accel_gemm_planned", mma = "v_mfma_f32_16x16x16_f16", k_steps_per_read = 2, lds_buffers = 1, pipeline_depth = 1, sched_barriers = true, load_wait_once = true, lds_read_ahead = true, interleave_reads = false, direct_to_lds = false, c_vector = 2, waves_per_eu = 0, grid_group = 1,
    a_copy = {ahead = true, k_chunk = 1, permute = false, rows_first = false, sgpr_offset = "k_tile", slab_pad = 2, swizzle = true, swizzle_bit = 0, swizzle_shift = 0, vector = 4},
    b_copy = {ahead = false, k_chunk = 2, permute = false, rows_first = true, sgpr_offset = "tile", slab_pad = 2, swizzle = true, swizzle_bit = 0, swizzle_shift = 0, vector = 8}} : (memref<1x64x256xf16>, memref<1x256x48xf16>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// A direct-to-LDS plan needs K-contiguous operands copied dword by dword: B here is
// row-major (a transposing copy).
// CHECK: errors.mlir:[[# @LINE + 2]]:3: error: kernel plan: direct_to_lds b_copy needs a K-contiguous plain operand; vector 2, k_chunk 1, slab_pad 0, sgpr_offset "none" and no ahead, rows_first or permute
func.func @f(%a: memref<1x64x256xf16>, %b: memref<1x256x48xf16>, %c: memref<1x64x48xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:32,16,4,16,16,16,8,1,3,2,0,0,1,1",
    kernel_symbol = "accel_gemm_planned", mma = "v_mfma_f32_16x16x16_f16", k_steps_per_read = 2, lds_buffers = 1, pipeline_depth = 1, sched_barriers = true, load_wait_once = true, lds_read_ahead = true, interleave_reads = false, direct_to_lds = true, c_vector = 2, waves_per_eu = 0, grid_group = 1,
    a_copy = {ahead = false, k_chunk = 1, permute = false, rows_first = false, sgpr_offset = "none", slab_pad = 0, swizzle = true, swizzle_bit = 0, swizzle_shift = 0, vector = 2},
    b_copy = {ahead = false, k_chunk = 2, permute = false, rows_first = false, sgpr_offset = "tile", slab_pad = 2, swizzle = true, swizzle_bit = 0, swizzle_shift = 0, vector = 8}} : (memref<1x64x256xf16>, memref<1x256x48xf16>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// CHECK: errors.mlir:[[# @LINE + 2]]:3: error: pipeline_depth 2 needs lds_buffers 2 and no direct_to_lds
func.func @f(%a: memref<1x64x256xf16>, %b: memref<1x256x48xf16>, %c: memref<1x64x48xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:32,16,4,16,16,16,8,1,1,2,0,0,1,1",
    kernel_symbol = "accel_gemm_planned", mma = "v_mfma_f32_16x16x16_f16", k_steps_per_read = 2, lds_buffers = 1, pipeline_depth = 2, sched_barriers = true, load_wait_once = true, lds_read_ahead = true, interleave_reads = false, direct_to_lds = false, c_vector = 2, waves_per_eu = 0, grid_group = 1,
    a_copy = {ahead = true, k_chunk = 1, permute = false, rows_first = false, sgpr_offset = "k_tile", slab_pad = 2, swizzle = true, swizzle_bit = 0, swizzle_shift = 0, vector = 4},
    b_copy = {ahead = true, k_chunk = 2, permute = false, rows_first = false, sgpr_offset = "k_tile", slab_pad = 2, swizzle = true, swizzle_bit = 0, swizzle_shift = 0, vector = 8}} : (memref<1x64x256xf16>, memref<1x256x48xf16>, memref<1x64x48xf32>) -> ()
  return
}
