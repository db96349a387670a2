// RUN: accel-opt %s --split-input-file --verify-diagnostics
// Each case breaks one rule of the accel.grouped_gemm verifier and expects its one diagnostic.

// Four operands (A, B, seq_offsets, C) or five (with the bias).
func.func @case0(%a: memref<64x32xbf16>, %b: memref<96x32xbf16>, %s: memref<4xi32>) {
  // expected-error@+1 {{'accel.grouped_gemm' takes 4 operands (A, B, seq_offsets, C), or 5 (A, B, seq_offsets, C, bias), and has no results}}
  "accel.grouped_gemm"(%a, %b, %s) {arch = "gfx942", max_seq_len = 40 : i64} : (memref<64x32xbf16>, memref<96x32xbf16>, memref<4xi32>) -> ()
  return
}

// -----

// The arch is required.
func.func @case1(%a: memref<64x32xbf16>, %b: memref<96x32xbf16>, %s: memref<4xi32>, %c: memref<64x32xbf16>) {
  // expected-error@+1 {{'accel.grouped_gemm' requires an 'arch' attribute}}
  "accel.grouped_gemm"(%a, %b, %s, %c) {max_seq_len = 40 : i64} : (memref<64x32xbf16>, memref<96x32xbf16>, memref<4xi32>, memref<64x32xbf16>) -> ()
  return
}

// -----

// max_seq_len is required: it sizes the launch.
func.func @case2(%a: memref<64x32xbf16>, %b: memref<96x32xbf16>, %s: memref<4xi32>, %c: memref<64x32xbf16>) {
  // expected-error@+1 {{'accel.grouped_gemm' requires a 'max_seq_len' attribute}}
  "accel.grouped_gemm"(%a, %b, %s, %c) {arch = "gfx942"} : (memref<64x32xbf16>, memref<96x32xbf16>, memref<4xi32>, memref<64x32xbf16>) -> ()
  return
}

// -----

// A misspelt attribute is an error, not ignored.
func.func @case3(%a: memref<64x32xbf16>, %b: memref<96x32xbf16>, %s: memref<4xi32>, %c: memref<64x32xbf16>) {
  // expected-error@+1 {{'accel.grouped_gemm' has no attribute 'mdoe'}}
  "accel.grouped_gemm"(%a, %b, %s, %c) {arch = "gfx942", max_seq_len = 40 : i64, mdoe = "compact"} : (memref<64x32xbf16>, memref<96x32xbf16>, memref<4xi32>, memref<64x32xbf16>) -> ()
  return
}

// -----

// B's layout is stacked or row.
func.func @case4(%a: memref<64x32xbf16>, %b: memref<96x32xbf16>, %s: memref<4xi32>, %c: memref<64x32xbf16>) {
  // expected-error@+1 {{b_layout must be one of stacked, row, got 'transposed'}}
  "accel.grouped_gemm"(%a, %b, %s, %c) {arch = "gfx942", max_seq_len = 40 : i64, b_layout = "transposed"} : (memref<64x32xbf16>, memref<96x32xbf16>, memref<4xi32>, memref<64x32xbf16>) -> ()
  return
}

// -----

// The mode is uniform, compact or auto.
func.func @case5(%a: memref<64x32xbf16>, %b: memref<96x32xbf16>, %s: memref<4xi32>, %c: memref<64x32xbf16>) {
  // expected-error@+1 {{mode must be one of uniform, compact or auto, got 'skew'}}
  "accel.grouped_gemm"(%a, %b, %s, %c) {arch = "gfx942", max_seq_len = 40 : i64, mode = "skew"} : (memref<64x32xbf16>, memref<96x32xbf16>, memref<4xi32>, memref<64x32xbf16>) -> ()
  return
}

// -----

// Inputs are f16 or bf16.
func.func @case6(%a: memref<64x32xi8>, %b: memref<96x32xi8>, %s: memref<4xi32>, %c: memref<64x32xi32>) {
  // expected-error@+1 {{element type i8 is not supported by accel.grouped_gemm on gfx942 (expected one of f16, bf16)}}
  "accel.grouped_gemm"(%a, %b, %s, %c) {arch = "gfx942", max_seq_len = 40 : i64} : (memref<64x32xi8>, memref<96x32xi8>, memref<4xi32>, memref<64x32xi32>) -> ()
  return
}

// -----

// A and B share their element type.
func.func @case7(%a: memref<64x32xbf16>, %b: memref<96x32xf16>, %s: memref<4xi32>, %c: memref<64x32xbf16>) {
  // expected-error@+1 {{A and B element types differ: bf16 vs f16}}
  "accel.grouped_gemm"(%a, %b, %s, %c) {arch = "gfx942", max_seq_len = 40 : i64} : (memref<64x32xbf16>, memref<96x32xf16>, memref<4xi32>, memref<64x32xbf16>) -> ()
  return
}

// -----

// The output is the input type or f32.
func.func @case8(%a: memref<64x32xbf16>, %b: memref<96x32xbf16>, %s: memref<4xi32>, %c: memref<64x32xf16>) {
  // expected-error@+1 {{output type f16 is not supported for bf16 inputs (expected bf16 or f32)}}
  "accel.grouped_gemm"(%a, %b, %s, %c) {arch = "gfx942", max_seq_len = 40 : i64} : (memref<64x32xbf16>, memref<96x32xbf16>, memref<4xi32>, memref<64x32xf16>) -> ()
  return
}

// -----

// seq_offsets is G+1 i32 offsets.
func.func @case9(%a: memref<64x32xbf16>, %b: memref<96x32xbf16>, %s: memref<4xi64>, %c: memref<64x32xbf16>) {
  // expected-error@+1 {{seq_offsets must be a rank-1 memref of i32 [G+1], got [4] of i64}}
  "accel.grouped_gemm"(%a, %b, %s, %c) {arch = "gfx942", max_seq_len = 40 : i64} : (memref<64x32xbf16>, memref<96x32xbf16>, memref<4xi64>, memref<64x32xbf16>) -> ()
  return
}

// -----

// At least one group.
func.func @case10(%a: memref<64x32xbf16>, %b: memref<96x32xbf16>, %s: memref<1xi32>, %c: memref<64x32xbf16>) {
  // expected-error@+1 {{seq_offsets must hold G+1 >= 2 offsets (at least one group)}}
  "accel.grouped_gemm"(%a, %b, %s, %c) {arch = "gfx942", max_seq_len = 40 : i64} : (memref<64x32xbf16>, memref<96x32xbf16>, memref<1xi32>, memref<64x32xbf16>) -> ()
  return
}

// -----

// A is [L, K].
func.func @case11(%a: memref<1x64x32xbf16>, %b: memref<96x32xbf16>, %s: memref<4xi32>, %c: memref<64x32xbf16>) {
  // expected-error@+1 {{A must be rank 2 [L, K], got rank 3}}
  "accel.grouped_gemm"(%a, %b, %s, %c) {arch = "gfx942", max_seq_len = 40 : i64} : (memref<1x64x32xbf16>, memref<96x32xbf16>, memref<4xi32>, memref<64x32xbf16>) -> ()
  return
}

// -----

// A and C hold the same rows.
func.func @case12(%a: memref<64x32xbf16>, %b: memref<96x32xbf16>, %s: memref<4xi32>, %c: memref<65x32xbf16>) {
  // expected-error@+1 {{A and C hold different row counts: 64 vs 65}}
  "accel.grouped_gemm"(%a, %b, %s, %c) {arch = "gfx942", max_seq_len = 40 : i64} : (memref<64x32xbf16>, memref<96x32xbf16>, memref<4xi32>, memref<65x32xbf16>) -> ()
  return
}

// -----

// Stacked B is one N x K panel per group.
func.func @case13(%a: memref<64x32xbf16>, %b: memref<95x32xbf16>, %s: memref<4xi32>, %c: memref<64x32xbf16>) {
  // expected-error@+1 {{B in 'stacked' layout must be [G*N, K] = [96, 32], got [95, 32]}}
  "accel.grouped_gemm"(%a, %b, %s, %c) {arch = "gfx942", max_seq_len = 40 : i64} : (memref<64x32xbf16>, memref<95x32xbf16>, memref<4xi32>, memref<64x32xbf16>) -> ()
  return
}

// -----

// Row B is [G, K, N].
func.func @case14(%a: memref<64x32xbf16>, %b: memref<3x32x31xbf16>, %s: memref<4xi32>, %c: memref<64x32xbf16>) {
  // expected-error@+1 {{B in 'row' layout must be [G, K, N] = [3, 32, 32], got [3, 32, 31]}}
  "accel.grouped_gemm"(%a, %b, %s, %c) {arch = "gfx942", max_seq_len = 40 : i64, b_layout = "row"} : (memref<64x32xbf16>, memref<3x32x31xbf16>, memref<4xi32>, memref<64x32xbf16>) -> ()
  return
}

// -----

// The bias is G*N values.
func.func @case15(%a: memref<64x32xbf16>, %b: memref<96x32xbf16>, %s: memref<4xi32>, %c: memref<64x32xbf16>, %bias: memref<32xbf16>) {
  // expected-error@+1 {{bias must be [G*N] = [96], got [32]}}
  "accel.grouped_gemm"(%a, %b, %s, %c, %bias) {arch = "gfx942", max_seq_len = 40 : i64} : (memref<64x32xbf16>, memref<96x32xbf16>, memref<4xi32>, memref<64x32xbf16>, memref<32xbf16>) -> ()
  return
}

// -----

// The bias has the output type.
func.func @case16(%a: memref<64x32xbf16>, %b: memref<96x32xbf16>, %s: memref<4xi32>, %c: memref<64x32xbf16>, %bias: memref<96xf32>) {
  // expected-error@+1 {{bias element type f32 differs from the output type bf16}}
  "accel.grouped_gemm"(%a, %b, %s, %c, %bias) {arch = "gfx942", max_seq_len = 40 : i64} : (memref<64x32xbf16>, memref<96x32xbf16>, memref<4xi32>, memref<64x32xbf16>, memref<96xf32>) -> ()
  return
}

// -----

// No group is longer than the buffers.
func.func @case17(%a: memref<64x32xbf16>, %b: memref<96x32xbf16>, %s: memref<4xi32>, %c: memref<64x32xbf16>) {
  // expected-error@+1 {{max_seq_len must be in [1, L_max = 64], got 65}}
  "accel.grouped_gemm"(%a, %b, %s, %c) {arch = "gfx942", max_seq_len = 65 : i64} : (memref<64x32xbf16>, memref<96x32xbf16>, memref<4xi32>, memref<64x32xbf16>) -> ()
  return
}

// -----

// A malformed perf config.
func.func @case18(%a: memref<64x32xbf16>, %b: memref<96x32xbf16>, %s: memref<4xi32>, %c: memref<64x32xbf16>) {
  // expected-error@+1 {{perf config 'v4:1,2': v4 takes 14 fields, got 2}}
  "accel.grouped_gemm"(%a, %b, %s, %c) {arch = "gfx942", max_seq_len = 40 : i64, perf_config = "v4:1,2"} : (memref<64x32xbf16>, memref<96x32xbf16>, memref<4xi32>, memref<64x32xbf16>) -> ()
  return
}

// -----

// Where the config came from is one of three words.
func.func @case19(%a: memref<64x32xbf16>, %b: memref<96x32xbf16>, %s: memref<4xi32>, %c: memref<64x32xbf16>) {
  // expected-error@+1 {{config_source must be one of explicit, table, heuristic, got 'guess'}}
  "accel.grouped_gemm"(%a, %b, %s, %c) {arch = "gfx942", max_seq_len = 40 : i64, config_source = "guess"} : (memref<64x32xbf16>, memref<96x32xbf16>, memref<4xi32>, memref<64x32xbf16>) -> ()
  return
}

// -----

// Buffers are contiguous row-major memrefs.
func.func @case20(%a: memref<64x32xbf16, strided<[64, 1]>>, %b: memref<96x32xbf16>, %s: memref<4xi32>, %c: memref<64x32xbf16>) {
  // expected-error@+1 {{A must be a contiguous row-major memref, got memref<64x32xbf16, strided<[64, 1]>>}}
  "accel.grouped_gemm"(%a, %b, %s, %c) {arch = "gfx942", max_seq_len = 40 : i64} : (memref<64x32xbf16, strided<[64, 1]>>, memref<96x32xbf16>, memref<4xi32>, memref<64x32xbf16>) -> ()
  return
}
