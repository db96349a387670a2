"""Is a perf config legal for (arch, element type, GEMM shape)? And if not, why not.

`check_config` returns one message per violated rule, each starting with the rule's
name (`block-size:`, `mma-tile:`, ...), so a caller can both show it and test it.
Codegen calls it to refuse configs it cannot build, and the selector only ever
returns configs it accepts.

The register estimate is a model, not a count from a compiled kernel. Per lane, in
32-bit registers:
  accumulators   mPerWave*nPerWave / wave size        (one f32/i32 per C element)
  fragments      (mPerWave + nPerWave)/mnPerXdl * ceil(a_len*bytes/4) per k-step, for
                 the kPerBlock/instrK k-steps of a k-tile (read from LDS between two
                 barriers; on gfx11/12 LLVM holds fewer when short, see register_floor)
  copy staging   ceil((mPB + nPB) * kPB * bytes / 4 / block size)
                 (one k-tile's global->LDS copy, held across the MMAs when loaded
                 ahead; a second k-tile in flight, `pipeline_depth` 2, adds its copy
                 and SECOND_STAGE_REGS)
  addressing     ADDRESS_REGS (buffer offsets, loop counters, lane indices)
  byte transpose accumulators + BYTE_TRANSPOSE_REGS for 1-byte types (see there)
`register_floor` (what must fit) is admitted while within REGISTER_HEADROOM of
`register_budget` (a wave's share of the register file); `register_estimate` (what the
kernel uses; selection reckons occupancy from it) is then at most that budget.
benchmarks/bench_register_estimate.py compiles the ladder and compares the estimate
with the VGPRs the code objects report; test_register_estimate.py keeps a sample.
"""

from __future__ import annotations

from typing import NamedTuple

from accel import validate
from accel.dialect.accel_tile import ceil_div
from accel.dialect.element_types import ELEMENT_BYTES
from accel.dialect.gemm import GemmShape
from accel.dialect.perf_config import PerfConfig
from accel.target.database import ArchInfo, MmaInstr
from accel.tuning.cost_model import loads_ahead, params_for, two_stages_pay


# Registers for addresses, loop counters, lane indices and the epilogue's C offsets:
# the smallest rungs (16x16 .. 64x32, kPerBlock 16-32) compile to 38-50 VGPRs where the
# other terms come to 11-30 (benchmarks/bench_register_estimate.py, 2048^3).
ADDRESS_REGS = 32
# 1-byte operands compile to more registers than the terms above count, growing with
# the accumulators (benchmarks/bench_register_estimate.py, B row-major, whose bytes are
# transposed in registers: codegen/global_copy.py): up to the accumulators plus this
# many, by wave size. gfx1201 i8 128x256x16 (8 waves, 128 accumulators) took 327 VGPRs
# (71 spilled) for 166 counted; gfx942 i8 256x256x32 (8 waves, 128) 352 for 100; the
# largest excess without accumulators to match, 118 on gfx1201 (128x64x256, 32). With
# a transposed B the first compiles to 167. The estimate cannot see the layout, so it
# charges every 1-byte config.
BYTE_TRANSPOSE_REGS = {32: 96, 64: 64}
# gfx942 with 256 accumulators per lane (a 128x128 wave tile) fills the 256 AGPRs, and
# with one or two waves each lane also stages 96-128 registers of a k-tile's copy: of
# the seven such f16 rungs compiled, 128x128x32 (1 wave) spilled 9 VGPRs, 256x64x32
# (1) 32 and 256x128x64 (2) 50, where the estimate said 416-496 of 512; with 4 waves
# (256x256x32, 256x256x64: 470-512 VGPRs) none spilled. f32 (one register per operand
# element, 32x32x2: 128 MFMAs a k-tile) spilled 32 even with 4 waves (256x256x16).
AGPR_FULL_MIN_WAVES = 4
# What a second k-tile in flight (pipeline_depth 2) costs beyond its copy's registers:
# over every third such rung, B row-major, 2048^3 (bench_kernel_quality.py --only
# depth-two), the VGPRs of 6 of 222 gfx942 f16 rungs and 4 of 95 gfx1100 ones came out
# more than 10% over the estimate with the copy alone (gfx942 256x64x32, 8 waves: 126
# for 108; gfx1100 64x64x32, 16 waves: 74 for 60, its copy 2 registers a lane), none
# with 8 more. Of the rungs so planned, one per 16-bit type is over by more than 10%,
# as it was one k-tile ahead: gfx942 256x64x64 on 4 waves, 208 VGPRs for 176 (one
# ahead: 182 for 148).
SECOND_STAGE_REGS = 8
# The register allocator needs slack: on gfx1201 f16 128x64x128 (four waves) and
# 128x16x128 (two), floors of 224 of 256 spilled 3 and 10 VGPRs; nothing compiled with
# a floor under 85% of its budget spilled (benchmarks/bench_register_estimate.py).
REGISTER_HEADROOM = 0.85

# The 4x4x4 MFMA (16 blocks in one instruction) has no codegen: only the 16x16 and
# 32x32 shapes are offered on gfx942.
UNSUPPORTED_MN_PER_XDL = (4,)

# Each grid dimension counts work-items in a 32-bit field of the HSA dispatch packet.
MAX_GRID_WORK_ITEMS = 2**32 - 1


def usable_instructions(arch: ArchInfo, in_type: str,
                        b_type: str | None = None) -> tuple[MmaInstr, ...]:
    """The MMA instructions codegen can use for A of `in_type` and B of `b_type`
    (default: the same), widest first."""
    return tuple(i for i in arch.mma_for(in_type, b_type) if i.m not in UNSUPPORTED_MN_PER_XDL)


def instruction_for(arch: ArchInfo, in_type: str, mn_per_xdl: int,
                    b_type: str | None = None) -> MmaInstr | None:
    for instr in usable_instructions(arch, in_type, b_type):
        if instr.m == mn_per_xdl and instr.n == mn_per_xdl:
            return instr
    return None


def lane_k_run(instr: MmaInstr) -> int:
    """Contiguous K elements one lane holds per instruction (docs/layouts.md: the a_len run).

    32x32x8 f16 -> 4, 16x16x16 f16 -> 4, i8 and fp8 -> 8, f32 -> 1, gfx1100 WMMA -> 16,
    gfx1201 WMMA -> 8.
    """
    return instr.a_len


def lds_bytes(config: PerfConfig, in_type: str) -> int:
    """LDS for the A and B tiles of one k-step, doubled when double-buffered."""
    per = (config.m_per_block + config.n_per_block) * config.k_per_block * ELEMENT_BYTES[in_type]
    return per * (2 if config.double_buffered else 1)


# A NamedTuple: made for every candidate of the selector's ladder, it builds in half a
# frozen dataclass's time (seven fields by keyword: 1.3 against 2.7 us).
class _RegisterTerms(NamedTuple):
    base: int        # accumulators, addressing, the 1-byte excess
    staging: int     # the copy of the k-tiles loaded ahead, in registers
    b_staging: int   # B's part of one k-tile's copy
    held: bool       # is the copy held across the MMAs (loaded ahead)?
    fragment: int    # registers of one MMA operand fragment
    per_step: int    # fragment registers of one k-step (every repeat's A and B)
    steps: int       # k-steps per k-tile
    depth: int       # k-tiles of loads in flight ahead of the MMAs (`pipeline_depth`)

    def with_fragments(self, live_steps: int) -> int:
        frags = self.per_step * live_steps
        return self.base + (self.staging + frags if self.held else max(self.staging, frags))


def _register_terms(arch: ArchInfo, instr: MmaInstr, config: PerfConfig,
                    in_type: str) -> _RegisterTerms:
    eb = ELEMENT_BYTES[in_type]
    acc = ceil_div(config.m_per_wave * config.n_per_wave, arch.wave_size)
    repeats = (config.m_per_wave + config.n_per_wave) // instr.m
    block = config.block_size(arch.wave_size)
    staging = ceil_div((config.m_per_block + config.n_per_block) * config.k_per_block * eb,
                       4 * block)
    transpose = acc + BYTE_TRANSPOSE_REGS[arch.wave_size] if eb == 1 else 0
    # passes/plan_kernel.py (loaded_ahead) loads k-tiles ahead, holding them across the
    # MMAs, except on gfx942 when the accumulators fill half the unified file.
    held = loads_ahead(arch, config)
    fragment = ceil_div(instr.a_len * eb, 4)
    one = _RegisterTerms(
        base=acc + ADDRESS_REGS + transpose, staging=staging,
        b_staging=ceil_div(config.n_per_block * config.k_per_block * eb, 4 * block),
        held=held, fragment=fragment, per_step=repeats * fragment,
        steps=config.k_per_block // instr.k, depth=1 if held else 0)
    if held and config.double_buffered and two_stages_pay(arch, config, in_type):
        # Only with two LDS buffers, whose loop already runs two k-tiles a trip (the two
        # stages alternate under fixed names): with one, two stages double the loop
        # body, and that cost compile time on every kernel it built, median CPU time of
        # the 8 such kernels of bench_compile.py's 18 +15% (121.8 -> 139.5 ms), up to
        # +76% (gfx942 i8 77x1001x320), measured in one process, interleaved.
        # A second k-tile in flight where the estimate with both stays inside the
        # headroom the floor is admitted by (the estimate is at least the floor): depth 2
        # never makes a config inadmissible, and leaves the allocator the slack whose
        # lack spilled (REGISTER_HEADROOM: floors of 224 of 256). The second stage
        # costs its copy's registers and SECOND_STAGE_REGS.
        two = one._replace(staging=2 * staging + SECOND_STAGE_REGS, depth=2)
        budget = register_budget(arch, config)
        if _estimate(arch, config, two, budget) <= REGISTER_HEADROOM * budget:
            return two
    return one


def pipeline_depth(arch: ArchInfo, instr: MmaInstr, config: PerfConfig, in_type: str) -> int:
    """K-tiles of global loads in flight ahead of the MMAs that consume them, as
    passes/plan_kernel.py plans them (plan `pipeline_depth`, codegen/schedule.py) and
    the cost model costs them (cost_model.config_terms `depth`): 0 when nothing is
    loaded ahead (cost_model.loads_ahead), 2 with two LDS buffers (scheduleVersion 2)
    where a second stage pays (cost_model.two_stages_pay) and the register estimate
    with it stays within REGISTER_HEADROOM of the budget, else 1 (the selector has each
    candidate's from `screen_config`, of the same register terms)."""
    return _register_terms(arch, instr, config, in_type).depth


def register_estimate(arch: ArchInfo, instr: MmaInstr, config: PerfConfig, in_type: str) -> int:
    """Registers per lane the kernel will use (see the module docstring for the model):
    the whole k-tile's fragments while they fit, else the budget (LLVM then reads
    fragments later, see `register_floor`)."""
    return _estimate(arch, config, _register_terms(arch, instr, config, in_type),
                     register_budget(arch, config))


def _estimate(arch: ArchInfo, config: PerfConfig, terms: _RegisterTerms, budget: int) -> int:
    full = terms.with_fragments(terms.steps)
    if arch.wave_size == 32:
        return max(min(full, budget), _floor(arch, terms))
    # Past half the file a wave has its SIMD to itself either way, and LLVM then uses
    # the whole file: gfx942 f16 256x256x64 with four 128x128 waves, 416 by the terms,
    # compiled to 512.
    return budget if 2 * full > budget else full


def register_budget(arch: ArchInfo, config: PerfConfig) -> int:
    """Registers per lane each wave of the workgroup can have: the per-wave maximum, or
    the SIMD's register file shared by the workgroup's waves on it (all of a workgroup
    is resident at once). gfx942: 512 per SIMD lane, 4 SIMDs, so 8 waves get 256 each:
    i8 256x256x32 with 8 waves, a floor of 260, compiled to 256 VGPRs + 96 spilled."""
    p = params_for(arch)
    simds = p.simds_per_cu * p.cus_per_unit
    return min(arch.vgprs_per_lane, p.vgprs_per_simd_lane // ceil_div(config.num_waves, simds))


def register_floor(arch: ArchInfo, instr: MmaInstr, config: PerfConfig, in_type: str) -> int:
    """Registers per lane a config needs at least: what `check_config` admits by.

    On gfx11/12 LLVM holds LDS fragments ahead only while registers are free: gfx1100
    f16 128x128x32 with four 64x64 waves compiles to 192 VGPRs, its accumulators and
    one k-step's fragments alone; gfx1201 256x256x64 with 16 waves to 194-214, where the
    whole k-tile's fragments would take 336. What must fit is the copy held ahead plus
    the larger of one A and one B fragment (the MMAs) and B's part again (its transpose
    into LDS writes columns while the rows are live). On gfx942 LLVM reads the whole
    k-tile's fragments ahead, so all of them must fit."""
    return _floor(arch, _register_terms(arch, instr, config, in_type))


def _floor(arch: ArchInfo, terms: _RegisterTerms) -> int:
    if arch.wave_size == 32:
        return terms.base + terms.staging + max(terms.b_staging, 2 * terms.fragment)
    return terms.with_fragments(terms.steps)


def selection_arguments(arch, in_type, *rest):
    """The selection API's common arguments checked: (arch, in_type, [out_type,] shape).

    A string arch (`select("gfx942", ...)`) is the commonest slip: the message says
    where an ArchInfo comes from."""
    *types, shape = rest
    return (validate.instance("arch", arch, ArchInfo,
                              "an ArchInfo (accel.target.database.get_arch)"),
            validate.string("in_type", in_type),
            *(validate.string("out_type", t) for t in types),
            validate.instance("shape", shape, GemmShape, "a GemmShape"))


def check_config(arch: ArchInfo, in_type: str, shape: GemmShape,
                 config: PerfConfig, b_type: str | None = None) -> list[str]:
    """Every rule `config` breaks for this arch, element types (A's `in_type`, B's
    `b_type`, default the same) and shape; [] = valid."""
    arch, in_type, shape = selection_arguments(arch, in_type, shape)
    validate.instance("config", config, PerfConfig, "a PerfConfig")
    b_type = None if b_type is None else validate.string("b_type", b_type)
    return screen_config(arch, in_type, shape, config, b_type)[0]


def screen_config(arch: ArchInfo, in_type: str, shape: GemmShape, config: PerfConfig,
                  b_type: str | None = None) -> tuple[list[str], int, int, int]:
    """`check_config`'s rules for arguments already checked, with what the selector
    keeps of a config that passes them: (errors, LDS bytes, register estimate,
    `pipeline_depth`; the last two 0 when there are errors). The register terms are
    worked out once for the rules, the estimate and the depth: the ladder screens
    180-1,320 candidates an arch and type."""
    errors: list[str] = []
    if not arch.supports(in_type, b_type) or in_type not in ELEMENT_BYTES:
        pair = validate.clipped(in_type) if b_type in (None, in_type) else f"{in_type} x {b_type}"
        return [f"element-type: {pair} has no MMA instruction on {arch.name}"], 0, 0, 0

    c = config
    split_ok = True
    for dim, block, wave in (("m", c.m_per_block, c.m_per_wave), ("n", c.n_per_block, c.n_per_wave)):
        if wave > block or block % wave:
            errors.append(f"wave-split: {dim}PerWave {wave} does not divide {dim}PerBlock {block}")
            split_ok = False
    if split_ok:
        threads = c.block_size(arch.wave_size)
        if not arch.wave_size <= threads <= arch.max_threads_per_block:
            errors.append(f"block-size: {c.num_waves} waves x {arch.wave_size} lanes = {threads} "
                          f"threads, outside [{arch.wave_size}, {arch.max_threads_per_block}]")

    instr = instruction_for(arch, in_type, c.mn_per_xdl, b_type)
    if instr is None:
        menu = sorted({i.m for i in usable_instructions(arch, in_type, b_type)})
        note = (" (the 4x4x4 MFMA is not supported by codegen)"
                if arch.mma_kind == "mfma" and c.mn_per_xdl in UNSUPPORTED_MN_PER_XDL else "")
        errors.append(f"mma-tile: mnPerXdl {c.mn_per_xdl} is not a usable {arch.mma_kind.upper()} "
                      f"tile for {in_type} on {arch.name} (use {' or '.join(map(str, menu))}){note}")
    else:
        for dim, wave in (("m", c.m_per_wave), ("n", c.n_per_wave)):
            if wave % instr.m:
                errors.append(f"mma-tile: {dim}PerWave {wave} is not a multiple of the "
                              f"{instr.shape} instruction's {instr.m}")
        if c.k_per_block % instr.k:
            errors.append(f"k-per-block: kPerBlock {c.k_per_block} (kpackPerBlock "
                          f"{c.kpack_per_block} x kpack {c.kpack}) is not a multiple of the "
                          f"{instr.shape} instruction's K {instr.k}")
        kb = lane_k_run(instr)
        if c.kpack % kb and kb % c.kpack:
            errors.append(f"kpack: kpack {c.kpack} and the {instr.shape} per-lane K run {kb} "
                          f"must divide one another")

    errors.extend(schedule_errors(arch, c))
    terms = _register_terms(arch, instr, c, in_type) if instr is not None and split_ok else None
    budget = 0 if terms is None else register_budget(arch, c)
    if terms is not None and c.waves_per_eu:
        regs = _estimate(arch, c, terms, budget)
        share = arch.simd_regs_per_lane // c.waves_per_eu
        if c.waves_per_eu > arch.max_waves_per_simd:
            errors.append(f"waves-per-eu: wavesPerEU {c.waves_per_eu} is more than the "
                          f"{arch.max_waves_per_simd} waves a SIMD of {arch.name} holds")
        elif regs > share:
            errors.append(f"waves-per-eu: {c.waves_per_eu} waves per SIMD leave {share} "
                          f"registers a lane, the tile needs about {regs}")

    lds = lds_bytes(c, in_type)
    if lds > arch.lds_bytes:
        doubled = " (double-buffered)" if c.double_buffered else ""
        errors.append(f"lds: A and B tiles need {lds} bytes{doubled}, more than the "
                      f"{arch.lds_bytes} bytes of LDS")

    if terms is not None and not errors_mention(errors, "mma-tile"):
        regs = _floor(arch, terms)
        acc = c.m_per_wave * c.n_per_wave // arch.wave_size
        if arch.mma_kind == "mfma" and acc >= arch.vgprs_per_lane // 2 and \
                (c.num_waves < AGPR_FULL_MIN_WAVES or ELEMENT_BYTES[in_type] == 4):
            why = ("f32 operands" if ELEMENT_BYTES[in_type] == 4 else
                   f"{c.num_waves} wave(s) (use {AGPR_FULL_MIN_WAVES} or more)")
            errors.append(f"registers: {acc} accumulators per lane fill the AGPRs, and with "
                          f"{why} the rest spills")
        elif regs > REGISTER_HEADROOM * budget:
            errors.append(f"registers: about {regs} registers per lane (accumulators, fragments, "
                          f"copy staging), more than {REGISTER_HEADROOM:.0%} of the "
                          f"{budget} a wave of {c.num_waves} can have")

    if split_ok:
        errors.extend(grid_errors(arch, shape, c))
    if errors:
        return errors, lds, 0, 0
    return errors, lds, _estimate(arch, c, terms, budget), terms.depth


# rocMLIR's scheduleVersion values (its GemmLoadTileType): 1 the default pipeline, 2 two
# LDS buffers, 3 and 4 the same with global loads written straight to LDS.
SCHEDULE_VERSIONS = {1: "default", 2: "double buffer", 3: "direct-to-LDS",
                     4: "direct-to-LDS double buffer"}
# outputSwizzle: 0 off, 1 on (C through LDS), 2 the compiler's choice.
OUTPUT_SWIZZLES = (0, 1, 2)


def schedule_errors(arch: ArchInfo, config: PerfConfig) -> list[str]:
    """scheduleVersion and outputSwizzle values this arch and codegen can honour."""
    errors = []
    v = config.schedule_version
    if v not in SCHEDULE_VERSIONS:
        errors.append(f"schedule-version: scheduleVersion {v} is not one of rocMLIR's "
                      f"1-4 ({', '.join(f'{k} {n}' for k, n in SCHEDULE_VERSIONS.items())})")
    elif v in (3, 4) and arch.mma_kind != "mfma":
        # gfx942's buffer_load_dword ... lds writes a global dword straight into LDS
        # (amdgpu.gather_to_lds, codegen/direct_lds_copy.py); RDNA3/4 have no such load.
        errors.append(f"schedule-version: scheduleVersion {v} ({SCHEDULE_VERSIONS[v]}) "
                      f"cannot be built for {arch.name}: it has no global-to-LDS loads; "
                      f"use 1 or 2")
    if config.output_swizzle not in OUTPUT_SWIZZLES:
        errors.append(f"output-swizzle: outputSwizzle {config.output_swizzle} is not 0, 1 or 2")
    return errors


def grid_errors(arch: ArchInfo, shape: GemmShape, config: PerfConfig) -> list[str]:
    """The one shape-dependent rule: each grid dimension's work-items fit 32 bits."""
    threads = config.block_size(arch.wave_size)
    return [f"grid: {tiles} workgroups of {threads} threads along {axis} exceed the 2^32 "
            f"work-item limit"
            for axis, tiles in (("x", ceil_div(shape.n, config.n_per_block)),
                                ("y", ceil_div(shape.m, config.m_per_block)), ("z", shape.g))
            if tiles * threads > MAX_GRID_WORK_ITEMS]


# Raw buffer offsets are 32-bit, and codegen parks an invalid access up to one buffer
# past the end (codegen/global_copy.py): every operand must stay below 2 GiB.
MAX_OPERAND_BYTES = 2**31 - 1


def operand_size_errors(shape: GemmShape, in_type: str, out_type: str) -> list[str]:
    """The config-independent rule: A, B and C each fit 32-bit buffer offsets."""
    sizes = (("A", shape.g * shape.m * shape.k * ELEMENT_BYTES[in_type]),
             ("B", shape.g * shape.k * shape.n * ELEMENT_BYTES[in_type]),
             ("C", shape.g * shape.m * shape.n * ELEMENT_BYTES.get(out_type, 4)))
    return [f"operand-size: {name} is {size} bytes, too large for 32-bit buffer offsets "
            f"(2 GiB)" for name, size in sizes if size > MAX_OPERAND_BYTES]


def errors_mention(errors: list[str], rule: str) -> bool:
    return any(e.startswith(rule + ":") for e in errors)
