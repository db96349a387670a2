"""accel-plan-kernel: decide how each accel.gemm's kernel is built, as attributes.

Runs after the perf config is fixed and the operand layouts are final (after
accel-affix-perf-config and accel-layout). It records the decisions of
dialect/kernel_plan.py on the gemm; accel-gemm-to-gpu (codegen/) follows them and
decides nothing itself. Each decision below carries the measurement that made it.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, replace

from accel.bindings import ir
from accel.codegen.global_copy import permutable, transpose_writes_conflict, widest_vector
from accel.codegen.mma import MmaLayout, select_mma
from accel.diagnostics import AccelError, located
from accel.dialect.c_staging_plan import CStagingPlan
from accel.dialect.element_types import ELEMENT_BYTES
from accel.dialect.epilogue_program import LEGACY, Program
from accel.dialect.grouped_gemm import GroupedGemmOp
from accel.dialect.kernel_plan import KernelPlan, OperandPlan
from accel.dialect.operand_layouts import inner_contiguous, inner_k_digit, view_strides
from accel.dialect.gemm import GemmOp, GemmShape
from accel.dialect.gemm_types import ACCUMULATOR
from accel.dialect.ir_helpers import collect_ops, memref_info
from accel.dialect.perf_config import PerfConfig
from accel.dialect.split_k_plan import SplitKPlan
from accel.passes.registry import AccelPass, register
from accel.target.database import ArchInfo, get_arch
from accel.tuning.cost_model import loads_ahead
from accel.tuning.validity import ADDRESS_REGS, check_config, pipeline_depth


@register
@dataclass(frozen=True)
class PlanKernel(AccelPass):
    NAME = "accel-plan-kernel"
    SUMMARY = ("Record each accel.gemm's kernel decisions (copies, LDS layout, MMA, "
               "schedule, symbol) as attributes")

    def run(self, module: ir.Module) -> None:
        gemms = [GemmOp(op) for op in collect_ops(module, GemmOp.OP_NAME)]
        plans = [plan_gemm(g) for g in gemms]   # every diagnostic before any write
        splits = [split_k_plan(g, p) for g, p in zip(gemms, plans)]
        stagings = [c_staging_plan(g, p) for g, p in zip(gemms, plans)]
        # The symbol encodes shape, types, layouts and epilogue, not the tile: gemms
        # sharing one that are built differently get `_v1`, `_v2`, ... in program order.
        variants: dict[str, list[tuple]] = {}
        for gemm, plan, split, staging in zip(gemms, plans, splits, stagings):
            key = (gemm.perf_config_text, replace(plan, symbol=""))
            seen = variants.setdefault(plan.symbol, [])
            if key not in seen:
                seen.append(key)
            version = seen.index(key)
            if version:
                plan = replace(plan, symbol=f"{plan.symbol}_v{version}")
            plan.write(gemm.op)
            if split is not None:
                split.write(gemm.op)
            elif "split_k" in gemm.op.attributes:   # a plan of an earlier perf config
                del gemm.op.attributes["split_k"]
            if staging is not None:
                staging.write(gemm.op)
            elif "c_staging" in gemm.op.attributes:
                del gemm.op.attributes["c_staging"]


def plan_gemm(gemm: GemmOp) -> KernelPlan:
    """The plan of one gemm (its base symbol, without a `_vN` version); AccelError at it."""
    with located(gemm.location):
        return _plan(gemm)


def split_k_plan(gemm: GemmOp, plan: KernelPlan) -> SplitKPlan | None:
    """How a gemm with splitKFactor S > 1 is split (dialect/split_k_plan.py); None for
    S = 1.

    The S partial products meet in an accumulator-typed workspace that a second kernel
    sums, never through atomic adds into C: a fused epilogue that is not linear (relu,
    exp, a convert; 45 of the 76 gemms of the MIGraphX corpus have one) must see the
    whole sum, which takes a second pass anyway; an f16/bf16 C would round every
    partial (S roundings instead of one); float atomics land in any order, so results
    would change from run to run, and C would have to be zeroed first; and the Kernel
    IR (docs/contracts.md) and the simulator have no atomic op."""
    config = gemm.perf_config
    if config.split_k == 1:
        return None
    with located(gemm.location):
        arch = get_arch(gemm.arch)
        shape = gemm.shape()
        mma = select_mma(arch, gemm.in_type, gemm.b_type, config.mn_per_xdl)
        acc = ACCUMULATOR[gemm.in_type]
        k_tiles = -(-shape.k // config.k_per_block)
        return SplitKPlan(
            slices=config.split_k, k_tiles=-(-k_tiles // config.split_k), combine="workspace",
            # The workspace is a row-major [G * S, M, N] of the accumulator type.
            partial_vector=c_vector(mma, config, acc, shape.n, "row", False),
            # The reduction reads the workspace and writes C with one width: C's own
            # store width, at most 128 bits of the accumulator type, dividing N (an
            # accel-layout C's width need not, but a workspace load past N's end would
            # read the next row's sums into C's padding: N = 17, width 4, columns 17-19).
            reduce_vector=widest_vector(acc, plan.c_vector, shape.n))


def c_staging_plan(gemm: GemmOp, plan: KernelPlan) -> CStagingPlan | None:
    """How C passes through LDS (dialect/c_staging_plan.py, codegen/c_staging.py) for
    outputSwizzle 1; None otherwise (0 and 2 store C from the accumulators).

    2, the compiler's choice, does not stage: over bench_kernel_quality.py's 14 cases
    (3402x4096x1024) the C store instructions and bytes per store are the same on 13
    (the accumulators' runs are already 128 bits; gfx942 MFMA 16x16 with a 16-bit C is
    the one that gains, 4 x 8 B -> 2 x 16 B a lane on a 64x64 tile), while staging adds
    0-16 barriers, 1-16 LDS reads and writes and 17% compile CPU time (median).

    The unit is the lane's run of c_len columns, at most 128 bits: one LDS write. A
    lane reads back 128 bits of a row (two units where the run is 64 bits: MFMA 16x16
    with a 16-bit C), stored as C's width allows (N's divisors). C is staged in the
    larger of A's and B's LDS buffers, in blocks of whole MMA tiles of each wave's tile:
    the largest block that fits there (each pass costs two barriers), whole rows
    before more rows; when not even one MMA tile fits, the buffer grows, within the
    chip's LDS."""
    config = gemm.perf_config
    if config.output_swizzle != 1:
        return None
    with located(gemm.location):
        where = f"perf config {config}: outputSwizzle 1 (C through LDS)"
        if gemm.c_layout != "row":
            raise AccelError(f"{where} writes a row-major C; an accel-layout C is stored in "
                             f"its kpack runs (use outputSwizzle 0 or 2)")
        arch = get_arch(gemm.arch)
        shape = gemm.shape()
        mma = select_mma(arch, gemm.in_type, gemm.b_type, config.mn_per_xdl)
        # A split-K gemm stages its partial product, in the accumulator type.
        out = ACCUMULATOR[gemm.in_type] if config.split_k > 1 else gemm.out_type
        bits = 8 * ELEMENT_BYTES[out]
        unit = min(mma.c_len, 128 // bits)
        span = min(128 // bits, mma.n, 2 * unit)
        in_bytes = ELEMENT_BYTES[gemm.in_type]
        buffers = [plan.lds_buffers * config.kpack_per_block * (d + op.slab_pad) * config.kpack
                   * in_bytes for d, op in ((config.m_per_block, plan.a),
                                            (config.n_per_block, plan.b))]
        which = 0 if buffers[0] >= buffers[1] else 1

        def staged(block: tuple[int, int]) -> int:
            return config.num_waves * block[0] * block[1] * bits // 8

        def divisors(tiles: int) -> list[int]:
            return [d for d in range(1, tiles + 1) if tiles % d == 0]

        # The LDS swizzle needs a power of two of units per staged row (one MMA tile's
        # 16 or 32 columns are 2-8 units).
        blocks = [(mma.m * dm, mma.n * dn) for dm in divisors(config.m_per_wave // mma.m)
                  for dn in divisors(config.n_per_wave // mma.n)
                  if not (mma.n * dn // unit) & (mma.n * dn // unit - 1)]
        fitting = [b for b in blocks if staged(b) <= buffers[which]]
        rows, columns = (max(fitting, key=lambda b: (b[0] * b[1], b[1])) if fitting
                         else min(blocks, key=lambda b: (b[0] * b[1], -b[1])))
        need = max(staged((rows, columns)), buffers[which]) + buffers[1 - which]
        if need > arch.lds_bytes:
            raise AccelError(f"{where} needs {need} bytes of LDS, more than the "
                             f"{arch.lds_bytes} of {arch.name}")
        return CStagingPlan(buffer="ab"[which], rows=rows, columns=columns, unit=unit,
                            span=span,
                            vector=widest_vector(out, span, shape.n))


def check_buildable(arch: ArchInfo, in_type: str, b_type: str, shape: GemmShape,
                    config: PerfConfig, operands: list) -> None:
    """The perf config's rules (tuning/validity.py) and the operands' size limit."""
    problems = check_config(arch, in_type, shape, config, b_type)
    if problems:
        raise AccelError(f"perf config {config} cannot be lowered for {in_type} on "
                         f"{arch.name}: {problems[0]}")
    for v in operands:
        shp, elem = memref_info(v)
        size = ELEMENT_BYTES[elem]
        for d in shp:
            size *= d
        # Buffer offsets are 32-bit and an invalid access is placed up to one memref
        # past the end (codegen/global_copy.py), so each operand must stay below 2 GiB.
        if size >= 2**31:
            raise AccelError(f"operand of {size} bytes is too large for 32-bit buffer offsets")


def _plan(gemm: GemmOp) -> KernelPlan:
    gemm.verify()
    config = gemm.perf_config
    if config is None:
        raise AccelError("'accel.gemm' has no perf_config; run accel-affix-perf-config first")
    arch = get_arch(gemm.arch)
    shape = gemm.shape()
    in_type, b_type, out_type = gemm.in_type, gemm.b_type, gemm.out_type
    check_buildable(arch, in_type, b_type, shape, config, [gemm.a, gemm.b, gemm.c] + gemm.extras)
    extra_kinds = gemm.extra_kinds
    mma = select_mma(arch, in_type, b_type, config.mn_per_xdl)
    bits = 8 * ELEMENT_BYTES[in_type]
    buffers = lds_buffers(config)
    a_loads, b_loads = ({"element_loads": not inner_contiguous(v.type),
                         "inner_k": inner_k_digit(v.type)} for v in (gemm.a, gemm.b))
    a = operand_plan("A", gemm.a_layout, in_type, shape.m, shape.k, config.m_per_block,
                     config, arch, mma, **a_loads)
    b = operand_plan("B", gemm.b_layout, b_type, shape.n, shape.k, config.n_per_block,
                     config, arch, mma, **b_loads)
    # The padding (at most 256 bytes per tile) is not in the LDS budget that perf-config
    # validity checks (tuning/validity.py); a config that fills LDS exactly goes without.
    lds = buffers * sum(config.kpack_per_block * (d + op.slab_pad) * config.kpack
                        for d, op in ((config.m_per_block, a), (config.n_per_block, b)))
    if lds * bits // 8 > arch.lds_bytes:
        a = operand_plan("A", gemm.a_layout, in_type, shape.m, shape.k, config.m_per_block,
                         config, arch, mma, padded=False, **a_loads)
        b = operand_plan("B", gemm.b_layout, b_type, shape.n, shape.k, config.n_per_block,
                         config, arch, mma, padded=False, **b_loads)
    # An epilogue operand that varies with N is loaded c_vector wide in its own type, so
    # the 128-bit bound holds for the widest of them too (an i32 mask beside an f16 C).
    store_elem = max([out_type] + [memref_info(v)[1] for v, kind in
                                   zip(gemm.extras, extra_kinds) if "n" in kind],
                     key=ELEMENT_BYTES.get)
    direct = direct_to_lds(config)
    if direct:
        a = direct_operand_plan("A", gemm.a, gemm.a_layout, in_type, shape.k, a, config,
                                arch)
        b = direct_operand_plan("B", gemm.b, gemm.b_layout, b_type, shape.k, b, config,
                                arch)
    read_ahead = lds_read_ahead(arch, mma, config, in_type, a, b)
    depth = loads_depth(arch, mma, config, in_type, a, b)
    return KernelPlan(
        symbol=kernel_symbol(shape.g, shape.m, shape.n, shape.k,
                             in_type if b_type == in_type else f"{in_type}_{b_type}", out_type,
                             arch.name,
                             gemm.a_layout, gemm.b_layout, gemm.accumulate, gemm.c_layout,
                             gemm.epilogue, "gn" in extra_kinds,
                             views=[str(v.type) for v in (gemm.a, gemm.b, gemm.c, *gemm.extras)
                                    if view_strides(v.type) is not None]),
        mma=mma.instr.mnemonic,
        k_steps_per_read=mma.super_step(config.k_per_block, config.kpack, bits),
        lds_buffers=buffers, pipeline_depth=depth,
        sched_barriers=sched_barriers(arch, config, in_type, a, b, read_ahead),
        load_wait_once=load_wait_once(a, b),
        lds_read_ahead=read_ahead,
        interleave_reads=interleave_reads(arch, mma, config, in_type, a, b,
                                          k_tiles_per_slice(shape.k, config), depth),
        c_vector=c_vector(mma, config, store_elem, shape.n, gemm.c_layout,
                          any("n" in kind for kind in extra_kinds)),
        # wavesPerEU is passed to LLVM as asked (tuning/validity.py refused what the chip
        # cannot hold); 0 asks nothing.
        waves_per_eu=config.waves_per_eu,
        # gridGroupSize M tiles per group (codegen/grid_order.py); a group of at most
        # the M tiles there are, and 0 or 1 keep the plain order.
        grid_group=max(1, min(config.grid_group_size, -(-shape.m // config.m_per_block))),
        direct_to_lds=direct, a=a, b=b,
        bf16_round=bf16_round(arch, config, ACCUMULATOR[in_type], out_type, gemm.program))


def plan_grouped(op: GroupedGemmOp, symbol: str = "") -> KernelPlan:
    """The plan of an accel.grouped_gemm's main kernel: the plan of its per-tile gemm
    (G batches of max_seq_len x N x K; A [1, L, K] row-major, B stacked [G, N, K] or
    row [G, K, N], C [1, L, N] row-major), by the rules of `_plan`, in the plain grid
    order (the grouped kernel finds its tile at run time: codegen/grouped.py)."""
    with located(op.location):
        return _plan_grouped(op, symbol)


def _plan_grouped(op: GroupedGemmOp, symbol: str) -> KernelPlan:
    op.verify()
    config = op.perf_config
    if config is None or op.mode == "auto":
        raise AccelError("'accel.grouped_gemm' has no perf_config and mode; run "
                         "accel-grouped-dispatch first")
    arch = get_arch(op.arch)
    g, n, k, msl = op.groups, op.n, op.k, op.max_seq_len
    in_type, out_type = op.in_type, op.out_type
    check_buildable(arch, in_type, in_type, GemmShape(g, msl, n, k), config,
                    [op.a, op.b, op.c] + ([op.bias] if op.bias is not None else []))
    if config.split_k > 1:
        raise AccelError(f"perf config {config}: a grouped GEMM has no split-K "
                         f"(splitKFactor must be 1)")
    if config.output_swizzle == 1:
        raise AccelError(f"perf config {config}: a grouped GEMM stores C from the "
                         f"accumulators (outputSwizzle must be 0 or 2)")
    if direct_to_lds(config):
        raise AccelError(f"perf config {config}: a grouped GEMM has no direct-to-LDS copy "
                         f"(scheduleVersion must be 1 or 2)")
    mma = select_mma(arch, in_type, in_type, config.mn_per_xdl)
    bits = 8 * ELEMENT_BYTES[in_type]
    buffers = lds_buffers(config)
    b_layout = "transposed" if op.b_layout == "stacked" else "row"
    a = operand_plan("A", "row", in_type, msl, k, config.m_per_block, config, arch, mma)
    b = operand_plan("B", b_layout, in_type, n, k, config.n_per_block, config, arch, mma)
    lds = buffers * sum(config.kpack_per_block * (d + p.slab_pad) * config.kpack
                        for d, p in ((config.m_per_block, a), (config.n_per_block, b)))
    if lds * bits // 8 > arch.lds_bytes:
        a = operand_plan("A", "row", in_type, msl, k, config.m_per_block, config, arch, mma,
                         padded=False)
        b = operand_plan("B", b_layout, in_type, n, k, config.n_per_block, config, arch, mma,
                         padded=False)
    read_ahead = lds_read_ahead(arch, mma, config, in_type, a, b)
    depth = loads_depth(arch, mma, config, in_type, a, b)
    return KernelPlan(
        symbol=symbol, mma=mma.instr.mnemonic,
        k_steps_per_read=mma.super_step(config.k_per_block, config.kpack, bits),
        lds_buffers=buffers, pipeline_depth=depth,
        sched_barriers=sched_barriers(arch, config, in_type, a, b, read_ahead),
        load_wait_once=load_wait_once(a, b),
        lds_read_ahead=read_ahead,
        interleave_reads=interleave_reads(arch, mma, config, in_type, a, b,
                                          k_tiles_per_slice(k, config), depth),
        c_vector=c_vector(mma, config, out_type, n, "row", op.bias is not None),
        waves_per_eu=config.waves_per_eu, grid_group=1, direct_to_lds=False, a=a, b=b,
        bf16_round=bf16_round(arch, config, ACCUMULATOR[in_type], out_type, Program(())))


_LAYOUT_LETTER = {"row": "r", "transposed": "t", "accel": "x"}


def kernel_symbol(g, m, n, k, in_type, out_type, arch, a_layout, b_layout, accumulate,
                  c_layout="row", epilogue="none", bias_batched=False, views=()) -> str:
    """Deterministic; the layouts, accumulate and the epilogue appear only when not the
    plain default (C's layout letter only when C is not row-major; a [G, N] bias is
    `gbias`). `views`: the memref types of the operands read or written as strided views
    (dialect/operand_layouts.py), digested after `_sv`: shape, types and layouts do not
    name strides, and a gemm reading a view builds another kernel than one reading a
    packed buffer of the same shape."""
    name = f"accel_gemm_g{g}_m{m}_n{n}_k{k}_{in_type}_{out_type}"
    if (a_layout, b_layout, c_layout) != ("row", "row", "row"):
        name += f"_{_LAYOUT_LETTER[a_layout]}{_LAYOUT_LETTER[b_layout]}"
        if c_layout != "row":
            name += _LAYOUT_LETTER[c_layout]
    if accumulate:
        name += "_acc"
    if epilogue in LEGACY and epilogue != "none":
        name += "_" + epilogue.replace("bias", "gbias" if bias_batched else "bias")
    elif epilogue not in LEGACY:
        # An op list: its ops in order and a digest of the whole list (operands and
        # literals included), so two different lists never share a symbol.
        steps = Program.parse(epilogue).steps
        ops = "_".join(st.op for st in steps[:4]) + ("_etc" if len(steps) > 4 else "")
        name += f"_ep_{ops}_{zlib.crc32(epilogue.encode()):08x}"
    if views:
        name += f"_sv{zlib.crc32('|'.join(views).encode()):08x}"
    return f"{name}_{arch}"


def lds_buffers(config: PerfConfig) -> int:
    """Two LDS copies of the A and B tiles for scheduleVersion 2 (rocMLIR's double
    buffer; tuning/validity.py has refused one whose copies do not fit), one for its
    default, 1. Two copies take one barrier per k-tile and two k-tiles per trip of the
    loop (codegen/schedule.py). Measured (bench_kernel_quality.py --schedule-version 2,
    the selector's 4096^3 tiles, B row-major): main-loop work share gfx942
    0.376 -> 0.427, gfx1100 0.174 -> 0.185, gfx1201 0.170 -> 0.209 against one copy; but
    the doubled loop costs compile time, median CPU time over bench_compile.py's 18
    kernels 82 -> 122 ms, so it is not the default."""
    return 2 if config.double_buffered else 1


def direct_to_lds(config: PerfConfig) -> bool:
    """scheduleVersion 3 and 4 (rocMLIR's direct-to-LDS pipelines, 4 with two LDS
    buffers): A's and B's tiles go from global memory straight into LDS
    (codegen/direct_lds_copy.py); tuning/validity.py has refused them where the chip has
    no such loads."""
    return config.schedule_version in (3, 4)


def direct_operand_plan(name: str, value: ir.Value, layout: str, elem: str, k_extent: int,
                        plan: OperandPlan, config: PerfConfig, arch: ArchInfo) -> OperandPlan:
    """The plan of an operand copied by gather_to_lds: each lane moves one dword and a
    wave's 64 dwords land consecutive in LDS (M0 + lane * 4), so the copy writes LDS in
    its own order, with no slab padding (a padding row inside a wave's 256-byte run
    would be written too), and holds nothing in registers. The row swizzle stays: it
    only permutes rows inside an 8-row block, and the copy reads global row
    d ^ key for LDS row d. AccelError for what the copy cannot do."""
    per = 4 // ELEMENT_BYTES[elem]
    d_first = (name == "A") == (layout == "row")
    if config.split_k > 1:
        raise AccelError(f"scheduleVersion {config.schedule_version} (direct-to-LDS) has no "
                         f"split-K (splitKFactor must be 1)")
    if layout == "accel" or not d_first:
        raise AccelError(f"scheduleVersion {config.schedule_version} (direct-to-LDS) needs "
                         f"{name} K-contiguous in global memory (A row-major, B transposed); "
                         f"{name} is {layout}")
    if view_strides(value.type) is not None:
        raise AccelError(f"scheduleVersion {config.schedule_version} (direct-to-LDS) needs "
                         f"{name} as a packed memref, not a strided view")
    if config.kpack % per or k_extent % per:
        raise AccelError(f"scheduleVersion {config.schedule_version} (direct-to-LDS) moves "
                         f"dwords of {per} {elem} along K: kpack ({config.kpack}) and K "
                         f"({k_extent}) must be multiples of {per}")
    d = config.m_per_block if name == "A" else config.n_per_block
    dwords = d * config.k_per_block // per
    if dwords % arch.wave_size:
        raise AccelError(f"scheduleVersion {config.schedule_version} (direct-to-LDS): {name}'s "
                         f"tile is {dwords} dwords, not a multiple of a wave's "
                         f"{arch.wave_size}")
    return replace(plan, vector=per, k_chunk=1, permute=False, sgpr_offset="none",
                   slab_pad=0, ahead=False, rows_first=False)


def k_tiles_per_slice(k: int, config: PerfConfig) -> int:
    """The k-tiles one workgroup multiplies (one split-K slice's)."""
    return -(-(-(-k // config.k_per_block)) // config.split_k)


def sched_barriers(arch: ArchInfo, config: PerfConfig, in_type: str, a: OperandPlan,
                   b: OperandPlan, read_ahead: bool) -> bool:
    """Do scheduling barriers fence each k-tile's MMAs (codegen/schedule.py PIN_LOADS)?

    Where a tile is loaded a k-tile ahead they keep its loads ahead of the MMAs and its
    LDS stores after them. On gfx942 with the AGPRs full of accumulators (nothing loaded
    ahead, cost_model.loads_ahead) they keep the k-tile's copy out of the MMAs, which
    otherwise left LLVM more values to shuffle between VGPRs and AGPRs, in two cases,
    measured (bench_kernel_quality.py --only full-agprs, 2048^3, B row-major /
    transposed):
      - the fragments are not read ahead for want of registers (lds_read_ahead),
        v4:256,256,8,128,128,16,8: work share f16 0.353 -> 0.518 / 0.518 -> 0.512
        (VALU 334 -> 144 row-major, VGPRs 512 -> 434), bf16 0.381 -> 0.499 / 0.464 ->
        0.462, no scratch either way;
      - two LDS buffers (the copy of the next k-tile is issued after the MMAs, and LLVM
        hoisted its loads into them) with 64-bit copy vectors and fragments (kpack 4 of
        16-bit types): scratch f16 v4:256,256,4,128,128,32,4 B row-major 68 -> 0 bytes,
        v4:256,256,8,128,128,32,4 B transposed 180 -> 0 (bf16 60 -> 0), work share
        0.165 -> 0.516 / 0.289 -> 0.587 (v4:256,256,4,128,128,32,4, f16), 16x16
        MFMAs 0.322 -> 0.496 / 0.322 -> 0.299 (v4:256,256,8,128,128,16,4).
    Not on the other full-AGPR rungs: there the fence moved work share by -0.08 to
    +0.09 and spilled one of each scheduleVersion (v4:256,256,8,128,128,32,8 and
    v4:256,256,2,128,128,32,8,1,2, B transposed, 132 bytes)."""
    if a.ahead or b.ahead:
        return True
    if arch.mma_kind != "mfma" or loads_ahead(arch, config):
        return False
    return not read_ahead or (lds_buffers(config) == 2
                              and config.kpack * ELEMENT_BYTES[in_type] < 16)


def lds_read_ahead(arch: ArchInfo, mma: MmaLayout, config: PerfConfig, in_type: str,
                   a: OperandPlan, b: OperandPlan) -> bool:
    """Are the MMA fragments of each group of k-steps read from LDS before the previous
    group's MMAs (codegen/mma_step.py)? LLVM otherwise reads a group only after the
    previous one's MMAs and waits twice in it (lgkmcnt(2), then 0). Measured
    (bench_kernel_quality.py, B row-major / transposed), main-loop work share: gfx1100
    128x256 0.237 -> 0.244 / 0.281 -> 0.291, gfx1201 256x256 0.383 -> 0.413 / 0.438 ->
    0.478 (VGPRs 161 -> 209, 223 -> 227); gfx942 4096^3 (128x256x64) 0.564 -> 0.574 /
    0.660 -> 0.674, waits 11 -> 7, VGPRs 256 -> 248, 2048^3 (128x128x128) 0.522 ->
    0.529 / 0.604 -> 0.612, VGPRs 200 -> 186; on the 256x256 tile with 128x128 per
    wave and 32x32 MFMAs LLVM stops copying accumulators between AGPRs and VGPRs
    around the MMAs: B transposed 1366 -> 521 instructions, 0.171 -> 0.394, scratch
    20 -> 0 bytes.

    Not on gfx942 when the accumulators fill the AGPRs (nothing is loaded ahead there,
    cost_model.loads_ahead) and the arch VGPRs cannot hold what the read-ahead keeps
    live (read_ahead_registers). Measured over the twelve such rungs of the f16 and
    bf16 ladders (2048^3, B row-major and transposed: 48 kernels), the read-ahead
    spilled exactly where that count reaches the 256 arch VGPRs, v4:256,256,8,128,128,
    16,8 (288 B row-major, 256 transposed): 32 / 92 bytes of scratch (f16), 64 / 76
    (bf16); without it none, work share 0.381 -> 0.353 / 0.404 -> 0.518 (f16), 0.348 ->
    0.381 / 0.456 -> 0.464 (bf16). The next count, 240 (v4:256,256,4,128,128,16,8, B
    row-major), builds without scratch and keeps it (0.554 against 0.557 without)."""
    if arch.mma_kind != "mfma" or loads_ahead(arch, config):
        return True
    return read_ahead_registers(arch, mma, config, in_type, a, b) < arch.vgprs_per_lane // 2


def read_ahead_registers(arch: ArchInfo, mma: MmaLayout, config: PerfConfig, in_type: str,
                         a: OperandPlan, b: OperandPlan) -> int:
    """Arch VGPRs per lane a gfx942 kernel whose accumulators fill the AGPRs keeps live
    with the fragments read ahead: two groups of k-steps' fragments (one being read
    while the other feeds the MMAs), the k-tile's copy (its loaded values, and a
    transposing copy's columns as many again) and two sets of addresses (the copy's
    and the fragment reads', ADDRESS_REGS each)."""
    size = ELEMENT_BYTES[in_type]
    block = config.block_size(arch.wave_size)
    copy = sum(-(-d * config.k_per_block * size // (4 * block)) * (2 if op.k_chunk > 1 else 1)
               for d, op in ((config.m_per_block, a), (config.n_per_block, b)))
    repeats = config.m_per_wave // mma.m + config.n_per_wave // mma.n
    frags = repeats * -(-mma.instr.a_len * size // 4) \
        * mma.super_step(config.k_per_block, config.kpack, 8 * size)
    return 2 * frags + copy + 2 * ADDRESS_REGS


def interleave_reads(arch: ArchInfo, mma: MmaLayout, config: PerfConfig, in_type: str,
                     a: OperandPlan, b: OperandPlan, k_tiles: int, depth: int) -> bool:
    """Do scheduling-group barriers place each group's LDS reads among the first MMAs
    of the group before (codegen/mma_step.py READ_SPREAD)?

    Where a lane holds the whole K of its row (gfx1100: the half-waves replicate, so a
    16-bit fragment is two 128-bit reads) LLVM's scheduler undoes the read-ahead: it
    sinks each read next to its first MMA and waits there. Measured
    (bench_kernel_quality.py, B row-major / transposed): gfx1100 4096^3 (128x128x128)
    main-loop waits 42 -> 15, work share 0.230 -> 0.256 / 0.262 -> 0.295, VGPRs 194 ->
    226; 528x528x1024 0.162 -> 0.175 / 0.195 -> 0.213. On gfx1201 (one 128-bit read a
    fragment) LLVM's own order is better: 256x256x64 B transposed 0.489 -> 0.467 (waits
    6 -> 13). Only while two groups' fragments fit beside the accumulators and the
    copy held ahead (pinned_read_registers): over the gfx1100 f16 ladder (every 4th
    rung and those near the budget, 140, 2048^3) the one rung that spilled pinned,
    256x64x32 with 64x64 waves (48 bytes of scratch), needs 296. Not without a k-tile
    loop (one k-tile): there the pins only trade waits outside any loop for registers,
    and on 8x512x512x64 (128x128x64) they cut LLVM's VGPRs 205 -> 166, which left
    accel-wmma-banks no room at that occupancy (32 of 32 WMMAs on one VGPR bank, seed
    002's 34 instead of 32 cycles)."""
    return (k_tiles > 1 and mma.k_run_stride == 0 and
            pinned_read_registers(arch, mma, config, in_type, a, b, depth)
            <= arch.vgprs_per_lane - ADDRESS_REGS)


def pinned_read_registers(arch: ArchInfo, mma: MmaLayout, config: PerfConfig, in_type: str,
                          a: OperandPlan, b: OperandPlan, depth: int) -> int:
    """Registers per lane of the accumulators, the copy held across the MMAs (`depth`
    k-tiles of it) and two groups of k-steps' fragments (one being read while the other
    feeds the MMAs)."""
    size = ELEMENT_BYTES[in_type]
    acc = config.m_per_wave * config.n_per_wave // arch.wave_size
    held = depth * sum(-(-d * config.k_per_block * size
                         // (4 * config.block_size(arch.wave_size)))
                       for d, op in ((config.m_per_block, a), (config.n_per_block, b))
                       if op.ahead)
    repeats = config.m_per_wave // mma.m + config.n_per_wave // mma.n
    frags = repeats * -(-mma.instr.a_len * size // 4)
    return acc + held + 2 * frags * mma.super_step(config.k_per_block, config.kpack, 8 * size)


def loads_depth(arch: ArchInfo, mma: MmaLayout, config: PerfConfig, in_type: str,
                a: OperandPlan, b: OperandPlan) -> int:
    """K-tiles ahead of their MMAs the loaded-ahead operands' global loads are issued
    (codegen/schedule.py): 2 where tuning/validity.py's pipeline_depth says (two LDS
    buffers, a k-tile's MMAs at peak rate covering less than a load's latency,
    cost_model.two_stages_pay, and the register estimate holding two k-tiles of the
    copy within its headroom), else 1. The cost model costs the same depth (selection
    passes it to cost_model.config_terms). Measured (bench_kernel_quality.py
    --schedule-version 2, main loop): gfx942 f16 528x528x1024 and 48x4096x4096
    (16x64x128, 2 waves) load cover 16/16 -> 32/32 units of 16x16x16 MMA work (one
    k-tile's MFMAs -> two: 256 -> 512 clocks at peak against a 1200-clock latency), work
    share 0.175 -> 0.173 (B row-major) and 0.274 -> 0.269 (transposed), VGPRs 96 ->
    144 / 136, no scratch."""
    if not (a.ahead or b.ahead):
        return 1
    return max(1, pipeline_depth(arch, mma.instr, config, in_type))


def load_wait_once(a: OperandPlan, b: OperandPlan) -> bool:
    """Do the LDS stores of the loaded-ahead tiles wait once for all their loads?

    The loads were issued a whole k-tile of MMAs before, so waiting for each one in
    turn (LLVM's graded s_waitcnt vmcnt(N) before every store) buys no latency, only
    instructions. Measured (bench_kernel_quality.py, main-loop waits, B transposed /
    row-major): gfx942 128x128 16 -> 9 / 13 -> 9 (work share 0.496 -> 0.525 /
    0.435 -> 0.448), gfx1201 256x256 23 -> 18 / 19 -> 18; load cover unchanged."""
    return a.ahead or b.ahead


def operand_plan(name: str, layout: str, elem: str, d_extent: int, k_extent: int,
                 d_per_block: int, config: PerfConfig, arch: ArchInfo,
                 mma: MmaLayout, padded: bool = True, element_loads: bool = False,
                 inner_k: int | None = None) -> OperandPlan:
    """How one operand is copied; `padded` False where LDS has no room for slab padding,
    `element_loads` where its memref's inner dimension is not contiguous (a strided view
    with no stride-1 side): one element per load; `inner_k` K0 of a K of two digits
    ([G, D, K1, K0]): a vector stays inside one K0 run."""
    bits = 8 * ELEMENT_BYTES[elem]
    kpack, k_per_block = config.kpack, config.k_per_block
    d_first = (name == "A") == (layout == "row")   # plain [G, D, K]: K contiguous
    if layout == "accel":
        vector = widest_vector(elem, d_per_block * k_per_block)
    elif d_first:   # K contiguous: the vector also lands contiguous in LDS
        vector = widest_vector(elem, k_extent, k_per_block, kpack)
    else:
        vector = widest_vector(elem, d_extent, d_per_block)
    if element_loads:
        vector = 1
    if inner_k is not None:
        vector = widest_vector(elem, vector, inner_k)
    # D contiguous in global memory but K contiguous (kpack runs) in LDS: a thread
    # loads k_chunk rows of a D vector and writes `vector` kpack runs (a transpose in
    # registers). k_chunk is kpack, halved while that leaves threads of the block
    # without a unit, down to 2 (two 16-bit values share a dword).
    k_chunk = 1
    if layout != "accel" and not d_first and kpack > 1:
        k_chunk = kpack
        tile = d_per_block * k_per_block
        while k_chunk % 4 == 0 and tile // (vector * k_chunk) < config.block_size(arch.wave_size):
            k_chunk //= 2
    # A transposing copy joins its K runs with dword byte permutes (v_perm_b32) where
    # LLVM's own build from vector shuffles is longer: 16-bit rows on RDNA (v_mov_b16 on
    # register halves and shifts; on gfx942 LLVM already selects one v_perm_b32 per
    # dword, and the permutes cost it an s_waitcnt), 8-bit rows everywhere (byte by
    # byte). Measured (bench_kernel_quality.py, B row-major, VALU in the main loop):
    # f16 gfx1100 128x256 48 -> 24, gfx1201 256x256 46 -> 22 (work share 0.192 ->
    # 0.224, 0.308 -> 0.352); i8 gfx1100 16x32 92 -> 32 (0.049 -> 0.078), gfx942
    # 128x128 80 -> 32 (0.476 -> 0.579).
    permute = permutable(elem, vector, k_chunk) and (bits == 8 or arch.mma_kind == "wmma")
    # The loads take the k-tile's offset as soffset (codegen/global_copy.py
    # _tile_origin), so each load's VGPR address is loop-invariant. Measured
    # (bench_kernel_quality.py, B row-major, with the k-tile after the last clamped
    # instead of masked: codegen/schedule.py clamped), main-loop VALU: gfx942 128x128
    # 26 -> 16, gfx1100 128x256 24 -> 16, gfx1201 256x256 22 -> 16 (only the permutes
    # left). A tile loaded ahead keeps its D tile in the VGPR address (computed once:
    # in the soffset it cost an s_or per operand per k-tile, work share gfx1100 128x256
    # 0.244 -> 0.248); one copied inside the loop puts it in the soffset too, which
    # keeps a VGPR per load free: gfx942 256x256 with 128x128 per wave, B transposed,
    # spilled 136 bytes with the D tile in the VGPRs, none without.
    ahead = loaded_ahead(vector, k_chunk, bits, config, arch)
    sgpr_offset = "k_tile" if ahead else "tile"
    if inner_k is not None and inner_k % k_per_block:
        # A k-tile that crosses a K0 run has no one origin its elements lie past.
        sgpr_offset = "none"
    # Rows are swizzled only when a row (the kpack run of one d) is one 16-byte bank
    # slot, so every copy vector and fragment read stays inside a row. Padding each
    # slab by 8/P rows (1 when P >= 8, P = kpackPerBlock) puts a K-contiguous copy's
    # writes on distinct slots (codegen/global_copy.py row_key has the measurements).
    swizzle = kpack * bits == 128
    p = config.kpack_per_block
    slab_pad = (1 if p >= 8 else (8 // p) % 8) if swizzle else 0
    # Without room for the padding a swizzled K-contiguous copy goes down 8 rows before
    # along K (rows_first), so 8 lanes' writes fill one block's 8 bank slots as the
    # padding did (codegen/global_copy.py row_key). Measured (bench_kernel_quality.py,
    # simulated LDS write conflicts per workgroup): the selector's large f16 tiles, which
    # fill the 64 KB exactly (gfx942 128x128x128, gfx1100 128x128x128, gfx1201
    # 256x256x64), 3584 -> 0 clocks with B row-major (A's copy), 7168 -> 0 with B
    # transposed (both); case 10, gfx942 fp8 128x128x256, A's 3584 -> 0.
    rows_first = not padded and d_first and layout != "accel" and slab_pad > 0
    if not padded:
        slab_pad = 0
    shift, bit = 0, mma.swizzle_bit
    if swizzle and k_chunk > 1:
        slab_pad, shift, bit = transpose_swizzle(arch, mma, d_per_block, vector, k_chunk,
                                                 bits, slab_pad, padded)
    return OperandPlan(vector=vector, k_chunk=k_chunk, permute=permute,
                       sgpr_offset=sgpr_offset, swizzle=swizzle, swizzle_bit=bit,
                       slab_pad=slab_pad, ahead=ahead, rows_first=rows_first,
                       swizzle_shift=shift)


def transpose_swizzle(arch: ArchInfo, mma: MmaLayout, d_per_block: int, vector: int,
                      k_chunk: int, bits: int, slab_pad: int,
                      padded: bool) -> tuple[int, int, int]:
    """(slab_pad, swizzle_shift, swizzle_bit) of a transposing copy: the first of its
    candidates whose LDS writes are conflict-free (transpose_writes_conflict), else the
    plain one. Its slab padding only separates its own writes (its fragment reads stay
    in one slab), so any pad serves the reads. A key of block >> 1 (16-row blocks)
    keeps the MMA's read groups apart where they pair rows of one 16-row block: MFMA
    32x32's rows i and i + 16 are bit 0 of it; gfx1100's rows i and i + 8 are not.
    Measured (bench_kernel_quality.py, B row-major, simulated LDS write conflicts per
    workgroup): case 10, gfx942 fp8 128x128x256 (16-element units, kpack 16), 512 -> 0
    clocks with shift 1; case 6, gfx1100 i8 16x32x128 (4-byte K runs) 64 -> 0 with 2
    rows of padding instead of 1."""
    shifts = [0] if arch.name == "gfx1100" else [1, 0] if vector >= 16 else [0, 1]
    plain = (slab_pad, 0, mma.swizzle_bit)
    for pad in [slab_pad] + [p for p in range(8) if p != slab_pad and padded]:
        for shift in shifts:
            bit = max(0, mma.swizzle_bit - shift)
            if not transpose_writes_conflict(d_per_block, vector, k_chunk * bits // 8, pad,
                                             shift, bit):
                return pad, shift, bit
    return plain


def loaded_ahead(vector: int, k_chunk: int, bits: int, config: PerfConfig,
                 arch: ArchInfo) -> bool:
    """Is an operand's tile loaded a k-tile ahead (held in registers meanwhile)?

    Not when a held value is a sub-dword scalar (a ragged extent forcing 8/16-bit
    loads): each would take a VGPR, more than the copy staging that the perf-config
    register estimate allows (tuning/validity.py). Not on gfx942 when the MFMA
    accumulators fill the 256 AGPRs (half the unified budget): measured on the
    256x256 tile with 128x128 per wave, holding the tile spilled 88 (scheduleVersion
    2) and 324 (1) bytes to scratch, against 0 and 0 without. Not when a transposing
    copy writes sub-dword K runs (1-byte types, k_chunk 2): LLVM builds the 16-bit
    columns when the loads arrive and keeps each in a VGPR across the k-tile. Measured
    (benchmarks/bench_kernel_quality.py, B row-major): gfx1201 fp8 128x256 kPerBlock
    16 spilled 208 bytes at 256 VGPRs and ran 237 instructions in the k-tile loop,
    without: 0 bytes, 190 VGPRs, 59."""
    if vector * bits < 32:
        return False
    if k_chunk > 1 and k_chunk * bits < 32:
        return False
    return loads_ahead(arch, config)


def c_vector(mma: MmaLayout, config: PerfConfig, out_type: str, n: int, c_layout: str,
             extra_varies_with_n: bool) -> int:
    """Elements per C store (and epilogue-operand load): the widest width (at most 128
    bits) that divides the lane's c_len run and the run contiguous in C (N row-major,
    kpack in the accel layout), and N when an epilogue operand that varies with N is
    loaded with it (codegen/epilogue.py)."""
    runs = [mma.c_len, config.kpack if c_layout == "accel" else n]
    if extra_varies_with_n:
        runs.append(n)
    return widest_vector(out_type, *runs)


def bf16_round(arch: ArchInfo, config: PerfConfig, acc: str, out_type: str,
               program: Program) -> str | None:
    """How the epilogue rounds f32 to bf16 (C's conversion, convert_bf16 steps): "i32",
    in i32 ops with C's pairs packed by one v_perm_b32 (codegen/epilogue.py), or
    "truncf", left to LLVM, which expands each value to the same rounding and packs
    with a shift and a 16-bit move (on gfx12 an s_wait_alu too); None when nothing is
    rounded to bf16.

    "i32" except on gfx942 when the accumulators fill the AGPRs (cost_model.loads_ahead).
    Measured with benchmarks/bench_kernel_quality.py --no-sim --out-type bf16
    --bf16-round truncf|i32, machine instructions truncf -> i32. `--only shapes
    --in-type bf16` (the selector's tile, B row-major / transposed): 3402x4096x1024
    gfx942 936 -> 882 / 861 -> 806, gfx1100 1016 -> 935 / 969 -> 889, gfx1201 1510 ->
    1345 / 1472 -> 1308, gfx942 4096^3 1392 -> 1278; the 36 main loops unchanged, and
    the VGPRs but for gfx1201 528x528x1024 B row-major 219 -> 223 and 48x4096x4096
    transposed 191 -> 187. `--only full-agprs` (2048^3, f16 and bf16 in, both
    scheduleVersions and B layouts), the rungs with accumulators in half the registers:
    gfx1201's 132 kept their VGPRs, main loops and work shares, a median 179
    instructions fewer; gfx1100's 264 their main loops, 164 fewer, VGPRs 238 the same,
    20 lower, 6 higher by 1-8 (239 -> 240, 242 -> 250, 247 -> 251, three kpack 16
    tiles), with the same waves per SIMD at any allocation granule of 4 to 24 of the
    1536 registers. gfx942 with `--arch gfx942 --min-acc 128 --every 4`: the 192
    kernels with 128 accumulator registers kept their VGPRs and main loops but one
    tile's (32x256 per wave, 16x16 MFMAs, B row-major: two v_mov_b64 more, 234 -> 236,
    work share 0.274 -> 0.271), 112 instructions fewer (median); of the 80 with the AGPRs
    full 36 got worse somewhere: VGPRs 334 -> 350, 362 -> 392, main loops 351 -> 403 and
    540 -> 590 (work share 0.308 -> 0.274, 0.383 -> 0.357), where others got better
    (1705 -> 1387). No plan property sets the few WMMA and 128-register kernels that
    moved apart from their neighbours, and none of them spilled: there it stays "i32"."""
    if acc != "f32" or (out_type != "bf16"
                        and not any(s.op == "convert_bf16" for s in program.steps)):
        return None
    if arch.mma_kind == "mfma" and not loads_ahead(arch, config):
        return "truncf"
    return "i32"
