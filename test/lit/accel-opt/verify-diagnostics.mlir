// The expected-* designators of mlir-opt's --verify-diagnostics.
// RUN: accel-opt %s --split-input-file --verify-diagnostics

func.func @same_line(%p: memref<1x16x16xf16>, %k: memref<1x16x16xf16>) {
  "accel.pack"(%p, %k) {transposed = false} : (memref<1x16x16xf16>, memref<1x16x16xf16>) -> () // expected-error {{accel operand must be rank 6}}
  return
}

// -----

func.func @relative(%p: memref<1x16x16xf16>, %k: memref<1x16x16xf16>) {
  // expected-error@+2 {{accel operand must be rank 6}}
  // (a line between)
  "accel.pack"(%p, %k) {transposed = false} : (memref<1x16x16xf16>, memref<1x16x16xf16>) -> ()
  return
}

// -----

func.func @relative_back(%p: memref<1x16x16xf16>, %k: memref<1x16x16xf16>) {
  "accel.pack"(%p, %k) {transposed = false} : (memref<1x16x16xf16>, memref<1x16x16xf16>) -> ()
  // expected-error@-1 {{accel operand must be rank 6}}
  return
}

// -----

func.func @below(%p: memref<1x16x16xf16>, %k: memref<1x16x16xf16>, %q: memref<16x16xf16>, %r: memref<1x1x1x4x16x4xf16>) {
  // @below names the next line without a designator: here the first op, not the
  // comment line between.
  // expected-error@below {{accel operand must be rank 6}}
  // expected-error@+2 {{plain operand must be rank 3}}
  "accel.pack"(%p, %k) {transposed = false} : (memref<1x16x16xf16>, memref<1x16x16xf16>) -> ()
  "accel.pack"(%q, %r) {transposed = false} : (memref<16x16xf16>, memref<1x1x1x4x16x4xf16>) -> ()
  return
}

// -----

func.func @above(%p: memref<1x16x16xf16>, %k: memref<1x16x16xf16>, %q: memref<16x16xf16>, %r: memref<1x1x1x4x16x4xf16>) {
  // @above names the previous line without a designator: the first op, not the second.
  "accel.pack"(%p, %k) {transposed = false} : (memref<1x16x16xf16>, memref<1x16x16xf16>) -> ()
  "accel.pack"(%q, %r) {transposed = false} : (memref<16x16xf16>, memref<1x1x1x4x16x4xf16>) -> () // expected-error {{plain operand must be rank 3}}
  // expected-error@above {{accel operand must be rank 6}}
  return
}

// -----

func.func @regex(%p: memref<1x16x16xf16>, %k: memref<1x16x16xf16>) {
  // expected-error-re@+1 {{accel operand must be rank {{[0-9]+}}, got rank 3}}
  "accel.pack"(%p, %k) {transposed = false} : (memref<1x16x16xf16>, memref<1x16x16xf16>) -> ()
  return
}

// -----

// A parse error is a diagnostic like any other.
func.func @parse(%p: memref<1x16x16xf16>) {
  // expected-error@+1 {{use of undeclared SSA value name}}
  "accel.pack"(%p, %q) {transposed = false} : (memref<1x16x16xf16>, memref<1x16x16xf16>) -> ()
  return
}

// -----

// A chunk without expectations must produce no diagnostic.
func.func @clean() {
  return
}
