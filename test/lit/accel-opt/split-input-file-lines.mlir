// Errors in later chunks carry the line numbers of the original file, every chunk is
// processed, and a failure in one chunk makes the whole run fail; the chunks that
// succeed are still printed (mlir-opt's behaviour).
// RUN: not accel-opt --split-input-file %s 2>&1 | FileCheck %s
// RUN: not accel-opt --split-input-file %s 2>/dev/null | FileCheck %s --check-prefix=OUT

// OUT: func.func @fine
// OUT-NOT: func.func
// OUT: // -----
// OUT-NEXT: module {
// OUT-NEXT: func.func @last
// OUT-NOT: // -----

func.func @fine() {
  return
}

// -----

// CHECK: split-input-file-lines.mlir:[[# @LINE + 2]]:16: error: use of undeclared SSA value name
func.func @parse_error(%a: memref<1x16x16xf16>) {
  "accel.pack"(%nope, %a) {transposed = false} : (memref<1x16x16xf16>, memref<1x16x16xf16>) -> ()
  return
}

// -----

// CHECK: split-input-file-lines.mlir:[[# @LINE + 2]]:3: error: accel operand must be rank 6, got rank 3
func.func @verify_error(%a: memref<1x16x16xf16>, %b: memref<1x16x16xf16>) {
  "accel.pack"(%a, %b) {transposed = false} : (memref<1x16x16xf16>, memref<1x16x16xf16>) -> ()
  return
}

// -----

func.func @last() {
  return
}
