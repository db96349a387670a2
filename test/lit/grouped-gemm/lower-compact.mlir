// RUN: accel-opt %s --pass-pipeline='builtin.module(accel-grouped-gemm-to-gpu)' | FileCheck %s

// Compact mode: the host allocates the tile list (capacity min(3 * ceil(40/16) = 9,
// (64 + 3 * 15) / 16 = 6) positions + the sentinel = 7 i32), launches the prep kernel on
// seq_offsets, then the main kernel on the capacity (6 positions x 1 N tile), then frees it.
// CHECK-LABEL: func.func @compact
// CHECK: %[[BIAS:.*]] = memref.expand_shape %arg4 {{\[\[}}0, 1]] output_shape [3, 32] : memref<96xbf16> into memref<3x32xbf16>
// CHECK: %[[LIST:.*]] = memref.alloc() : memref<7xi32>
// CHECK: gpu.launch_func @accel_grouped_tiles_b3_s40_m16_t7_gfx942::@accel_grouped_tiles_b3_s40_m16_t7_gfx942 blocks in
// CHECK-SAME: args(%arg2 : memref<4xi32>, %[[LIST]] : memref<7xi32>)
// CHECK: gpu.launch_func @accel_grouped_gemm_b3_l64_s40_n32_k32_bf16_bf16_stacked_compact_bias_gfx942::@accel_grouped_gemm_b3_l64_s40_n32_k32_bf16_bf16_stacked_compact_bias_gfx942
// CHECK-SAME: args(%{{.*}} : memref<1x64x32xbf16>, %{{.*}} : memref<3x32x32xbf16>, %{{.*}} : memref<1x64x32xbf16>, %[[BIAS]] : memref<3x32xbf16>, %arg2 : memref<4xi32>, %[[LIST]] : memref<7xi32>)
// CHECK: memref.dealloc %[[LIST]] : memref<7xi32>

// The main kernel reads its list entry and nothing else before the check: the sentinel
// (all ones) or any entry >= G * T_g = 9 is no tile.
// CHECK: gpu.func @accel_grouped_gemm_b3_l64_s40_n32_k32_bf16_bf16_stacked_compact_bias_gfx942(
// CHECK-SAME: known_grid_size = array<i32: 6, 1, 1>
// CHECK: %[[ENTRY:.*]] = amdgpu.raw_buffer_load %arg5[%{{.*}}] : memref<7xi32>, i32 -> i32
// CHECK-NEXT: %[[LIVE:.*]] = arith.cmpi ult, %[[ENTRY]], %c9_i32 : i32
// CHECK-NEXT: scf.if %[[LIVE]] {
// Inside: the group and M tile from the entry, then the group's rows.
// CHECK-NEXT: %[[GROUP:.*]] = arith.divui %[[ENTRY]], %c3_i32 : i32
// CHECK-NEXT: arith.remui %[[ENTRY]], %c3_i32 : i32
// CHECK-NEXT: amdgpu.raw_buffer_load %arg4[%[[GROUP]]] : memref<4xi32>, i32 -> i32
// The group is B's batch and the bias's: stacked B is read as [G, N, K].
// CHECK: amdgpu.raw_buffer_load %arg1[%{{.*}}] : memref<3x32x32xbf16>
// CHECK: amdgpu.raw_buffer_load %arg3[%{{.*}}] : memref<3x32xbf16>

// The prep kernel: per-thread counts, a log2(256) = 8 step scan over two LDS buffers
// (one barrier each, after the counts' barrier), the tiles, then the sentinels (-1).
// CHECK: gpu.func @accel_grouped_tiles_b3_s40_m16_t7_gfx942(%arg0: memref<4xi32>, %arg1: memref<7xi32>) workgroup(%arg2 : memref<512xi32, #gpu.address_space<workgroup>>) kernel
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 1, 1, 1>
// CHECK-COUNT-9: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: scf.for
// CHECK: amdgpu.raw_buffer_store %{{.*}} -> %arg1[%{{.*}}] : i32 -> memref<7xi32>, i32
// CHECK: amdgpu.raw_buffer_store %c-1_i32 -> %arg1[%{{.*}}] : i32 -> memref<7xi32>, i32
func.func @compact(%a: memref<64x32xbf16>, %b: memref<96x32xbf16>, %s: memref<4xi32>, %c: memref<64x32xbf16>, %bias: memref<96xbf16>) {
  "accel.grouped_gemm"(%a, %b, %s, %c, %bias) {arch = "gfx942", max_seq_len = 40 : i64, mode = "compact", perf_config = "v4:16,32,4,16,16,16,8,1,1,2,0,0,1,1"} : (memref<64x32xbf16>, memref<96x32xbf16>, memref<4xi32>, memref<64x32xbf16>, memref<96xbf16>) -> ()
  return
}
