// One flag per registered pass, options in the flag's value, passes run in
// command-line order: the first dump has only A packed, the second both.
// RUN: accel-opt %s --accel-layout='a=accel' --accel-layout=b=accel --mlir-print-ir-after-all 2>&1 >/dev/null | FileCheck %s --check-prefix=ORDER
// The same through --pass-pipeline, mixed with an upstream pass.
// RUN: accel-opt %s --pass-pipeline='builtin.module(accel-layout{a=accel b=accel}, canonicalize)' | FileCheck %s --check-prefix=PIPE
// A bad option is a one-line command-line error.
// RUN: not accel-opt %s --accel-layout='a=diagonal' 2>&1 | FileCheck %s --check-prefix=BADVAL
// RUN: not accel-opt %s --accel-layout='z=1' 2>&1 | FileCheck %s --check-prefix=BADOPT
// Pass flags and --pass-pipeline do not mix (the order between them would be a guess).
// RUN: not accel-opt %s --accel-layout --pass-pipeline='builtin.module(cse)' 2>&1 | FileCheck %s --check-prefix=MIX

// ORDER: // -----// IR Dump After accel-layout{a=accel b=auto c=row} //----- //
// ORDER: "accel.pack"(%arg0,
// ORDER-NOT: "accel.pack"
// ORDER: "accel.gemm"
// ORDER: // -----// IR Dump After accel-layout{a=auto b=accel c=row} //----- //
// ORDER: "accel.pack"(%arg0,
// ORDER: "accel.pack"(%arg1,
// ORDER: "accel.gemm"

// PIPE: "accel.pack"(%arg0,
// PIPE: "accel.pack"(%arg1,
// PIPE: "accel.gemm"({{.*}}) {a_layout = "accel", arch = "gfx942", b_layout = "accel"

// BADVAL: accel-opt: error: option 'a' of 'accel-layout' must be one of auto, row, transposed, accel, got 'diagonal'
// BADOPT: accel-opt: error: pass 'accel-layout' has no option 'z' (options: a, b, c)
// MIX: accel-opt: error: '--pass-pipeline' cannot be combined with individual pass flags

func.func @f(%a: memref<1x64x128xf16>, %b: memref<1x128x48xf16>, %c: memref<1x64x48xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:32,32,8,16,16,16,8,1,2,2,0,0,1,1"} : (memref<1x64x128xf16>, memref<1x128x48xf16>, memref<1x64x48xf32>) -> ()
  return
}
