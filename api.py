"""The library entry point: compile a GEMM (or a module of them) to code objects.

    from accel.api import compile_gemm
    result = compile_gemm("gfx942", g=1, m=128, n=1280, k=5120, in_type="f16",
                          a_layout="accel", b_layout="accel",
                          perf_config="v3:32,32,8,16,16,8,1,2,2,1,1")
    kernel = result.kernels[0]
    kernel.code_object   # ELF bytes (.hsaco)
    kernel.assembly      # AMDGPU assembly text
    kernel.metadata      # dict: symbol, grid, block, lds_bytes, vgprs, mma, perf_config, ...
    result.metadata()    # the JSON document of docs/contracts.md ("Code object contract")
    result.launches      # how the host runs them: parameters, buffers, launches (launches.py)

`compile_grouped_gemm` does the same for seed 003's grouped GEMM (accel.grouped_gemm):
its kernels in launch order and `result.workspace`, the tile list a compact launch needs.

Same input -> byte-identical output: kernels are built from text in a fixed order and
nothing in the metadata depends on time, paths or hash order.
"""

from __future__ import annotations

import struct
import threading
from typing import TYPE_CHECKING

from accel import validate
from accel.bindings import ir, new_context
from accel.codegen.kernel import GemmKernel
from accel.codegen.split_k_reduce import ReductionKernel
from accel.compiled import CompiledKernel, CompileResult
from accel.dialect.accel_tile import AccelTile
from accel.dialect.copy import CopyOp
from accel.dialect.elementwise import ElementwiseOp
from accel.dialect.element_types import ELEMENT_BYTES, is_fp8
from accel.dialect.grouped_gemm import B_LAYOUTS, GROUPED_INPUTS, MODES, GroupedGemmOp
from accel.dialect.epilogue_program import BIAS_EPILOGUES, EPILOGUES
from accel.dialect.gemm import GemmOp, GemmShape
from accel.dialect.gemm_types import ACCUMULATOR, OUTPUT_TYPES, element_type_error
from accel.dialect.ir_helpers import collect_ops
from accel.dialect.verify import verify_module
from accel.dialect.perf_config import PerfConfig
from accel.diagnostics import AccelError, mlir_error
from accel.passes.lower_pack import BLOCK as PACK_BLOCK, PackKernel
from accel.pipelines.kernel import KernelPipeline
from accel.pipelines.serialize import serialize
from accel.pipelines.textual import run_steps
from accel.target.database import get_arch
from accel.tuning.selection import select
from accel.tuning.split_k import choose_split_k
from accel.tuning.validity import MAX_OPERAND_BYTES

# The other kernel kinds' codegen, the grouped gemm's dispatch and the host launches
# load where a compile needs them: a GEMM's kernels (compile_gemm, a batch's unit)
# need none of them (~15 ms of imports, python -X importtime).
if TYPE_CHECKING:
    from accel.codegen.copy import CopyKernel
    from accel.codegen.elementwise import ElementwiseKernel
    from accel.codegen.grouped import GroupedGemmKernel
    from accel.codegen.tile_list import TileListKernel


def default_out_type(in_type: str) -> str:
    """f16/bf16 GEMMs write their input type; i8 accumulates into i32, f32 into f32."""
    return in_type if in_type in ("f16", "bf16") else ACCUMULATOR.get(in_type, in_type)


def compile_gemm(arch: str, *, g: int = 1, m: int, n: int, k: int, in_type: str = "f16",
                 out_type: str | None = None, trans_a: bool = False, trans_b: bool = False,
                 a_layout: str = "row", b_layout: str = "row",
                 perf_config: str | PerfConfig | None = None,
                 accumulate: bool = False, epilogue: str = "none", batched_bias: bool = False,
                 assembly: bool = True, b_type: str | None = None) -> CompileResult:
    """Compile C[g,m,n] (+)= A * B for `arch`.

    `in_type` is A's element type and B's unless `b_type` says otherwise (two fp8
    formats of the chip's family may differ: f8E4M3FNUZ x f8E5M2FNUZ on gfx942,
    f8E4M3FN x f8E5M2 on gfx1201).

    `trans_a`/`trans_b` store A as [G,K,M] / B as [G,N,K]; `a_layout`/`b_layout`
    "accel" store them tiled by the perf config (seed 001) instead. Without a perf
    config one is selected (accel.tuning.selection). `epilogue` ("bias", "relu",
    "bias_relu") fuses C = relu(A*B + bias) into the kernel, with a bias of N values
    (of the output type), or G x N with `batched_bias`; it is the kernel's 4th argument.
    """
    assembly = validate.boolean("assembly", assembly)
    text = gemm_module_text(arch, g=g, m=m, n=n, k=k, in_type=in_type, out_type=out_type,
                            trans_a=trans_a, trans_b=trans_b, a_layout=a_layout,
                            b_layout=b_layout, perf_config=perf_config, accumulate=accumulate,
                            epilogue=epilogue, batched_bias=batched_bias, b_type=b_type)
    try:
        # The host function is ours too (A, B, C[, bias] in the kernel's order, a split-K
        # gemm's partials in `workspace`): no launches section, as for the GEMMs of
        # accel-compile's flags and --batch lists, which must give the same JSON.
        return compile_module(text, arch, assembly=assembly, launches=False)
    except AccelError as e:
        # The module text is ours, not the caller's: a position in it means nothing.
        e.location = None
        raise


def gemm_module_text(arch: str, *, g: int, m: int, n: int, k: int, in_type: str,
                     out_type: str | None, trans_a: bool, trans_b: bool, a_layout: str,
                     b_layout: str, perf_config, accumulate: bool, epilogue: str = "none",
                     batched_bias: bool = False, b_type: str | None = None) -> str:
    """The MLIR text of a function @gemm(A, B, C[, bias]) holding one `accel.gemm`; a
    perf config chosen for it may split K (tuning/split_k.py)."""
    # Every parameter ends up in MLIR text: check it here, never let it garble the text.
    arch = validate.string("arch", arch)
    info = get_arch(arch)
    in_type = validate.string("in_type", in_type)
    b_type = in_type if b_type is None else validate.string("b_type", b_type)
    for t in (in_type, b_type):
        if t not in ACCUMULATOR:
            raise AccelError(f"element type {validate.clipped(t)} is not one of "
                             f"{', '.join(ACCUMULATOR)}")
    why = element_type_error(info, in_type, b_type) if in_type != b_type or is_fp8(in_type) \
        else None
    if why:
        raise AccelError(why)
    out_type = validate.optional_string("out_type", out_type) or default_out_type(in_type)
    if out_type not in OUTPUT_TYPES[in_type]:
        raise AccelError(f"output type {validate.clipped(out_type)} is not supported for "
                         f"{in_type} inputs "
                         f"(expected one of {', '.join(OUTPUT_TYPES[in_type])})")
    g, m, n, k = (validate.positive(name, v) for name, v in (("g", g), ("m", m), ("n", n),
                                                               ("k", k)))
    for name, v in (("g", g), ("m", m), ("n", n), ("k", k)):
        # Every operand spans at least one byte per unit of each of its extents, so an
        # extent past the operand limit cannot fit (and 2**64 would not even parse).
        if v > MAX_OPERAND_BYTES:
            raise AccelError(f"{name} is {validate.shown(v)}, too large for 32-bit buffer "
                             f"offsets (2 GiB)")
    epilogue = validate.string("epilogue", epilogue, EPILOGUES)
    trans_a, trans_b, accumulate, batched_bias = (
        validate.boolean(name, v) for name, v in (("trans_a", trans_a), ("trans_b", trans_b),
                                                   ("accumulate", accumulate),
                                                   ("batched_bias", batched_bias)))
    validate.instance("perf_config", perf_config, (str, PerfConfig, type(None)),
                      "a string or a PerfConfig")
    a_layout = validate.string("a_layout", a_layout, ("row", "accel"))
    b_layout = validate.string("b_layout", b_layout, ("row", "accel"))
    for name, lay, trans in (("A", a_layout, trans_a), ("B", b_layout, trans_b)):
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
        selection = select(info, in_type, out_type, GemmShape(g, m, n, k), b_type=b_type)
        config = choose_split_k(selection)

    def shape(name, layout, d, d_per_block):
        if layout == "accel":
            return AccelTile(d_per_block, config.kpack_per_block, config.kpack).shape(g, d, k)
        plain_first = (name == "A") == (layout == "row")
        return (g, d, k) if plain_first else (g, k, d)

    def memref(shp, t):
        return f"memref<{'x'.join(map(str, shp))}x{t}>"

    ta = memref(shape("A", a_layout, m, config and config.m_per_block), in_type)
    tb = memref(shape("B", b_layout, n, config and config.n_per_block), b_type)
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


def shared_context() -> ir.Context:
    """The calling thread's compile context (_ContextPool): parse compile inputs in it."""
    return _contexts.get()


def compile_module(source: str | ir.Module, arch: str | None = None,
                   assembly: bool = True, launches: bool = True) -> CompileResult:
    """Compile every `accel.gemm`, `accel.grouped_gemm` and `accel.elementwise` of an MLIR
    module (text or parsed) to code objects.

    `arch` defaults to the gemms' own; all must agree. Text is parsed in a context
    shared by a bounded number of compiles (_ContextPool). With `launches`,
    `result.launches` says how the module's host functions run the kernels
    (accel/launches.py).
    """
    validate.instance("source", source, (str, ir.Module), "MLIR text or an ir.Module")
    arch = validate.optional_string("arch", arch)
    if arch is not None:
        get_arch(arch)
    assembly = validate.boolean("assembly", assembly)
    launches = validate.boolean("launches", launches)
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
                raise mlir_error(e) from None
            return _compile(module, arch, assembly, launches)
    with source.context:
        return _compile(source, arch, assembly, launches)


def compiled_gemms(module: ir.Module, arch: str | None) -> tuple[list[GemmOp], str]:
    """The module's gemms (verified) and the arch to compile them for (`arch`, or the
    first gemm's); AccelError if there is none. The kernel pipeline checks that every
    gemm targets that arch."""
    verify_module(module)
    gemms = [GemmOp(op) for op in collect_ops(module, GemmOp.OP_NAME)]
    gemms += [GroupedGemmOp(op) for op in collect_ops(module, GroupedGemmOp.OP_NAME)]
    # A module of elementwise kernels alone (a MIGraphX function without a dot) compiles
    # too; its arch comes from them.
    arches = [op.arch for op in gemms]
    arches += [ElementwiseOp(op).arch for op in collect_ops(module, ElementwiseOp.OP_NAME)]
    arches += [CopyOp(op).arch for op in collect_ops(module, CopyOp.OP_NAME)]
    if not arches:
        raise AccelError("the module has no 'accel.gemm' to compile")
    return gemms, arch or arches[0]


def _compile(module: ir.Module, arch: str | None, want_assembly: bool,
             want_launches: bool) -> CompileResult:
    gemms, arch = compiled_gemms(module, arch)
    pipeline = KernelPipeline(arch=arch)
    lowered = pipeline.to_kernel_ir(module)
    order = launch_order(module)
    host = None
    if want_launches:
        from accel.launches import host_launches
        host = host_launches(module)
    # Only the kernels are lowered: the result is their code objects, so the host
    # function (HOST_LOWERING's work, ~2 ms) is dropped unlowered.
    run_steps(module, pipeline.kernel_steps())
    objects, assembly = serialize(module, want_assembly, pipeline)
    facts = {k.symbol: (k, gemm_metadata) for k in lowered.gemms}
    facts.update({k.reduction.symbol: (k.reduction, reduction_metadata)
                  for k in lowered.gemms if k.reduction is not None})
    facts.update({k.symbol: (k, pack_metadata) for k in lowered.packs})
    facts.update(grouped_facts(lowered.grouped))
    facts.update({k.symbol: (k, elementwise_metadata) for k in lowered.elementwise})
    facts.update({k.symbol: (k, copy_metadata) for k in lowered.copies})
    out = []
    for symbol in order:
        kernel, describe = facts[symbol]
        elf = objects[symbol]
        out.append(CompiledKernel(symbol, elf, assembly.get(symbol, ""), describe(kernel, elf)))
    workspace = grouped_workspace(lowered.grouped) if lowered.grouped else None
    partials = split_k_buffers(lowered.gemms)
    if partials:
        workspace = workspace or {"bytes": 0, "buffers": []}
        workspace = {"bytes": workspace["bytes"] + sum(b["bytes"] for b in partials),
                     "buffers": workspace["buffers"] + partials}
    if host is not None:
        from accel.launches import mark_workspace
        host = mark_workspace(host, {k.symbol: k.metadata for k in out}, workspace)
    return CompileResult(pipeline.arch, tuple(out), workspace, host)


def launch_order(module: ir.Module) -> list[str]:
    """Kernel symbols in the order the host code first launches them: the order a graph
    compiler must run them in (a pack kernel before the gemm that reads its output)."""
    order: list[str] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name == "gpu.module":
            # A kernel launches nothing; its body is most of the module's ops (~560 of
            # ~580 for a 4096^3 gemm, 0.8 ms of Python callbacks a compile).
            return ir.WalkResult.SKIP
        if op.name == "gpu.launch_func":
            symbol = str(op.attributes["kernel"]).rsplit("::@", 1)[-1]
            if symbol not in order:
                order.append(symbol)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    return order


def _view(x) -> dict:
    """A strided-view argument's `view` entry (an OperandCopy's or Extra's): the pointer
    to pass is the buffer's start, `offset` elements before the view's first element,
    the view's element (i, j, k) lies `strides` . (i, j, k) after that, and the buffer
    must hold `bytes` from the pointer on (to one past the view's last element). No
    entry for a packed argument, whose pointer is its first element."""
    return _view_entry(x.shape, x.view_strides, x.view_offset, x.elem)


def _c_view(kernel: GemmKernel | ReductionKernel) -> dict:
    """C's `view` entry when the kernel writes C through a strided view (as `_view`)."""
    return _view_entry(kernel.c_shape, kernel.c_strides, kernel.c_offset, kernel.out_type)


def _view_entry(shape, strides, offset: int, elem: str) -> dict:
    if strides is None:
        return {}
    span = sum((n - 1) * s for n, s in zip(shape, strides)) + 1
    return {"view": {"offset": offset, "strides": list(strides),
                     "bytes": (offset + span) * ELEMENT_BYTES[elem]}}


def gemm_metadata(kernel: GemmKernel, code_object: bytes) -> dict:
    """A gemm kernel's entry in the JSON of the code object contract."""
    pm, pn, pk = kernel.padded
    args = []
    for op, layout in ((kernel.a, kernel.a.layout), (kernel.b, kernel.b.layout)):
        args.append({**_arg(op.name, op.elem, op.shape, layout), **_view(op)})
    c_arg = {**_arg("C", kernel.out_type, kernel.c_shape, kernel.c_layout), **_c_view(kernel)}
    if kernel.split_k is not None:
        # A split-K gemm's partial products: the reduction kernel's input, not C.
        c_arg = {**_arg("partials", kernel.out_type, kernel.c_shape, "row"),
                 "kind": "workspace"}
    args.append(c_arg)
    for x in kernel.extras:
        # The fused epilogue's operands, after C in argument order: the bias ([N] broadcast
        # over batches and rows, or [G, N]) or an op list's eN; `broadcast` names the
        # indices of [G, M, N] it varies with.
        args.append({**_arg(x.name, x.elem, x.shape, "row"), "broadcast": x.kind,
                     **_view(x)})
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
        **({"split_k": kernel.split_k.slices} if kernel.split_k is not None else {}),
        "args": args,
    }


def reduction_metadata(kernel: ReductionKernel, code_object: bytes) -> dict:
    """A split-K gemm's second kernel: the partial products summed, the epilogue
    applied, C written (codegen/split_k_reduce.py)."""
    args = [{**_arg("partials", kernel.acc_type, kernel.workspace_shape, "row"),
             "kind": "workspace"},
            {**_arg("C", kernel.out_type, kernel.c_shape, kernel.c_layout), **_c_view(kernel)}]
    args += [{**_arg(x.name, x.elem, x.shape, "row"), "broadcast": x.kind, **_view(x)}
             for x in kernel.extras]
    return {
        **_entry(kernel.symbol, "split_k_reduce", kernel.grid, (kernel.block_size, 1, 1), 0,
                 code_object),
        "split_k": kernel.slices,
        "accumulate": kernel.accumulate,
        "epilogue": kernel.epilogue,
        "args": args,
    }


def split_k_buffers(kernels) -> list[dict]:
    """The workspace of each split-K gemm: its partial products, written whole by the
    partial kernel and read by the reduction (no initial value)."""
    return [{**_arg("partials", k.out_type, k.c_shape, "row"), "kind": "workspace",
             "kernels": [k.symbol, k.reduction.symbol]}
            for k in kernels if k.reduction is not None]


def pack_metadata(kernel: PackKernel, code_object: bytes) -> dict:
    """A runtime accel.pack/unpack copy kernel's entry: (src, dst) in, one thread a
    destination element."""
    plain = (kernel.plain, "transposed" if kernel.transposed else "row")
    packed = (kernel.packed, "accel")
    src, dst = (plain, packed) if kernel.pack else (packed, plain)
    return {
        **_entry(kernel.symbol, "pack" if kernel.pack else "unpack", (kernel.grid, 1, 1),
                 (PACK_BLOCK, 1, 1), 0, code_object),
        "args": [_arg("src", kernel.element, *src), _arg("dst", kernel.element, *dst)],
    }


def elementwise_metadata(kernel: ElementwiseKernel, code_object: bytes) -> dict:
    """An accel.elementwise kernel's entry (codegen/elementwise.py): its inputs e0, e1,
    ... (each with the indices of [G, M, N] it varies with, how its bytes hold values
    when not plainly: int4 pairs "s4"/"u4", unsigned bytes "u8", and the index map it is
    read through when it has one: value[g, m, n] = buffer[map(g, m, n)]), then the
    output."""
    args = [{**_arg(x.name, x.elem, x.shape, "row"), "broadcast": x.kind,
             **({"packing": p} if p else {}), **({"index_map": t} if t else {})}
            for x, p, t in zip(kernel.inputs, kernel.packing, kernel.map_texts)]
    args.append(_arg("out", kernel.out_type, kernel.out_shape, "row"))
    return {
        **_entry(kernel.symbol, "elementwise" if kernel.reduce == "none" else "reduce",
                 kernel.grid, (kernel.block_size, 1, 1), 0, code_object),
        "shape": {"g": kernel.g, "m": kernel.m, "n": kernel.n},
        "program": kernel.program,
        **({"reduce": kernel.reduce} if kernel.reduce != "none" else {}),
        "compute_type": kernel.acc_type,
        "args": args,
    }


def copy_metadata(kernel: CopyKernel, code_object: bytes) -> dict:
    """An accel.copy kernel's entry (codegen/copy.py): its input and its output, each a
    row-major buffer, and the index maps the copy reads and writes them through."""
    return {
        **_entry(kernel.symbol, "copy", kernel.grid, (kernel.block_size, 1, 1), 0,
                 code_object),
        "shape": list(kernel.shape),
        "input_map": kernel.input_map,
        "output_map": kernel.output_map,
        "args": [_arg("in", kernel.elem, kernel.in_shape, "row"),
                 _arg("out", kernel.elem, kernel.out_shape, "row")],
    }


def _entry(symbol: str, op: str, grid, block, lds_bytes: int, code_object: bytes) -> dict:
    """The keys every kernel's entry starts with, in the contract's order."""
    return {"symbol": symbol, "code_object": f"{symbol}.hsaco", "op": op, "grid": list(grid),
            "block": list(block), "lds_bytes": lds_bytes,
            "vgprs": note_count(code_object, ".vgpr_count")}


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


# ---- grouped GEMM (accel.grouped_gemm, seed 003) ----------------------------------------
def compile_grouped_gemm(arch: str, *, groups: int, n: int, k: int, max_seq_len: int,
                         total_rows: int, in_type: str = "bf16", out_type: str | None = None,
                         b_layout: str = "stacked", bias: bool = True, mode: str = "auto",
                         perf_config: str | PerfConfig | None = None,
                         dispatch_table: str | None = None,
                         assembly: bool = True) -> CompileResult:
    """Compile C[s:e] = A[s:e] @ B[g] (+ bias[g]) for each of `groups` groups, the rows
    [s, e) read from seq_offsets on the device (accel.grouped_gemm, dialect/grouped_gemm.py).

    total_rows is L_max, the row capacity of A [L_max, K] and C [L_max, N]; B is
    [G*N, K] ("stacked") or [G, K, N] ("row"); the bias [G*N] has the output type.
    `mode` uniform | compact | auto and the perf config are dispatched as
    tuning/grouped_dispatch.py says (explicit values, then `dispatch_table`'s entry, or
    the shipped table's, then a heuristic). The kernels are listed in launch order and
    `result.workspace` names the tile list a compact launch needs."""
    text = grouped_gemm_module_text(arch, groups=groups, n=n, k=k, max_seq_len=max_seq_len,
                                    total_rows=total_rows, in_type=in_type, out_type=out_type,
                                    b_layout=b_layout, bias=bias, mode=mode,
                                    perf_config=perf_config, dispatch_table=dispatch_table)
    try:
        return compile_module(text, arch, assembly=assembly)
    except AccelError as e:
        e.location = None   # the module text is ours: a position in it means nothing
        raise


def grouped_gemm_module_text(arch: str, *, groups: int, n: int, k: int, max_seq_len: int,
                             total_rows: int, in_type: str = "bf16", out_type: str | None = None,
                             b_layout: str = "stacked", bias: bool = True, mode: str = "auto",
                             perf_config=None, dispatch_table=None) -> str:
    """The MLIR text of @grouped_gemm(A, B, seq_offsets, C[, bias]) holding one
    accel.grouped_gemm whose perf config and mode are already dispatched."""
    info = get_arch(arch)
    if in_type not in GROUPED_INPUTS:
        raise AccelError(f"element type {in_type!r} is not one of {', '.join(GROUPED_INPUTS)}")
    out_type = in_type if out_type is None else out_type
    if out_type not in (in_type, "f32"):
        raise AccelError(f"output type {out_type!r} is not supported for {in_type} inputs "
                         f"(expected {in_type} or f32)")
    groups, n, k, max_seq_len, total_rows = (
        validate.positive(name, v) for name, v in (
            ("groups", groups), ("n", n), ("k", k), ("max_seq_len", max_seq_len),
            ("total_rows", total_rows)))
    if b_layout not in B_LAYOUTS:
        raise AccelError(f"b_layout must be one of {', '.join(B_LAYOUTS)}, got {b_layout!r}")
    if bias not in (True, False):
        raise AccelError(f"bias must be a bool, got {bias!r}")
    if mode not in MODES + ("auto",):
        raise AccelError(f"mode must be one of {', '.join(MODES)} or auto, got {mode!r}")
    if not isinstance(perf_config, (str, PerfConfig, type(None))):
        raise AccelError(f"perf_config must be a string or a PerfConfig, "
                         f"got {type(perf_config).__name__}")
    if not isinstance(dispatch_table, (str, type(None))) and not hasattr(dispatch_table,
                                                                         "__fspath__"):
        raise AccelError(f"dispatch_table must be a path, got {type(dispatch_table).__name__}")
    if max_seq_len > total_rows:
        raise AccelError(f"max_seq_len must be in [1, total_rows = {total_rows}], "
                         f"got {max_seq_len}")
    config = (perf_config if isinstance(perf_config, PerfConfig)
              else PerfConfig.parse(perf_config, info.mma_kind) if perf_config is not None
              else None)
    from accel.tuning.grouped_dispatch import dispatch, load_table
    table = load_table(dispatch_table) if config is None else None
    chosen = dispatch(info, groups=groups, n=n, k=k, max_seq_len=max_seq_len,
                      total_rows=total_rows, in_type=in_type, out_type=out_type, mode=mode,
                      perf_config=config, table=table)

    def memref(shape, t):
        return f"memref<{'x'.join(map(str, shape))}x{t}>"

    b_shape = (groups * n, k) if b_layout == "stacked" else (groups, k, n)
    names = ["%a", "%b", "%seq_offsets", "%c"]
    types = [memref((total_rows, k), in_type), memref(b_shape, in_type),
             memref((groups + 1,), "i32"), memref((total_rows, n), out_type)]
    if bias:
        names.append("%bias")
        types.append(memref((groups * n,), out_type))
    attrs = (f'arch = "{arch}", max_seq_len = {max_seq_len} : i64, b_layout = "{b_layout}", '
             f'mode = "{chosen.mode}", perf_config = "{chosen.config}", '
             f'config_source = "{chosen.source}"')
    args = ", ".join(f"{a}: {t}" for a, t in zip(names, types))
    return (f"func.func @grouped_gemm({args}) {{\n"
            f"  \"accel.grouped_gemm\"({', '.join(names)}) {{{attrs}}} : "
            f"({', '.join(types)}) -> ()\n"
            f"  return\n}}\n")


def grouped_facts(kernels) -> dict:
    """symbol -> (kernel, its metadata function) for grouped GEMMs' main and prep kernels."""
    facts = {}
    for kernel in kernels:
        facts[kernel.symbol] = (kernel, grouped_metadata)
        if kernel.tile_list is not None:
            facts[kernel.tile_list.symbol] = (kernel.tile_list, tile_list_metadata)
    return facts


def _grouped_args(kernel: GroupedGemmKernel) -> list[dict]:
    """The main kernel's arguments in kernel-argument order, with the user's shapes."""
    gemm, launch = kernel.gemm, kernel.launch
    g, n, k, rows = launch.groups, gemm.n, gemm.k, launch.total_rows
    b_shape = (g * n, k) if kernel.b_layout == "stacked" else (g, k, n)
    args = [_arg("A", gemm.in_type, (rows, k), "row"),
            _arg("B", gemm.in_type, b_shape, kernel.b_layout),
            _arg("C", gemm.out_type, (rows, n), "row")]
    if gemm.extras:   # the group's bias, the one epilogue operand a grouped GEMM takes
        args.append(_arg("bias", gemm.out_type, (g * n,), "row"))
    args.append(_arg("seq_offsets", "i32", (g + 1,), "row"))
    if kernel.tile_list is not None:
        args.append(_tile_map_arg(kernel.tile_list))
    return args


def _tile_map_arg(prep: TileListKernel) -> dict:
    # Written by the prep kernel, read by the main kernel: workspace, not a user buffer.
    return {**_arg("tile_map", "i32", (prep.entries,), "row"), "kind": "workspace"}


def grouped_metadata(kernel: GroupedGemmKernel, code_object: bytes) -> dict:
    """The main kernel's entry in the code object contract. `grid` is the upper bound the
    host launches (tuning/grouped_launch.py: from G, L_max, max_seq_len and the tile)."""
    gemm, launch = kernel.gemm, kernel.launch
    cfg = gemm.config
    return {
        "symbol": kernel.symbol,
        "code_object": f"{kernel.symbol}.hsaco",
        "op": "grouped_gemm",
        "mode": kernel.mode,
        "grid": list(kernel.grid),
        "block": [gemm.block_size, 1, 1],
        "lds_bytes": gemm.lds_bytes,
        "vgprs": note_count(code_object, ".vgpr_count"),
        "mma": gemm.mma.instr.mnemonic,
        "perf_config": str(cfg),
        "padded": {"m": launch.tiles_per_group * cfg.m_per_block,
                   "n": launch.n_tiles * cfg.n_per_block,
                   "k": gemm.k_tiles * cfg.k_per_block},
        "shape": {"groups": launch.groups, "n": gemm.n, "k": gemm.k,
                  "max_seq_len": launch.max_seq_len, "total_rows": launch.total_rows},
        "tiles_per_group": launch.tiles_per_group,
        "epilogue": gemm.epilogue,
        "args": _grouped_args(kernel),
    }


def tile_list_metadata(kernel: TileListKernel, code_object: bytes) -> dict:
    """The compact mode's prep kernel: seq_offsets in, the tile list out."""
    return {
        **_entry(kernel.symbol, "grouped_tile_list", kernel.grid, (kernel.block_size, 1, 1),
                 kernel.lds_bytes, code_object),
        "args": [_arg("seq_offsets", "i32", (kernel.groups + 1,), "row"),
                 _tile_map_arg(kernel)],
    }


def grouped_workspace(kernels) -> dict:
    """The buffers the grouped GEMMs need beyond the user's: one tile list per compact
    launch, written by its prep kernel and read by its main kernel (no initial value)."""
    buffers = []
    for kernel in kernels:
        prep = kernel.tile_list
        if prep is not None:
            buffers.append({**_tile_map_arg(prep), "kernels": [prep.symbol, kernel.symbol]})
    return {"bytes": sum(b["bytes"] for b in buffers), "buffers": buffers}
