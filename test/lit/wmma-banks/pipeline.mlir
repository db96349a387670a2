// On WMMA chips the kernel pipeline serializes through accel-wmma-banks: LLVM puts each
// v_wmma's A, B and C on one VGPR bank (34 instead of 32 cycles, seed 002); the pass
// renumbers the kernel's VGPRs and says so in the assembly's first line.
// RUN: sed 's/##ARCH##/gfx1100/' %s | accel-opt --accel-kernel-pipeline='arch=gfx1100 format=isa' | FileCheck %s --check-prefix=WMMA
// RUN: sed 's/##ARCH##/gfx1201/' %s | accel-opt --accel-kernel-pipeline='arch=gfx1201 format=isa' | FileCheck %s --check-prefix=WMMA
// RUN: sed 's/##ARCH##/gfx942/' %s | accel-opt --accel-kernel-pipeline='arch=gfx942 format=isa' | FileCheck %s --check-prefix=MFMA
// The pass alone, after LLVM's assembly, gives the same text.
// RUN: sed 's/##ARCH##/gfx1100/' %s | accel-opt --pass-pipeline='builtin.module(accel-affix-perf-config, accel-plan-kernel, accel-gemm-to-gpu, gpu.module(convert-scf-to-cf, convert-amdgpu-to-rocdl{chipset=gfx1100}, convert-gpu-to-rocdl{chipset=gfx1100 use-bare-ptr-memref-call-conv=true}), rocdl-attach-target{chip=gfx1100}, gpu-to-llvm{use-bare-pointers-for-kernels=true}, gpu-module-to-binary{format=isa}, accel-wmma-banks{format=isa})' | FileCheck %s --check-prefix=WMMA

// A 32x32 tile of 2x2 waves, 16x16 each: 2 k-steps of one WMMA per k-tile of 32.
// WMMA: gpu.binary @accel_gemm_g1_m32_n32_k64_f16_f32
// WMMA-SAME: assembly = "; accel-wmma-banks: 2 of 2 v_wmma on three VGPR banks (as allocated: 0), VGPRs renumbered
// WMMA-SAME: v_wmma_f32_16x16x16_f16
// MFMA: gpu.binary @accel_gemm_g1_m32_n32_k64_f16_f32_gfx942
// MFMA-NOT: accel-wmma-banks
func.func @f(%a: memref<1x32x64xf16>, %b: memref<1x64x32xf16>, %c: memref<1x32x32xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "##ARCH##", a_layout = "row", b_layout = "row", c_layout = "row", perf_config = "v4:32,32,4,16,16,16,8,1,1,2,0,0,1,1"} : (memref<1x32x64xf16>, memref<1x64x32xf16>, memref<1x32x32xf32>) -> ()
  return
}
