// An elementwise kernel and a row reduction become code on every chip (the assembly
// here): 128-bit loads and stores of f32 vectors, the exp as v_exp_f32, the row loop.
// RUN: sed s/ARCH/gfx942/ %s | accel-opt - --accel-kernel-pipeline='arch=gfx942 format=isa' | FileCheck %s --check-prefixes=CHECK,GFX9
// RUN: sed s/ARCH/gfx1100/ %s | accel-opt - --accel-kernel-pipeline='arch=gfx1100 format=isa' | FileCheck %s --check-prefixes=CHECK,RDNA
// RUN: sed s/ARCH/gfx1201/ %s | accel-opt - --accel-kernel-pipeline='arch=gfx1201 format=isa' | FileCheck %s --check-prefixes=CHECK,RDNA

// CHECK: gpu.binary @[[MAP:accel_elementwise_2x37x64_[0-9a-f]+]]
// GFX9: buffer_load_dwordx4
// RDNA: buffer_load_{{dwordx4|b128}}
// CHECK: v_exp_f32
// GFX9: buffer_store_dwordx4
// RDNA: buffer_store_{{dwordx4|b128}}
// CHECK: gpu.binary @[[RED:accel_reduce_sum_2x37x64_[0-9a-f]+]]
// CHECK: v_exp_f32
// CHECK: s_cbranch
func.func @f(%x: memref<2x37x64xf32>, %s: memref<37xf32>, %o: memref<2x37x64xf32>, %r: memref<2x37x1xf32>) {
  "accel.elementwise"(%x, %s, %o) {arch = "ARCH", operands = ["gmn", "m"], program = "%0 = mul %e0, %e1; %1 = exp %0"} : (memref<2x37x64xf32>, memref<37xf32>, memref<2x37x64xf32>) -> ()
  "accel.elementwise"(%x, %s, %r) {arch = "ARCH", operands = ["gmn", "m"], program = "%0 = mul %e0, %e1; %1 = exp %0", reduce = "sum", n = 64} : (memref<2x37x64xf32>, memref<37xf32>, memref<2x37x1xf32>) -> ()
  return
}
