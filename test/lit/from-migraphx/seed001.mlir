// Seed 001's two MIGraphX modules, verbatim (Inputs/), with ##TOKEN_ARCH## replaced.
// RUN: sed 's/##TOKEN_ARCH##/gfx942/' %S/Inputs/seed001_gemm.mlir | accel-opt --accel-from-migraphx | FileCheck %s --check-prefix=GEMM
// RUN: sed 's/##TOKEN_ARCH##/gfx1201/' %S/Inputs/seed001_gemm.mlir | accel-opt --accel-from-migraphx | FileCheck %s --check-prefix=GFX12
// RUN: sed 's/##TOKEN_ARCH##/gfx942/' %S/Inputs/seed001_accel_output.mlir | accel-opt --accel-from-migraphx | FileCheck %s --check-prefix=OUT

// Both transpose [0,1,4,2,3,5] + reshape chains fold into accel operands (blocking
// 32 x 8 x 8 from the v3 perf config); the result is an out-parameter written in place.
// GEMM:      func.func @mfma_layout(%[[A:.*]]: memref<1x4x80x8x32x8xf16>, %[[B:.*]]: memref<1x40x80x8x32x8xf16>, %[[C:.*]]: memref<1x128x1280xf16>) attributes {arch = "gfx942", kernel}
// GEMM-NEXT: "accel.gemm"(%[[A]], %[[B]], %[[C]]) {a_layout = "accel", arch = "gfx942", b_layout = "accel", c_layout = "row", perf_config = "v3:32,32,8,16,16,8,1,2,2,1,1"}
// GEMM-NEXT: return
// GEMM-NOT:  migraphx

// GFX12: "accel.gemm"{{.*}}a_layout = "accel", arch = "gfx1201", b_layout = "accel"

// The second module's result strides 163840x40960x64x8x1280x1 say the output buffer
// is row-major [1, 4, 32, 20, 8, 8], i.e. row-major C [1, 128, 1280]: the output
// reshape + transpose only re-index it. So C is row, written straight into the
// out-parameter (see accel_output.mlir for a result stored in the accel layout).
// OUT:      func.func @mfma_layout(%[[A:.*]]: memref<1x4x80x8x32x8xf16>, %[[B:.*]]: memref<1x40x80x8x32x8xf16>, %[[C:.*]]: memref<1x4x32x20x8x8xf16>)
// OUT-NEXT: %[[CV:.*]] = memref.collapse_shape %[[C]] {{\[}}[0], [1, 2], [3, 4, 5]] : memref<1x4x32x20x8x8xf16> into memref<1x128x1280xf16>
// OUT-NEXT: "accel.gemm"(%[[A]], %[[B]], %[[CV]]) {a_layout = "accel", arch = "gfx942", b_layout = "accel", c_layout = "row"
// OUT-NEXT: return
