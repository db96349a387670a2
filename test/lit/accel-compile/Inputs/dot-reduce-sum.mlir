// A dot whose row sums are returned (rocMLIR's mixr-dot-add-reduce-sum, smaller): the
// gemm writes the product into a buffer the host allocates, a row-reduction kernel
// reads it and writes the result.
func.func @test(%arg0: !migraphx.shaped<2x24x10xf16, 240x10x1>, %arg1: !migraphx.shaped<2x10x12xf16, 120x12x1>) -> !migraphx.shaped<2x24x1xf16, 24x1x1> attributes {arch = "gfx942"} {
  %0 = migraphx.dot %arg0, %arg1 : <2x24x10xf16, 240x10x1>, <2x10x12xf16, 120x12x1> -> <2x24x12xf16, 288x12x1>
  %1 = migraphx.reduce_sum %0 {axes = [2 : i64]} : <2x24x12xf16, 288x12x1> -> <2x24x1xf16, 24x1x1>
  return %1 : !migraphx.shaped<2x24x1xf16, 24x1x1>
}
