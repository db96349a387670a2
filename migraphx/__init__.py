"""Front end for MIGraphX IR: its custom syntax read into generic-form MLIR, and the
lowering of a MIGraphX function to accel.gemm (the pass accel-from-migraphx).

`looks_like_migraphx(text)` tells the tools whether a file needs translating;
`translate(text, filename)` returns MLIR text the bindings parse, with every op at its
source location (grammar.py, translate.py). The lowering, one concept per module:
boundary.py (arguments and results as memrefs, the arch), view_ops.py and view.py
(views), dot.py (dot / quant_dot -> accel.gemm), epilogue.py (the fused elementwise
chain), literal.py, copies.py (accel.copy kernels into a layout), lowering.py (the driver).
"""

from accel.migraphx.translate import looks_like_migraphx, translate  # noqa: F401
