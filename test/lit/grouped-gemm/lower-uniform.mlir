// RUN: accel-opt %s --pass-pipeline='builtin.module(accel-grouped-gemm-to-gpu)' | FileCheck %s

// Uniform mode: one launch on the regular grid (G * ceil(20/16) = 6 (group, M tile)
// positions, ceil(40/32) = 2 N tiles); A and C are passed as [1, L, X] views of the
// same buffers; row-layout B [G, K, N] goes as it is.
// CHECK-LABEL: func.func @uniform
// CHECK: %[[A:.*]] = memref.expand_shape %arg0 {{\[\[}}0, 1], [2]] output_shape [1, 60, 32] : memref<60x32xbf16> into memref<1x60x32xbf16>
// CHECK: %[[C:.*]] = memref.expand_shape %arg3 {{\[\[}}0, 1], [2]] output_shape [1, 60, 40] : memref<60x40xf32> into memref<1x60x40xf32>
// CHECK-NOT: memref.alloc
// CHECK: %[[GX:.*]] = arith.constant 6 : index
// CHECK: %[[GY:.*]] = arith.constant 2 : index
// CHECK: gpu.launch_func @accel_grouped_gemm_b3_l60_s20_n40_k32_bf16_f32_row_uniform_gfx942::@accel_grouped_gemm_b3_l60_s20_n40_k32_bf16_f32_row_uniform_gfx942 blocks in (%[[GX]], %[[GY]], %{{.*}}) threads in
// CHECK-SAME: args(%[[A]] : memref<1x60x32xbf16>, %arg1 : memref<3x32x40xbf16>, %[[C]] : memref<1x60x40xf32>, %arg2 : memref<4xi32>)
// CHECK-NOT: gpu.launch_func
// The workgroup's (group, M tile) is block x: group x / 2, M tile x % 2; its rows come
// from seq_offsets, clamped to [0, max_seq_len], before anything else is loaded.
// CHECK: gpu.func @accel_grouped_gemm_b3_l60_s20_n40_k32_bf16_f32_row_uniform_gfx942(
// CHECK-SAME: known_grid_size = array<i32: 6, 2, 1>
// CHECK: %[[GROUP:.*]] = arith.divui %{{.*}}, %c2_i32
// CHECK: %[[S:.*]] = amdgpu.raw_buffer_load %arg3[%[[GROUP]]] : memref<4xi32>, i32 -> i32
// CHECK: %[[E:.*]] = amdgpu.raw_buffer_load %arg3[%{{.*}}] : memref<4xi32>, i32 -> i32
// CHECK: %[[LEN:.*]] = arith.subi %[[E]], %[[S]]
// CHECK: arith.maxsi %[[LEN]], %c0_i32
// CHECK: %[[ROWS:.*]] = arith.minsi %{{.*}}, %c20_i32
// An M tile past the group's rows skips the whole body: no load of A or B, no MFMA.
// CHECK: %[[LIVE:.*]] = arith.cmpi ult, %{{.*}}, %[[ROWS]]
// CHECK-NEXT: scf.if %[[LIVE]] {
// CHECK-NOT: gpu.return
// A row past the window is sent to batch 1 of the one-batch A: past the buffer, read 0.
// CHECK: arith.select %{{.*}}, %c0_i32, %c1_i32
// CHECK: amdgpu.raw_buffer_load %arg0
// CHECK: amdgpu.mfma
// CHECK: amdgpu.raw_buffer_store
// CHECK: }
// CHECK-NEXT: gpu.return
func.func @uniform(%a: memref<60x32xbf16>, %b: memref<3x32x40xbf16>, %s: memref<4xi32>, %c: memref<60x40xf32>) {
  "accel.grouped_gemm"(%a, %b, %s, %c) {arch = "gfx942", max_seq_len = 20 : i64, b_layout = "row", mode = "uniform", perf_config = "v4:16,32,4,16,16,16,8,1,1,2,0,0,1,1"} : (memref<60x32xbf16>, memref<3x32x40xbf16>, memref<4xi32>, memref<60x40xf32>) -> ()
  return
}
