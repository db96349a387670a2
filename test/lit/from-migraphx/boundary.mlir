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

// -----

// A result with a wider batch stride (rocMLIR's non-contiguous-strides sigmoid) crosses
// as a flat buffer, 3 * 1152 + 23 * 24 + 23 + 1 = 4032; the gemm and its fused sigmoid
// write it in place through a strided view of it: no temporary, no copy.
// CHECK-LABEL: func.func @wide_batch_result
// CHECK-SAME: %[[OUT:[a-z0-9]+]]: memref<4032xf16>)
// CHECK-NEXT: %[[C:.*]] = memref.reinterpret_cast %[[OUT]] to offset: [0], sizes: [4, 24, 24], strides: [1152, 24, 1] : memref<4032xf16> to memref<4x24x24xf16, strided<[1152, 24, 1]>>
// CHECK-NEXT: "accel.gemm"(%{{.*}}, %{{.*}}, %[[C]]) {{.*}}epilogue = "%0 = sigmoid %acc"
// CHECK-NOT: accel.copy
func.func @wide_batch_result(%a: !migraphx.shaped<4x24x16xf16, 384x16x1>, %b: !migraphx.shaped<4x16x24xf16, 384x24x1>) -> !migraphx.shaped<4x24x24xf16, 1152x24x1> {
  %0 = migraphx.dot %a, %b : <4x24x16xf16, 384x16x1>, <4x16x24xf16, 384x24x1> -> <4x24x24xf16, 576x24x1>
  %1 = migraphx.sigmoid %0 : <4x24x24xf16, 576x24x1> -> <4x24x24xf16, 1152x24x1>
  return %1 : !migraphx.shaped<4x24x24xf16, 1152x24x1>
}

// -----

// C returned transposed (mixr-gemm-transpose): the packed [G, N, M] result is C with M
// of stride 1, which the gemm writes in place.
// CHECK-LABEL: func.func @transposed_result
// CHECK-SAME: %[[OUT:[a-z0-9]+]]: memref<2x24x40xf16>)
// CHECK: %[[FLAT:.*]] = memref.collapse_shape %[[OUT]]
// CHECK-NEXT: %[[C:.*]] = memref.reinterpret_cast %[[FLAT]] to offset: [0], sizes: [2, 40, 24], strides: [960, 1, 40] : memref<1920xf16> to memref<2x40x24xf16, strided<[960, 1, 40]>>
// CHECK-NEXT: "accel.gemm"(%{{.*}}, %{{.*}}, %[[C]])
// CHECK-NOT: accel.copy
func.func @transposed_result(%a: !migraphx.shaped<2x40x16xf16, 640x16x1>, %b: !migraphx.shaped<2x16x24xf16, 384x24x1>) -> !migraphx.shaped<2x24x40xf16, 960x40x1> {
  %0 = migraphx.dot %a, %b : <2x40x16xf16, 640x16x1>, <2x16x24xf16, 384x24x1> -> <2x40x24xf16, 960x24x1>
  %1 = migraphx.transpose %0 {permutation = [0, 2, 1]} : <2x40x24xf16, 960x24x1> -> <2x24x40xf16, 960x40x1>
  return %1 : !migraphx.shaped<2x24x40xf16, 960x40x1>
}
