// RUN: accel-opt %s --pass-pipeline='builtin.module(accel-plan-kernel, accel-gemm-to-gpu)' --split-input-file | FileCheck %s

// B is one [256, 48] matrix for both batches (batch stride 0) with rows 56 apart,
// starting at element 8: the kernel takes it as that strided memref (one bare pointer,
// the buffer's start) and its loads index it through the strides. The batch index G
// would not leave the view here (2 * 0 = 0), so an invalid vector (a thread past the
// tile's last unit, or a batch past G) has its K index set to K = 256 instead: the
// largest of size * stride (256 * 56, the descriptor's bound), out of range by itself.
// The k-tile's origin in sgprOffset is 32 K rows of the view: kt * 32 * 56 = kt * 1792
// (a packed B's would be kt * 32 * 48).
// CHECK-LABEL: gpu.func @accel_gemm_g2_m64_n48_k256_f16_f16_sv{{[0-9a-f]+}}_gfx942
// CHECK-SAME: %arg1: memref<2x256x48xf16, strided<[0, 56, 1], offset: 8>>
// CHECK: %[[Z:.*]] = arith.index_castui %block_id_z
// CHECK: %[[IN_G:.*]] = arith.cmpi ult, %[[Z]], %c2_i32 : i32
// CHECK: %[[OK:.*]] = arith.andi %{{.*}}, %[[IN_G]] : i1
// CHECK: %[[K:.*]] = arith.select %[[OK]], %{{.*}}, %c256_i32 : i32
// CHECK: amdgpu.raw_buffer_load %arg1[%[[Z]], %[[K]], %{{.*}}] : memref<2x256x48xf16, strided<[0, 56, 1], offset: 8>>
// CHECK: scf.for
// CHECK: %[[ORIGIN:.*]] = arith.muli %{{.*}}, %c1792_i32 : i32
// CHECK: amdgpu.raw_buffer_load %arg1[%[[Z]], %[[K]], %{{.*}}] sgprOffset %[[ORIGIN]] : memref<2x256x48xf16, strided<[0, 56, 1], offset: 8>>
func.func @broadcast_batch(%a: memref<2x64x256xf16>, %b: memref<2x256x48xf16, strided<[0, 56, 1], offset: 8>>, %c: memref<2x64x48xf16>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:32,16,4,16,16,16,8,1,1,2,0,0,1,1"} : (memref<2x64x256xf16>, memref<2x256x48xf16, strided<[0, 56, 1], offset: 8>>, memref<2x64x48xf16>) -> ()
  return
}

// -----

// A sliced along K (rows 320 apart, 256 of them used; M = 60 is ragged) keeps the
// batch as its largest size * stride (2 * 20480): the packed rule, batch index G = 2
// for a vector past M.
// CHECK-LABEL: gpu.func @accel_gemm_g2_m60_n48_k256_f16_f16_sv{{[0-9a-f]+}}_gfx942
// CHECK-SAME: %arg0: memref<2x60x256xf16, strided<[20480, 320, 1], offset: 64>>
// CHECK: %[[G:.*]] = arith.select %{{.*}}, %{{.*}}, %c2_i32 : i32
// CHECK: amdgpu.raw_buffer_load %arg0[%[[G]], %{{.*}}, %{{.*}}] : memref<2x60x256xf16, strided<[20480, 320, 1], offset: 64>>
func.func @k_slice(%a: memref<2x60x256xf16, strided<[20480, 320, 1], offset: 64>>, %b: memref<2x256x48xf16>, %c: memref<2x60x48xf16>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:32,16,4,16,16,16,8,1,1,2,0,0,1,1"} : (memref<2x60x256xf16, strided<[20480, 320, 1], offset: 64>>, memref<2x256x48xf16>, memref<2x60x48xf16>) -> ()
  return
}

// -----

// Two gemms of one shape and plan, one reading A packed and one through a view, build
// different kernels: the view's kernel takes a digest of its operand types after the
// plan's symbol.
// CHECK-LABEL: func.func @packed_and_view
// CHECK: gpu.launch_func @accel_gemm_g2_m64_n48_k256_f16_f16_gfx942::@accel_gemm_g2_m64_n48_k256_f16_f16_gfx942 {{.*}} args(%arg0 : memref<2x64x256xf16>
// CHECK: gpu.launch_func @[[VIEW:accel_gemm_g2_m64_n48_k256_f16_f16_sv[0-9a-f]+_gfx942]]::@[[VIEW]] {{.*}} args(%arg1 : memref<2x64x256xf16, strided<[20480, 320, 1], offset: 64>>
func.func @packed_and_view(%a: memref<2x64x256xf16>, %a2: memref<2x64x256xf16, strided<[20480, 320, 1], offset: 64>>, %b: memref<2x256x48xf16>, %c: memref<2x64x48xf16>, %c2: memref<2x64x48xf16>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:32,16,4,16,16,16,8,1,1,2,0,0,1,1"} : (memref<2x64x256xf16>, memref<2x256x48xf16>, memref<2x64x48xf16>) -> ()
  "accel.gemm"(%a2, %b, %c2) {arch = "gfx942", perf_config = "v4:32,16,4,16,16,16,8,1,1,2,0,0,1,1"} : (memref<2x64x256xf16, strided<[20480, 320, 1], offset: 64>>, memref<2x256x48xf16>, memref<2x64x48xf16>) -> ()
  return
}

// -----

// A batch-first A (batch stride 1, rows 520 apart, K stride 2: no stride-1 side) is
// loaded one f16 at a time through its strides (plan vector 1). Its largest size *
// stride is M's (64 * 520), so an invalid element has its M index set to M = 64; the
// tile's origin in sgprOffset is 32 rows of 520 per M tile and 32 K of stride 2 per
// k-tile.
// CHECK-LABEL: gpu.func @accel_gemm_g2_m64_n48_k256_f16_f16_sv{{[0-9a-f]+}}_gfx942(%arg0: memref<2x64x256xf16, strided<[1, 520, 2]>>
// CHECK: scf.for
// CHECK: %[[KT:.*]] = arith.muli %arg5, %c64_i32 : i32
// CHECK: %[[MT:.*]] = arith.muli %{{.*}}, %c16640_i32 : i32
// CHECK: %[[ORIGIN:.*]] = arith.addi %[[MT]], %[[KT]] : i32
// CHECK: %[[M:.*]] = arith.select %{{.*}}, %{{.*}}, %c64_i32 : i32
// CHECK: amdgpu.raw_buffer_load %arg0[%{{.*}}, %[[M]], %{{.*}}] sgprOffset %[[ORIGIN]] : memref<2x64x256xf16, strided<[1, 520, 2]>>, i32, i32, i32 -> f16
// CHECK-NOT: amdgpu.raw_buffer_load %arg0{{.*}}-> vector
// CHECK: gpu.return
func.func @batch_first(%a: memref<2x64x256xf16, strided<[1, 520, 2]>>, %b: memref<2x256x48xf16>, %c: memref<2x64x48xf16>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:32,16,4,16,16,16,8,1,1,2,0,0,1,1"} : (memref<2x64x256xf16, strided<[1, 520, 2]>>, memref<2x256x48xf16>, memref<2x64x48xf16>) -> ()
  return
}

// -----

// K of two digits: A [1, 64, 3, 64], 3 heads of stride 4096 times 64 of stride 1. A
// vector's k (tile-local: the tile's origin is in sgprOffset) is split into its head
// and its place in the head, [g, m, k div 64, k mod 64]. kPerBlock 32 divides K0, so a
// k-tile lies inside one head: k-tile kt starts (kt div 2) heads and (kt mod 2) * 32
// elements in.
// CHECK-LABEL: gpu.func @accel_gemm_g1_m64_n48_k192_f16_f16_sv{{[0-9a-f]+}}_gfx942(%arg0: memref<1x64x3x64xf16, strided<[12288, 64, 4096, 1]>>
// (First the block's 128 threads split as 64 x 2 for the MMA waves; then the copy.)
// CHECK: arith.divui %{{.*}}, %c64_i32 : i32
// CHECK: %[[HEAD:[0-9]+]] = arith.divui %[[K2:[0-9]+]], %c64_i32 : i32
// CHECK-NEXT: %[[IN:[0-9]+]] = arith.remui %[[K2]], %c64_i32 : i32
// CHECK-NEXT: amdgpu.raw_buffer_load %arg0[%{{.*}}, %{{.*}}, %[[HEAD]], %[[IN]]] : memref<1x64x3x64xf16, strided<[12288, 64, 4096, 1]>>, i32, i32, i32, i32 -> vector<8xf16>
// CHECK: %[[KT:.*]] = arith.minui
// CHECK-NEXT: %[[Q:.*]] = arith.divui %[[KT]], %c2_i32 : i32
// CHECK-NEXT: %[[QS:.*]] = arith.muli %[[Q]], %c4096_i32 : i32
// CHECK-NEXT: %[[R:.*]] = arith.remui %[[KT]], %c2_i32 : i32
// CHECK-NEXT: %[[RS:.*]] = arith.muli %[[R]], %c32_i32 : i32
// CHECK-NEXT: %[[ORIGIN:.*]] = arith.addi %[[QS]], %[[RS]] : i32
// CHECK: amdgpu.raw_buffer_load %arg0[%{{.*}}, %{{.*}}, %[[HEAD]], %[[IN]]] sgprOffset %[[ORIGIN]]
func.func @heads_in_k(%a: memref<1x64x3x64xf16, strided<[12288, 64, 4096, 1]>>, %b: memref<1x192x48xf16>, %c: memref<1x64x48xf16>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:32,16,4,16,16,16,8,1,1,2,0,0,1,1"} : (memref<1x64x3x64xf16, strided<[12288, 64, 4096, 1]>>, memref<1x192x48xf16>, memref<1x64x48xf16>) -> ()
  return
}
