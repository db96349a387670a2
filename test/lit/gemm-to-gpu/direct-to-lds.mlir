// RUN: accel-opt %s --pass-pipeline='builtin.module(accel-plan-kernel, accel-gemm-to-gpu)' --split-input-file | FileCheck %s

// scheduleVersion 4 (direct-to-LDS, two buffers): A and B are cast to fat raw buffers
// once; the first k-tile is gathered into buffer 0 and waited for (vmcnt: gather_to_lds
// writes LDS as a load) before the barrier; in the loop each k-tile gathers the next
// one into the other buffer before its MMAs and waits for it after them.
// CHECK-LABEL: func.func @version4
// CHECK: %[[A:.*]] = amdgpu.fat_raw_buffer_cast %arg0 : memref<1x64x256xf16> to memref<1x64x256xf16, #amdgpu.address_space<fat_raw_buffer>>
// CHECK: %[[B:.*]] = amdgpu.fat_raw_buffer_cast %arg1
// CHECK: amdgpu.gather_to_lds %[[A]][{{.*}}], %arg3[{{.*}}] : vector<2xf16>, memref<1x64x256xf16, #amdgpu.address_space<fat_raw_buffer>>, memref<4096xf16, #gpu.address_space<workgroup>>
// CHECK: amdgpu.gather_to_lds %[[B]]
// CHECK: amdgpu.memory_counter_wait load(0)
// CHECK-NEXT: amdgpu.lds_barrier
// CHECK: scf.for
// CHECK: amdgpu.gather_to_lds %[[A]]
// CHECK: amdgpu.gather_to_lds %[[B]]
// CHECK-NOT: amdgpu.lds_barrier
// CHECK: amdgpu.mfma 16x16x16
// CHECK: amdgpu.memory_counter_wait load(0)
// CHECK-NEXT: amdgpu.lds_barrier
// CHECK-NOT: amdgpu.raw_buffer_load
// CHECK: amdgpu.raw_buffer_store
func.func @version4(%a: memref<1x64x256xf16>, %b: memref<1x64x256xf16>, %c: memref<1x64x64xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", b_layout = "transposed", perf_config = "v4:64,64,4,32,32,16,8,1,4,2,0,0,1,1"} : (memref<1x64x256xf16>, memref<1x64x256xf16>, memref<1x64x64xf32>) -> ()
  return
}

// -----

// scheduleVersion 3 (one buffer): a k-tile is gathered, waited for and passed through
// the barrier before its MMAs. A ragged M (50 of a 64-row tile) keeps the batch index
// select that puts a dword of a row past M past the buffer's end (it reads 0).
// CHECK-LABEL: func.func @version3
// CHECK: scf.for
// CHECK: arith.select
// CHECK: amdgpu.gather_to_lds
// CHECK: amdgpu.memory_counter_wait load(0)
// CHECK-NEXT: amdgpu.lds_barrier
// CHECK: amdgpu.mfma 16x16x16
// CHECK: amdgpu.lds_barrier
func.func @version3(%a: memref<1x50x256xf16>, %b: memref<1x64x256xf16>, %c: memref<1x50x64xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", b_layout = "transposed", perf_config = "v4:64,64,4,32,32,16,8,1,3,2,0,0,1,1"} : (memref<1x50x256xf16>, memref<1x64x256xf16>, memref<1x50x64xf32>) -> ()
  return
}
