// RUN: accel-opt %s | FileCheck %s
// Printing is a fixed point: the printed form parses back to the same text.
// RUN: accel-opt %s | accel-opt | FileCheck %s

// CHECK-LABEL: func.func @gemm_row
// CHECK: "accel.gemm"(%arg0, %arg1, %arg2) {a_layout = "row", arch = "gfx942", b_layout = "row", c_layout = "row"} : (memref<2x64x32xf16>, memref<2x32x48xf16>, memref<2x64x48xf32>) -> ()
func.func @gemm_row(%a: memref<2x64x32xf16>, %b: memref<2x32x48xf16>, %c: memref<2x64x48xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", a_layout = "row", b_layout = "row", c_layout = "row"} : (memref<2x64x32xf16>, memref<2x32x48xf16>, memref<2x64x48xf32>) -> ()
  return
}

// CHECK-LABEL: func.func @gemm_transposed_accumulate
// CHECK: "accel.gemm"(%arg0, %arg1, %arg2) {a_layout = "transposed", accumulate, arch = "gfx1100", b_layout = "transposed", c_layout = "row"} : (memref<1x32x64xbf16>, memref<1x48x32xbf16>, memref<1x64x48xf32>) -> ()
func.func @gemm_transposed_accumulate(%a: memref<1x32x64xbf16>, %b: memref<1x48x32xbf16>, %c: memref<1x64x48xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx1100", a_layout = "transposed", b_layout = "transposed", c_layout = "row", accumulate} : (memref<1x32x64xbf16>, memref<1x48x32xbf16>, memref<1x64x48xf32>) -> ()
  return
}

// M=64, N=48 (padded to 64), K=128 in the perf config's blocking: mPerBlock = nPerBlock = 32,
// kpackPerBlock 8, kpack 8, so kPerBlock 64.
// CHECK-LABEL: func.func @gemm_accel
// CHECK: "accel.gemm"(%arg0, %arg1, %arg2) {a_layout = "accel", arch = "gfx1201", b_layout = "accel", c_layout = "row", perf_config = "v4:32,32,8,16,16,16,8,1,2,2,0,0,1,1"} : (memref<1x2x2x8x32x8xi8>, memref<1x2x2x8x32x8xi8>, memref<1x64x48xi32>) -> ()
func.func @gemm_accel(%a: memref<1x2x2x8x32x8xi8>, %b: memref<1x2x2x8x32x8xi8>, %c: memref<1x64x48xi32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx1201", a_layout = "accel", b_layout = "accel", c_layout = "row", perf_config = "v4:32,32,8,16,16,16,8,1,2,2,0,0,1,1"} : (memref<1x2x2x8x32x8xi8>, memref<1x2x2x8x32x8xi8>, memref<1x64x48xi32>) -> ()
  return
}

// f32 inputs are an MFMA-only type (gfx942).
// CHECK-LABEL: func.func @gemm_f32_gfx942
// CHECK: "accel.gemm"(%arg0, %arg1, %arg2) {arch = "gfx942"} : (memref<1x16x4xf32>, memref<1x4x16xf32>, memref<1x16x16xf32>) -> ()
func.func @gemm_f32_gfx942(%a: memref<1x16x4xf32>, %b: memref<1x4x16xf32>, %c: memref<1x16x16xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942"} : (memref<1x16x4xf32>, memref<1x4x16xf32>, memref<1x16x16xf32>) -> ()
  return
}

// C in the accel layout [G, M/mPB, N/kPB, kpackPB, mPB, kpack]: M=64, N=48 in blocks of 32.
// CHECK-LABEL: func.func @gemm_c_accel
// CHECK: "accel.gemm"(%arg0, %arg1, %arg2) {arch = "gfx942", c_layout = "accel"} : (memref<1x64x32xf16>, memref<1x32x48xf16>, memref<1x2x2x8x32x4xf32>) -> ()
func.func @gemm_c_accel(%a: memref<1x64x32xf16>, %b: memref<1x32x48xf16>, %c: memref<1x2x2x8x32x4xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", c_layout = "accel"} : (memref<1x64x32xf16>, memref<1x32x48xf16>, memref<1x2x2x8x32x4xf32>) -> ()
  return
}

// A and C in the accel layout: `m` is the exact M (45 of the 64 rows), needed by a bias;
// relu keeps a zero padding row zero and may go without it.
// CHECK-LABEL: func.func @gemm_a_c_accel
// CHECK: "accel.gemm"(%arg0, %arg1, %arg2, %arg3) {a_layout = "accel", arch = "gfx942", c_layout = "accel", epilogue = "bias", m = 45 : i64}
// CHECK: "accel.gemm"(%arg0, %arg1, %arg2) {a_layout = "accel", arch = "gfx942", c_layout = "accel", epilogue = "relu"}
func.func @gemm_a_c_accel(%a: memref<1x2x1x8x32x4xf16>, %b: memref<1x32x48xf16>, %c: memref<1x2x2x8x32x4xf32>, %bias: memref<48xf32>) {
  "accel.gemm"(%a, %b, %c, %bias) {arch = "gfx942", a_layout = "accel", c_layout = "accel", epilogue = "bias", m = 45 : i64} : (memref<1x2x1x8x32x4xf16>, memref<1x32x48xf16>, memref<1x2x2x8x32x4xf32>, memref<48xf32>) -> ()
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", a_layout = "accel", c_layout = "accel", epilogue = "relu"} : (memref<1x2x1x8x32x4xf16>, memref<1x32x48xf16>, memref<1x2x2x8x32x4xf32>) -> ()
  return
}

// Fused epilogues: relu alone, and bias [N] (or [G, N]) + relu with the bias as 4th operand.
// CHECK-LABEL: func.func @gemm_epilogues
// CHECK: "accel.gemm"(%arg0, %arg1, %arg2) {arch = "gfx1100", epilogue = "relu"} : (memref<2x64x32xf16>, memref<2x32x48xf16>, memref<2x64x48xf32>) -> ()
// CHECK: "accel.gemm"(%arg0, %arg1, %arg2, %arg3) {arch = "gfx1100", epilogue = "bias_relu"} : (memref<2x64x32xf16>, memref<2x32x48xf16>, memref<2x64x48xf32>, memref<48xf32>) -> ()
// CHECK: "accel.gemm"(%arg0, %arg1, %arg2, %arg4) {arch = "gfx1100", epilogue = "bias"} : (memref<2x64x32xf16>, memref<2x32x48xf16>, memref<2x64x48xf32>, memref<2x48xf32>) -> ()
func.func @gemm_epilogues(%a: memref<2x64x32xf16>, %b: memref<2x32x48xf16>, %c: memref<2x64x48xf32>, %bias: memref<48xf32>, %gbias: memref<2x48xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx1100", epilogue = "relu"} : (memref<2x64x32xf16>, memref<2x32x48xf16>, memref<2x64x48xf32>) -> ()
  "accel.gemm"(%a, %b, %c, %bias) {arch = "gfx1100", epilogue = "bias_relu"} : (memref<2x64x32xf16>, memref<2x32x48xf16>, memref<2x64x48xf32>, memref<48xf32>) -> ()
  "accel.gemm"(%a, %b, %c, %gbias) {arch = "gfx1100", epilogue = "bias"} : (memref<2x64x32xf16>, memref<2x32x48xf16>, memref<2x64x48xf32>, memref<2x48xf32>) -> ()
  return
}

// A 1x128x5120 operand in seed 001's blocking (mPerBlock 32, kpackPerBlock 8, kpack 8).
// CHECK-LABEL: func.func @pack_unpack
// CHECK: "accel.pack"(%arg0, %arg1) {transposed = false} : (memref<1x128x5120xf16>, memref<1x4x80x8x32x8xf16>) -> ()
// CHECK: "accel.pack"(%arg2, %arg3) {transposed = true} : (memref<1x5120x100xf16>, memref<1x4x80x8x32x8xf16>) -> ()
// CHECK: "accel.unpack"(%arg1, %arg0) {transposed = false} : (memref<1x4x80x8x32x8xf16>, memref<1x128x5120xf16>) -> ()
func.func @pack_unpack(%plain: memref<1x128x5120xf16>, %packed: memref<1x4x80x8x32x8xf16>,
                       %plain_t: memref<1x5120x100xf16>, %packed_t: memref<1x4x80x8x32x8xf16>) {
  "accel.pack"(%plain, %packed) {transposed = false} : (memref<1x128x5120xf16>, memref<1x4x80x8x32x8xf16>) -> ()
  "accel.pack"(%plain_t, %packed_t) {transposed = true} : (memref<1x5120x100xf16>, memref<1x4x80x8x32x8xf16>) -> ()
  "accel.unpack"(%packed, %plain) {transposed = false} : (memref<1x4x80x8x32x8xf16>, memref<1x128x5120xf16>) -> ()
  return
}

// An op-list epilogue with its operand kinds (dialect/epilogue_program.py).
// CHECK-LABEL: func.func @gemm_epilogue_ops
// CHECK: "accel.gemm"(%arg0, %arg1, %arg2, %arg3, %arg4) {arch = "gfx942", epilogue = "%0 = add %acc, %e0; %1 = clip %0, -1.5, %e1; %2 = convert_bf16 %1", epilogue_operands = ["gn", ""]} : (memref<2x64x32xf16>, memref<2x32x48xf16>, memref<2x64x48xf16>, memref<2x48xf16>, memref<1xf32>) -> ()
func.func @gemm_epilogue_ops(%a: memref<2x64x32xf16>, %b: memref<2x32x48xf16>, %c: memref<2x64x48xf16>, %bias: memref<2x48xf16>, %hi: memref<1xf32>) {
  "accel.gemm"(%a, %b, %c, %bias, %hi) {arch = "gfx942", epilogue = "%0 = add %acc, %e0; %1 = clip %0, -1.5, %e1; %2 = convert_bf16 %1", epilogue_operands = ["gn", ""]} : (memref<2x64x32xf16>, memref<2x32x48xf16>, memref<2x64x48xf16>, memref<2x48xf16>, memref<1xf32>) -> ()
  return
}
