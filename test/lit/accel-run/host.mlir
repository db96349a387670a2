// accel-run host runs a host function (after the accel passes) with its kernel
// launches on random inputs.
// RUN: accel-opt %s --pass-pipeline='builtin.module(accel-affix-perf-config, accel-layout{a=accel}, accel-lower-pack, accel-plan-kernel, accel-gemm-to-gpu)' -o %t.mlir
// RUN: accel-run host %t.mlir --func gemm | FileCheck %s
// CHECK:      host function @gemm on gfx1100: 2 kernel launches
// CHECK-NEXT:   accel_pack_{{.*}}: grid
// CHECK-NEXT:   accel_gemm_{{.*}}: grid
// CHECK-NEXT: argument #0 (1x20x24xf16): unchanged
// CHECK-NEXT: argument #1 (1x24x18xf16): unchanged
// CHECK-NEXT: argument #2 (1x20x18xf32): 360 elements changed
// CHECK-NEXT: LDS races: 0
func.func @gemm(%a: memref<1x20x24xf16>, %b: memref<1x24x18xf16>, %c: memref<1x20x18xf32>) attributes {arch = "gfx1100"} {
  "accel.gemm"(%a, %b, %c) {arch = "gfx1100", a_layout = "row", b_layout = "row", c_layout = "row"} : (memref<1x20x24xf16>, memref<1x24x18xf16>, memref<1x20x18xf32>) -> ()
  return
}
