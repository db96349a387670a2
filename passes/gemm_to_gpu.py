"""accel-gemm-to-gpu: each `accel.gemm` becomes a Kernel IR kernel and a launch of it.

The kernel itself is built by accel.codegen (see codegen/kernel.py) as the gemm's
kernel plan says (accel-plan-kernel must have run); this pass places
one `gpu.module` per kernel in the module (marked `gpu.container_module`) and replaces
the gemm, inside its function, with a `gpu.launch_func` on grid (N tiles, M tiles, G)
and a 1-D block of numWaves * waveSize threads, passing A, B, C (and the bias of a
fused bias epilogue) in that order.

A split-K gemm (its plan's `split_k`) becomes two kernels and their launches between a
`memref.alloc` and a `memref.dealloc` of the workspace: the partial products
(A, B, workspace; grid z = G * S), then the reduction (workspace, C, the epilogue's
operands) on the gemm's tile grid (codegen/k_slices.py, codegen/split_k_reduce.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from accel.bindings import arith, gpu, ir, memref
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
        for built in (kernel, kernel.reduction):
            if built is not None:
                _place(module, built.symbol, built.module_text(), placed, existing, gemm)
        _replace_with_launch(gemm, kernel)
    if kernels:
        module.operation.attributes["gpu.container_module"] = ir.UnitAttr.get()
    return kernels


def _place(module: ir.Module, symbol: str, text: str, placed: dict, existing: dict,
           gemm: GemmOp) -> None:
    """Append kernel `text` as gpu.module `symbol`, once per symbol."""
    if symbol in placed:
        # accel-plan-kernel gives gemms built differently distinct symbols.
        if placed[symbol] != text:
            raise AccelError(f"two gemms are planned as kernel '{symbol}' but build "
                             f"different kernels; rerun accel-plan-kernel", gemm.location)
        return
    if symbol in existing:
        raise AccelError(f"the module already has a gpu.module named '{symbol}'",
                         gemm.location)
    parsed = ir.Module.parse(text)
    for op in list(parsed.body.operations):
        module.body.append(op)
    placed[symbol] = text


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

        def launch(built, operands) -> None:
            gx, gy, gz = built.grid
            gpu.LaunchFuncOp([built.symbol, built.symbol], (c(gx), c(gy), c(gz)),
                             (c(built.block_size), c(1), c(1)), kernel_operands=operands)

        a, b, c_mem, *extras = list(gemm.op.operands)
        reduction = kernel.reduction
        if reduction is None:
            launch(kernel, [a, b, c_mem, *extras])
        else:
            # Written whole by the partial kernel before the reduction reads it: no
            # initial value.
            workspace = memref.AllocOp(ir.MemRefType(ir.Type.parse(reduction.workspace_type)),
                                       [], []).result
            launch(kernel, [a, b, workspace])
            launch(reduction, [workspace, c_mem, *extras])
            memref.DeallocOp(workspace)
    gemm.op.erase()
