"""The compiler side of a batch (batch.py): a module's kernel ops (gemms, grouped gemms,
elementwise ops, copies) made into units, one unit compiled to its kernels, and the
module's launches section.

Loaded only by a process that compiles: a batch answered from the cache never imports
it, and a worker process imports it once (the forkserver preloads it).

A unit's kernels are what `accel.compile_module` makes of the unit's function, byte for
byte, in launch order, with the same workspace (test_batch.py checks): the same
verification, perf-config choice (which may split K, tuning/split_k.py),
accel-gemm-to-gpu and lowering, in a context of the shared pool (api.shared_context).
Only a renamed unit (`variant` > 0) lowers its kernels' text under the new symbols.
"""

from __future__ import annotations

from dataclasses import replace

from accel.api import (
    compile_module, compiled_gemms, gemm_metadata, gemm_module_text, reduction_metadata,
    shared_context, split_k_buffers,
)
from accel.batch import Unit, UnitOutcome
from accel.bindings import ir
from accel.codegen.kernel import GemmKernel
from accel.compiled import CompiledKernel, CompileResult
from accel.diagnostics import AccelError, mlir_error
from accel.dialect.copy import CopyOp
from accel.dialect.elementwise import ElementwiseOp
from accel.dialect.gemm import GemmOp
from accel.dialect.grouped_gemm import GroupedGemmOp
from accel.dialect.ir_helpers import collect_ops
from accel.dialect.pack import PackOp, UnpackOp
from accel.pipelines.kernel import KernelPipeline
from accel.pipelines.serialize import serialize
from accel.pipelines.textual import run_steps

# The ops a module's units are made of, one unit each.
_UNIT_OPS = (GemmOp.OP_NAME, GroupedGemmOp.OP_NAME, ElementwiseOp.OP_NAME, CopyOp.OP_NAME)
# The parser names its one buffer "-"; a module's positions are reported in its file.
_PARSER_BUFFER = "-"


def compile_unit(unit: Unit, assembly: bool = True) -> UnitOutcome:
    """The unit's kernels, or why there are none. Positions inside the unit's own text mean
    nothing to its user: an error is placed at the unit's origin (a module's gemm) or
    nowhere (a spec)."""
    try:
        return UnitOutcome(_compile(unit, assembly))
    except AccelError as e:
        return UnitOutcome(error=e.message, location=unit.origin)
    except ir.MLIRError as e:
        return UnitOutcome(error=mlir_error(e).message, location=unit.origin)


def _compile(unit: Unit, assembly: bool) -> CompileResult:
    if unit.spec is not None:
        s = dict(unit.spec)
        text = gemm_module_text(s["arch"], g=s["g"], m=s["m"], n=s["n"], k=s["k"],
                                in_type=s["type"], out_type=s["out_type"],
                                trans_a=s["trans_a"], trans_b=s["trans_b"],
                                a_layout=s["a_layout"], b_layout=s["b_layout"],
                                perf_config=s["perf_config"], accumulate=s["accumulate"],
                                epilogue=s["epilogue"], batched_bias=s["batched_bias"],
                                b_type=s["b_type"])
    else:
        text = unit.text
    with shared_context():
        module = ir.Module.parse(text)
        if not collect_ops(module, GemmOp.OP_NAME):
            # A grouped gemm's, an elementwise op's or a copy's unit: compile_module's
            # kernels, named by their content (shape, types, program, maps).
            if unit.variant:
                # Only a grouped gemm's kernel is named by its shape alone.
                raise AccelError("two accel.grouped_gemm of one shape and different perf "
                                 "configs are not compiled in one batch (compile the module "
                                 "with accel.compile_module)")
            # A unit's function is made here: its launches are the module's (batch.py).
            return compile_module(module, unit.arch, assembly, launches=False)
        _, arch = compiled_gemms(module, unit.arch)
        pipeline = KernelPipeline(arch=arch)
        (kernel,) = pipeline.to_kernel_ir(module).gemms
        if unit.variant:
            kernel = _renamed(kernel, f"{kernel.symbol}_v{unit.variant}")
            texts = [k.module_text() for k in (kernel, kernel.reduction) if k is not None]
            module = ir.Module.parse(f"module attributes {{gpu.container_module}} {{\n"
                                     f"{''.join(texts)}}}\n")
        return _lowered(module, kernel, pipeline, assembly)


def _renamed(kernel: GemmKernel, symbol: str) -> GemmKernel:
    """`kernel` (and its reduction) under `symbol`, as accel-plan-kernel names a variant:
    the reduction is always its partial kernel's symbol plus `_reduce`."""
    reduction = kernel.reduction
    if reduction is not None:
        reduction = replace(reduction, symbol=f"{symbol}_reduce")
    return replace(kernel, plan=replace(kernel.plan, symbol=symbol), reduction=reduction)


def _lowered(module: ir.Module, kernel: GemmKernel, pipeline: KernelPipeline,
             assembly: bool) -> CompileResult:
    """The gemm's kernels in launch order (the partial products before their reduction)
    and its workspace, as compile_module lists them."""
    run_steps(module, pipeline.kernel_steps())
    objects, texts = serialize(module, assembly, pipeline)
    out = []
    for built, describe in ((kernel, gemm_metadata), (kernel.reduction, reduction_metadata)):
        if built is not None:
            elf = objects[built.symbol]
            out.append(CompiledKernel(built.symbol, elf, texts.get(built.symbol, ""),
                                      describe(built, elf)))
    buffers = split_k_buffers([kernel])
    workspace = ({"bytes": sum(b["bytes"] for b in buffers), "buffers": buffers}
                 if buffers else None)
    return CompileResult(pipeline.arch, tuple(out), workspace)


def gemm_units(text: str, filename: str,
               arch: str | None) -> tuple[list[Unit], ir.Operation]:
    """One unit per kernel op (`accel.gemm`, `accel.grouped_gemm`, `accel.elementwise`,
    `accel.copy`) of
    the module `text`, in program order: the op alone in a function of its operands'
    types, with its attributes (sorted), so that equal ops are equal units wherever they
    stand. MIGraphX text is read by the MIGraphX
    front end first, then given perf configs and the accel layout's folds, as
    accel-kernel-pipeline would. AccelError (at `filename`'s positions) if the module is
    not one compile_module takes. With the units, a copy of the module as the front end
    left it, from which `module_launches` reads the host functions' launches: the text
    is translated, parsed and given to the front end once a batch."""
    # The front end and its grammar load for module input only (~90 ms of imports a
    # one-GEMM compile does not need).
    from accel.migraphx import looks_like_migraphx, translate
    from accel.passes.from_migraphx import FromMigraphx
    migraphx = looks_like_migraphx(text)
    if migraphx:
        text = translate(text, filename)
    with shared_context():
        try:
            module = ir.Module.parse(text)
        except ir.MLIRError as e:
            err = mlir_error(e)
            raise AccelError(err.message, _in_file(err.location, filename)) from None
        try:
            if migraphx:
                # The arch option reaches functions without their own (rock.arch = "").
                FromMigraphx(arch=arch or "").run(module)
            host = module.operation.clone()
            gemms, arch = compiled_gemms(module, arch)
            if any(not isinstance(v.owner, ir.Block) for gm in gemms for v in gm.op.operands):
                # An operand made in the module (a chain, a constant) may fold into the
                # gemm: the kernel pipeline's own preparation (perf configs, accel-layout)
                # runs first, so each unit is the gemm the pipeline would lower. Gemms of
                # function arguments only are prepared unit by unit, so that one gemm's
                # error does not stop the others.
                run_steps(module, KernelPipeline(arch=arch).front_steps())
                gemms = [GemmOp(op) for op in collect_ops(module, GemmOp.OP_NAME)]
            packs = [op for name in (PackOp.OP_NAME, UnpackOp.OP_NAME)
                     for op in collect_ops(module, name)]
            if packs:
                # A unit is one gemm's or elementwise op's kernels: a runtime pack would
                # lose its kernel.
                raise AccelError(f"'{packs[0].name}' is not compiled in a batch, which makes "
                                 f"one unit per accel.gemm and accel.elementwise (compile "
                                 f"the module with accel.compile_module or "
                                 f"accel-kernel-pipeline)", packs[0].location)
            ops = [op for op in collect_ops(module) if op.name in _UNIT_OPS]
        except AccelError as e:
            e.location = _in_file(e.location, filename)
            raise
        return [Unit(arch, text=_op_function(op), origin=_in_file(op.location, filename))
                for op in ops], host


def module_launches(host: ir.Operation, arch: str | None, kernels,
                    workspace: dict | None) -> list[dict]:
    """The launches section of a module whose kernels a batch compiled (its units): its
    host functions read from `host` (gemm_units' copy of the module) after the
    preparation and lowering compile_module gives them, the workspace marked from
    `kernels`' metadata. AccelError if a launch names a kernel that is not among
    `kernels` (the units were named apart differently); `host` is lowered in place."""
    from accel.launches import host_launches, mark_workspace
    with host.context:
        _, arch = compiled_gemms(host, arch)
        KernelPipeline(arch=arch).to_kernel_ir(host)
        launches = host_launches(host)
    by_symbol = {k.symbol: k.metadata for k in kernels}
    for fn in launches:
        for launch in fn["launches"]:
            if launch["kernel"] not in by_symbol:
                raise AccelError(f"@{fn['function']} launches '{launch['kernel']}', which "
                                 f"the batch did not compile")
    return mark_workspace(launches, by_symbol, workspace)


def _op_function(op) -> str:
    """`op` (an accel.gemm, accel.grouped_gemm, accel.elementwise or accel.copy) alone in
    a function of its operands' types, its attributes sorted: equal ops are equal units
    wherever they stand."""
    op = op.operation
    operands = list(op.operands)
    names = [f"%arg{i}" for i in range(len(operands))]
    types = [str(v.type) for v in operands]
    attrs = sorted((name, str(op.attributes[name])) for name in op.attributes)
    return (f"func.func @unit({', '.join(f'{n}: {t}' for n, t in zip(names, types))}) {{\n"
            f"  \"{op.name}\"({', '.join(names)}) "
            f"{{{', '.join(f'{n} = {a}' for n, a in attrs)}}} : ({', '.join(types)}) -> ()\n"
            f"  return\n}}\n")


def _in_file(location, filename: str) -> tuple[str, int, int] | None:
    """(file, line, col) of an MLIR location, the parser's buffer named `filename`."""
    flc = AccelError("", location).file_line_col() if location is not None else None
    if flc is None:
        return None
    f, line, col = flc
    return (filename if f == _PARSER_BUFFER else f), line, col
