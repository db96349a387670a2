// RUN: accel-opt %s --split-input-file --verify-diagnostics --accel-elementwise-to-gpu=arch=gfx942
// Each case breaks one rule of the accel.elementwise verifier (the last, the arch the
// pass is given).

func.func @no_arch(%x: memref<1x4x4xf32>, %o: memref<1x4x4xf32>) {
  // expected-error@+1 {{attribute 'arch' is required}}
  "accel.elementwise"(%x, %o) {operands = ["gmn"], program = ""} : (memref<1x4x4xf32>, memref<1x4x4xf32>) -> ()
  return
}

// -----

func.func @typo(%x: memref<1x4x4xf32>, %o: memref<1x4x4xf32>) {
  // expected-error@+1 {{'accel.elementwise' has no attribute 'reduction'}}
  "accel.elementwise"(%x, %o) {arch = "gfx942", operands = ["gmn"], program = "", reduction = "sum"} : (memref<1x4x4xf32>, memref<1x4x4xf32>) -> ()
  return
}

// -----

func.func @no_acc(%x: memref<1x4x4xf32>, %o: memref<1x4x4xf32>) {
  // expected-error@+1 {{an elementwise program has no %acc: it reads %e0, %e1, ...}}
  "accel.elementwise"(%x, %o) {arch = "gfx942", operands = ["gmn"], program = "%0 = relu %acc"} : (memref<1x4x4xf32>, memref<1x4x4xf32>) -> ()
  return
}

// -----

func.func @kind_shape(%x: memref<1x4x4xf32>, %b: memref<5xf32>, %o: memref<1x4x4xf32>) {
  // expected-error@+1 {{input 1 of kind 'n' must be [4], got [5]}}
  "accel.elementwise"(%x, %b, %o) {arch = "gfx942", operands = ["gmn", "n"], program = "%0 = add %e0, %e1"} : (memref<1x4x4xf32>, memref<5xf32>, memref<1x4x4xf32>) -> ()
  return
}

// -----

func.func @kind_count(%x: memref<1x4x4xf32>, %o: memref<1x4x4xf32>) {
  // expected-error@+1 {{2 operand kind(s) for 1 input(s)}}
  "accel.elementwise"(%x, %o) {arch = "gfx942", operands = ["gmn", "n"], program = ""} : (memref<1x4x4xf32>, memref<1x4x4xf32>) -> ()
  return
}

// -----

func.func @reads_missing(%x: memref<1x4x4xf32>, %o: memref<1x4x4xf32>) {
  // expected-error@+1 {{program reads %e1 but the op has 1 input(s)}}
  "accel.elementwise"(%x, %o) {arch = "gfx942", operands = ["gmn"], program = "%0 = add %e0, %e1"} : (memref<1x4x4xf32>, memref<1x4x4xf32>) -> ()
  return
}

// -----

func.func @out_type(%x: memref<1x4x4xf32>, %o: memref<1x4x4xf64>) {
  // expected-error@+1 {{output type f64 is not one of f32, f16, bf16, i32, i8}}
  "accel.elementwise"(%x, %o) {arch = "gfx942", operands = ["gmn"], program = ""} : (memref<1x4x4xf32>, memref<1x4x4xf64>) -> ()
  return
}

// -----

func.func @reduce_shape(%x: memref<1x4x4xf32>, %o: memref<1x4x4xf32>) {
  // expected-error@+1 {{a reduction over N writes [G, M, 1], got [1, 4, 4]}}
  "accel.elementwise"(%x, %o) {arch = "gfx942", operands = ["gmn"], program = "", reduce = "sum", n = 4} : (memref<1x4x4xf32>, memref<1x4x4xf32>) -> ()
  return
}

// -----

func.func @reduce_without_n(%x: memref<1x4x4xf32>, %o: memref<1x4x1xf32>) {
  // expected-error@+1 {{attribute 'n' is given exactly when reducing}}
  "accel.elementwise"(%x, %o) {arch = "gfx942", operands = ["gmn"], program = "", reduce = "sum"} : (memref<1x4x4xf32>, memref<1x4x1xf32>) -> ()
  return
}

// -----

func.func @reduce_kind(%x: memref<1x4x4xf32>, %o: memref<1x4x1xf32>) {
  // expected-error@+1 {{reduce must be one of none, sum, max, got 'min'}}
  "accel.elementwise"(%x, %o) {arch = "gfx942", operands = ["gmn"], program = "", reduce = "min", n = 4} : (memref<1x4x4xf32>, memref<1x4x1xf32>) -> ()
  return
}

// -----

func.func @integer_literal(%x: memref<1x4x4xi32>, %o: memref<1x4x4xi32>) {
  // expected-error@+1 {{epilogue step 0: literal 0.5 in an i32 chain}}
  "accel.elementwise"(%x, %o) {arch = "gfx942", operands = ["gmn"], program = "%0 = add %e0, 0.5"} : (memref<1x4x4xi32>, memref<1x4x4xi32>) -> ()
  return
}

// -----

func.func @strided(%x: memref<1x4x4xf32, strided<[32, 8, 1]>>, %o: memref<1x4x4xf32>) {
  // expected-error@+1 {{input 0 must be a contiguous row-major memref}}
  "accel.elementwise"(%x, %o) {arch = "gfx942", operands = ["gmn"], program = ""} : (memref<1x4x4xf32, strided<[32, 8, 1]>>, memref<1x4x4xf32>) -> ()
  return
}

// -----

func.func @arch(%x: memref<1x4x4xf32>, %o: memref<1x4x4xf32>) {
  // expected-error@+1 {{unknown arch 'gfx90a' (supported: gfx942, gfx1100, gfx1201)}}
  "accel.elementwise"(%x, %o) {arch = "gfx90a", operands = ["gmn"], program = ""} : (memref<1x4x4xf32>, memref<1x4x4xf32>) -> ()
  return
}

// -----

func.func @int4_shape(%w: memref<1x3x8xi8>, %o: memref<1x3x8xi8>) {
  // expected-error@+1 {{input 0 of int4 pairs must be [1, 3, 4], got [1, 3, 8]}}
  "accel.elementwise"(%w, %o) {arch = "gfx942", operands = ["gmn"], packing = ["s4"], program = ""} : (memref<1x3x8xi8>, memref<1x3x8xi8>) -> ()
  return
}

// -----

func.func @int4_kind(%w: memref<4xi8>, %o: memref<1x3x8xi8>) {
  // expected-error@+1 {{input 0 of int4 pairs must be an i8 'gmn' input and N even, got i8 'n' with N = 8}}
  "accel.elementwise"(%w, %o) {arch = "gfx942", operands = ["n"], packing = ["s4"], program = ""} : (memref<4xi8>, memref<1x3x8xi8>) -> ()
  return
}

// -----

func.func @pipeline_arch(%x: memref<1x4x4xf32>, %o: memref<1x4x4xf32>) {
  // expected-error@+1 {{'accel.elementwise' targets gfx1100 but the pipeline targets gfx942}}
  "accel.elementwise"(%x, %o) {arch = "gfx1100", operands = ["gmn"], program = ""} : (memref<1x4x4xf32>, memref<1x4x4xf32>) -> ()
  return
}

// -----

func.func @map_past_buffer(%x: memref<1x4x2xf32>, %o: memref<1x3x4xf32>) {
  // expected-error@+1 {{input 0's map index 2 (d1) reaches 2, past the buffer's 2}}
  "accel.elementwise"(%x, %o) {arch = "gfx942", operands = ["gmn"], program = "", input_maps = [affine_map<(d0, d1, d2) -> (d0, d2, d1)>]} : (memref<1x4x2xf32>, memref<1x3x4xf32>) -> ()
  return
}

// -----

// A window of 5 rows from row 2 of digits (2, 2), (3, 0) (accel.migraphx.view) is rows
// 2..6 of 6: its last row, (4 + 2) floordiv 3 = 2, is past a 2-row group buffer.
func.func @window_past_buffer(%x: memref<2x2x2xf32>, %o: memref<2x5x2xf32>) {
  // expected-error@+1 {{input 0's map index 1 ((d1 + 2) floordiv 3) reaches 2, past the buffer's 2}}
  "accel.elementwise"(%x, %o) {arch = "gfx942", operands = ["gmn"], program = "", input_maps = [affine_map<(d0, d1, d2) -> (d0, (d1 + 2) floordiv 3, d2)>]} : (memref<2x2x2xf32>, memref<2x5x2xf32>) -> ()
  return
}

// -----

func.func @map_rank(%x: memref<12xf32>, %o: memref<1x3x4xf32>) {
  // expected-error@+1 {{input 0's map gives 2 indices for a rank 1 buffer}}
  "accel.elementwise"(%x, %o) {arch = "gfx942", operands = ["gmn"], program = "", input_maps = [affine_map<(d0, d1, d2) -> (d1, d2)>]} : (memref<12xf32>, memref<1x3x4xf32>) -> ()
  return
}

// -----

func.func @map_of_a_broadcast(%x: memref<4xf32>, %o: memref<1x3x4xf32>) {
  // expected-error@+1 {{input 0 read through a map must be of kind 'gmn' and not int4 pairs, got 'n' packing ''}}
  "accel.elementwise"(%x, %o) {arch = "gfx942", operands = ["n"], program = "", input_maps = [affine_map<(d0, d1, d2) -> (d2)>]} : (memref<4xf32>, memref<1x3x4xf32>) -> ()
  return
}

// -----

func.func @map_count(%x: memref<1x3x4xf32>, %o: memref<1x3x4xf32>) {
  // expected-error@+1 {{2 input map(s) for 1 input(s)}}
  "accel.elementwise"(%x, %o) {arch = "gfx942", operands = ["gmn"], program = "", input_maps = [unit, unit]} : (memref<1x3x4xf32>, memref<1x3x4xf32>) -> ()
  return
}
