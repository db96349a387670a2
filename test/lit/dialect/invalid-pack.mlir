// RUN: accel-opt %s --split-input-file --verify-diagnostics
// Each case breaks one rule of the accel.pack / accel.unpack verifier.

// Two operands, source and destination.
func.func @operands(%p: memref<1x64x64xf16>) {
  // expected-error@+1 {{'accel.pack' takes 2 operands (source, dest) and has no results}}
  "accel.pack"(%p) {transposed = false} : (memref<1x64x64xf16>) -> ()
  return
}

// -----

// No results: the destination is written in place.
func.func @results(%p: memref<1x64x64xf16>, %k: memref<1x2x1x8x32x8xf16>) {
  // expected-error@+1 {{'accel.unpack' takes 2 operands (source, dest) and has no results}}
  %r = "accel.unpack"(%k, %p) {transposed = false} : (memref<1x2x1x8x32x8xf16>, memref<1x64x64xf16>) -> i32
  return
}

// -----

// transposed is a bool.
func.func @transposed_kind(%p: memref<1x64x64xf16>, %k: memref<1x2x1x8x32x8xf16>) {
  // expected-error@+1 {{attribute 'transposed' must be a bool}}
  "accel.pack"(%p, %k) {transposed = 1 : i32} : (memref<1x64x64xf16>, memref<1x2x1x8x32x8xf16>) -> ()
  return
}

// -----

// Packing does not convert element types.
func.func @types(%p: memref<1x64x64xf16>, %k: memref<1x2x1x8x32x8xbf16>) {
  // expected-error@+1 {{element types differ: plain f16 vs accel bf16}}
  "accel.pack"(%p, %k) {transposed = false} : (memref<1x64x64xf16>, memref<1x2x1x8x32x8xbf16>) -> ()
  return
}

// -----

// The plain side is [G, D, K] or [G, K, D].
func.func @plain_rank(%p: memref<64x64xf16>, %k: memref<1x2x1x8x32x8xf16>) {
  // expected-error@+1 {{plain operand must be rank 3, got rank 2}}
  "accel.pack"(%p, %k) {transposed = false} : (memref<64x64xf16>, memref<1x2x1x8x32x8xf16>) -> ()
  return
}

// -----

// The accel side is 6-D.
func.func @packed_rank(%p: memref<1x64x64xf16>, %k: memref<1x2x64x8xf16>) {
  // expected-error@+1 {{accel operand must be rank 6, got rank 4}}
  "accel.unpack"(%k, %p) {transposed = false} : (memref<1x2x64x8xf16>, memref<1x64x64xf16>) -> ()
  return
}

// -----

// No empty operands.
func.func @empty(%p: memref<1x0x64xf16>, %k: memref<1x1x1x8x32x8xf16>) {
  // expected-error@+1 {{plain operand has a zero extent: [1, 0, 64]}}
  "accel.pack"(%p, %k) {transposed = false} : (memref<1x0x64xf16>, memref<1x1x1x8x32x8xf16>) -> ()
  return
}

// -----

// D=64 in blocks of 32 is 2 blocks, not 3.
func.func @d_blocks(%p: memref<1x64x64xf16>, %k: memref<1x3x1x8x32x8xf16>) {
  // expected-error@+1 {{accel shape [1, 3, 1, 8, 32, 8] does not hold a [G=1, D=64, K=64] operand; expected [1, 2, 1, 8, 32, 8]}}
  "accel.pack"(%p, %k) {transposed = false} : (memref<1x64x64xf16>, memref<1x3x1x8x32x8xf16>) -> ()
  return
}

// -----

// transposed = true reads the plain side as [G, K, D]: K=100 needs 2 K blocks of 64.
func.func @transposed_shape(%p: memref<1x100x32xf16>, %k: memref<1x1x1x8x32x8xf16>) {
  // expected-error@+1 {{accel shape [1, 1, 1, 8, 32, 8] does not hold a [G=1, D=32, K=100] operand; expected [1, 1, 2, 8, 32, 8]}}
  "accel.pack"(%p, %k) {transposed = true} : (memref<1x100x32xf16>, memref<1x1x1x8x32x8xf16>) -> ()
  return
}

// -----

// The batch carries over unchanged.
func.func @batch(%k: memref<2x2x1x8x32x8xf16>, %p: memref<1x64x64xf16>) {
  // expected-error@+1 {{accel shape [2, 2, 1, 8, 32, 8] does not hold a [G=1, D=64, K=64] operand; expected [1, 2, 1, 8, 32, 8]}}
  "accel.unpack"(%k, %p) {transposed = false} : (memref<2x2x1x8x32x8xf16>, memref<1x64x64xf16>) -> ()
  return
}

// -----

// accel.* names only the ops the dialect defines.
func.func @unknown(%p: memref<1x64x64xf16>) {
  // expected-error@+1 {{unknown accel op 'accel.repack'}}
  "accel.repack"(%p) : (memref<1x64x64xf16>) -> ()
  return
}

// -----

// Every invalid op is reported, not only the first.
func.func @two_errors(%p: memref<1x64x64xf16>, %k: memref<1x2x1x8x32x8xbf16>) {
  // expected-error@+1 {{element types differ: plain f16 vs accel bf16}}
  "accel.pack"(%p, %k) {transposed = false} : (memref<1x64x64xf16>, memref<1x2x1x8x32x8xbf16>) -> ()
  // expected-error@+1 {{element types differ: plain f16 vs accel bf16}}
  "accel.unpack"(%k, %p) {transposed = false} : (memref<1x2x1x8x32x8xbf16>, memref<1x64x64xf16>) -> ()
  return
}

// -----

// A misspelt attribute is an error.
func.func @misspelt_attribute(%p: memref<1x64x64xf16>, %k: memref<1x2x1x8x32x8xf16>) {
  // expected-error@+1 {{'accel.pack' has no attribute 'tranposed' (known: transposed)}}
  "accel.pack"(%p, %k) {tranposed = true} : (memref<1x64x64xf16>, memref<1x2x1x8x32x8xf16>) -> ()
  return
}
