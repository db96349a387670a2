// The pack kernel lowers to AMDGPU buffer instructions.
// RUN: accel-opt %s --pass-pipeline='builtin.module(accel-lower-pack, gpu.module(convert-amdgpu-to-rocdl{chipset=gfx942}, convert-gpu-to-rocdl{use-bare-ptr-memref-call-conv=true}), rocdl-attach-target{chip=gfx942}, gpu-to-llvm{use-bare-pointers-for-kernels=true}, gpu-module-to-binary{format=isa})' | FileCheck %s

// CHECK: gpu.binary @accel_pack_1x5x7_2x8x4_i8
// CHECK-SAME: buffer_load_{{[ui]}}byte
// CHECK-SAME: buffer_store_byte
func.func @pack(%a: memref<1x5x7xi8>, %p: memref<1x1x1x2x8x4xi8>) {
  "accel.pack"(%a, %p) {transposed = false} : (memref<1x5x7xi8>, memref<1x1x1x2x8x4xi8>) -> ()
  return
}
