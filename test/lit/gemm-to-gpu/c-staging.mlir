// RUN: accel-opt %s --pass-pipeline='builtin.module(accel-plan-kernel, accel-gemm-to-gpu)' | FileCheck %s

// outputSwizzle 1 (codegen/c_staging.py), gfx942 MFMA 16x16, f16 C: after the k-tile
// loop and a barrier, each accumulator's 4 columns (converted to f16) go to A's LDS
// buffer as one 64-bit unit at its XOR-swizzled place; after a second barrier a lane
// reads back 8 columns of one row (two units, halves swapped back when the row's key
// is odd) and stores them as one 128-bit vector.
// CHECK-LABEL: gpu.func @accel_gemm_g1_m32_n64_k64_f16_f16_gfx942
// CHECK-SAME: workgroup(%[[LDS:.*]] : memref<1088xf16, #gpu.address_space<workgroup>>,
// CHECK: scf.for
// CHECK: } {loop_annotation
// CHECK-NEXT: arith.muli
// CHECK-NOT: raw_buffer_store
// CHECK: amdgpu.lds_barrier
// CHECK: arith.truncf %{{.*}} : vector<4xf32> to vector<4xf16>
// CHECK: arith.xori
// CHECK: vector.store %{{.*}}, %[[LDS]][%{{.*}}] : memref<1088xf16, #gpu.address_space<workgroup>>, vector<4xf16>
// CHECK-COUNT-3: vector.store %{{.*}}, %[[LDS]]
// CHECK-NEXT: amdgpu.lds_barrier
// CHECK: %[[ROW:.*]] = vector.load %[[LDS]][%{{.*}}] : memref<1088xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK: %[[SWAP:.*]] = vector.shuffle %[[ROW]], %[[ROW]] [4, 5, 6, 7, 0, 1, 2, 3]
// CHECK: %[[V:.*]] = arith.select %{{.*}}, %[[SWAP]], %[[ROW]] : vector<8xf16>
// CHECK: amdgpu.raw_buffer_store %[[V]] -> %arg2[{{.*}}] : vector<8xf16> -> memref<1x32x64xf16>
// CHECK-COUNT-1: amdgpu.raw_buffer_store %{{.*}} : vector<8xf16>
// CHECK-NOT: amdgpu.raw_buffer_store
// CHECK: gpu.return
func.func @mfma16(%a: memref<1x32x64xf16>, %b: memref<1x64x64xf16>, %c: memref<1x32x64xf16>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:32,32,4,32,32,16,8,1,1,1,0,0,1,1"} : (memref<1x32x64xf16>, memref<1x64x64xf16>, memref<1x32x64xf16>) -> ()
  return
}

// f32 C on gfx1100 crosses into the f16 LDS buffer with vector.bitcast, both ways; a
// 16x16 wave tile of f32 (1 KB) does not fit A's 320-element (640-byte) tile buffer,
// which grows to 512 f16.
// CHECK-LABEL: gpu.func @accel_gemm_g1_m16_n16_k32_f16_f32_gfx1100
// CHECK-SAME: workgroup(%[[LDS:.*]] : memref<512xf16, #gpu.address_space<workgroup>>,
// CHECK: vector.bitcast %{{.*}} : vector<4xf32> to vector<8xf16>
// CHECK: vector.store %{{.*}}, %[[LDS]]
// CHECK: amdgpu.lds_barrier
// CHECK: vector.load %[[LDS]]
// CHECK: vector.bitcast %{{.*}} : vector<8xf16> to vector<4xf32>
// CHECK: amdgpu.raw_buffer_store %{{.*}} : vector<4xf32> -> memref<1x16x16xf32>
func.func @bitcast(%a: memref<1x16x32xf16>, %b: memref<1x32x16xf16>, %c: memref<1x16x16xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx1100", perf_config = "v4:16,16,2,16,16,16,8,1,1,1,0,0,1,1"} : (memref<1x16x32xf16>, memref<1x32x16xf16>, memref<1x16x16xf32>) -> ()
  return
}
