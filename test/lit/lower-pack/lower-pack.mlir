// accel-lower-pack: each accel.pack / accel.unpack becomes a branch-free kernel
// (one thread per destination element) and a gpu.launch_func in the host function.
// RUN: accel-opt %s --split-input-file --accel-lower-pack | FileCheck %s

// A [1, 77, 40] into 1x3x3x4x32x4 (mPB=32, kpackPB=4, kpack=4): 4608 threads, 18 groups.
// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK: func.func @pack
// CHECK-DAG: %[[GRID:.*]] = arith.constant 18 : index
// CHECK-DAG: %[[BLOCK:.*]] = arith.constant 256 : index
// CHECK: gpu.launch_func @accel_pack_1x77x40_4x32x4_f16::@accel_pack_1x77x40_4x32x4_f16 blocks in (%[[GRID]], %{{.*}}, %{{.*}}) threads in (%[[BLOCK]], %{{.*}}, %{{.*}}) args(%arg0 : memref<1x77x40xf16>, %arg1 : memref<1x3x3x4x32x4xf16>)
// CHECK-NOT: accel.pack
// CHECK: gpu.module @accel_pack_1x77x40_4x32x4_f16
// CHECK-NEXT: gpu.func @accel_pack_1x77x40_4x32x4_f16(%[[SRC:.*]]: memref<1x77x40xf16>, %[[DST:.*]]: memref<1x3x3x4x32x4xf16>) kernel
// CHECK-NOT: scf.if
// The padding (d >= 77 or k >= 40) reads batch 1, past the buffer: zero.
// CHECK: %[[DIN:.*]] = arith.cmpi ult, %[[D:.*]], %c77_i32
// CHECK: %[[KIN:.*]] = arith.cmpi ult, %[[K:.*]], %c40_i32
// CHECK: %[[IN:.*]] = arith.andi %[[DIN]], %[[KIN]]
// CHECK: %[[G:.*]] = arith.select %[[IN]], %{{.*}}, %c1_i32
// CHECK: %[[V:.*]] = amdgpu.raw_buffer_load %[[SRC]][%[[G]], %[[D]], %[[K]]] : memref<1x77x40xf16>, i32, i32, i32 -> f16
// CHECK: amdgpu.raw_buffer_store %[[V]] -> %[[DST]][{{.*}}] : f16 -> memref<1x3x3x4x32x4xf16>, i32, i32, i32, i32, i32, i32
// CHECK: gpu.return
func.func @pack(%a: memref<1x77x40xf16>, %p: memref<1x3x3x4x32x4xf16>) {
  "accel.pack"(%a, %p) {transposed = false} : (memref<1x77x40xf16>, memref<1x3x3x4x32x4xf16>) -> ()
  return
}

// -----

// B row [2, K=40, N=50] is [G, K, D]: the unpack writes [g, k, d] from the 6-D tile.
// CHECK: func.func @unpack_transposed
// CHECK: gpu.launch_func @accel_unpack_t_2x40x50_4x32x4_bf16::@accel_unpack_t_2x40x50_4x32x4_bf16 {{.*}} args(%arg1 : memref<2x2x3x4x32x4xbf16>, %arg0 : memref<2x40x50xbf16>)
// CHECK: gpu.func @accel_unpack_t_2x40x50_4x32x4_bf16
// CHECK: amdgpu.raw_buffer_load {{.*}} : memref<2x2x3x4x32x4xbf16>, i32, i32, i32, i32, i32, i32 -> bf16
// CHECK: amdgpu.raw_buffer_store {{.*}} : bf16 -> memref<2x40x50xbf16>, i32, i32, i32
func.func @unpack_transposed(%b: memref<2x40x50xbf16>, %p: memref<2x2x3x4x32x4xbf16>) {
  "accel.unpack"(%p, %b) {transposed = true} : (memref<2x2x3x4x32x4xbf16>, memref<2x40x50xbf16>) -> ()
  return
}
