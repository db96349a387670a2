// MX-scaled quant_dot (rocMLIR's block-scaled MXFP4 form, `%a scaled by %sa`): parsed,
// printed in generic form with the scales after the operands (operandSegmentSizes),
// and diagnosed by the pass as the feature it is.
// RUN: accel-opt --split-input-file %s | FileCheck %s --check-prefix=GENERIC
// RUN: accel-opt --accel-from-migraphx=arch=gfx942 --split-input-file --verify-diagnostics %s
// RUN: not accel-opt --accel-from-migraphx=arch=gfx942 --split-input-file %s 2>&1 | FileCheck %s

// GENERIC-LABEL: func.func @both
// GENERIC: "migraphx.quant_dot"(%arg0, %arg1, %arg2, %arg3) {operandSegmentSizes = array<i32: 1, 1, 1, 1>, perf_config = "v3:64,64,16,32,32,32,4,1,2,1,1"} : (!migraphx.shaped<1x16x512xf4E2M1FN, 8192x512x1>, !migraphx.shaped<1x512x16xf4E2M1FN, 8192x16x1>, !migraphx.shaped<1x16x512xf8E8M0FNU, 8192x512x1>, !migraphx.shaped<1x512x16xf8E8M0FNU, 8192x16x1>) -> !migraphx.shaped<1x16x16xf32, 256x16x1>
// CHECK: mx-scaled.mlir:[[# @LINE + 8]]:3: error: MX-scaled 'migraphx.quant_dot' (operands 'scaled by' block scales, e.g. MXFP4) is not supported by accel-from-migraphx
func.func @both(
  %a: !migraphx.shaped<1x16x512xf4E2M1FN, 8192x512x1>,
  %b: !migraphx.shaped<1x512x16xf4E2M1FN, 8192x16x1>,
  %sa: !migraphx.shaped<1x16x512xf8E8M0FNU, 8192x512x1>,
  %sb: !migraphx.shaped<1x512x16xf8E8M0FNU, 8192x16x1>
) -> !migraphx.shaped<1x16x16xf32, 256x16x1> {
  // expected-error@+1 {{MX-scaled 'migraphx.quant_dot'}}
  %0 = migraphx.quant_dot
       %a scaled by %sa,
       %b scaled by %sb {perf_config = "v3:64,64,16,32,32,32,4,1,2,1,1"}
     : !migraphx.shaped<1x16x512xf4E2M1FN, 8192x512x1> scaled by
       !migraphx.shaped<1x16x512xf8E8M0FNU, 8192x512x1>,
       !migraphx.shaped<1x512x16xf4E2M1FN, 8192x16x1> scaled by
       !migraphx.shaped<1x512x16xf8E8M0FNU, 8192x16x1>
     -> !migraphx.shaped<1x16x16xf32, 256x16x1>
  return %0 : !migraphx.shaped<1x16x16xf32, 256x16x1>
}

// -----

// Only B scaled; the MX-scaled op is reported before the unpack above it (an
// unsupported op of its own), so the message names the feature the kernel is about.
// GENERIC-LABEL: func.func @b_only
// GENERIC: "migraphx.quant_dot"(%{{.*}}, %arg1, %arg2) {operandSegmentSizes = array<i32: 1, 1, 0, 1>}
// CHECK: mx-scaled.mlir:[[# @LINE + 8]]:3: error: MX-scaled 'migraphx.quant_dot'
func.func @b_only(
  %a: !migraphx.shaped<1x16x256xi8, 4096x256x1>,
  %b: !migraphx.shaped<1x512x16xf4E2M1FN, 8192x16x1>,
  %sb: !migraphx.shaped<1x512x16xf32, 8192x16x1>
) -> !migraphx.shaped<1x16x16xf32, 256x16x1> {
  %u = migraphx.unpack %a {axis = 2 : i64} : <1x16x256xi8, 4096x256x1> -> <1x16x512xf4E2M1FN, 8192x512x1>
  // expected-error@+1 {{MX-scaled 'migraphx.quant_dot'}}
  %0 = migraphx.quant_dot %u, %b scaled by %sb : <1x16x512xf4E2M1FN, 8192x512x1>, <1x512x16xf4E2M1FN, 8192x16x1> scaled by !migraphx.shaped<1x512x16xf32, 8192x16x1> -> <1x16x16xf32, 256x16x1>
  return %0 : !migraphx.shaped<1x16x16xf32, 256x16x1>
}

