"""Pass `accel-copy-to-gpu`: each `accel.copy` becomes a Kernel IR kernel
(codegen/copy.py) and, in its host function, a `gpu.launch_func` of it on the kernel's
1-D grid, passing the input and then the output. The kernel is named after what it
moves, so identical copies share one kernel.
"""

from __future__ import annotations

from dataclasses import dataclass

from accel.bindings import arith, gpu, ir
from accel.codegen.copy import CopyKernel
from accel.diagnostics import AccelError
from accel.dialect.copy import CopyOp
from accel.dialect.ir_helpers import append_kernel_modules, collect_ops
from accel.passes.registry import AccelPass, option, register


@register
@dataclass(frozen=True)
class CopyToGpu(AccelPass):
    NAME = "accel-copy-to-gpu"
    SUMMARY = "Lower accel.copy to a gpu.module kernel and a launch"
    arch: str = option("", "the chip the ops must target (empty: any)")

    def run(self, module: ir.Module) -> None:
        lower_copies(module, self.arch)


def lower_copies(module: ir.Module, arch: str = "") -> list[CopyKernel]:
    """Lower every accel.copy in `module` (each targeting `arch`, when given); returns
    their kernels in program order."""
    ops = [CopyOp(op) for op in collect_ops(module, CopyOp.OP_NAME)]
    kernels = []
    for op in ops:   # every diagnostic before any rewrite
        op.verify()
        if arch and op.arch != arch:
            raise AccelError(f"'{op.OP_NAME}' targets {op.arch} but the pipeline targets "
                             f"{arch}", op.location)
        kernels.append(CopyKernel.of(op))
    append_kernel_modules(module, kernels)
    for op, kernel in zip(ops, kernels):
        with ir.InsertionPoint(op.op), op.location:
            index = ir.IndexType.get()
            grid = [arith.ConstantOp(index, v).result for v in kernel.grid]
            block = [arith.ConstantOp(index, v).result for v in (kernel.block_size, 1, 1)]
            gpu.LaunchFuncOp([kernel.symbol, kernel.symbol], grid, block,
                             kernel_operands=[op.inp, op.out])
        op.op.erase()
    if ops:
        module.operation.attributes["gpu.container_module"] = ir.UnitAttr.get()
    return kernels
