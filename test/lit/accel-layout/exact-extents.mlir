// A gemm left with A and C both in the accel layout gets `m`, the exact M read off the
// plain operand before the rewrite: neither 6-D shape holds it (45 rows pad to 64), and
// the kernel needs it to write C's padding rows as zeros under a bias. B and C: `n`.
// RUN: accel-opt %s --split-input-file --pass-pipeline='builtin.module(accel-layout{a=accel c=accel})' | FileCheck %s
// RUN: accel-opt %s --split-input-file --pass-pipeline='builtin.module(accel-layout{a=accel b=accel c=accel})' | FileCheck %s --check-prefix=BOTH

// A and C plain: M = 45 is A's (and C's) before both are packed.
// CHECK-LABEL: func.func @bias_relu
// CHECK: "accel.gemm"(%{{.*}}, %arg1, %{{.*}}, %arg3) {a_layout = "accel", arch = "gfx942", c_layout = "accel", epilogue = "bias_relu", m = 45 : i64,
// CHECK-SAME: (memref<1x2x3x4x32x4xf16>, memref<1x40x50xf16>, memref<1x2x4x4x32x4xf32>, memref<50xf32>)
// With B packed too, N = 50 (padded to 64) is recorded as well.
// BOTH-LABEL: func.func @bias_relu
// BOTH: "accel.gemm"({{.*}}) {a_layout = "accel", arch = "gfx942", b_layout = "accel", c_layout = "accel", epilogue = "bias_relu", m = 45 : i64, n = 50 : i64,
func.func @bias_relu(%a: memref<1x45x40xf16>, %b: memref<1x40x50xf16>, %c: memref<1x45x50xf32>, %bias: memref<50xf32>) {
  "accel.gemm"(%a, %b, %c, %bias) {arch = "gfx942", epilogue = "bias_relu", perf_config = "v4:32,32,4,16,16,16,4,1,1,2,0,0,1,1"} : (memref<1x45x40xf16>, memref<1x40x50xf16>, memref<1x45x50xf32>, memref<50xf32>) -> ()
  return
}

// -----

// A already in the accel layout (M padded to 64): M = 33 is C's, before C is packed.
// CHECK-LABEL: func.func @a_from_the_caller
// CHECK: "accel.gemm"(%arg0, %arg1, %{{.*}}, %arg3) {a_layout = "accel", arch = "gfx942", c_layout = "accel", epilogue = "bias", m = 33 : i64,
func.func @a_from_the_caller(%a: memref<1x2x3x4x32x4xf16>, %b: memref<1x40x50xf16>, %c: memref<1x33x50xf32>, %bias: memref<50xf32>) {
  "accel.gemm"(%a, %b, %c, %bias) {arch = "gfx942", a_layout = "accel", epilogue = "bias", perf_config = "v4:32,32,4,16,16,16,4,1,1,2,0,0,1,1"} : (memref<1x2x3x4x32x4xf16>, memref<1x40x50xf16>, memref<1x33x50xf32>, memref<50xf32>) -> ()
  return
}

// -----

// Without an epilogue the exact M is recorded too (the kernel then masks rows past it).
// CHECK-LABEL: func.func @no_epilogue
// CHECK: "accel.gemm"({{.*}}) {a_layout = "accel", arch = "gfx942", c_layout = "accel", m = 1 : i64,
func.func @no_epilogue(%a: memref<1x1x40xf16>, %b: memref<1x40x50xf16>, %c: memref<1x1x50xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:32,32,4,16,16,16,4,1,1,2,0,0,1,1"} : (memref<1x1x40xf16>, memref<1x40x50xf16>, memref<1x1x50xf32>) -> ()
  return
}

// -----

// A and C both accel from the start: the pass leaves `m` as the IR gives it.
// CHECK-LABEL: func.func @already_accel
// CHECK: "accel.gemm"(%arg0, %arg1, %arg2, %arg3) {a_layout = "accel", arch = "gfx942", c_layout = "accel", epilogue = "bias", m = 50 : i64,
func.func @already_accel(%a: memref<1x2x3x4x32x4xf16>, %b: memref<1x40x50xf16>, %c: memref<1x2x4x4x32x4xf32>, %bias: memref<50xf32>) {
  "accel.gemm"(%a, %b, %c, %bias) {arch = "gfx942", a_layout = "accel", c_layout = "accel", epilogue = "bias", m = 50, perf_config = "v4:32,32,4,16,16,16,4,1,1,2,0,0,1,1"} : (memref<1x2x3x4x32x4xf16>, memref<1x40x50xf16>, memref<1x2x4x4x32x4xf32>, memref<50xf32>) -> ()
  return
}
