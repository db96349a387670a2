"""accel-grouped-gemm-to-gpu: each `accel.grouped_gemm` becomes its kernels and their launches.

The kernels are built by accel.codegen (codegen/grouped.py, codegen/tile_list.py). In
place of the op, in its function:

  uniform   launch main(A, B, C, [bias,] seq_offsets)            grid (G*T_g, N tiles, 1)
  compact   %tile_map = memref.alloc() : memref<(T+1)xi32>
            launch prep(seq_offsets, tile_map)                    grid (1, 1, 1)
            launch main(A, B, C, [bias,] seq_offsets, tile_map)  grid (T, N tiles, 1)
            memref.dealloc %tile_map

(grid rule: tuning/grouped_launch.py). The main kernel indexes A, C as [1, L, X], B
stacked as [G, N, K] and the bias as [G, N]: the host passes the op's buffers through
memref.expand_shape, which moves no data and keeps the bare pointer.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from accel.bindings import arith, gpu, ir, memref
from accel.codegen.grouped import GroupedGemmKernel, build_grouped_kernel
from accel.dialect.grouped_gemm import GroupedGemmOp
from accel.dialect.ir_helpers import collect_ops, memref_info
from accel.diagnostics import AccelError
from accel.passes.plan_kernel import plan_grouped
from accel.passes.registry import AccelPass, register


@register
@dataclass(frozen=True)
class GroupedGemmToGpu(AccelPass):
    NAME = "accel-grouped-gemm-to-gpu"
    SUMMARY = ("Lower accel.grouped_gemm to its main kernel (and, in compact mode, the "
               "tile-list prep kernel) and their gpu.launch_func")

    def run(self, module: ir.Module) -> None:
        lower_grouped_gemms(module)


def lower_grouped_gemms(module: ir.Module) -> list[GroupedGemmKernel]:
    """Lower every accel.grouped_gemm in `module`; returns the kernels in program order."""
    ops = [GroupedGemmOp(op) for op in collect_ops(module, GroupedGemmOp.OP_NAME)]
    kernels = [build_grouped_kernel(op, plan_grouped(op)) for op in ops]   # all diagnostics before any rewrite
    existing = {op.attributes["sym_name"].value for op in module.body.operations
                if op.operation.name == "gpu.module"}
    placed: dict[str, str] = {}          # symbol -> kernel text
    variants: dict[str, list[str]] = {}  # base symbol -> the distinct texts, in order
    lowered = []
    for op, kernel in zip(ops, kernels):
        text = kernel.module_text()
        # Two ops of one shape with different perf configs: `_v1`, `_v2`, ... in order.
        seen = variants.setdefault(kernel.symbol, [])
        if text not in seen:
            seen.append(text)
        if seen.index(text):
            kernel = replace(kernel, symbol=f"{kernel.symbol}_v{seen.index(text)}")
            text = kernel.module_text()
        lowered.append(kernel)
        prep = kernel.tile_list
        for symbol, body in ((kernel.symbol, text),) + (
                ((prep.symbol, prep.module_text()),) if prep is not None else ()):
            if symbol in placed:
                continue
            if symbol in existing:
                raise AccelError(f"the module already has a gpu.module named '{symbol}'",
                                 op.location)
            parsed = ir.Module.parse(body)   # kept alive while its ops move over
            for top in list(parsed.body.operations):
                module.body.append(top)
            placed[symbol] = body
        _replace_with_launches(op, kernel)
    if kernels:
        module.operation.attributes["gpu.container_module"] = ir.UnitAttr.get()
    return lowered


def _view(value: ir.Value, shape: list[int], groups: list[list[int]]) -> ir.Value:
    """`value` seen with `shape` (row-major, same elements): no data moves."""
    if memref_info(value)[0] == shape:
        return value
    elem = value.type.element_type
    return memref.ExpandShapeOp(ir.MemRefType.get(shape, elem), value, groups, [],
                                shape).result


def _replace_with_launches(op: GroupedGemmOp, kernel: GroupedGemmKernel) -> None:
    g, n, k, rows = op.groups, op.n, op.k, op.total_rows
    with ir.InsertionPoint(op.op), op.location:
        index = ir.IndexType.get()

        def c(v: int) -> ir.Value:
            return arith.ConstantOp(index, v).result

        operands = [_view(op.a, [1, rows, k], [[0, 1], [2]]),
                    _view(op.b, [g, n, k], [[0, 1], [2]]) if op.b_layout == "stacked" else op.b,
                    _view(op.c, [1, rows, n], [[0, 1], [2]])]
        if op.bias is not None:
            operands.append(_view(op.bias, [g, n], [[0, 1]]))
        operands.append(op.seq_offsets)
        prep = kernel.tile_list
        if prep is not None:
            i32 = ir.IntegerType.get_signless(32)
            tile_map = memref.AllocOp(ir.MemRefType.get([prep.entries], i32), [], []).result
            gpu.LaunchFuncOp([prep.symbol, prep.symbol], (c(1), c(1), c(1)),
                             (c(prep.block_size), c(1), c(1)),
                             kernel_operands=[op.seq_offsets, tile_map])
            operands.append(tile_map)
        gx, gy, gz = kernel.grid
        gpu.LaunchFuncOp([kernel.symbol, kernel.symbol], (c(gx), c(gy), c(gz)),
                         (c(kernel.gemm.block_size), c(1), c(1)), kernel_operands=operands)
        if prep is not None:
            memref.DeallocOp(tile_map)
    op.op.erase()
