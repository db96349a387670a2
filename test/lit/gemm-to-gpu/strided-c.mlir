// RUN: accel-opt %s --pass-pipeline='builtin.module(accel-plan-kernel, accel-gemm-to-gpu)' | FileCheck %s

// C as a strided view (codegen/epilogue.py): rows 56 apart and a batch stride wider
// than the rows (a result type like <2x30x48xf16, 1920x56x1>; M = 30 ragged) take the
// same vector stores as a packed C, through the view's type.
// CHECK-LABEL: gpu.module @accel_gemm_g2_m30_n48_k32_f16_f16_sv{{[0-9a-f]+}}_gfx1201
// CHECK: amdgpu.raw_buffer_store %{{.*}} : vector<8xf16> -> memref<2x30x48xf16, strided<[1920, 56, 1], offset: 8>>, i32, i32, i32
// C transposed (M of stride 1, columns 40 apart): a lane's values are one row's
// consecutive columns, 40 elements apart, so each is stored alone, 8 stores where the
// packed C takes one.
// CHECK-LABEL: gpu.module @accel_gemm_g2_m30_n48_k32_f16_f16_sv{{[0-9a-f]+}}_gfx1201
// CHECK-NOT: vector<8xf16> -> memref<2x30x48xf16, strided<[1920, 1, 40]>>
// CHECK-COUNT-8: amdgpu.raw_buffer_store %{{.*}} : f16 -> memref<2x30x48xf16, strided<[1920, 1, 40]>>, i32, i32, i32
// CHECK-NOT: vector<8xf16> -> memref<2x30x48xf16, strided<[1920, 1, 40]>>
func.func @f(%a: memref<2x30x32xf16>, %b: memref<2x32x48xf16>,
             %c: memref<2x30x48xf16, strided<[1920, 56, 1], offset: 8>>,
             %t: memref<2x30x48xf16, strided<[1920, 1, 40]>>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx1201", perf_config = "v4:32,16,4,16,16,16,8,1,1,2,0,0,1,1"} : (memref<2x30x32xf16>, memref<2x32x48xf16>, memref<2x30x48xf16, strided<[1920, 56, 1], offset: 8>>) -> ()
  "accel.gemm"(%a, %b, %t) {arch = "gfx1201", perf_config = "v4:32,32,4,16,16,16,8,1,1,2,0,0,1,1"} : (memref<2x30x32xf16>, memref<2x32x48xf16>, memref<2x30x48xf16, strided<[1920, 1, 40]>>) -> ()
  return
}
