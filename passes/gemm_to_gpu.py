"""accel-gemm-to-gpu: each `accel.gemm` becomes a Kernel IR kernel and a launch of it.

The kernel itself is built by accel.codegen (see codegen/kernel.py) as the gemm's
kernel plan says (accel-plan-kernel must have run); this pass places
one `gpu.module` per kernel in the module (marked `gpu.container_module`) and replaces
the gemm, inside its function, with a `gpu.launch_func` on grid (N tiles, M tiles, G)
and a 1-D block of numWaves * waveSize threads, passing A, B, C (and the bias of a
fused bias epilogue) in that order.
"""

from __future__ import annotations

from dataclasses import dataclass

from accel.bindings import arith, gpu, ir
from accel.codegen.kernel import GemmKernel, build_kernel
from accel.dialect.gemm import GemmOp
from accel.dialect.ir_helpers import collect_ops
from accel.diagnostics import AccelError
from accel.passes.registry import AccelPass, register


@register
@dataclass(frozen=True)
class GemmToGpu(AccelPass):
    NAME = "accel-gemm-to-gpu"
    SUMMARY = "Lower accel.gemm to an MFMA/WMMA gpu.module kernel and a gpu.launch_func"

    def run(self, module: ir.Module) -> None:
        lower_gemms(module)


def lower_gemms(module: ir.Module) -> list[GemmKernel]:
    """Lower every accel.gemm in `module`; returns the kernels in program order."""
    gemms = [GemmOp(op) for op in collect_ops(module, GemmOp.OP_NAME)]
    kernels = [build_kernel(g) for g in gemms]   # all diagnostics before any rewrite
    existing = {op.attributes["sym_name"].value: op for op in module.body.operations
                if op.operation.name == "gpu.module"}
    placed: dict[str, str] = {}        # symbol -> kernel text
    for gemm, kernel in zip(gemms, kernels):
        _check_launch_attrs(gemm, kernel)
        text = kernel.module_text()
        if kernel.symbol in placed:
            # accel-plan-kernel gives gemms built differently distinct symbols.
            if placed[kernel.symbol] != text:
                raise AccelError(f"two gemms are planned as kernel '{kernel.symbol}' but "
                                 f"build different kernels; rerun accel-plan-kernel",
                                 gemm.location)
        else:
            if kernel.symbol in existing:
                raise AccelError(f"the module already has a gpu.module named "
                                 f"'{kernel.symbol}'", gemm.location)
            parsed = ir.Module.parse(text)
            for op in list(parsed.body.operations):
                module.body.append(op)
            placed[kernel.symbol] = text
        _replace_with_launch(gemm, kernel)
    if kernels:
        module.operation.attributes["gpu.container_module"] = ir.UnitAttr.get()
    return kernels


def _check_launch_attrs(gemm: GemmOp, kernel: GemmKernel) -> None:
    """A block/grid recorded by accel-affix-perf-config must match what is launched."""
    gx, gy, gz = kernel.grid
    if gemm.block_size is not None and gemm.block_size != kernel.block_size:
        raise AccelError(f"block_size {gemm.block_size} disagrees with the perf config's "
                         f"{kernel.block_size} threads", gemm.location)
    if gemm.grid_size is not None and gemm.grid_size != gx * gy * gz:
        raise AccelError(f"grid_size {gemm.grid_size} disagrees with the {gx}x{gy}x{gz} "
                         f"workgroups the kernel needs", gemm.location)


def _replace_with_launch(gemm: GemmOp, kernel: GemmKernel) -> None:
    loc = gemm.location
    with ir.InsertionPoint(gemm.op), loc:
        index = ir.IndexType.get()

        def c(v: int) -> ir.Value:
            return arith.ConstantOp(index, v).result

        gx, gy, gz = kernel.grid
        gpu.LaunchFuncOp([kernel.symbol, kernel.symbol], (c(gx), c(gy), c(gz)),
                         (c(kernel.block_size), c(1), c(1)),
                         kernel_operands=list(gemm.op.operands))
    gemm.op.erase()
