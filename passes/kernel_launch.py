"""An op that is one kernel, replaced by a `gpu.launch_func` of it (the lowering that
accel-elementwise-to-gpu and accel-copy-to-gpu share).

Every op is verified and its kernel built before any rewrite, so a diagnostic leaves the
module as it was; each distinct kernel (named by its content) is one gpu.module.
"""

from __future__ import annotations

from typing import Callable

from accel.bindings import arith, gpu, ir
from accel.diagnostics import AccelError
from accel.dialect.ir_helpers import append_kernel_modules, collect_ops


def lower_to_launches(module: ir.Module, op_class, kernel_of: Callable,
                      operands: Callable, arch: str = "") -> list:
    """Replace every `op_class` op of `module` (each targeting `arch`, when given) by a
    launch of `kernel_of(op)` on its grid with `operands(op)`; returns the kernels in
    program order."""
    ops = [op_class(op) for op in collect_ops(module, op_class.OP_NAME)]
    kernels = []
    for op in ops:
        op.verify()
        if arch and op.arch != arch:
            raise AccelError(f"'{op.OP_NAME}' targets {op.arch} but the pipeline targets "
                             f"{arch}", op.location)
        kernels.append(kernel_of(op))
    append_kernel_modules(module, kernels)
    for op, kernel in zip(ops, kernels):
        with ir.InsertionPoint(op.op), op.location:
            index = ir.IndexType.get()
            grid = [arith.ConstantOp(index, v).result for v in kernel.grid]
            block = [arith.ConstantOp(index, v).result for v in (kernel.block_size, 1, 1)]
            gpu.LaunchFuncOp([kernel.symbol, kernel.symbol], grid, block,
                             kernel_operands=operands(op))
        op.op.erase()
    if ops:
        module.operation.attributes["gpu.container_module"] = ir.UnitAttr.get()
    return kernels
