// RUN: accel-opt --accel-from-migraphx=arch=gfx942 %s | FileCheck %s
// A constant spelled as TOSA's (rocMLIR's mixr-gemm-inlined-const) is MIGraphX's literal:
// a private constant global, read by the epilogue as a scalar.
// CHECK: memref.global "private" constant @[[LIT:__migraphx_literal_[0-9]+]] : memref<1xf32> = dense<1.250000e-01>
// CHECK-LABEL: func.func @tosa_const
// CHECK: %[[S:.*]] = memref.get_global @[[LIT]] : memref<1xf32>
// CHECK: "accel.gemm"(%{{.*}}, %{{.*}}, %{{.*}}, %[[S]]) {{.*}}epilogue = "%0 = mul %acc, %e0", epilogue_operands = [""]}
func.func @tosa_const(%arg1: tensor<1x4x8xf32>, %arg2: tensor<1x8x4xf32>) -> tensor<1x4x4xf32> attributes {arch = ""} {
  %0 = "tosa.const"() {value = dense<1.250000e-01> : tensor<1xf32>} : () -> tensor<1xf32>
  %3 = migraphx.dot(%arg1, %arg2) : (tensor<1x4x8xf32>, tensor<1x8x4xf32>) -> tensor<1x4x4xf32>
  %4 = migraphx.multibroadcast(%0) {out_dyn_dims = [], out_lens = [1, 4, 4]} : (tensor<1xf32>) -> tensor<1x4x4xf32>
  %5 = migraphx.mul(%3, %4) : (tensor<1x4x4xf32>, tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
  return %5 : tensor<1x4x4xf32>
}
