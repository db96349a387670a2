// RUN: accel-opt %s --pass-pipeline='builtin.module(accel-plan-kernel, accel-gemm-to-gpu)' | FileCheck %s

// The k-tile loop (K=256 / kPerBlock=32: 8 trips) stays a loop in LLVM, and the global
// loads run one k-tile ahead: the loop carries the accumulator and the loaded vectors
// of the next tile (one of A, two of B), stores them to LDS, then loads the tile after
// before multiplying (codegen/kernel.py).
// CHECK: #[[UNROLL:.*]] = #llvm.loop_unroll<disable = true>
// CHECK: #[[ANN:.*]] = #llvm.loop_annotation<unroll = #[[UNROLL]]>
// CHECK: amdgpu.raw_buffer_load %arg0
// CHECK: scf.for %{{.*}} = %c0_i32 to %c8_i32 step %c1_i32 iter_args({{.*}}) -> (vector<4xf32>, vector<8xf16>, vector<8xf16>, vector<8xf16>) : i32 {
// CHECK: vector.store
// CHECK: gpu.barrier
// CHECK: amdgpu.raw_buffer_load %arg0
// CHECK: amdgpu.mfma 16x16x16
// CHECK: gpu.barrier
// CHECK-NEXT: scf.yield
// CHECK-NEXT: } {loop_annotation = #[[ANN]]}
func.func @f(%a: memref<1x64x256xf16>, %b: memref<1x256x48xf16>, %c: memref<1x64x48xf16>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", a_layout = "row", b_layout = "row", c_layout = "row", perf_config = "v4:32,16,4,16,16,16,8,1,1,2,0,0,1,1"} : (memref<1x64x256xf16>, memref<1x256x48xf16>, memref<1x64x48xf16>) -> ()
  return
}
