// RUN: accel-opt %s --split-input-file --verify-diagnostics --accel-copy-to-gpu=arch=gfx942
// Each case breaks one rule of the accel.copy verifier (the last, the arch the pass is
// given).

func.func @no_arch(%x: memref<4x4xf32>, %o: memref<4x4xf32>) {
  // expected-error@+1 {{attribute 'arch' is required}}
  "accel.copy"(%x, %o) {shape = array<i64: 4, 4>, input_map = affine_map<(d0, d1) -> (d1, d0)>, output_map = affine_map<(d0, d1) -> (d0, d1)>} : (memref<4x4xf32>, memref<4x4xf32>) -> ()
  return
}

// -----

func.func @past_the_input(%x: memref<4x4xf32>, %o: memref<4x5xf32>) {
  // expected-error@+1 {{input_map index 1 (d1) reaches 4, past the buffer's 4}}
  "accel.copy"(%x, %o) {arch = "gfx942", shape = array<i64: 4, 5>, input_map = affine_map<(d0, d1) -> (d0, d1)>, output_map = affine_map<(d0, d1) -> (d0, d1)>} : (memref<4x4xf32>, memref<4x5xf32>) -> ()
  return
}

// -----

func.func @negative(%x: memref<8xf32>, %o: memref<4xf32>) {
  // expected-error@+1 {{negative constant -1 in an index expression}}
  "accel.copy"(%x, %o) {arch = "gfx942", shape = array<i64: 4>, input_map = affine_map<(d0) -> (d0 * -1 + 4)>, output_map = affine_map<(d0) -> (d0)>} : (memref<8xf32>, memref<4xf32>) -> ()
  return
}

// -----

func.func @count(%x: memref<4x4xf32>, %o: memref<4x2xf32>) {
  // expected-error@+1 {{the output [4, 2] cannot hold the copy's 16 elements}}
  "accel.copy"(%x, %o) {arch = "gfx942", shape = array<i64: 4, 4>, input_map = affine_map<(d0, d1) -> (d0, d1)>, output_map = affine_map<(d0, d1) -> (d0, d1 floordiv 2)>} : (memref<4x4xf32>, memref<4x2xf32>) -> ()
  return
}

// -----

func.func @types(%x: memref<4xf32>, %o: memref<4xf16>) {
  // expected-error@+1 {{a copy moves values of one type, got f32 -> f16}}
  "accel.copy"(%x, %o) {arch = "gfx942", shape = array<i64: 4>, input_map = affine_map<(d0) -> (d0)>, output_map = affine_map<(d0) -> (d0)>} : (memref<4xf32>, memref<4xf16>) -> ()
  return
}

// -----

func.func @map_dims(%x: memref<4x4xf32>, %o: memref<16xf32>) {
  // expected-error@+1 {{output_map gives 2 indices for a rank 1 buffer}}
  "accel.copy"(%x, %o) {arch = "gfx942", shape = array<i64: 4, 4>, input_map = affine_map<(d0, d1) -> (d0, d1)>, output_map = affine_map<(d0, d1) -> (d0, d1)>} : (memref<4x4xf32>, memref<16xf32>) -> ()
  return
}

// -----

func.func @other_arch(%x: memref<4xf32>, %o: memref<4xf32>) {
  // expected-error@+1 {{'accel.copy' targets gfx1100 but the pipeline targets gfx942}}
  "accel.copy"(%x, %o) {arch = "gfx1100", shape = array<i64: 4>, input_map = affine_map<(d0) -> (d0)>, output_map = affine_map<(d0) -> (d0)>} : (memref<4xf32>, memref<4xf32>) -> ()
  return
}
