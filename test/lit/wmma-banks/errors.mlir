// accel-wmma-banks works on assembly: a code object is refused with a diagnostic.
// RUN: not accel-opt %s --pass-pipeline='builtin.module(accel-wmma-banks)' 2>&1 | FileCheck %s
// CHECK: error: 'accel-wmma-banks' takes gpu.binary assembly (gpu-module-to-binary{format=isa})
module attributes {gpu.container_module} {
  gpu.binary @k [#gpu.object<#rocdl.target<chip = "gfx1100">, bin = "\7FELF">]
}
