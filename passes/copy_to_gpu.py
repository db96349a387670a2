"""Pass `accel-copy-to-gpu`: each `accel.copy` becomes a Kernel IR kernel
(codegen/copy.py) and, in its host function, a `gpu.launch_func` of it on the kernel's
1-D grid, passing the input and then the output. The kernel is named after what it
moves, so identical copies share one kernel.
"""

from __future__ import annotations

from dataclasses import dataclass

from accel.bindings import ir
from accel.codegen.copy import CopyKernel
from accel.dialect.copy import CopyOp
from accel.passes.kernel_launch import lower_to_launches
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
    return lower_to_launches(module, CopyOp, CopyKernel.of, lambda op: [op.inp, op.out], arch)
