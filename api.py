"""The library entry point: compile a GEMM (or a module of them) to code objects.

    from accel.api import compile_gemm
    result = compile_gemm("gfx942", g=1, m=128, n=1280, k=5120, in_type="f16",
                          a_layout="accel", b_layout="accel",
                          perf_config="v3:32,32,8,16,16,8,1,2,2,1,1")
    kernel = result.kernels[0]
    kernel.code_object   # ELF bytes (.hsaco)
    kernel.assembly      # AMDGPU assembly text
    kernel.metadata      # dict: symbol, grid, block, lds_bytes, vgprs, mma, perf_config, ...
    result.metadata()    # the JSON document of DESIGN.md ("Code object contract")

Same input -> byte-identical output: kernels are built from text in a fixed order and
nothing in the metadata depends on time, paths or hash order.
"""

from __future__ import annotations

import numbers
import struct
import threading
from dataclasses import dataclass

from accel.bindings import ir, new_context
from accel.codegen.kernel import GemmKernel
from accel.dialect.accel_layout import AccelTile
from accel.dialect.element_types import ELEMENT_BYTES
from accel.dialect.ops import (
    ACCUMULATOR, BIAS_EPILOGUES, EPILOGUES, OUTPUT_TYPES, GemmOp, GemmShape, PackOp, UnpackOp,
    collect_ops, verify_module,
)
from accel.dialect.perf_config import PerfConfig
from accel.diagnostics import AccelError
from accel.passes import wmma_banks
from accel.passes.gemm_to_gpu import lower_gemms
from accel.passes.registry import load_all
from accel.pipelines.kernel import (LLVM_ASSEMBLY, binaries, check_arch, kernel_lowering,
                                    serialization)
from accel.pipelines.textual import run_pipeline
from accel.target.database import get_arch
from accel.target.toolchain import ensure_linker
from accel.tuning.selection import select

SELECT_PASS = "accel-affix-perf-config"


@dataclass(frozen=True)
class CompiledKernel:
    symbol: str
    code_object: bytes
    assembly: str
    metadata: dict


@dataclass(frozen=True)
class CompileResult:
    arch: str
    kernels: tuple[CompiledKernel, ...]

    def metadata(self) -> dict:
        return {"arch": self.arch, "kernels": [k.metadata for k in self.kernels]}


def default_out_type(in_type: str) -> str:
    """f16/bf16 GEMMs write their input type; i8 accumulates into i32, f32 into f32."""
    return in_type if in_type in ("f16", "bf16") else ACCUMULATOR.get(in_type, in_type)


def compile_gemm(arch: str, *, g: int = 1, m: int, n: int, k: int, in_type: str = "f16",
                 out_type: str | None = None, trans_a: bool = False, trans_b: bool = False,
                 a_layout: str = "row", b_layout: str = "row",
                 perf_config: str | PerfConfig | None = None,
                 accumulate: bool = False, epilogue: str = "none", batched_bias: bool = False,
                 assembly: bool = True) -> CompileResult:
    """Compile C[g,m,n] (+)= A * B for `arch`.

    `trans_a`/`trans_b` store A as [G,K,M] / B as [G,N,K]; `a_layout`/`b_layout`
    "accel" store them tiled by the perf config (seed 001) instead. Without a perf
    config one is selected (accel.tuning.selection). `epilogue` ("bias", "relu",
    "bias_relu") fuses C = relu(A*B + bias) into the kernel, with a bias of N values
    (of the output type), or G x N with `batched_bias`; it is the kernel's 4th argument.
    """
    text = gemm_module_text(arch, g=g, m=m, n=n, k=k, in_type=in_type, out_type=out_type,
                            trans_a=trans_a, trans_b=trans_b, a_layout=a_layout,
                            b_layout=b_layout, perf_config=perf_config, accumulate=accumulate,
                            epilogue=epilogue, batched_bias=batched_bias)
    try:
        return compile_module(text, arch, assembly=assembly)
    except AccelError as e:
        # The module text is ours, not the caller's: a position in it means nothing.
        e.location = None
        raise


def gemm_module_text(arch: str, *, g: int, m: int, n: int, k: int, in_type: str,
                     out_type: str | None, trans_a: bool, trans_b: bool, a_layout: str,
                     b_layout: str, perf_config, accumulate: bool, epilogue: str = "none",
                     batched_bias: bool = False) -> str:
    """The MLIR text of a function @gemm(A, B, C[, bias]) holding one `accel.gemm`."""
    info = get_arch(arch)
    # Every parameter ends up in MLIR text: check it here, never let it garble the text.
    if in_type not in ACCUMULATOR:
        raise AccelError(f"element type {in_type} is not one of {', '.join(ACCUMULATOR)}")
    out_type = out_type or default_out_type(in_type)
    if out_type not in OUTPUT_TYPES[in_type]:
        raise AccelError(f"output type {out_type} is not supported for {in_type} inputs "
                         f"(expected one of {', '.join(OUTPUT_TYPES[in_type])})")
    for name, v in (("g", g), ("m", m), ("n", n), ("k", k)):
        if not isinstance(v, numbers.Integral) or isinstance(v, bool) or v <= 0:
            raise AccelError(f"{name} must be a positive integer, got {v!r}")
    g, m, n, k = int(g), int(m), int(n), int(k)
    if epilogue not in EPILOGUES:
        raise AccelError(f"epilogue must be one of {', '.join(EPILOGUES)}, got {epilogue!r}")
    for name, v in (("trans_a", trans_a), ("trans_b", trans_b), ("accumulate", accumulate),
                    ("batched_bias", batched_bias)):
        if v not in (True, False):   # "no" would be truthy
            raise AccelError(f"{name} must be a bool, got {v!r}")
    if not isinstance(perf_config, (str, PerfConfig, type(None))):
        raise AccelError(f"perf_config must be a string or a PerfConfig, "
                         f"got {type(perf_config).__name__}")
    for name, lay, trans in (("A", a_layout, trans_a), ("B", b_layout, trans_b)):
        if lay not in ("row", "accel"):
            raise AccelError(f"{name} layout must be row or accel, got '{lay}'")
        if lay == "accel" and trans:
            raise AccelError(f"{name} cannot be both transposed and in the accel layout")
    a_layout = "transposed" if trans_a else a_layout
    b_layout = "transposed" if trans_b else b_layout
    config = None
    if perf_config is not None:
        config = (perf_config if isinstance(perf_config, PerfConfig)
                  else PerfConfig.parse(perf_config, info.mma_kind))
    if config is None:
        if "accel" in (a_layout, b_layout):
            raise AccelError("the accel layout is tiled by the perf config: give a perf config")
        config = select(info, in_type, out_type, GemmShape(g, m, n, k)).best

    def shape(name, layout, d, d_per_block):
        if layout == "accel":
            return AccelTile(d_per_block, config.kpack_per_block, config.kpack).shape(g, d, k)
        plain_first = (name == "A") == (layout == "row")
        return (g, d, k) if plain_first else (g, k, d)

    def memref(shp, t):
        return f"memref<{'x'.join(map(str, shp))}x{t}>"

    ta = memref(shape("A", a_layout, m, config and config.m_per_block), in_type)
    tb = memref(shape("B", b_layout, n, config and config.n_per_block), in_type)
    tc = memref((g, m, n), out_type)
    attrs = [f'arch = "{arch}"', f'a_layout = "{a_layout}"', f'b_layout = "{b_layout}"',
             'c_layout = "row"']
    if config is not None:
        attrs.append(f'perf_config = "{config}"')
    if accumulate:
        attrs.append("accumulate")
    args, operands, types = [f"%a: {ta}", f"%b: {tb}", f"%c: {tc}"], ["%a", "%b", "%c"], [ta, tb, tc]
    if epilogue != "none":
        attrs.append(f'epilogue = "{epilogue}"')
    if epilogue in BIAS_EPILOGUES:
        tbias = memref((g, n) if batched_bias else (n,), out_type)
        args.append(f"%bias: {tbias}")
        operands.append("%bias")
        types.append(tbias)
    return (f"func.func @gemm({', '.join(args)}) {{\n"
            f"  \"accel.gemm\"({', '.join(operands)}) {{{', '.join(attrs)}}} : "
            f"({', '.join(types)}) -> ()\n"
            f"  return\n}}\n")


class _ContextPool(threading.local):
    """One MLIR context shared by up to REUSE text compiles, then a fresh one.

    Creating a context (every upstream dialect registered) and destroying it took
    ~10 ms of a ~130 ms compile (benchmarks/bench_compile.py). A context never frees
    what it uniques, and each compile adds its code object as an attribute (10-50 KB)
    plus its kernel's types and constants, so a context lives for REUSE compiles only:
    memory stays bounded by about REUSE compiles' worth. Nothing made in it escapes:
    the result holds bytes, text and plain dicts. One pool per thread: a graph compiler
    that compiles from several threads never shares a context between them."""

    REUSE = 16

    def __init__(self) -> None:
        self._ctx: ir.Context | None = None
        self._uses = 0

    def get(self) -> ir.Context:
        if self._ctx is None or self._uses >= self.REUSE:
            self._ctx, self._uses = new_context(), 0
        self._uses += 1
        return self._ctx


_contexts = _ContextPool()


def compile_module(source: str | ir.Module, arch: str | None = None,
                   assembly: bool = True) -> CompileResult:
    """Compile every `accel.gemm` of an MLIR module (text or parsed) to code objects.

    `arch` defaults to the gemms' own; all must agree. Text is parsed in a context
    shared by a bounded number of compiles (_ContextPool).
    """
    if not isinstance(source, (str, ir.Module)):
        raise AccelError(f"compile_module takes MLIR text or an ir.Module, "
                         f"got {type(source).__name__}")
    if isinstance(source, str):
        try:
            source.encode("utf-8")
        except UnicodeEncodeError as e:
            raise AccelError(f"MLIR text is not valid Unicode: {e.reason} at index "
                             f"{e.start}") from None
        with _contexts.get():
            try:
                module = ir.Module.parse(source)
            except ir.MLIRError as e:
                d = (getattr(e, "error_diagnostics", None) or [None])[0]
                raise AccelError(d.message if d else str(e), d.location if d else None) from None
            return _compile(module, arch, assembly)
    with source.context:
        return _compile(source, arch, assembly)


def _compile(module: ir.Module, arch: str | None, want_assembly: bool) -> CompileResult:
    verify_module(module)
    gemms = [GemmOp(op) for op in collect_ops(module, GemmOp.OP_NAME)]
    if not gemms:
        raise AccelError("the module has no 'accel.gemm' to compile")
    # The result lists gemm kernels only: a runtime pack would silently lose its kernel.
    packs = [op for name in (PackOp.OP_NAME, UnpackOp.OP_NAME) for op in collect_ops(module, name)]
    if packs:
        raise AccelError(f"'{packs[0].name}' is not compiled by compile_module, which emits "
                         f"accel.gemm kernels only (accel-opt's accel-kernel-pipeline lowers "
                         f"it)", packs[0].location)
    arch = arch or gemms[0].arch
    check_arch(module, arch)
    if any(gm.perf_config_text is None for gm in gemms):
        passes = load_all()
        if SELECT_PASS not in passes:
            raise AccelError("no perf config given, and perf-config selection "
                             f"({SELECT_PASS}) is not available", gemms[0].location)
        passes[SELECT_PASS]().run(module)
    kernels = lower_gemms(module)
    ensure_linker()
    # Only the kernels are lowered: the result is their code objects, so the host
    # function (HOST_LOWERING's work, ~2 ms) is dropped unlowered. Verified Kernel IR in,
    # upstream passes only: no verification after each one (run_steps).
    run_pipeline(module, kernel_lowering(arch), verify_each=False)
    assembly: dict[str, str] = {}
    if wmma_banks.applies(arch):
        # One backend run: the code object is assembled from the (renumbered) assembly.
        run_pipeline(module, LLVM_ASSEMBLY, verify_each=False)
        texts = wmma_banks.serialize(module, "bin")
        assembly = texts if want_assembly else {}
    else:
        if want_assembly:
            # The same lowered module serialized twice: the bindings make the ELF and the
            # assembly in separate backend runs.
            isa_module = module.operation.clone()
            run_pipeline(isa_module, serialization(arch, "isa"), verify_each=False)
            assembly = {s: b.decode() for s, b in binaries(isa_module).items()}
            isa_module.erase()
        run_pipeline(module, serialization(arch, "bin"), verify_each=False)
    objects = binaries(module)
    seen, out = set(), []
    for kernel in kernels:
        if kernel.symbol in seen:
            continue
        seen.add(kernel.symbol)
        elf = objects[kernel.symbol]
        out.append(CompiledKernel(kernel.symbol, elf, assembly.get(kernel.symbol, ""),
                                  kernel_metadata(kernel, elf)))
    return CompileResult(arch, tuple(out))


def kernel_metadata(kernel: GemmKernel, code_object: bytes) -> dict:
    """One kernel's entry in the JSON of DESIGN.md's code object contract."""
    pm, pn, pk = kernel.padded
    args = []
    for op, layout in ((kernel.a, kernel.a.layout), (kernel.b, kernel.b.layout)):
        args.append(_arg(op.name, op.elem, op.shape, layout))
    args.append(_arg("C", kernel.out_type, kernel.c_shape, kernel.c_layout))
    if kernel.bias_type is not None:
        # [N] broadcast over batches and rows, or [G, N]; the kernel's 4th argument.
        args.append(_arg("bias", kernel.out_type, kernel.bias_shape, "row"))
    return {
        "symbol": kernel.symbol,
        "code_object": f"{kernel.symbol}.hsaco",
        "grid": list(kernel.grid),
        "block": [kernel.block_size, 1, 1],
        "lds_bytes": kernel.lds_bytes,
        "vgprs": note_count(code_object, ".vgpr_count"),
        "mma": kernel.mma.instr.mnemonic,
        "perf_config": str(kernel.config),
        "padded": {"m": pm, "n": pn, "k": pk},
        "shape": {"g": kernel.g, "m": kernel.m, "n": kernel.n, "k": kernel.k},
        "accumulate": kernel.accumulate,
        "epilogue": kernel.epilogue,
        "args": args,
    }


def _arg(name: str, dtype: str, shape, layout: str) -> dict:
    elems = 1
    for d in shape:
        elems *= d
    return {"name": name, "kind": "global_buffer", "dtype": dtype, "shape": list(shape),
            "layout": layout, "bytes": elems * ELEMENT_BYTES[dtype]}


def note_count(code_object: bytes, key: str) -> int:
    """An unsigned count from the code object's AMDHSA metadata note.

    The note is MessagePack; the assembler writes each kernel key as a fixstr followed
    by a fixint or uint8/16/32 value. One kernel per code object, so the first match
    is this kernel's.
    """
    tag = bytes([0xA0 | len(key)]) + key.encode()
    at = code_object.find(tag)
    if at < 0:
        raise AccelError(f"code object has no '{key}' in its metadata note")
    i = at + len(tag)
    head = code_object[i]
    if head < 0x80:
        return head
    widths = {0xCC: ">B", 0xCD: ">H", 0xCE: ">I"}
    if head not in widths:
        raise AccelError(f"code object metadata '{key}' has an unexpected encoding 0x{head:02x}")
    return struct.unpack_from(widths[head], code_object, i + 1)[0]
