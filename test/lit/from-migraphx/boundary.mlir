// The function boundary as MIGraphX writes it: `rock.arch`, an empty arch (a harness
// placeholder) taken as not given, and strided (non-packed) arguments.
// RUN: accel-opt --accel-from-migraphx=arch=gfx1100 --split-input-file %s | FileCheck %s
// RUN: not accel-opt --accel-from-migraphx --split-input-file %s 2>&1 | FileCheck %s --check-prefix=NOARCH

// MIGraphX's own attribute names the arch.
// CHECK-LABEL: func.func @rock_arch
// CHECK: "accel.gemm"{{.*}}arch = "gfx1201"
func.func @rock_arch(%a: !migraphx.shaped<1x16x16xf16, 256x16x1>, %b: !migraphx.shaped<1x16x16xf16, 256x16x1>) -> !migraphx.shaped<1x16x16xf16, 256x16x1> attributes {rock.arch = "gfx1201", rock.kernel = "mixr"} {
  %0 = migraphx.dot %a, %b : <1x16x16xf16, 256x16x1>, <1x16x16xf16, 256x16x1> -> <1x16x16xf16, 256x16x1>
  return %0 : !migraphx.shaped<1x16x16xf16, 256x16x1>
}

// -----

// An empty rock.arch is not given: the option's arch is used; without the option
// the message says neither was given.
// CHECK-LABEL: func.func @empty_arch
// CHECK: "accel.gemm"{{.*}}arch = "gfx1100"
// NOARCH: boundary.mlir:[[# @LINE + 1]]:1: error: MIGraphX function has no 'arch' (or 'rock.arch') attribute and no arch option was given
func.func @empty_arch(%a: !migraphx.shaped<1x16x16xf16, 256x16x1>, %b: !migraphx.shaped<1x16x16xf16, 256x16x1>) -> !migraphx.shaped<1x16x16xf16, 256x16x1> attributes {rock.arch = "", arch = ""} {
  %0 = migraphx.dot %a, %b : <1x16x16xf16, 256x16x1>, <1x16x16xf16, 256x16x1> -> <1x16x16xf16, 256x16x1>
  return %0 : !migraphx.shaped<1x16x16xf16, 256x16x1>
}

// -----

// A with row gaps (every other row of a 32-row buffer, as a slice leaves it) crosses
// as a flat buffer spanning its elements, 15 * 64 + 31 + 1 = 992, which the gemm reads
// in place through its strides: no copy.
// CHECK-LABEL: func.func @gapped_arg
// CHECK-SAME: (%[[A:.*]]: memref<992xf16>, %{{.*}}: memref<1x32x16xf16>, %{{.*}}: memref<1x16x16xf16>)
// CHECK-NEXT: %[[VIEW:.*]] = memref.reinterpret_cast %[[A]] to offset: [0], sizes: [1, 16, 32], strides: [1024, 64, 1] : memref<992xf16> to memref<1x16x32xf16, strided<[1024, 64, 1]>>
// CHECK-NOT: accel.copy
// CHECK: "accel.gemm"(%[[VIEW]],
func.func @gapped_arg(%a: !migraphx.shaped<1x16x32xf16, 1024x64x1>, %b: !migraphx.shaped<1x32x16xf16, 512x16x1>) -> !migraphx.shaped<1x16x16xf16, 256x16x1> attributes {rock.arch = ""} {
  %0 = migraphx.dot %a, %b : <1x16x32xf16, 1024x64x1>, <1x32x16xf16, 512x16x1> -> <1x16x16xf16, 256x16x1>
  return %0 : !migraphx.shaped<1x16x16xf16, 256x16x1>
}
