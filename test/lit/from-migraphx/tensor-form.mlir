// RUN: accel-opt --accel-from-migraphx=arch=gfx942 %s | FileCheck %s
// The older form of rocMLIR's tests: parenthesized operands, a quoted or bare op name,
// and tensor<...> types standing for packed row-major MIGraphX types.
// CHECK-LABEL: func.func @dot_add(%{{.*}}: memref<1x5x4xf32>, %{{.*}}: memref<1x4x3xf32>, %{{.*}}: memref<1x5x3xf32>, %{{.*}}: memref<1x5x3xf32>)
// CHECK: "accel.gemm"(%arg0, %arg1, %arg3, %arg2) {{.*}}epilogue = "%0 = add %acc, %e0", epilogue_operands = ["gmn"]}
func.func @dot_add(%arg0: tensor<1x5x4xf32>, %arg1: tensor<1x4x3xf32>, %arg2: tensor<1x5x3xf32>) -> tensor<1x5x3xf32> attributes {kernel, arch = ""} {
  %0 = "migraphx.dot"(%arg0, %arg1) : (tensor<1x5x4xf32>, tensor<1x4x3xf32>) -> tensor<1x5x3xf32>
  %2 = migraphx.add(%0, %arg2) {} : (tensor<1x5x3xf32>, tensor<1x5x3xf32>)-> tensor<1x5x3xf32>
  return %2 : tensor<1x5x3xf32>
}
