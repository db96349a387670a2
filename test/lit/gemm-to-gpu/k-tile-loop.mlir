// RUN: accel-opt %s --pass-pipeline='builtin.module(accel-plan-kernel, accel-gemm-to-gpu)' --split-input-file | FileCheck %s

// Two LDS buffers (scheduleVersion 2), loads two k-tiles ahead (plan pipeline_depth 2:
// 32x16x32 is 32 MFMA clocks a k-tile against a 1200-clock load latency): the first
// k-tile is stored before the loop, waiting for its loads only (vmcnt(3) leaves the
// second k-tile's three loads in flight); each trip of the k-tile loop (K=256 /
// kPerBlock=32: 8 k-tiles, 4 trips) runs two k-tiles, buffer 0 then buffer 1, each as:
// global loads of the k-tile two ahead | MMAs | a wait for the loads of the k-tile one
// ahead (issued a k-tile earlier) that leaves the newer three in flight | their LDS
// store into the other buffer | one LDS barrier. The loop carries one stage of loaded
// values (three vectors) across its back edge. Scheduling barriers keep the loads
// ahead of the MMAs and the stores after them (codegen/schedule.py). The loop stays a
// loop in LLVM.
// CHECK: #[[UNROLL:.*]] = #llvm.loop_unroll<disable = true>
// CHECK: #[[ANN:.*]] = #llvm.loop_annotation<unroll = #[[UNROLL]]>
// CHECK-LABEL: func.func @double_buffer
// CHECK: amdgpu.raw_buffer_load %arg0
// CHECK: rocdl.sched.barrier none
// CHECK: amdgpu.raw_buffer_load %arg0
// CHECK: rocdl.sched.barrier none
// CHECK-NEXT: amdgpu.memory_counter_wait load(3)
// CHECK: vector.store
// CHECK: amdgpu.lds_barrier
// CHECK: scf.for %{{.*}} = %c0_i32 to %c4_i32 step %c1_i32 iter_args({{.*}}) -> (vector<4xf32>, vector<8xf16>, vector<8xf16>, vector<8xf16>) : i32 {
// CHECK: amdgpu.raw_buffer_load %arg0
// CHECK: rocdl.sched.barrier none
// CHECK: amdgpu.mfma 16x16x16
// CHECK: rocdl.sched.barrier none
// CHECK: amdgpu.memory_counter_wait load(3)
// CHECK: vector.store
// CHECK: amdgpu.lds_barrier
// CHECK: amdgpu.raw_buffer_load %arg0
// CHECK: rocdl.sched.barrier none
// CHECK: amdgpu.mfma 16x16x16
// CHECK: rocdl.sched.barrier none
// CHECK: amdgpu.memory_counter_wait load(3)
// CHECK: vector.store
// CHECK: amdgpu.lds_barrier
// CHECK-NEXT: scf.yield
// CHECK-NEXT: } {loop_annotation = #[[ANN]]}
// CHECK-NOT: gpu.barrier
func.func @double_buffer(%a: memref<1x64x256xf16>, %b: memref<1x256x48xf16>, %c: memref<1x64x48xf16>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:32,16,4,16,16,16,8,1,2,2,0,0,1,1"} : (memref<1x64x256xf16>, memref<1x256x48xf16>, memref<1x64x48xf16>) -> ()
  return
}

// -----

// One k-tile ahead (plan pipeline_depth 1: 128x128x64 on two waves is 2048 MFMA
// clocks a k-tile, more than the latency), two LDS buffers: each k-tile as: global
// loads of the next k-tile | MMAs | a wait for all of them | their LDS store into the
// other buffer | one LDS barrier; the loop carries only the accumulators.
// CHECK-LABEL: func.func @double_buffer_one_ahead
// CHECK: scf.for %{{.*}} = %c0_i32 to %c4_i32 step %c1_i32 iter_args({{.*}}) -> (vector<16xf32>{{(, vector<16xf32>)*}}) : i32 {
// CHECK: amdgpu.raw_buffer_load %arg0
// CHECK: rocdl.sched.barrier none
// CHECK: amdgpu.mfma 32x32x8
// CHECK: rocdl.sched.barrier none
// CHECK-NEXT: amdgpu.memory_counter_wait load(0)
// CHECK: vector.store
// CHECK: amdgpu.lds_barrier
func.func @double_buffer_one_ahead(%a: memref<1x128x512xf16>, %b: memref<1x512x128xf16>, %c: memref<1x128x128xf16>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:128,128,8,128,64,32,8,1,2,2,0,0,1,1"} : (memref<1x128x512xf16>, memref<1x512x128xf16>, memref<1x128x128xf16>) -> ()
  return
}

// -----

// An odd count of k-tiles (K=160: 5) ends with the last k-tile's MMAs after the loop, in
// buffer 0, with nothing left to load.
// CHECK-LABEL: func.func @odd
// CHECK: scf.for %{{.*}} = %c0_i32 to %c2_i32
// CHECK: } {loop_annotation
// CHECK-NOT: amdgpu.raw_buffer_load %arg0
// CHECK: amdgpu.mfma 16x16x16
// CHECK-NOT: amdgpu.lds_barrier
// CHECK: amdgpu.raw_buffer_store
func.func @odd(%a: memref<1x64x160xf16>, %b: memref<1x160x48xf16>, %c: memref<1x64x48xf16>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:32,16,4,16,16,16,8,1,2,2,0,0,1,1"} : (memref<1x64x160xf16>, memref<1x160x48xf16>, memref<1x64x48xf16>) -> ()
  return
}

// -----

// One LDS buffer (scheduleVersion 1): store k-tile t | barrier | loads of t+1 |
// MMAs of t | barrier; the loaded values ride in the loop's iter_args.
// CHECK-LABEL: func.func @single_buffer
// CHECK: scf.for %{{.*}} = %c0_i32 to %c8_i32 step %c1_i32 iter_args({{.*}}) -> (vector<4xf32>, vector<8xf16>, vector<8xf16>, vector<8xf16>) : i32 {
// The stores of the carried values wait once for all their loads (plan load_wait_once).
// CHECK-NEXT: amdgpu.memory_counter_wait load(0)
// CHECK-NEXT: rocdl.sched.barrier none
// CHECK: vector.store
// CHECK: amdgpu.lds_barrier
// CHECK: rocdl.sched.barrier none
// CHECK: amdgpu.mfma 16x16x16
// CHECK: amdgpu.lds_barrier
// CHECK-NEXT: scf.yield
func.func @single_buffer(%a: memref<1x64x256xf16>, %b: memref<1x256x48xf16>, %c: memref<1x64x48xf16>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:32,16,4,16,16,16,8,1,1,2,0,0,1,1"} : (memref<1x64x256xf16>, memref<1x256x48xf16>, memref<1x64x48xf16>) -> ()
  return
}

// -----

// Plan lds_read_ahead (RDNA): the fragments of k-step group 0 are read before the group
// loop, each trip waits for its own reads, reads the next group and runs its MMAs; the
// last group is peeled (K = 64 in kPerBlock 64: 4 groups, 3 trips).
// CHECK-LABEL: func.func @read_ahead
// CHECK: vector.load %arg{{.*}} : memref<{{.*}}, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK: scf.for %{{.*}} = %c0_i32 to %c3_i32 step %c1_i32 iter_args(
// CHECK-NEXT: amdgpu.memory_counter_wait ds(0)
// CHECK: vector.load
// CHECK: amdgpu.wmma
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: amdgpu.memory_counter_wait ds(0)
// CHECK: amdgpu.wmma
func.func @read_ahead(%a: memref<1x64x64xf16>, %b: memref<1x64x64xf16>, %c: memref<1x64x64xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx1201", perf_config = "v4:64,64,8,32,32,16,8,1,1,2,0,0,1,1"} : (memref<1x64x64xf16>, memref<1x64x64xf16>, memref<1x64x64xf32>) -> ()
  return
}

// -----

// Plan interleave_reads (gfx1100, two k-tiles): after each group's MMAs, scheduling
// groups place the next group's 8 LDS reads (4 fragments of 16 f16, two 128-bit reads
// each) before the first of its 4 WMMAs (2 x 2 repeats; READ_SPREAD 4: the first quarter),
// then the other three as one group.
// CHECK-LABEL: func.func @interleave_reads
// CHECK: scf.for %{{.*}} = %c0_i32 to %c3_i32 step %c1_i32 iter_args(
// CHECK-NEXT: amdgpu.memory_counter_wait ds(0)
// CHECK-COUNT-4: amdgpu.wmma
// CHECK-NEXT: rocdl.sched.group.barrier ds_read, 8, 0
// CHECK-NEXT: rocdl.sched.group.barrier mfma_wmma, 1, 0
// CHECK-NEXT: rocdl.sched.group.barrier mfma_wmma, 3, 0
// CHECK-NEXT: scf.yield
func.func @interleave_reads(%a: memref<1x64x128xf16>, %b: memref<1x128x64xf16>, %c: memref<1x64x64xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx1100", perf_config = "v4:64,64,8,32,32,16,8,1,1,2,0,0,1,1"} : (memref<1x64x128xf16>, memref<1x128x64xf16>, memref<1x64x64xf32>) -> ()
  return
}
