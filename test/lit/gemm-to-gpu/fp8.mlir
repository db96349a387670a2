// RUN: accel-opt %s --pass-pipeline='builtin.module(accel-plan-kernel, accel-gemm-to-gpu)' | FileCheck %s

// gfx942, fp8 A x bf8 B on the 32x32x16 MFMA: each LDS tile keeps its operand's type
// (kpack 16 fp8 rows are 16 bytes: swizzled, one padding row per slab, 8 x (64 + 1) x 16).
// CHECK-LABEL: gpu.func @accel_gemm_g1_m64_n64_k128_f8E4M3FNUZ_f8E5M2FNUZ_f32_gfx942
// CHECK-SAME: workgroup(%{{.*}} : memref<8320xf8E4M3FNUZ, #gpu.address_space<workgroup>>, %{{.*}} : memref<8320xf8E5M2FNUZ, #gpu.address_space<workgroup>>)
// One 128-bit LDS read serves two k-steps (16 fp8 per lane).
// CHECK: vector.load %arg3[{{.*}}] : memref<8320xf8E4M3FNUZ, #gpu.address_space<workgroup>>, vector<16xf8E4M3FNUZ>
// The kernel computes C^T = B^T A^T: B (bf8) is the instruction's first source.
// CHECK: amdgpu.mfma 32x32x16 {{.*}} : vector<8xf8E5M2FNUZ>, vector<8xf8E4M3FNUZ>, vector<16xf32>

// gfx942 16x16x32, bf8 x bf8.
// CHECK-LABEL: gpu.func @accel_gemm_g1_m32_n32_k64_f8E5M2FNUZ_bf16_gfx942
// CHECK: amdgpu.mfma 16x16x32 {{.*}} : vector<8xf8E5M2FNUZ>, vector<8xf8E5M2FNUZ>, vector<4xf32>
// C rounded to bf16 in i32 ops, pairs packed by a byte permute (the plan's bf16_round).
// CHECK: llvm.call_intrinsic "llvm.amdgcn.perm"
// CHECK: vector.bitcast {{.*}} : vector<2xi32> to vector<4xbf16>

// gfx1201, the OCP pair on the 16x16x16 WMMA: 8 bytes per lane.
// CHECK-LABEL: gpu.func @accel_gemm_g1_m32_n32_k64_f8E5M2_f8E4M3FN_f16_gfx1201
// CHECK: amdgpu.wmma 16x16x16 {{.*}} : vector<8xf8E4M3FN>, vector<8xf8E5M2>, vector<8xf32>
func.func @f(%a: memref<1x64x128xf8E4M3FNUZ>, %b: memref<1x128x64xf8E5M2FNUZ>, %c: memref<1x64x64xf32>,
             %d: memref<1x32x64xf8E5M2FNUZ>, %e: memref<1x64x32xf8E5M2FNUZ>, %o: memref<1x32x32xbf16>,
             %x: memref<1x32x64xf8E5M2>, %y: memref<1x64x32xf8E4M3FN>, %z: memref<1x32x32xf16>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:64,64,8,32,32,32,16,1,1,2,0,0,1,1"} : (memref<1x64x128xf8E4M3FNUZ>, memref<1x128x64xf8E5M2FNUZ>, memref<1x64x64xf32>) -> ()
  "accel.gemm"(%d, %e, %o) {arch = "gfx942", perf_config = "v4:32,32,4,16,16,16,8,1,1,2,0,0,1,1"} : (memref<1x32x64xf8E5M2FNUZ>, memref<1x64x32xf8E5M2FNUZ>, memref<1x32x32xbf16>) -> ()
  "accel.gemm"(%x, %y, %z) {arch = "gfx1201", perf_config = "v4:32,32,4,16,16,16,8,1,1,2,0,0,1,1"} : (memref<1x32x64xf8E5M2>, memref<1x64x32xf8E4M3FN>, memref<1x32x32xf16>) -> ()
  return
}
