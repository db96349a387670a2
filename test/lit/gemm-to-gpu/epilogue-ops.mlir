// RUN: accel-opt %s --accel-affix-perf-config --accel-plan-kernel --accel-gemm-to-gpu | FileCheck %s
// An op-list epilogue (codegen/epilogue.py): the extra operands follow C as kernel
// arguments; a per-row ("m") operand is loaded as one f32 and broadcast, a scalar ("")
// one once, widened from f16; sigmoid is 1 / (1 + exp(-x)) in f32, then one conversion.
// CHECK:      gpu.func @accel_gemm_g1_m32_n40_k32_f16_f16_ep_mul_sigmoid_add_{{[0-9a-f]+}}_gfx1201(%{{.*}}: memref<1x32x32xf16>, %{{.*}}: memref<1x32x40xf16>, %[[C:.*]]: memref<1x32x40xf16>, %[[S:.*]]: memref<32xf32>, %[[T:.*]]: memref<1xf16>)
// CHECK:      %[[TV:.*]] = amdgpu.raw_buffer_load %[[T]][%{{.*}}] : memref<1xf16>, i32 -> f16
// CHECK-NEXT: %[[TW:.*]] = arith.extf %[[TV]] : f16 to f32
// CHECK-NEXT: %[[TB:.*]] = vector.broadcast %[[TW]] : f32 to vector<8xf32>
// CHECK:      %[[SV:.*]] = amdgpu.raw_buffer_load %[[S]][%{{.*}}] : memref<32xf32>, i32 -> f32
// CHECK-NEXT: %[[SB:.*]] = vector.broadcast %[[SV]] : f32 to vector<8xf32>
// CHECK-NEXT: %[[X:.*]] = arith.mulf %{{.*}}, %[[SB]] : vector<8xf32>
// CHECK-NEXT: %[[N:.*]] = arith.negf %[[X]] : vector<8xf32>
// CHECK-NEXT: %[[E:.*]] = math.exp %[[N]] : vector<8xf32>
// CHECK:      %[[D:.*]] = arith.addf %{{.*}}, %[[E]] : vector<8xf32>
// CHECK-NEXT: %[[SIG:.*]] = arith.divf %{{.*}}, %[[D]] : vector<8xf32>
// CHECK-NEXT: %[[Y:.*]] = arith.addf %[[SIG]], %[[TB]] : vector<8xf32>
// CHECK-NEXT: %[[O:.*]] = arith.truncf %[[Y]] : vector<8xf32> to vector<8xf16>
// CHECK-NEXT: amdgpu.raw_buffer_store %[[O]] -> %[[C]]
func.func @f(%a: memref<1x32x32xf16>, %b: memref<1x32x40xf16>, %c: memref<1x32x40xf16>, %s: memref<32xf32>, %t: memref<1xf16>) {
  "accel.gemm"(%a, %b, %c, %s, %t) {arch = "gfx1201", epilogue = "%0 = mul %acc, %e0; %1 = sigmoid %0; %2 = add %1, %e1", epilogue_operands = ["m", ""]} : (memref<1x32x32xf16>, memref<1x32x40xf16>, memref<1x32x40xf16>, memref<32xf32>, memref<1xf16>) -> ()
  return
}
