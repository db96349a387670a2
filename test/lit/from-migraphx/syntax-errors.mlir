// Malformed MIGraphX text gets file:line:col diagnostics from our parser.
// RUN: not accel-opt --accel-from-migraphx --split-input-file %s 2>&1 | FileCheck %s

func.func @missing_arrow(%a: !migraphx.shaped<4x4xf16, 4x1>) -> !migraphx.shaped<4x4xf16, 1x4> {
// CHECK: syntax-errors.mlir:[[# @LINE + 1]]:86: error: unexpected '<4x4xf16, 1x4>'; expected ',' or '->' or 'to'
  %0 = migraphx.transpose %a {permutation = [1, 0]} : !migraphx.shaped<4x4xf16, 4x1> <4x4xf16, 1x4>
  return %0 : !migraphx.shaped<4x4xf16, 1x4>
}

// -----

func.func @undefined(%a: !migraphx.shaped<4x4xf16, 4x1>) -> !migraphx.shaped<4x4xf16, 1x4> {
// CHECK: syntax-errors.mlir:[[# @LINE + 1]]:27: error: use of undefined value '%b'
  %0 = migraphx.transpose %b {permutation = [1, 0]} : <4x4xf16, 4x1> -> <4x4xf16, 1x4>
  return %0 : !migraphx.shaped<4x4xf16, 1x4>
}

// -----

func.func @bad_type(%a: !migraphx.shaped<4x4xf16, 4x1>) -> !migraphx.shaped<4x4xf16, 1x4> {
// CHECK: syntax-errors.mlir:[[# @LINE + 1]]:55: error: MIGraphX shaped type '<4x4xf16, 4x1x1>' has 2 dimension(s) but 3 stride(s)
  %0 = migraphx.transpose %a {permutation = [1, 0]} : <4x4xf16, 4x1x1> -> <4x4xf16, 1x4>
  return %0 : !migraphx.shaped<4x4xf16, 1x4>
}

// -----

func.func @use_type(%a: !migraphx.shaped<4x4xf16, 4x1>) -> !migraphx.shaped<4x4xf16, 1x4> {
// CHECK: syntax-errors.mlir:[[# @LINE + 1]]:27: error: '%a' has type !migraphx.shaped<4x4xf16, 4x1> but is used as !migraphx.shaped<4x4xf32, 4x1>
  %0 = migraphx.transpose %a {permutation = [1, 0]} : <4x4xf32, 4x1> -> <4x4xf16, 1x4>
  return %0 : !migraphx.shaped<4x4xf16, 1x4>
}

// -----

func.func @char(%a: !migraphx.shaped<4x4xf16, 4x1>) -> !migraphx.shaped<4x4xf16, 4x1> {
// CHECK: syntax-errors.mlir:[[# @LINE + 1]]:8: error: unexpected character '?'
  %0 = ? migraphx.relu %a : <4x4xf16, 4x1> -> <4x4xf16, 4x1>
  return %0 : !migraphx.shaped<4x4xf16, 4x1>
}

// -----

// rocMLIR's test harness launches the kernel from a wrapper: named, not parsed.
func.func @wrapper(%a: !migraphx.shaped<4x4xf16, 4x1>) -> !migraphx.shaped<4x4xf16, 4x1> {
  %t = migraphx.transpose %a {permutation = [1, 0]} : <4x4xf16, 4x1> -> <4x4xf16, 1x4>
// CHECK: syntax-errors.mlir:[[# @LINE + 1]]:9: error: 'mhal.launch' (rocMLIR's test-harness launch wrapper) is not supported; pass the kernel function alone
  %token, %results = mhal.launch @kernel (%a) : (!migraphx.shaped<4x4xf16, 4x1>) -> !migraphx.shaped<4x4xf16, 4x1>
  return %results : !migraphx.shaped<4x4xf16, 4x1>
}

// -----

// A scale on an operand whose type has none (or the other way round) is malformed.
// CHECK: syntax-errors.mlir:[[# @LINE + 2]]:3: error: 'migraphx.quant_dot' operands and their types disagree on which operands are 'scaled by' block scales
func.func @mismatch(%a: !migraphx.shaped<1x16x512xf4E2M1FN, 8192x512x1>, %b: !migraphx.shaped<1x512x16xf4E2M1FN, 8192x16x1>, %sa: !migraphx.shaped<1x16x512xf32, 8192x512x1>) -> !migraphx.shaped<1x16x16xf32, 256x16x1> {
  %0 = migraphx.quant_dot %a scaled by %sa, %b : <1x16x512xf4E2M1FN, 8192x512x1>, <1x512x16xf4E2M1FN, 8192x16x1> -> <1x16x16xf32, 256x16x1>
  return %0 : !migraphx.shaped<1x16x16xf32, 256x16x1>
}

// -----

// CHECK: syntax-errors.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: dynamic MIGraphX shape '<?x4xf32, ?x1>' is not supported: accel compiles static shapes
func.func @dynamic(%a: !migraphx.shaped<?x4xf32, ?x1>) -> !migraphx.shaped<?x4xf32, ?x1> attributes {arch = "gfx942"} {
  return %a : !migraphx.shaped<?x4xf32, ?x1>
}
