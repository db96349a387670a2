"""Pass `accel-elementwise-to-gpu`: each `accel.elementwise` becomes a Kernel IR kernel
(codegen/elementwise.py) and, in its host function, a `gpu.launch_func` of it on the
kernel's grid (N tiles, M tiles, G; a row reduction: 1, M tiles, G), passing the inputs
and then the output. The kernel is named after what it computes, so identical ops share
one kernel.
"""

from __future__ import annotations

from dataclasses import dataclass

from accel.bindings import ir
from accel.codegen.elementwise import ElementwiseKernel
from accel.dialect.elementwise import ElementwiseOp
from accel.passes.kernel_launch import lower_to_launches
from accel.passes.registry import AccelPass, option, register


@register
@dataclass(frozen=True)
class ElementwiseToGpu(AccelPass):
    NAME = "accel-elementwise-to-gpu"
    SUMMARY = "Lower accel.elementwise (and its row reductions) to a gpu.module kernel and a launch"
    arch: str = option("", "the chip the ops must target (empty: any)")

    def run(self, module: ir.Module) -> None:
        lower_elementwise(module, self.arch)


def lower_elementwise(module: ir.Module, arch: str = "") -> list[ElementwiseKernel]:
    """Lower every accel.elementwise in `module` (each targeting `arch`, when given);
    returns their kernels in program order."""
    return lower_to_launches(module, ElementwiseOp, ElementwiseKernel.of, lambda op: op.inputs + [op.out], arch)
