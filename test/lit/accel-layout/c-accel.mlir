// c=accel: the gemm writes C as [G, M/mPB, N/kPB, kpackPB, mPB, kpack] and an
// accel.unpack copies it into the plain C for its consumers.
// RUN: accel-opt %s --split-input-file --accel-layout='c=accel' | FileCheck %s

// CHECK-LABEL: func.func @overwrite
// CHECK-NEXT: %[[C6:.*]] = memref.alloc() : memref<1x3x4x4x32x4xf32>
// CHECK-NEXT: "accel.gemm"(%arg0, %arg1, %[[C6]]) {{{.*}}c_layout = "accel"
// CHECK-NEXT: "accel.unpack"(%[[C6]], %arg2) {transposed = false}
// CHECK-NEXT: memref.dealloc %[[C6]]
func.func @overwrite(%a: memref<1x77x40xf16>, %b: memref<1x40x50xf16>, %c: memref<1x77x50xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", a_layout = "row", b_layout = "row", c_layout = "row", perf_config = "v4:32,32,4,16,16,16,4,1,1,2,0,0,1,1"} : (memref<1x77x40xf16>, memref<1x40x50xf16>, memref<1x77x50xf32>) -> ()
  return
}

// -----

// With accumulate the gemm adds into C, so C is packed first.
// CHECK-LABEL: func.func @accumulate
// CHECK-NEXT: %[[C6:.*]] = memref.alloc() : memref<1x3x4x4x32x4xf32>
// CHECK-NEXT: "accel.pack"(%arg2, %[[C6]]) {transposed = false}
// CHECK-NEXT: "accel.gemm"(%arg0, %arg1, %[[C6]]) {{{.*}}c_layout = "accel"
// CHECK-NEXT: "accel.unpack"(%[[C6]], %arg2) {transposed = false}
func.func @accumulate(%a: memref<1x77x40xf16>, %b: memref<1x40x50xf16>, %c: memref<1x77x50xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", a_layout = "row", b_layout = "row", c_layout = "row", accumulate, perf_config = "v4:32,32,4,16,16,16,4,1,1,2,0,0,1,1"} : (memref<1x77x40xf16>, memref<1x40x50xf16>, memref<1x77x50xf32>) -> ()
  return
}
