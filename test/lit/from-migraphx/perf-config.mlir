// Perf configs as MIGraphX writes them: rocMLIR's older 9-field `v2:` is read (as the
// v3 with scheduleVersion 1 and outputSwizzle 2 it stands for), and an attention
// config on a dot is ignored with a warning, leaving the choice to affix-perf-config.
// RUN: accel-opt --accel-from-migraphx --split-input-file --verify-diagnostics %s
// RUN: accel-opt --accel-from-migraphx --split-input-file %s 2>/dev/null | FileCheck %s
// RUN: accel-opt --accel-from-migraphx --split-input-file %s 2>&1 >/dev/null | FileCheck %s --check-prefix=WARN

// CHECK-LABEL: func.func @v2
// CHECK: "accel.gemm"{{.*}}perf_config = "v2:16,32,4,16,16,4,1,1,1"
func.func @v2(%a: !migraphx.shaped<1x32x64xf32, 2048x64x1>, %b: !migraphx.shaped<1x64x32xf32, 2048x32x1>) -> !migraphx.shaped<1x32x32xf32, 1024x32x1> attributes {rock.arch = "gfx942"} {
  %0 = migraphx.dot %a, %b {perf_config = "v2:16,32,4,16,16,4,1,1,1"} : <1x32x64xf32, 2048x64x1>, <1x64x32xf32, 2048x32x1> -> <1x32x32xf32, 1024x32x1>
  return %0 : !migraphx.shaped<1x32x32xf32, 1024x32x1>
}

// -----

// CHECK-LABEL: func.func @attn
// CHECK: "accel.gemm"
// CHECK-NOT: perf_config
// CHECK-SAME: -> ()
// WARN: perf-config.mlir:[[# @LINE + 3]]:3: warning: perf config 'attn:mPerBlockG0=32,nPerBlockG0=32,kPerBlock=32,numWaves=4,matrixInstrNonkdim=0,splitKFactor=4' is not a GEMM config; it is ignored and one is chosen
func.func @attn(%a: !migraphx.shaped<1x32x64xf16, 2048x64x1>, %b: !migraphx.shaped<1x64x32xf16, 2048x32x1>) -> !migraphx.shaped<1x32x32xf16, 1024x32x1> attributes {rock.arch = "gfx942"} {
  // expected-warning@+1 {{is not a GEMM config; it is ignored and one is chosen}}
  %0 = migraphx.dot %a, %b {perf_config = "attn:mPerBlockG0=32,nPerBlockG0=32,kPerBlock=32,numWaves=4,matrixInstrNonkdim=0,splitKFactor=4"} : <1x32x64xf16, 2048x64x1>, <1x64x32xf16, 2048x32x1> -> <1x32x32xf16, 1024x32x1>
  return %0 : !migraphx.shaped<1x32x32xf16, 1024x32x1>
}

// -----

// A split-K config (rocMLIR's split-K tests) is kept: the gemm is split along K
// (accel-plan-kernel's split_k), no warning.
// CHECK-LABEL: func.func @split_k
// CHECK: "accel.gemm"{{.*}}perf_config = "v2:16,32,4,16,16,4,4,1,1"
// WARN-NOT: splitKFactor
func.func @split_k(%a: !migraphx.shaped<1x32x64xf32, 2048x64x1>, %b: !migraphx.shaped<1x64x32xf32, 2048x32x1>) -> !migraphx.shaped<1x32x32xf32, 1024x32x1> attributes {rock.arch = "gfx942"} {
  %0 = migraphx.dot %a, %b {perf_config = "v2:16,32,4,16,16,4,4,1,1"} : <1x32x64xf32, 2048x64x1>, <1x64x32xf32, 2048x32x1> -> <1x32x32xf32, 1024x32x1>
  return %0 : !migraphx.shaped<1x32x32xf32, 1024x32x1>
}
