// RUN: accel-opt %s --pass-pipeline='builtin.module(accel-plan-kernel, accel-gemm-to-gpu)' --split-input-file | FileCheck %s

// Plan sgpr_offset: the global loads index the k-tile locally and take its origin
// (workgroup-uniform) as sgprOffset, in elements: A [1, 64, 256] row-major, k-tile kt of
// 32 columns: kt * 32; the M tile stays in the indices. The k-tile after the last is
// clamped to the last (arith.minui ..., 7), not masked.
// CHECK-LABEL: func.func @single_buffer
// CHECK: %[[BY:.*]] = arith.index_castui %block_id_y : index to i32
// CHECK: %[[ROW0:.*]] = arith.muli %[[BY]], %c32_i32 : i32
// CHECK: %[[ROW:.*]] = arith.addi %[[ROW0]], %{{.*}} : i32
// CHECK: amdgpu.raw_buffer_load %arg0[%{{.*}}, %[[ROW]], %{{.*}}] : memref<1x64x256xf16>
// CHECK: scf.for %[[KT:.*]] = %c0_i32 to %c8_i32 step %c1_i32
// CHECK: %[[NEXT:.*]] = arith.addi %[[KT]], %c1_i32 : i32
// CHECK: %[[LOAD:.*]] = arith.minui %[[NEXT]], %c7_i32 : i32
// CHECK: %[[K:.*]] = arith.muli %[[LOAD]], %c32_i32 : i32
// CHECK: amdgpu.raw_buffer_load %arg0[%{{.*}}, %[[ROW]], %{{.*}}] sgprOffset %[[K]] : memref<1x64x256xf16>
// CHECK: amdgpu.mfma
func.func @single_buffer(%a: memref<1x64x256xf16>, %b: memref<1x256x48xf16>, %c: memref<1x64x48xf16>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:32,16,4,16,16,16,8,1,1,2,0,0,1,1"} : (memref<1x64x256xf16>, memref<1x256x48xf16>, memref<1x64x48xf16>) -> ()
  return
}
