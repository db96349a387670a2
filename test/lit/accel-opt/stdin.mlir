// Input from stdin, with no file argument or with "-".
// RUN: accel-opt < %s | FileCheck %s
// RUN: accel-opt - < %s | FileCheck %s

// CHECK: module {
// CHECK-NEXT: func.func @f(%arg0: memref<1x16x16xf16>, %arg1: memref<1x16x16xf16>, %arg2: memref<1x16x16xf32>)
// CHECK-NEXT: "accel.gemm"(%arg0, %arg1, %arg2) {arch = "gfx1100"}
func.func @f(%a: memref<1x16x16xf16>, %b: memref<1x16x16xf16>, %c: memref<1x16x16xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx1100"} : (memref<1x16x16xf16>, memref<1x16x16xf16>, memref<1x16x16xf32>) -> ()
  return
}
