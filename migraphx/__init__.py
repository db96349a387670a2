"""Front end for MIGraphX IR: its custom syntax read into generic-form MLIR.

`looks_like_migraphx(text)` tells the tools whether a file needs translating;
`translate(text, filename)` returns MLIR text the bindings parse, with every op at its
source location. The pass `accel-from-migraphx` then turns the ops into accel.gemm.
"""

from accel.migraphx.translate import looks_like_migraphx, translate  # noqa: F401
