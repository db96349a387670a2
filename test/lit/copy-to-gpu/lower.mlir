// accel-copy-to-gpu: each accel.copy becomes a kernel (one thread an element of the
// copy's shape, its indices split off the flat index) and a gpu.launch_func.
// RUN: accel-opt %s --split-input-file --accel-copy-to-gpu | FileCheck %s

// [1, 7, 10] = 70 elements: one block of 256 threads, those past 70 masked. The input is
// read through floordiv / mod of d2 (a reshape that regroups the input's dims).
// CHECK-LABEL: func.func @unblock
// CHECK: gpu.launch_func @[[K:accel_copy_1x7x10_[0-9a-f]+]]::@[[K]] blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in (%{{.*}}, %{{.*}}, %{{.*}}) args(%arg0 : memref<2x5x7xf16>, %arg1 : memref<1x7x10xf16>)
// CHECK-NOT: accel.copy
// CHECK: gpu.func @[[K]](%[[IN:.*]]: memref<2x5x7xf16>, %[[OUT:.*]]: memref<1x7x10xf16>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 1, 1, 1>}
// CHECK: %[[FLAT:.*]] = arith.addi
// CHECK: %[[OK:.*]] = arith.cmpi ult, %[[FLAT]], %c70_i32
// Past the end a thread computes element 0's indices...
// CHECK: %[[E:.*]] = arith.select %[[OK]], %[[FLAT]], %c0_i32
// CHECK: %[[D0:.*]] = arith.divui %[[E]], %c70_i32
// CHECK: %[[Q1:.*]] = arith.divui %[[E]], %c10_i32
// CHECK: %[[D1:.*]] = arith.remui %[[Q1]], %c7_i32
// CHECK: %[[D2:.*]] = arith.remui %[[E]], %c10_i32
// CHECK: %[[I0:.*]] = arith.divui %[[D2]], %c5_i32
// CHECK: %[[I1:.*]] = arith.remui %[[D2]], %c5_i32
// ...and its first index moves one past its buffer's first dimension (2, 1).
// CHECK: %[[S0:.*]] = arith.select %[[OK]], %[[I0]], %c2_i32
// CHECK: %[[O0:.*]] = arith.select %[[OK]], %[[D0]], %c1_i32
// CHECK: %[[X:.*]] = amdgpu.raw_buffer_load %[[IN]][%[[S0]], %[[I1]], %[[D1]]] : memref<2x5x7xf16>, i32, i32, i32 -> f16
// CHECK: amdgpu.raw_buffer_store %[[X]] -> %[[OUT]][%[[O0]], %[[D1]], %[[D2]]] : f16 -> memref<1x7x10xf16>, i32, i32, i32
func.func @unblock(%a: memref<2x5x7xf16>, %o: memref<1x7x10xf16>) {
  "accel.copy"(%a, %o) {arch = "gfx942", shape = array<i64: 1, 7, 10>, input_map = affine_map<(d0, d1, d2) -> (d2 floordiv 5, d2 mod 5, d1)>, output_map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>} : (memref<2x5x7xf16>, memref<1x7x10xf16>) -> ()
  return
}

// -----

// 512 elements, two full blocks: no mask. A value written into a transposed result: the
// output map permutes, the input is read in order.
// CHECK-LABEL: func.func @to_result
// CHECK: gpu.func @accel_copy_1x16x32_{{.*}} kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 2, 1, 1>}
// CHECK-NOT: arith.cmpi
// CHECK-NOT: arith.select
// CHECK: amdgpu.raw_buffer_load %{{.*}}[%[[A:.*]], %[[B:.*]], %[[C:.*]]] : memref<1x16x32xi8>
// CHECK: amdgpu.raw_buffer_store %{{.*}}[%[[A]], %[[C]], %[[B]]] : i8 -> memref<1x32x16xi8>
func.func @to_result(%a: memref<1x16x32xi8>, %o: memref<1x32x16xi8>) {
  "accel.copy"(%a, %o) {arch = "gfx1201", shape = array<i64: 1, 16, 32>, input_map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>, output_map = affine_map<(d0, d1, d2) -> (d0, d2, d1)>} : (memref<1x16x32xi8>, memref<1x32x16xi8>) -> ()
  return
}
