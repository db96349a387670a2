// RUN: accel-opt %s --pass-pipeline='builtin.module(accel-plan-kernel, accel-gemm-to-gpu)' | FileCheck %s

// A split-K gemm (splitKFactor 3) becomes two kernels between an alloc and a dealloc of
// the [G * 3, M, N] f32 workspace: the partial products on grid z = G * 3, then the
// reduction on the gemm's tile grid (8 threads of 4 columns across the 32-column tile,
// 32 rows at once: 256 threads), which reads the workspace and writes C through the
// epilogue (the bias is its argument, not the partial kernel's).
// CHECK-LABEL: func.func @split
// CHECK: %[[W:.*]] = memref.alloc() : memref<6x37x64xf32>
// CHECK: gpu.launch_func @[[P:accel_gemm_g2_m37_n64_k200_f16_f16_bias_relu_gfx942]]::@[[P]] blocks in (%c2, %c2_0, %c6)
// CHECK-SAME: args(%arg0 : memref<2x37x200xf16>, %arg1 : memref<2x200x64xf16>, %[[W]] : memref<6x37x64xf32>)
// CHECK: gpu.launch_func @[[R:accel_gemm_g2_m37_n64_k200_f16_f16_bias_relu_gfx942_reduce]]::@[[R]] blocks in (%c2_2, %c2_3, %c2_4) threads in (%c256,
// CHECK-SAME: args(%[[W]] : memref<6x37x64xf32>, %arg2 : memref<2x37x64xf16>, %arg3 : memref<64xf16>)
// CHECK: memref.dealloc %[[W]] : memref<6x37x64xf32>

// The partial kernel: batch z / 3, first k-tile (z % 3) * 3 of 3; the last slice's
// k-tiles past K's 7 are read with the batch index sent to G = 2 (zeros). No epilogue:
// f32 stores of 4 into the workspace.
// CHECK: gpu.func @[[P]]({{.*}}%arg2: memref<6x37x64xf32>) workgroup
// CHECK-SAME: known_grid_size = array<i32: 2, 2, 6>
// CHECK: %[[Z:.*]] = arith.index_castui %block_id_z
// CHECK-NEXT: arith.divui %[[Z]], %c3_i32
// CHECK-NEXT: arith.remui %[[Z]], %c3_i32
// CHECK: arith.cmpi ult, %{{.*}}, %c7_i32
// CHECK: amdgpu.raw_buffer_store %{{.*}} -> %arg2[{{.*}}] : vector<4xf32> -> memref<6x37x64xf32>
// CHECK-NOT: arith.maximumf
// CHECK: gpu.return

// The reduction: a rolled loop over slices 0, 1, 2 of the batch (batch index z * 3 + s,
// sent to 6 past M), summed in that order, then bias, relu and the conversion to f16,
// once.
// CHECK: gpu.func @[[R]](%arg0: memref<6x37x64xf32>, %arg1: memref<2x37x64xf16>, %arg2: memref<64xf16>) kernel
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 2, 2, 2>
// CHECK: %[[FIRST:.*]] = arith.muli %{{.*}}, %c3_i32
// CHECK: scf.for %[[S:.*]] = %c0_i32 to %c3_i32 step %c1_i32 iter_args(%[[T:.*]] = %cst) -> (vector<4xf32>)
// CHECK-NEXT: %[[Z:.*]] = arith.addi %[[FIRST]], %[[S]]
// CHECK-NEXT: %[[ZOK:.*]] = arith.select %{{.*}}, %[[Z]], %c6_i32
// CHECK-NEXT: %[[P:.*]] = amdgpu.raw_buffer_load %arg0[%[[ZOK]],
// CHECK-NEXT: arith.addf %[[T]], %[[P]] : vector<4xf32>
// CHECK: } {loop_annotation
// CHECK: amdgpu.raw_buffer_load %arg2
// CHECK: arith.maximumf
// CHECK: arith.truncf {{.*}} : vector<4xf32> to vector<4xf16>
// CHECK: amdgpu.raw_buffer_store {{.*}} -> %arg1
func.func @split(%a: memref<2x37x200xf16>, %b: memref<2x200x64xf16>, %c: memref<2x37x64xf16>, %bias: memref<64xf16>) {
  "accel.gemm"(%a, %b, %c, %bias) {arch = "gfx942", a_layout = "row", b_layout = "row", c_layout = "row", epilogue = "bias_relu", perf_config = "v4:32,32,4,32,32,32,8,3,1,2,0,0,1,1"} : (memref<2x37x200xf16>, memref<2x200x64xf16>, memref<2x37x64xf16>, memref<64xf16>) -> ()
  return
}
