"""accel-from-migraphx: MIGraphX kernels (generic form, see accel.migraphx) -> accel.gemm,
accel.elementwise and accel.copy.

Per `func.func` whose signature uses `!migraphx.shaped` (or whose body holds MIGraphX
ops; `tensor<...>` types of the older form are packed row-major), one step per concept:

* the function boundary, arguments and results as memrefs, and the arch
  (accel.migraphx.boundary);
* transpose / reshape / multibroadcast / broadcast / slice as views, no data moved
  (accel.migraphx.view_ops, accel.migraphx.view);
* dot and quant_dot -> accel.gemm, operands read in place where a layout matches,
  C written in place into the out-parameter where it can be (accel.migraphx.dot);
* epilogue fusion: the elementwise chain after a dot, and the ops computing its other
  operands, become the gemm's epilogue op list (accel.migraphx.epilogue);
* what no epilogue takes (and quantize/dequantizelinear, int4 unpack, reduce_sum /
  reduce_max and softmax over the last axis) -> accel.elementwise kernels
  (accel.migraphx.elementwise);
* a view no kernel reads in place, and a value returned through a view -> an
  accel.copy kernel (accel.migraphx.copies);
* literal -> a private constant memref.global (accel.migraphx.literal);
driven op by op by accel.migraphx.lowering. An MX-scaled quant_dot is diagnosed before
anything of its function is read. Errors (wrong rank, bad permutation, mismatched
shapes or types) are raised at the MIGraphX op's location.
"""

from __future__ import annotations

from dataclasses import dataclass

from accel.bindings import ir
from accel.dialect.ir_helpers import collect_ops
from accel.migraphx.boundary import is_migraphx_func
from accel.migraphx.dot import reject_mx_scaled
from accel.migraphx.lowering import FuncLowering
from accel.passes.registry import AccelPass, option, register
from accel.target.database import get_arch


@register
@dataclass(frozen=True)
class FromMigraphx(AccelPass):
    NAME = "accel-from-migraphx"
    SUMMARY = ("Lower MIGraphX dot / quant_dot (+ view chains, fused elementwise epilogues) "
               "to accel.gemm on memrefs, other elementwise work to accel.elementwise")
    arch: str = option("", "target arch for functions without an 'arch' attribute")

    def run(self, module: ir.Module) -> None:
        if self.arch:  # checked even when every function names its own arch
            get_arch(self.arch.split(":")[0])
        for f in collect_ops(module, "func.func"):
            if is_migraphx_func(f):
                reject_mx_scaled(f)
                with f.location:
                    FuncLowering(module, f, self.arch).run()
