"""The compiler side of a batch (batch.py): a module's gemms made into units, and one
unit compiled to its kernel.

Loaded only by a process that compiles: a batch answered from the cache never imports
it, and a worker process imports it once (the forkserver preloads it).

A unit's kernel is what `accel.compile_module` makes of the unit's function, byte for
byte (test_batch.py checks): the same verification, perf-config choice, accel-gemm-to-gpu
and lowering, in a context of the shared pool (api.shared_context), except that a unit
is one kernel: a perf config chosen here does not split K (tuning/split_k.py), and one
given with splitKFactor > 1 is refused (its gemm makes two kernels and a workspace). Only a renamed unit
(`variant` > 0) lowers its kernel's text under the new symbol.
"""

from __future__ import annotations

from dataclasses import replace

from accel.api import compiled_gemms, gemm_metadata, gemm_module_text, shared_context
from accel.batch import Unit, UnitOutcome
from accel.bindings import ir
from accel.codegen.kernel import GemmKernel
from accel.compiled import CompiledKernel
from accel.diagnostics import AccelError, mlir_error
from accel.dialect.gemm import GemmOp
from accel.dialect.ir_helpers import collect_ops
from accel.dialect.pack import PackOp, UnpackOp
from accel.pipelines.kernel import KernelPipeline
from accel.pipelines.serialize import serialize
from accel.pipelines.textual import run_steps

# The parser names its one buffer "-"; a module's positions are reported in its file.
_PARSER_BUFFER = "-"


def compile_unit(unit: Unit, assembly: bool = True) -> UnitOutcome:
    """The unit's kernel, or why there is none. Positions inside the unit's own text mean
    nothing to its user: an error is placed at the unit's origin (a module's gemm) or
    nowhere (a spec)."""
    try:
        return UnitOutcome(_compile(unit, assembly))
    except AccelError as e:
        return UnitOutcome(error=e.message, location=unit.origin)
    except ir.MLIRError as e:
        return UnitOutcome(error=mlir_error(e).message, location=unit.origin)


def _compile(unit: Unit, assembly: bool) -> CompiledKernel:
    if unit.spec is not None:
        s = dict(unit.spec)
        text = gemm_module_text(s["arch"], g=s["g"], m=s["m"], n=s["n"], k=s["k"],
                                in_type=s["type"], out_type=s["out_type"],
                                trans_a=s["trans_a"], trans_b=s["trans_b"],
                                a_layout=s["a_layout"], b_layout=s["b_layout"],
                                perf_config=s["perf_config"], accumulate=s["accumulate"],
                                epilogue=s["epilogue"], batched_bias=s["batched_bias"],
                                b_type=s["b_type"], split_k=False)
    else:
        text = unit.text
    with shared_context():
        module = ir.Module.parse(text)
        _, arch = compiled_gemms(module, unit.arch)
        pipeline = KernelPipeline(arch=arch, split_k=False)
        (kernel,) = pipeline.to_kernel_ir(module).gemms
        if kernel.reduction is not None:
            raise AccelError(f"splitKFactor {kernel.split_k.slices} makes two kernels (the "
                             f"partial products and their reduction) and a workspace, which "
                             f"a batch does not compile: use accel.compile_module or "
                             f"accel-kernel-pipeline, or splitKFactor 1")
        if unit.variant:
            plan = replace(kernel.plan, symbol=f"{kernel.symbol}_v{unit.variant}")
            kernel = replace(kernel, plan=plan)
            module = ir.Module.parse(f"module attributes {{gpu.container_module}} {{\n"
                                     f"{kernel.module_text()}}}\n")
        return _lowered(module, kernel, pipeline, assembly)


def _lowered(module: ir.Module, kernel: GemmKernel, pipeline: KernelPipeline,
             assembly: bool) -> CompiledKernel:
    run_steps(module, pipeline.kernel_steps())
    objects, texts = serialize(module, assembly, pipeline)
    elf = objects[kernel.symbol]
    return CompiledKernel(kernel.symbol, elf, texts.get(kernel.symbol, ""),
                          gemm_metadata(kernel, elf))


def gemm_units(text: str, filename: str, arch: str | None) -> list[Unit]:
    """One unit per `accel.gemm` of the module `text`, in program order: the gemm alone
    in a function of its operands' types, with its attributes (sorted), so that equal
    gemms are equal units wherever they stand. MIGraphX text is read by the MIGraphX
    front end first, then given perf configs and the accel layout's folds, as
    accel-kernel-pipeline would. AccelError (at `filename`'s positions) if the module is
    not one compile_module takes."""
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
                FromMigraphx().run(module)
            gemms, arch = compiled_gemms(module, arch)
            if any(not isinstance(v.owner, ir.Block) for gm in gemms for v in gm.op.operands):
                # An operand made in the module (a chain, a constant) may fold into the
                # gemm: the kernel pipeline's own preparation (perf configs, accel-layout)
                # runs first, so each unit is the gemm the pipeline would lower. Gemms of
                # function arguments only are prepared unit by unit, so that one gemm's
                # error does not stop the others.
                run_steps(module, KernelPipeline(arch=arch, split_k=False).front_steps())
                gemms = [GemmOp(op) for op in collect_ops(module, GemmOp.OP_NAME)]
            packs = [op for name in (PackOp.OP_NAME, UnpackOp.OP_NAME)
                     for op in collect_ops(module, name)]
            if packs:
                # A unit is one gemm kernel: a runtime pack would lose its kernel.
                raise AccelError(f"'{packs[0].name}' is not compiled in a batch, which makes "
                                 f"one unit per accel.gemm (compile the module with "
                                 f"accel.compile_module or accel-kernel-pipeline)",
                                 packs[0].location)
        except AccelError as e:
            e.location = _in_file(e.location, filename)
            raise
        return [Unit(arch, text=_gemm_function(gemm), origin=_in_file(gemm.location, filename))
                for gemm in gemms]


def _gemm_function(gemm: GemmOp) -> str:
    op = gemm.op
    operands = list(op.operands)
    names = ["%a", "%b", "%c", "%bias"][:len(operands)]
    types = [str(v.type) for v in operands]
    attrs = sorted((name, str(op.attributes[name])) for name in op.attributes)
    return (f"func.func @gemm({', '.join(f'{n}: {t}' for n, t in zip(names, types))}) {{\n"
            f"  \"{GemmOp.OP_NAME}\"({', '.join(names)}) "
            f"{{{', '.join(f'{n} = {a}' for n, a in attrs)}}} : ({', '.join(types)}) -> ()\n"
            f"  return\n}}\n")


def _in_file(location, filename: str) -> tuple[str, int, int] | None:
    """(file, line, col) of an MLIR location, the parser's buffer named `filename`."""
    flc = AccelError("", location).file_line_col() if location is not None else None
    if flc is None:
        return None
    f, line, col = flc
    return (filename if f == _PARSER_BUFFER else f), line, col
