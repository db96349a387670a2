// Forced accel layout on runtime operands: a 6-D buffer, an accel.pack before the gemm.
// RUN: accel-opt %s --pass-pipeline='builtin.module(accel-layout{a=accel b=accel})' | FileCheck %s
// In auto, runtime operands stay as they are.
// RUN: accel-opt %s --accel-layout | FileCheck %s --check-prefix=AUTO

// A row [1, 77, 40] (ragged M and K) and B row [1, 40, 50], which is [G, K, D].
// CHECK-LABEL: func.func @ragged
// CHECK-NEXT: %[[PA:.*]] = memref.alloc() : memref<1x3x3x4x32x4xf16>
// CHECK-NEXT: "accel.pack"(%arg0, %[[PA]]) {transposed = false}
// CHECK-NEXT: %[[PB:.*]] = memref.alloc() : memref<1x2x3x4x32x4xf16>
// CHECK-NEXT: "accel.pack"(%arg1, %[[PB]]) {transposed = true}
// CHECK-NEXT: "accel.gemm"(%[[PA]], %[[PB]], %arg2) {a_layout = "accel", arch = "gfx942", b_layout = "accel"
// CHECK-NEXT: memref.dealloc %[[PB]]
// CHECK-NEXT: memref.dealloc %[[PA]]
// AUTO-LABEL: func.func @ragged
// AUTO-NEXT: "accel.gemm"(%arg0, %arg1, %arg2) {a_layout = "row", arch = "gfx942", b_layout = "row"
func.func @ragged(%a: memref<1x77x40xf16>, %b: memref<1x40x50xf16>, %c: memref<1x77x50xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", a_layout = "row", b_layout = "row", c_layout = "row", perf_config = "v4:32,32,4,16,16,16,4,1,1,2,0,0,1,1"} : (memref<1x77x40xf16>, memref<1x40x50xf16>, memref<1x77x50xf32>) -> ()
  return
}
