// RUN: accel-opt %s --pass-pipeline='builtin.module(accel-plan-kernel, accel-gemm-to-gpu)' | FileCheck %s

// A fused bias + relu epilogue (codegen/epilogue.py): the bias is the kernel's 4th
// argument; per column vector it is loaded with the N-edge mask (an index past N reads
// 0), widened, added in f32, clamped at 0 and converted to f16 once, before the store.
// CHECK-LABEL: func.func @f
// CHECK:       gpu.launch_func @[[FUSED:accel_gemm_g1_m32_n40_k32_f16_f16_bias_relu_gfx1201]]::@[[FUSED]] {{.*}} args(%arg0 : memref<1x32x32xf16>, %arg1 : memref<1x32x40xf16>, %arg2 : memref<1x32x40xf16>, %arg3 : memref<40xf16>)
// CHECK:       gpu.launch_func @[[ACCEL:accel_gemm_g1_m32_n40_k32_f16_f32_rrx_gfx942]]::@[[ACCEL]]
// CHECK-LABEL: gpu.module @accel_gemm_g1_m32_n40_k32_f16_f16_bias_relu_gfx1201
// CHECK:       gpu.func @{{.*}}(%[[A:.*]]: memref<1x32x32xf16>, %[[B:.*]]: memref<1x32x40xf16>, %[[C:.*]]: memref<1x32x40xf16>, %[[BIAS:.*]]: memref<40xf16>)
// CHECK:       %[[BI:.*]] = arith.select %{{.*}}, %{{.*}}, %c40_i32 : i32
// CHECK-NEXT:  %[[BV:.*]] = amdgpu.raw_buffer_load %[[BIAS]][%[[BI]]] : memref<40xf16>, i32 -> vector<8xf16>
// CHECK-NEXT:  %[[BW:.*]] = arith.extf %[[BV]] : vector<8xf16> to vector<8xf32>
// CHECK:       %[[SUM:.*]] = arith.addf %{{.*}}, %[[BW]] : vector<8xf32>
// CHECK-NEXT:  %[[RELU:.*]] = arith.maximumf %[[SUM]], %{{.*}} : vector<8xf32>
// CHECK-NEXT:  %[[OUT:.*]] = arith.truncf %[[RELU]] : vector<8xf32> to vector<8xf16>
// CHECK-NEXT:  amdgpu.raw_buffer_store %[[OUT]] -> %[[C]][{{.*}}] : vector<8xf16> -> memref<1x32x40xf16>, i32, i32, i32
// C in the accel layout [G, M/mPB, N/kPB, kpackPB, mPB, kpack] (kPB = 2 x 8 = 16, N=40
// padded to 48): six indices, a 4-column f32 vector inside one kpack run.
// CHECK-LABEL: gpu.module @accel_gemm_g1_m32_n40_k32_f16_f32_rrx_gfx942
// CHECK:       amdgpu.raw_buffer_store %{{.*}} -> %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : vector<4xf32> -> memref<1x1x3x2x32x8xf32>, i32, i32, i32, i32, i32, i32
func.func @f(%a: memref<1x32x32xf16>, %b: memref<1x32x40xf16>, %c: memref<1x32x40xf16>, %bias: memref<40xf16>,
             %cx: memref<1x1x3x2x32x8xf32>) {
  "accel.gemm"(%a, %b, %c, %bias) {arch = "gfx1201", epilogue = "bias_relu", perf_config = "v4:32,16,4,16,16,16,8,1,1,2,0,0,1,1"} : (memref<1x32x32xf16>, memref<1x32x40xf16>, memref<1x32x40xf16>, memref<40xf16>) -> ()
  "accel.gemm"(%a, %b, %cx) {arch = "gfx942", c_layout = "accel", perf_config = "v4:32,16,2,16,16,16,8,1,1,2,0,0,1,1"} : (memref<1x32x32xf16>, memref<1x32x40xf16>, memref<1x1x3x2x32x8xf32>) -> ()
  return
}
