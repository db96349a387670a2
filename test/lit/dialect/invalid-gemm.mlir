// RUN: accel-opt %s --split-input-file --verify-diagnostics
// Each case breaks one rule of the accel.gemm verifier and expects its one diagnostic.

// Three operands, A, B and C.
func.func @case0(%a: memref<1x64x32xf16>, %b: memref<1x32x48xf16>, %c: memref<1x64x48xf32>) {
  // expected-error@+1 {{'accel.gemm' takes 3 operands (A, B, C), then a fused epilogue's, and has no results}}
  "accel.gemm"(%a, %b) {arch = "gfx942"} : (memref<1x64x32xf16>, memref<1x32x48xf16>) -> ()
  return
}

// -----

// No results: C is written in place.
func.func @case1(%a: memref<1x64x32xf16>, %b: memref<1x32x48xf16>, %c: memref<1x64x48xf32>) {
  // expected-error@+1 {{'accel.gemm' takes 3 operands (A, B, C), then a fused epilogue's, and has no results}}
  %r = "accel.gemm"(%a, %b, %c) {arch = "gfx942"} : (memref<1x64x32xf16>, memref<1x32x48xf16>, memref<1x64x48xf32>) -> i32
  return
}

// -----

// The arch is required.
func.func @case2(%a: memref<1x64x32xf16>, %b: memref<1x32x48xf16>, %c: memref<1x64x48xf32>) {
  // expected-error@+1 {{'accel.gemm' requires an 'arch' attribute}}
  "accel.gemm"(%a, %b, %c) {a_layout = "row"} : (memref<1x64x32xf16>, memref<1x32x48xf16>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// The arch must be known.
func.func @case3(%a: memref<1x64x32xf16>, %b: memref<1x32x48xf16>, %c: memref<1x64x48xf32>) {
  // expected-error@+1 {{unknown arch 'gfx90a' (supported: gfx942, gfx1100, gfx1201)}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx90a"} : (memref<1x64x32xf16>, memref<1x32x48xf16>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// The arch is a string.
func.func @case4(%a: memref<1x64x32xf16>, %b: memref<1x32x48xf16>, %c: memref<1x64x48xf32>) {
  // expected-error@+1 {{attribute 'arch' must be a string}}
  "accel.gemm"(%a, %b, %c) {arch = 942} : (memref<1x64x32xf16>, memref<1x32x48xf16>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// Operand layouts are row, transposed or accel.
func.func @case5(%a: memref<1x64x32xf16>, %b: memref<1x32x48xf16>, %c: memref<1x64x48xf32>) {
  // expected-error@+1 {{a_layout must be one of row, transposed, accel, got 'col'}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", a_layout = "col"} : (memref<1x64x32xf16>, memref<1x32x48xf16>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// C is row-major or in the accel layout.
func.func @case6(%a: memref<1x64x32xf16>, %b: memref<1x32x48xf16>, %c: memref<1x64x48xf32>) {
  // expected-error@+1 {{c_layout must be 'row' or 'accel', got 'transposed'}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", c_layout = "transposed"} : (memref<1x64x32xf16>, memref<1x32x48xf16>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// Operands are memrefs.
func.func @case7(%a: tensor<1x64x32xf16>, %b: memref<1x32x48xf16>, %c: memref<1x64x48xf32>) {
  // expected-error@+1 {{expected a memref operand, got tensor<1x64x32xf16>}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942"} : (tensor<1x64x32xf16>, memref<1x32x48xf16>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// Operands are statically shaped.
func.func @case8(%a: memref<?x64x32xf16>, %b: memref<1x32x48xf16>, %c: memref<1x64x48xf32>) {
  // expected-error@+1 {{expected a statically shaped memref, got memref<?x64x32xf16>}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942"} : (memref<?x64x32xf16>, memref<1x32x48xf16>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// A and B share one element type.
func.func @case9(%a: memref<1x64x32xf16>, %b: memref<1x32x48xbf16>, %c: memref<1x64x48xf32>) {
  // expected-error@+1 {{A and B element types differ: f16 vs bf16}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942"} : (memref<1x64x32xf16>, memref<1x32x48xbf16>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// f32 inputs need MFMA: not on RDNA3.
func.func @case10(%a: memref<1x64x32xf32>, %b: memref<1x32x48xf32>, %c: memref<1x64x48xf32>) {
  // expected-error@+1 {{element type f32 is not supported on gfx1100}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx1100"} : (memref<1x64x32xf32>, memref<1x32x48xf32>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// f32 inputs need MFMA: not on RDNA4.
func.func @case11(%a: memref<1x64x32xf32>, %b: memref<1x32x48xf32>, %c: memref<1x64x48xf32>) {
  // expected-error@+1 {{element type f32 is not supported on gfx1201}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx1201"} : (memref<1x64x32xf32>, memref<1x32x48xf32>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// No chip here multiplies f64.
func.func @case12(%a: memref<1x64x32xf64>, %b: memref<1x32x48xf64>, %c: memref<1x64x48xf32>) {
  // expected-error@+1 {{element type f64 is not supported on gfx942}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942"} : (memref<1x64x32xf64>, memref<1x32x48xf64>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// gfx1100 has no fp8 matrix instructions.
func.func @case13(%a: memref<1x64x32xf8E4M3FN>, %b: memref<1x32x48xf8E4M3FN>, %c: memref<1x64x48xf32>) {
  // expected-error@+1 {{gfx1100 has no fp8 matrix instructions (f8E4M3FN is not supported)}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx1100"} : (memref<1x64x32xf8E4M3FN>, memref<1x32x48xf8E4M3FN>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// gfx942's MFMAs take the FNUZ fp8 formats, not OCP's.
func.func @case13b(%a: memref<1x64x32xf8E4M3FN>, %b: memref<1x32x48xf8E4M3FN>, %c: memref<1x64x48xf32>) {
  // expected-error@+1 {{f8E4M3FN is an OCP fp8 format; gfx942 has the FNUZ formats f8E4M3FNUZ and f8E5M2FNUZ}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942"} : (memref<1x64x32xf8E4M3FN>, memref<1x32x48xf8E4M3FN>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// gfx1201's WMMAs take the OCP fp8 formats, not FNUZ's; B's type is checked too.
func.func @case13c(%a: memref<1x64x32xf8E4M3FN>, %b: memref<1x32x48xf8E5M2FNUZ>, %c: memref<1x64x48xf32>) {
  // expected-error@+1 {{f8E5M2FNUZ is an FNUZ fp8 format; gfx1201 has the OCP formats f8E4M3FN and f8E5M2}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx1201"} : (memref<1x64x32xf8E4M3FN>, memref<1x32x48xf8E5M2FNUZ>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// Only two fp8 formats may differ.
func.func @case13d(%a: memref<1x64x32xf8E4M3FNUZ>, %b: memref<1x32x48xi8>, %c: memref<1x64x48xf32>) {
  // expected-error@+1 {{A and B element types differ: f8E4M3FNUZ vs i8}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942"} : (memref<1x64x32xf8E4M3FNUZ>, memref<1x32x48xi8>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// fp8 accumulates in f32: no integer output.
func.func @case13e(%a: memref<1x64x32xf8E4M3FNUZ>, %b: memref<1x32x48xf8E5M2FNUZ>, %c: memref<1x64x48xi32>) {
  // expected-error@+1 {{output type i32 is not supported for f8E4M3FNUZ inputs (expected one of f32, f16, bf16)}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942"} : (memref<1x64x32xf8E4M3FNUZ>, memref<1x32x48xf8E5M2FNUZ>, memref<1x64x48xi32>) -> ()
  return
}

// -----

// i8 accumulates in i32.
func.func @case14(%a: memref<1x64x32xi8>, %b: memref<1x32x48xi8>, %c: memref<1x64x48xf32>) {
  // expected-error@+1 {{output type f32 is not supported for i8 inputs (expected one of i32)}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942"} : (memref<1x64x32xi8>, memref<1x32x48xi8>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// f16 does not accumulate into i32.
func.func @case15(%a: memref<1x64x32xf16>, %b: memref<1x32x48xf16>, %c: memref<1x64x48xi32>) {
  // expected-error@+1 {{output type i32 is not supported for f16 inputs (expected one of f32, f16, bf16)}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx1100"} : (memref<1x64x32xf16>, memref<1x32x48xf16>, memref<1x64x48xi32>) -> ()
  return
}

// -----

// No operand may be empty.
func.func @case16(%a: memref<1x64x0xf16>, %b: memref<1x0x48xf16>, %c: memref<1x64x48xf32>) {
  // expected-error@+1 {{A has a zero extent: [1, 64, 0]}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942"} : (memref<1x64x0xf16>, memref<1x0x48xf16>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// C is [G, M, N].
func.func @case17(%a: memref<1x64x32xf16>, %b: memref<1x32x48xf16>, %c: memref<64x48xf32>) {
  // expected-error@+1 {{C must be rank 3 [G, M, N], got rank 2}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942"} : (memref<1x64x32xf16>, memref<1x32x48xf16>, memref<64x48xf32>) -> ()
  return
}

// -----

// A in row layout is [G, M, K] (or [G, M, K1, K0]: K of two digits).
func.func @case18(%a: memref<64x32xf16>, %b: memref<1x32x48xf16>, %c: memref<1x64x48xf32>) {
  // expected-error@+1 {{A in 'row' layout must be rank 3 (or 4, [G, D, K1, K0], K-last), got rank 2}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942"} : (memref<64x32xf16>, memref<1x32x48xf16>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// A in accel layout is 6-D.
func.func @case19(%a: memref<1x64x32xf16>, %b: memref<1x32x48xf16>, %c: memref<1x64x48xf32>) {
  // expected-error@+1 {{A in 'accel' layout must be rank 6, got rank 3}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", a_layout = "accel"} : (memref<1x64x32xf16>, memref<1x32x48xf16>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// B in row layout is [G, K, N]: only a K-last operand may split K in two digits.
func.func @case20(%a: memref<1x64x32xf16>, %b: memref<1x32x48x1xf16>, %c: memref<1x64x48xf32>) {
  // expected-error@+1 {{B in 'row' layout must be rank 3, got rank 4}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942"} : (memref<1x64x32xf16>, memref<1x32x48x1xf16>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// Batch sizes agree.
func.func @case21(%a: memref<1x64x32xf16>, %b: memref<2x32x48xf16>, %c: memref<1x64x48xf32>) {
  // expected-error@+1 {{batch sizes disagree: A 1, B 2, C 1}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942"} : (memref<1x64x32xf16>, memref<2x32x48xf16>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// M of A agrees with C.
func.func @case22(%a: memref<1x65x32xf16>, %b: memref<1x32x48xf16>, %c: memref<1x64x48xf32>) {
  // expected-error@+1 {{A has M=65 but C has M=64}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942"} : (memref<1x65x32xf16>, memref<1x32x48xf16>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// N of a transposed B agrees with C.
func.func @case23(%a: memref<1x64x32xf16>, %b: memref<1x32x48xf16>, %c: memref<1x64x48xf32>) {
  // expected-error@+1 {{B has N=32 but C has N=48}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", b_layout = "transposed"} : (memref<1x64x32xf16>, memref<1x32x48xf16>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// K of A and B agree.
func.func @case24(%a: memref<1x64x32xf16>, %b: memref<1x16x48xf16>, %c: memref<1x64x48xf32>) {
  // expected-error@+1 {{K of A (32) and B (16) disagree}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942"} : (memref<1x64x32xf16>, memref<1x16x48xf16>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// A transposed is [G, K, M].
func.func @case25(%a: memref<1x64x32xf16>, %b: memref<1x32x48xf16>, %c: memref<1x64x48xf32>) {
  // expected-error@+1 {{A has M=32 but C has M=64}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", a_layout = "transposed"} : (memref<1x64x32xf16>, memref<1x32x48xf16>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// An accel A holds M padded to whole blocks: 3 blocks of 32 is too many for M=64.
func.func @case26(%a: memref<1x3x1x8x32x4xf16>, %b: memref<1x32x48xf16>, %c: memref<1x64x48xf32>) {
  // expected-error@+1 {{A accel layout holds M padded to 96, which does not match M=64 of C}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", a_layout = "accel"} : (memref<1x3x1x8x32x4xf16>, memref<1x32x48xf16>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// An accel B holds N padded to whole blocks: one block of 32 is too few for N=48.
func.func @case27(%a: memref<1x64x32xf16>, %b: memref<1x1x1x8x32x4xf16>, %c: memref<1x64x48xf32>) {
  // expected-error@+1 {{B accel layout holds N padded to 32, which does not match N=48 of C}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", b_layout = "accel"} : (memref<1x64x32xf16>, memref<1x1x1x8x32x4xf16>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// A plain K must fit the accel operand's padded K (here 2 blocks of 32 for K=32).
func.func @case28(%a: memref<1x64x32xf16>, %b: memref<1x2x2x8x32x4xf16>, %c: memref<1x64x48xf32>) {
  // expected-error@+1 {{K mismatch: plain operand has K=32, accel operand holds K padded to 64}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", b_layout = "accel"} : (memref<1x64x32xf16>, memref<1x2x2x8x32x4xf16>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// Two accel operands block K alike.
func.func @case29(%a: memref<1x2x1x8x32x4xf16>, %b: memref<1x2x1x4x32x8xf16>, %c: memref<1x64x48xf32>) {
  // expected-error@+1 {{A and B accel layouts block K differently: kpackPerBlock x kpack is 8x4 for A, 4x8 for B}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", a_layout = "accel", b_layout = "accel"} : (memref<1x2x1x8x32x4xf16>, memref<1x2x1x4x32x8xf16>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// Two accel operands hold the same padded K.
func.func @case30(%a: memref<1x2x1x8x32x4xf16>, %b: memref<1x2x2x8x32x4xf16>, %c: memref<1x64x48xf32>) {
  // expected-error@+1 {{padded K of A (32) and B (64) disagree}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", a_layout = "accel", b_layout = "accel"} : (memref<1x2x1x8x32x4xf16>, memref<1x2x2x8x32x4xf16>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// The perf config must parse; the message names the bad field.
func.func @case31(%a: memref<1x64x32xf16>, %b: memref<1x32x48xf16>, %c: memref<1x64x48xf32>) {
  // expected-error@+1 {{perf config 'v4:64,64,8,32,32,16,x,1,2,2,0,0,1,1': field 6 (kpack) is not an integer: 'x'}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:64,64,8,32,32,16,x,1,2,2,0,0,1,1"} : (memref<1x64x32xf16>, memref<1x32x48xf16>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// The perf config is a string.
func.func @case32(%a: memref<1x64x32xf16>, %b: memref<1x32x48xf16>, %c: memref<1x64x48xf32>) {
  // expected-error@+1 {{attribute 'perf_config' must be a string}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = 3} : (memref<1x64x32xf16>, memref<1x32x48xf16>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// An accel operand is blocked as the perf config says (here dPerBlock 32 vs mPerBlock 64).
func.func @case33(%a: memref<1x2x1x8x32x4xf16>, %b: memref<1x32x48xf16>, %c: memref<1x64x48xf32>) {
  // expected-error@+1 {{A accel layout [.., 8, 32, 4] disagrees with perf config v4:64,32,8,32,32,16,4,1,2,2,0,0,1,1 (expects kpackPerBlock=8, dPerBlock=64, kpack=4)}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", a_layout = "accel", perf_config = "v4:64,32,8,32,32,16,4,1,2,2,0,0,1,1"} : (memref<1x2x1x8x32x4xf16>, memref<1x32x48xf16>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// accumulate is a unit attribute.
func.func @case34(%a: memref<1x64x32xf16>, %b: memref<1x32x48xf16>, %c: memref<1x64x48xf32>) {
  // expected-error@+1 {{attribute 'accumulate' must be a unit attribute}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", accumulate = 1 : i32} : (memref<1x64x32xf16>, memref<1x32x48xf16>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// Launch attributes are integers.
func.func @case35(%a: memref<1x64x32xf16>, %b: memref<1x32x48xf16>, %c: memref<1x64x48xf32>) {
  // expected-error@+1 {{attribute 'block_size' must be an integer}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", block_size = "256"} : (memref<1x64x32xf16>, memref<1x32x48xf16>, memref<1x64x48xf32>) -> ()
  return
}
// -----

// C in the accel layout is 6-D.
func.func @c_accel_rank(%a: memref<1x64x32xf16>, %b: memref<1x32x48xf16>, %c: memref<1x64x48xf32>) {
  // expected-error@+1 {{C in 'accel' layout must be rank 6, got rank 3}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", c_layout = "accel"} : (memref<1x64x32xf16>, memref<1x32x48xf16>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// C in the accel layout holds M padded to whole blocks: 3 blocks of 32 is too many for M=64.
func.func @c_accel_m(%a: memref<1x64x32xf16>, %b: memref<1x32x48xf16>, %c: memref<1x3x2x8x32x4xf32>) {
  // expected-error@+1 {{C accel layout holds M padded to 96, which does not match M=64 of the operands}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", c_layout = "accel"} : (memref<1x64x32xf16>, memref<1x32x48xf16>, memref<1x3x2x8x32x4xf32>) -> ()
  return
}

// -----

// C in the accel layout is blocked as the perf config says (kpack 4 vs 8).
func.func @c_accel_config(%a: memref<1x64x32xf16>, %b: memref<1x32x48xf16>, %c: memref<1x2x2x8x32x4xf32>) {
  // expected-error@+1 {{C accel layout [1, 2, 2, 8, 32, 4] disagrees with perf config v4:32,32,8,16,16,16,8,1,2,2,0,0,1,1 (expects mPerBlock=32, kpackPerBlock=8, kpack=8)}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", c_layout = "accel", perf_config = "v4:32,32,8,16,16,16,8,1,2,2,0,0,1,1"} : (memref<1x64x32xf16>, memref<1x32x48xf16>, memref<1x2x2x8x32x4xf32>) -> ()
  return
}

// -----

// A and C in the accel layout hold M only padded: a bias would fill C's padding rows
// unless the gemm knows the exact M.
func.func @exact_m_missing(%a: memref<1x2x1x8x32x4xf16>, %b: memref<1x32x48xf16>, %c: memref<1x2x2x8x32x4xf32>, %bias: memref<48xf32>) {
  // expected-error@+1 {{A and C in the accel layout hold M only padded (to 64): epilogue 'bias_relu' needs attribute 'm' (the exact M) to keep C's padding rows zero}}
  "accel.gemm"(%a, %b, %c, %bias) {arch = "gfx942", a_layout = "accel", c_layout = "accel", epilogue = "bias_relu"} : (memref<1x2x1x8x32x4xf16>, memref<1x32x48xf16>, memref<1x2x2x8x32x4xf32>, memref<48xf32>) -> ()
  return
}

// -----

// The exact M is more than the padded M less one block of mPerBlock = 32 rows.
func.func @exact_m_small(%a: memref<1x2x1x8x32x4xf16>, %b: memref<1x32x48xf16>, %c: memref<1x2x2x8x32x4xf32>) {
  // expected-error@+1 {{attribute 'm' = 32 does not fit C's accel layout, which holds M padded to 64 (expects 32 < m <= 64)}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", a_layout = "accel", c_layout = "accel", m = 32} : (memref<1x2x1x8x32x4xf16>, memref<1x32x48xf16>, memref<1x2x2x8x32x4xf32>) -> ()
  return
}

// -----

// ... and at most the padded M.
func.func @exact_m_large(%a: memref<1x2x1x8x32x4xf16>, %b: memref<1x32x48xf16>, %c: memref<1x2x2x8x32x4xf32>) {
  // expected-error@+1 {{attribute 'm' = 65 does not fit C's accel layout, which holds M padded to 64 (expects 32 < m <= 64)}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", a_layout = "accel", c_layout = "accel", m = 65} : (memref<1x2x1x8x32x4xf16>, memref<1x32x48xf16>, memref<1x2x2x8x32x4xf32>) -> ()
  return
}

// -----

// With A or C plain, M is in its shape: `m` would be a second, possibly different M.
func.func @exact_m_plain_a(%a: memref<1x45x32xf16>, %b: memref<1x32x48xf16>, %c: memref<1x2x2x8x32x4xf32>) {
  // expected-error@+1 {{attribute 'm' is only for a gemm whose A and C are both in the accel layout (otherwise A or C holds M)}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", c_layout = "accel", m = 45} : (memref<1x45x32xf16>, memref<1x32x48xf16>, memref<1x2x2x8x32x4xf32>) -> ()
  return
}

// -----

// B and C in the accel layout hold N only padded (48 columns to 64 in C).
func.func @exact_n_missing(%a: memref<1x64x32xf16>, %b: memref<1x2x1x8x32x4xf16>, %c: memref<1x2x2x8x32x4xf32>, %bias: memref<64xf32>) {
  // expected-error@+1 {{B and C in the accel layout hold N only padded (to 64): epilogue 'bias' needs attribute 'n' (the exact N) to keep C's padding columns zero}}
  "accel.gemm"(%a, %b, %c, %bias) {arch = "gfx942", b_layout = "accel", c_layout = "accel", epilogue = "bias"} : (memref<1x64x32xf16>, memref<1x2x1x8x32x4xf16>, memref<1x2x2x8x32x4xf32>, memref<64xf32>) -> ()
  return
}

// -----

// C pads N to kPerBlock = 32 columns: n = 20 leaves a whole block empty.
func.func @exact_n_small(%a: memref<1x64x32xf16>, %b: memref<1x2x1x8x32x4xf16>, %c: memref<1x2x2x8x32x4xf32>) {
  // expected-error@+1 {{attribute 'n' = 20 does not fit C's accel layout, which holds N padded to 64 (expects 32 < n <= 64)}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", b_layout = "accel", c_layout = "accel", n = 20} : (memref<1x64x32xf16>, memref<1x2x1x8x32x4xf16>, memref<1x2x2x8x32x4xf32>) -> ()
  return
}

// -----

func.func @exact_n_plain_b(%a: memref<1x64x32xf16>, %b: memref<1x32x48xf16>, %c: memref<1x2x2x8x32x4xf32>) {
  // expected-error@+1 {{attribute 'n' is only for a gemm whose B and C are both in the accel layout (otherwise B or C holds N)}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", c_layout = "accel", n = 48} : (memref<1x64x32xf16>, memref<1x32x48xf16>, memref<1x2x2x8x32x4xf32>) -> ()
  return
}

// -----

// `m` is an integer.
func.func @exact_m_type(%a: memref<1x2x1x8x32x4xf16>, %b: memref<1x32x48xf16>, %c: memref<1x2x2x8x32x4xf32>) {
  // expected-error@+1 {{attribute 'm' must be an integer}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", a_layout = "accel", c_layout = "accel", m = "45"} : (memref<1x2x1x8x32x4xf16>, memref<1x32x48xf16>, memref<1x2x2x8x32x4xf32>) -> ()
  return
}

// -----

// The epilogue is one of none, bias, relu, bias_relu or an op list.
func.func @epilogue_unknown(%a: memref<1x64x32xf16>, %b: memref<1x32x48xf16>, %c: memref<1x64x48xf32>) {
  // expected-error@+1 {{epilogue must be one of none, bias, relu, bias_relu or an op list ('%0 = <op> <operands>; ...'), got 'gelu'}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", epilogue = "gelu"} : (memref<1x64x32xf16>, memref<1x32x48xf16>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// A bias epilogue reads its bias from the 4th operand.
func.func @epilogue_bias_missing(%a: memref<1x64x32xf16>, %b: memref<1x32x48xf16>, %c: memref<1x64x48xf32>) {
  // expected-error@+1 {{epilogue 'bias_relu' needs a bias operand (the 4th)}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", epilogue = "bias_relu"} : (memref<1x64x32xf16>, memref<1x32x48xf16>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// A 4th operand without a bias epilogue would be ignored: rejected instead.
func.func @epilogue_bias_unused(%a: memref<1x64x32xf16>, %b: memref<1x32x48xf16>, %c: memref<1x64x48xf32>, %bias: memref<48xf32>) {
  // expected-error@+1 {{a bias operand needs epilogue 'bias' or 'bias_relu', got 'relu'}}
  "accel.gemm"(%a, %b, %c, %bias) {arch = "gfx942", epilogue = "relu"} : (memref<1x64x32xf16>, memref<1x32x48xf16>, memref<1x64x48xf32>, memref<48xf32>) -> ()
  return
}

// -----

// The bias has the output element type.
func.func @epilogue_bias_type(%a: memref<1x64x32xf16>, %b: memref<1x32x48xf16>, %c: memref<1x64x48xf32>, %bias: memref<48xf16>) {
  // expected-error@+1 {{bias element type f16 differs from the output type f32}}
  "accel.gemm"(%a, %b, %c, %bias) {arch = "gfx942", epilogue = "bias"} : (memref<1x64x32xf16>, memref<1x32x48xf16>, memref<1x64x48xf32>, memref<48xf16>) -> ()
  return
}

// -----

// The bias is one row of N, per batch or for all: not a column of M.
func.func @epilogue_bias_shape(%a: memref<2x64x32xf16>, %b: memref<2x32x48xf16>, %c: memref<2x64x48xf32>, %bias: memref<2x64xf32>) {
  // expected-error@+1 {{bias must be [N] = [48] or [G, N] = [2, 48], got [2, 64]}}
  "accel.gemm"(%a, %b, %c, %bias) {arch = "gfx942", epilogue = "bias"} : (memref<2x64x32xf16>, memref<2x32x48xf16>, memref<2x64x48xf32>, memref<2x64xf32>) -> ()
  return
}

// -----

// The bias is a plain global buffer, like every operand.
func.func @epilogue_bias_strided(%a: memref<1x64x32xf16>, %b: memref<1x32x48xf16>, %c: memref<1x64x48xf32>, %bias: memref<48xf32, strided<[2]>>) {
  // expected-error@+1 {{bias must be a contiguous row-major memref, got memref<48xf32, strided<[2]>>}}
  "accel.gemm"(%a, %b, %c, %bias) {arch = "gfx942", epilogue = "bias"} : (memref<1x64x32xf16>, memref<1x32x48xf16>, memref<1x64x48xf32>, memref<48xf32, strided<[2]>>) -> ()
  return
}

// -----

// The epilogue attribute is a string.
func.func @epilogue_not_string(%a: memref<1x64x32xf16>, %b: memref<1x32x48xf16>, %c: memref<1x64x48xf32>) {
  // expected-error@+1 {{attribute 'epilogue' must be a string}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", epilogue = 1 : i32} : (memref<1x64x32xf16>, memref<1x32x48xf16>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// A misspelt attribute is an error, not silently ignored (here C would be overwritten
// instead of accumulated into).
func.func @misspelt_attribute(%a: memref<1x64x32xf16>, %b: memref<1x32x48xf16>, %c: memref<1x64x48xf32>) {
  // expected-error@+1 {{'accel.gemm' has no attribute 'accumlate' (known: arch, a_layout, b_layout, c_layout, perf_config, accumulate, epilogue, epilogue_operands, block_size, grid_size, padded_m, padded_n, padded_k, m, n, kernel_symbol, mma, sched_barriers, a_copy, b_copy, k_steps_per_read, lds_buffers, pipeline_depth, c_vector, waves_per_eu, grid_group, load_wait_once, lds_read_ahead, interleave_reads, direct_to_lds, split_k, c_staging, bf16_round)}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", accumlate} : (memref<1x64x32xf16>, memref<1x32x48xf16>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// Attributes with a dialect prefix are discardable: other tools may attach them.
func.func @prefixed_attribute(%a: memref<1x64x32xf16>, %b: memref<1x32x48xf16>, %c: memref<1x64x48xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", graph.origin = "dot_0"} : (memref<1x64x32xf16>, memref<1x32x48xf16>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// An op-list epilogue: an unknown op.
func.func @program_unknown_op(%a: memref<1x64x32xf16>, %b: memref<1x32x48xf16>, %c: memref<1x64x48xf32>) {
  // expected-error@+1 {{epilogue step 0: unknown op 'gelu'}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", epilogue = "%0 = gelu %acc", epilogue_operands = []} : (memref<1x64x32xf16>, memref<1x32x48xf16>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// An op-list epilogue: a value used before its step.
func.func @program_forward_use(%a: memref<1x64x32xf16>, %b: memref<1x32x48xf16>, %c: memref<1x64x48xf32>) {
  // expected-error@+1 {{epilogue step 0 uses %1 before it is defined}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", epilogue = "%0 = add %acc, %1; %1 = relu %0", epilogue_operands = []} : (memref<1x64x32xf16>, memref<1x32x48xf16>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// An op-list epilogue: the wrong operand count for an op.
func.func @program_arity(%a: memref<1x64x32xf16>, %b: memref<1x32x48xf16>, %c: memref<1x64x48xf32>) {
  // expected-error@+1 {{epilogue step 0: 'where' takes 3 operand(s), got 2}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", epilogue = "%0 = where %acc, 1.0", epilogue_operands = []} : (memref<1x64x32xf16>, memref<1x32x48xf16>, memref<1x64x48xf32>) -> ()
  return
}

// -----

// An extra operand's shape must be its kind's ([G, M, N] for "gmn").
func.func @program_operand_shape(%a: memref<1x64x32xf16>, %b: memref<1x32x48xf16>, %c: memref<1x64x48xf32>, %e: memref<1x64x47xf16>) {
  // expected-error@+1 {{epilogue operand 0 of kind 'gmn' must be [1, 64, 48], got [1, 64, 47]}}
  "accel.gemm"(%a, %b, %c, %e) {arch = "gfx942", epilogue = "%0 = mul %acc, %e0", epilogue_operands = ["gmn"]} : (memref<1x64x32xf16>, memref<1x32x48xf16>, memref<1x64x48xf32>, memref<1x64x47xf16>) -> ()
  return
}

// -----

// Every extra operand needs its kind.
func.func @program_kinds_missing(%a: memref<1x64x32xf16>, %b: memref<1x32x48xf16>, %c: memref<1x64x48xf32>, %e: memref<48xf16>) {
  // expected-error@+1 {{epilogue_operands names 0 kind(s) for 1 extra operand(s)}}
  "accel.gemm"(%a, %b, %c, %e) {arch = "gfx942", epilogue = "%0 = mul %acc, %e0", epilogue_operands = []} : (memref<1x64x32xf16>, memref<1x32x48xf16>, memref<1x64x48xf32>, memref<48xf16>) -> ()
  return
}

// -----

// An i32 chain (i8 inputs) has no transcendental ops.
func.func @program_int_exp(%a: memref<1x64x32xi8>, %b: memref<1x32x48xi8>, %c: memref<1x64x48xi32>) {
  // expected-error@+1 {{epilogue step 0: 'exp' needs a float accumulator, not i32}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", epilogue = "%0 = exp %acc", epilogue_operands = []} : (memref<1x64x32xi8>, memref<1x32x48xi8>, memref<1x64x48xi32>) -> ()
  return
}

// -----

// Rows 4 apart overlap rows of 8 columns.
func.func @c_overlap(%a: memref<2x4x16xf16>, %b: memref<2x16x8xf16>, %c: memref<2x4x8xf32, strided<[64, 4, 1]>>) {
  // expected-error@+1 {{C's strides overlap (stride 4 inside a span of 8 elements): its stores would write one address several times, got memref<2x4x8xf32, strided<[64, 4, 1]>>}}
  "accel.gemm"(%a, %b, %c) {arch = "gfx942"} : (memref<2x4x16xf16>, memref<2x16x8xf16>, memref<2x4x8xf32, strided<[64, 4, 1]>>) -> ()
  return
}
