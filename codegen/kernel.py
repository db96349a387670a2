"""Kernel assembly: one `accel.gemm` -> one `gpu.module` holding one Kernel IR kernel.

Workgroup (x, y, z) = (N tile, M tile, batch); block = numWaves * waveSize threads, 1-D.
Wave w owns the (w // wavesN, w % wavesN) sub-tile of mPerWave x nPerWave, computed as
(mPerWave/m) x (nPerWave/n) MMA tiles whose repeats are unrolled. A k-tile loop
(scf.for, carrying the accumulators, kept rolled in LLVM) copies kPerBlock of A and B
into LDS and runs a k-step loop of MMAs over it (unrolled by LLVM).

Global loads run one k-tile ahead: the loads of tile t+1 are issued before the MMAs of
tile t and their values ride in the loop's iter_args until stored to LDS, so the
global latency hides behind a k-tile of MMAs instead of stalling every k-tile.
Single buffer (scheduleVersion 1): store t | barrier | load t+1, multiply t | barrier.
scheduleVersion 2 double-buffers LDS: multiply t | store t+1 into the other buffer,
load t+2 | barrier; one barrier per k-tile.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from accel.codegen.builder import Emitter, Value
from accel.codegen.epilogue import Bias, Epilogue
from accel.codegen.global_copy import ELEM_BITS, OperandCopy, lds_fragment
from accel.codegen.mma import MmaLayout, select_mma
from accel.codegen.workgroup_tile import WorkgroupTile
from accel.dialect.accel_layout import ceil_div
from accel.dialect.element_types import ELEMENT_BYTES
from accel.dialect.ops import ACCUMULATOR, GemmOp, GemmShape, memref_info
from accel.dialect.perf_config import PerfConfig
from accel.diagnostics import AccelError
from accel.target.database import ArchInfo, get_arch
from accel.tuning.launch import Launch, geometry
from accel.tuning.validity import check_config

# The k-tile loop keeps its back edge. With a constant trip count LLVM's AMDGPU
# unroller (whose threshold is raised for loops that touch LDS) otherwise unrolls it
# completely: the whole K reduction becomes straight-line code. Measured on gfx942,
# 64x64 tile, K=1024 (16 k-tiles; benchmarks/bench_kernel_quality.py case 1): compile
# 556 -> 183 ms, code 6784 -> 2688 bytes, VGPRs 84 -> 52, the same 8 MFMAs per k-tile
# (the k-step loop inside is still unrolled by LLVM, which is what the MMAs want);
# gfx1201 16x256, K=1024: code 12928 -> 2176 bytes, s_wait* 393 -> 20. The name is
# `loop_annotation`, the inherent attribute of llvm.br: convert-scf-to-cf copies
# LLVM-dialect attributes from scf.for to the latch branch, and only that name reaches
# LLVM IR as !llvm.loop metadata (`llvm.loop_annotation` would be silently dropped).
NO_UNROLL = "{loop_annotation = #llvm.loop_annotation<unroll = <disable = true>>}"
_LAYOUT_LETTER = {"row": "r", "transposed": "t", "accel": "x"}


@dataclass(frozen=True)
class GemmKernel:
    """Everything a GEMM kernel is built from; `module_text()` is its gpu.module."""
    arch: ArchInfo
    config: PerfConfig
    mma: MmaLayout
    g: int
    m: int
    n: int
    k: int
    in_type: str
    out_type: str
    a: OperandCopy
    b: OperandCopy
    c_type: str
    accumulate: bool
    symbol: str
    c_layout: str                    # row | accel
    c_shape: tuple[int, ...]
    epilogue: str                    # none | bias | relu | bias_relu (dialect/ops.py)
    bias_type: str | None            # memref type of the bias operand, if any
    bias_shape: tuple[int, ...]      # [N] or [G, N]; () without a bias

    @property
    def acc_type(self) -> str:
        return ACCUMULATOR[self.in_type]

    @property
    def launch(self) -> Launch:
        """Block, grid and padded sizes, by the convention shared with perf-config selection."""
        return geometry(self.arch, GemmShape(self.g, self.m, self.n, self.k), self.config)

    @property
    def block_size(self) -> int:
        return self.launch.block_size

    @property
    def grid(self) -> tuple[int, int, int]:
        return self.launch.grid

    @property
    def padded(self) -> tuple[int, int, int]:
        return self.launch.padded

    @property
    def k_tiles(self) -> int:
        return ceil_div(self.k, self.config.k_per_block)

    @property
    def buffers(self) -> int:
        return 2 if self.config.double_buffered else 1

    @property
    def lds_bytes(self) -> int:
        elems = self.a.lds_elems + self.b.lds_elems
        return self.buffers * elems * ELEM_BITS[self.in_type] // 8

    def ahead(self, op: OperandCopy) -> bool:
        """Is this operand's tile loaded a k-tile ahead (held in registers meanwhile)?

        Not when a held value is a sub-dword scalar (a ragged extent forcing 8/16-bit
        loads): each would take a VGPR, more than the copy staging that the perf-config
        register estimate allows (tuning/validity.py). Not on gfx942 when the MFMA
        accumulators fill the 256 AGPRs (half the unified budget): measured on the
        256x256 tile with 128x128 per wave, holding the tile spilled 88 (scheduleVersion
        2) and 324 (1) bytes to scratch, against 0 and 0 without."""
        if op.vector_width * ELEM_BITS[op.elem] < 32:
            return False
        if self.arch.mma_kind == "mfma":
            acc = self.config.m_per_wave * self.config.n_per_wave // self.arch.wave_size
            return acc < self.arch.vgprs_per_lane // 2
        return True

    @property
    def reps(self) -> tuple[int, int]:
        return self.config.m_per_wave // self.mma.m, self.config.n_per_wave // self.mma.n

    # ---- text ------------------------------------------------------------------------
    def module_text(self) -> str:
        em = Emitter()
        self._emit_body(em)
        lds_a, lds_b = self._lds_types()
        gx, gy, gz = self.grid
        bias_arg = f", %bias: {self.bias_type}" if self.bias_type else ""
        return (
            f"gpu.module @{self.symbol} {{\n"
            f"  gpu.func @{self.symbol}(%A: {self.a.memref_type}, %B: {self.b.memref_type}, "
            f"%C: {self.c_type}{bias_arg})\n"
            f"      workgroup(%lds_a: {lds_a}, %lds_b: {lds_b}) kernel attributes {{"
            f"known_block_size = array<i32: {self.block_size}, 1, 1>, "
            f"known_grid_size = array<i32: {gx}, {gy}, {gz}>}} {{\n"
            f"{em.body_text()}\n"
            f"      gpu.return\n"
            f"  }}\n"
            f"}}\n")

    def _lds_types(self) -> tuple[str, str]:
        return tuple(f"memref<{self.buffers * op.lds_elems}x{self.in_type}, "
                     f"#gpu.address_space<workgroup>>" for op in (self.a, self.b))

    def _emit_body(self, em: Emitter, tile: WorkgroupTile | None = None) -> None:
        """The kernel's body; `tile` (a grouped GEMM's, codegen/grouped.py) replaces the
        block ids as the workgroup's tile, and A (self.a.rows) and C read its row window."""
        cfg, mma = self.config, self.mma
        wave = self.arch.wave_size
        lds_a_t, lds_b_t = self._lds_types()
        tid = em.gpu_id("thread_id x", "tid")
        if tile is None:
            n_tile = em.gpu_id("block_id x", "bx")
            m_tile = em.gpu_id("block_id y", "by")
            batch = em.gpu_id("block_id z", "bz")
        else:
            n_tile, m_tile, batch = tile.n_tile, tile.m_tile, tile.batch
        wave_id = em.div(tid, wave)
        lane = em.rem(tid, wave)
        wave_m = em.div(wave_id, cfg.waves_n)
        wave_n = em.rem(wave_id, cfg.waves_n)
        reps_m, reps_n = self.reps
        acc_t = mma.acc_type()
        zero = em.assign(f"arith.constant dense<{'0' if self.acc_type == 'i32' else '0.0'}> "
                         f": {acc_t}", "zero")
        accs = [zero] * (reps_m * reps_n)

        # Lane-invariant parts of the LDS fragment addresses and of the C coordinates.
        a_row = em.add(em.mul(wave_m, cfg.m_per_wave), mma.a_row(em, lane))
        b_col = em.add(em.mul(wave_n, cfg.n_per_wave), mma.b_column(em, lane))
        sup = mma.super_step(cfg.k_per_block, cfg.kpack, ELEM_BITS[self.in_type])
        k_lane = mma.k_base(em, lane, sup)

        operands = ((self.a, "%lds_a", lds_a_t, m_tile), (self.b, "%lds_b", lds_b_t, n_tile))

        def fetch(k_tile: Value, live: Value) -> list[tuple[str, str]]:
            """Global loads of k-tile `k_tile` for the operands loaded one tile ahead."""
            if live == 0:
                return []
            return [x for op, _, _, d_tile in operands if self.ahead(op)
                    for x in op.load(em, tid, batch, self.g, d_tile, k_tile, live)]

        def put(k_tile: Value, buf: Value, staged: list[str]) -> None:
            """Store k-tile `k_tile` into LDS buffer `buf`: the fetched values, or (for
            operands not loaded ahead) a copy issued here."""
            at = 0
            for op, lds, lds_t, d_tile in operands:
                base = em.mul(buf, op.lds_elems)
                if self.ahead(op):
                    n = op.values_per_thread
                    op.store(em, lds, lds_t, base, tid, staged[at:at + n])
                    at += n
                else:
                    op.copy(em, lds, lds_t, base, tid, batch, self.g, d_tile, k_tile)

        def compute(buf, accs_in: list[str]) -> list[str]:
            steps = cfg.k_per_block // (mma.k * sup)
            base_a, base_b = em.mul(buf, self.a.lds_elems), em.mul(buf, self.b.lds_elems)
            r_len, run = mma.instr.a_len, mma.instr.a_len * sup

            def one_step(ks, accs_now):
                # One LDS read per operand tile serves `sup` k-steps (MmaLayout.super_step).
                k0 = em.add(em.mul(ks, mma.k * sup), k_lane)
                a_runs = [lds_fragment(em, self.a, "%lds_a", lds_a_t, base_a, a_row, r * mma.m,
                                       k0, run) for r in range(reps_m)]
                b_runs = [lds_fragment(em, self.b, "%lds_b", lds_b_t, base_b, b_col, c * mma.n,
                                       k0, run) for c in range(reps_n)]
                for s in range(sup):
                    a_frags = [em.slice(x, run, s * r_len, r_len, self.in_type) for x in a_runs]
                    b_frags = [em.slice(x, run, s * r_len, r_len, self.in_type) for x in b_runs]
                    # C^T = B^T * A^T (codegen/mma.py): B is the instruction's first operand.
                    accs_now = [mma.emit(em, b_frags[c], a_frags[r], accs_now[r * reps_n + c],
                                         self.in_type)
                                for r in range(reps_m) for c in range(reps_n)]
                return accs_now

            if steps == 1:
                return one_step(0, accs_in)
            return _loop(em, steps, [(x, acc_t) for x in accs_in], one_step, "ks")

        # Global loads run one k-tile ahead of their LDS stores, so their latency hides
        # behind a k-tile of MMAs; the loaded values ride in the loop's iter_args.
        # Before, every k-tile began with its loads and waited for them (s_waitcnt
        # vmcnt(0)) before its first MMA. Now (benchmarks/bench_kernel_quality.py)
        # gfx1100 128x128 issues its 4 buffer_load_b128 ahead of all 16 WMMAs and waits
        # at the next k-tile's LDS store; on gfx942 128x256 LLVM places them before the
        # last 4 of 16 MFMAs. Cost: the held values, VGPRs +0..+18 over the ten cases.
        n_acc = len(accs)
        if self.buffers == 2:
            put(0, 0, [x for x, _ in fetch(0, 1)])
            em.line("gpu.barrier")
            staged = fetch(1, em.lt(1, self.k_tiles))

            def k_tile_body(kt, carried):
                # Tile kt is in buffer kt % 2; tile kt+1 (fetched last iteration) goes to
                # the other one, whose readers all passed the previous barrier.
                out = compute(em.rem(kt, 2), carried[:n_acc])
                nxt = em.add(kt, 1)
                more = em.lt(nxt, self.k_tiles)
                if isinstance(more, str):
                    with em.region(f"scf.if {more}"):
                        put(nxt, em.rem(nxt, 2), carried[n_acc:])
                elif more:
                    put(nxt, em.rem(nxt, 2), carried[n_acc:])
                after = em.add(kt, 2)
                ahead = fetch(after, em.lt(after, self.k_tiles))
                em.line("gpu.barrier")
                return out + [x for x, _ in ahead]
        else:
            staged = fetch(0, 1)

            def k_tile_body(kt, carried):
                put(kt, 0, carried[n_acc:])
                em.line("gpu.barrier")
                nxt = em.add(kt, 1)
                ahead = fetch(nxt, em.lt(nxt, self.k_tiles))
                out = compute(0, carried[:n_acc])
                em.line("gpu.barrier")
                return out + [x for x, _ in ahead]

        accs = _loop(em, self.k_tiles, [(x, acc_t) for x in accs] + staged, k_tile_body, "kt",
                     unroll=False)[:n_acc]

        bias = None
        if self.bias_type:
            bias = Bias(memref="%bias", memref_type=self.bias_type,
                        batched=len(self.bias_shape) == 2)
        epilogue = Epilogue(mma=mma, c="%C", c_type=self.c_type, c_layout=self.c_layout,
                            g=self.g, m=self.m, n=self.n,
                            m_per_block=cfg.m_per_block, n_per_block=cfg.n_per_block,
                            kpack_per_block=cfg.kpack_per_block, kpack=cfg.kpack,
                            acc_elem=self.acc_type, out_elem=self.out_type,
                            accumulate=self.accumulate, bias=bias,
                            relu=self.epilogue in ("relu", "bias_relu"), rows=self.a.rows)
        row_in_tile = em.add(em.mul(wave_m, cfg.m_per_wave), mma.a_row(em, lane))
        col_lane = em.add(em.add(em.mul(n_tile, cfg.n_per_block), em.mul(wave_n, cfg.n_per_wave)),
                          mma.c_col_base(em, lane))
        epilogue.emit(em, accs, reps_m, reps_n, batch, m_tile, row_in_tile, col_lane)


def _loop(em: Emitter, trips: int, carried: list[tuple[str, str]], body, hint: str,
          unroll: bool = True) -> list[str]:
    """scf.for over [0, trips) carrying `carried` ((value, type) pairs); a single trip is
    inlined. `body(iv, values)` returns the next values. `unroll=False` forbids LLVM to
    unroll it (NO_UNROLL)."""
    if trips == 1:
        return body(0, [x for x, _ in carried])
    iv = em.fresh(hint)
    res = em.fresh(hint + "_res")
    args = [em.fresh("acc") for _ in carried]
    inits = ", ".join(f"{a} = {c}" for a, (c, _) in zip(args, carried))
    types = ", ".join(t for _, t in carried)
    footer = "}" if unroll else "} " + NO_UNROLL
    with em.region(f"{res}:{len(carried)} = "
                   + em.for_header(iv, trips, f"iter_args({inits}) -> ({types})"), footer):
        out = body(iv, args)
        em.line(f"scf.yield {', '.join(out)} : {types}")
    return [f"{res}#{i}" for i in range(len(carried))]


# ---- from the op ------------------------------------------------------------------------
def kernel_symbol(g, m, n, k, in_type, out_type, arch, a_layout, b_layout, accumulate,
                  c_layout="row", epilogue="none", bias_batched=False) -> str:
    """Deterministic; the layouts, accumulate and the epilogue appear only when not the
    plain default (C's layout letter only when C is not row-major; a [G, N] bias is
    `gbias`)."""
    name = f"accel_gemm_g{g}_m{m}_n{n}_k{k}_{in_type}_{out_type}"
    if (a_layout, b_layout, c_layout) != ("row", "row", "row"):
        name += f"_{_LAYOUT_LETTER[a_layout]}{_LAYOUT_LETTER[b_layout]}"
        if c_layout != "row":
            name += _LAYOUT_LETTER[c_layout]
    if accumulate:
        name += "_acc"
    if epilogue != "none":
        name += "_" + epilogue.replace("bias", "gbias" if bias_batched else "bias")
    return f"{name}_{arch}"


def build_kernel(gemm: GemmOp) -> GemmKernel:
    """Validate the op for codegen and describe its kernel; AccelError at the op."""
    try:
        return _build(gemm)
    except AccelError as e:
        if e.location is None:
            e.location = gemm.location
        raise


def _build(gemm: GemmOp) -> GemmKernel:
    gemm.verify()
    config = gemm.perf_config
    if config is None:
        raise AccelError("'accel.gemm' has no perf_config; run accel-affix-perf-config first")
    arch = get_arch(gemm.arch)
    shape = gemm.shape()
    in_type, out_type = gemm.in_type, gemm.out_type
    problems = check_config(arch, in_type, shape, config)
    if problems:
        raise AccelError(f"perf config {config} cannot be lowered for {in_type} on "
                         f"{arch.name}: {problems[0]}")
    mma = select_mma(arch, in_type, config.mn_per_xdl)
    bias = gemm.bias
    for v in (gemm.a, gemm.b, gemm.c) + ((bias,) if bias is not None else ()):
        shp, elem = memref_info(v)
        size = ELEMENT_BYTES[elem]
        for d in shp:
            size *= d
        # Buffer offsets are 32-bit and an invalid access is placed up to one memref
        # past the end (codegen/global_copy.py), so each operand must stay below 2 GiB.
        if size >= 2**31:
            raise AccelError(f"operand of {size} bytes is too large for 32-bit buffer offsets")

    def operand(name, value, layout, d_extent, d_per_block) -> OperandCopy:
        shp, elem = memref_info(value)
        return OperandCopy(name=name, layout=layout, memref=f"%{name}",
                           memref_type=str(value.type), shape=tuple(shp), elem=elem,
                           d_extent=d_extent, k_extent=shape.k, d_per_block=d_per_block,
                           kpack_per_block=config.kpack_per_block, kpack=config.kpack,
                           block_size=config.block_size(arch.wave_size),
                           swizzle_bit=mma.swizzle_bit)

    a = operand("A", gemm.a, gemm.a_layout, shape.m, config.m_per_block)
    b = operand("B", gemm.b, gemm.b_layout, shape.n, config.n_per_block)
    bias_shape = tuple(memref_info(bias)[0]) if bias is not None else ()
    kernel = GemmKernel(
        arch=arch, config=config, mma=mma, g=shape.g, m=shape.m, n=shape.n, k=shape.k,
        in_type=in_type, out_type=out_type,
        a=replace(a, slab_pad=a.padding_rows), b=replace(b, slab_pad=b.padding_rows),
        c_type=str(gemm.c.type), accumulate=gemm.accumulate,
        symbol=kernel_symbol(shape.g, shape.m, shape.n, shape.k, in_type, out_type, arch.name,
                             gemm.a_layout, gemm.b_layout, gemm.accumulate, gemm.c_layout,
                             gemm.epilogue, len(bias_shape) == 2),
        c_layout=gemm.c_layout, c_shape=tuple(memref_info(gemm.c)[0]), epilogue=gemm.epilogue,
        bias_type=str(bias.type) if bias is not None else None, bias_shape=bias_shape)
    # The padding (at most 256 bytes per tile) is not in the LDS budget that perf-config
    # validity checks (tuning/validity.py); a config that fills LDS exactly goes without.
    if kernel.lds_bytes > arch.lds_bytes:
        kernel = replace(kernel, a=a, b=b)
    return kernel


