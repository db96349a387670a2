// RUN: accel-opt %s --pass-pipeline='builtin.module(accel-plan-kernel, accel-gemm-to-gpu)' | FileCheck %s

// wavesPerEU 2 becomes the kernel's rocdl.waves_per_eu (LLVM's amdgpu-waves-per-eu).
// gridGroupSize 4 over 10 M tiles of 32 rows: the workgroup's tile comes from its
// linear id y * 2 + x (2 N tiles) in groups of 4 M tiles, the last group of 2
// (codegen/grid_order.py): a select between the full and the partial group.
// CHECK: gpu.func @accel_gemm_g1_m320_n64_k64_f16_f32_gfx1201
// CHECK-SAME: rocdl.waves_per_eu = 2 : i32
// CHECK: %[[X:.*]] = arith.index_castui %block_id_x
// CHECK: %[[Y:.*]] = arith.index_castui %block_id_y
// CHECK: %[[YX:.*]] = arith.muli %[[Y]], %c2_i32
// CHECK: %[[LIN:.*]] = arith.addi %[[YX]], %[[X]]
// CHECK: arith.divui %[[LIN]], %c8_i32
// CHECK: arith.remui %[[LIN]], %c8_i32
// CHECK: arith.cmpi ult, %c7_i32
// CHECK: arith.select
// CHECK: arith.select
func.func @f(%a: memref<1x320x64xf16>, %b: memref<1x64x64xf16>, %c: memref<1x320x64xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx1201", perf_config = "v4:32,32,4,16,16,16,8,1,1,2,2,4,1,1"} : (memref<1x320x64xf16>, memref<1x64x64xf16>, memref<1x320x64xf32>) -> ()
  return
}
