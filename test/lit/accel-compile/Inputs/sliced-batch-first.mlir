// A small batch-first-e2e (rocMLIR gemm-layouts/other): A a slice of a batch-innermost
// buffer, B batch-innermost, both transposed: two copy kernels, then the gemm.
func.func @test(%arg0: !migraphx.shaped<2x20x24xf16, 1x2x40>, %arg1: !migraphx.shaped<2x12x10xf16, 1x2x24>) -> !migraphx.shaped<2x24x12xf16, 288x12x1> attributes {arch = "gfx942"} {
  %0 = migraphx.slice %arg0 {axes = [1], ends = [10], starts = [0]} : <2x20x24xf16, 1x2x40> -> <2x10x24xf16, 1x2x40>
  %1 = migraphx.transpose %0 {permutation = [0, 2, 1]} : <2x10x24xf16, 1x2x40> -> <2x24x10xf16, 1x40x2>
  %2 = migraphx.transpose %arg1 {permutation = [0, 2, 1]} : <2x12x10xf16, 1x2x24> -> <2x10x12xf16, 1x24x2>
  %3 = migraphx.dot %1, %2 : <2x24x10xf16, 1x40x2>, <2x10x12xf16, 1x24x2> -> <2x24x12xf16, 288x12x1>
  return %3 : !migraphx.shaped<2x24x12xf16, 288x12x1>
}
