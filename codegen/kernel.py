"""Kernel assembly: one planned `accel.gemm` -> one `gpu.module` holding one Kernel IR kernel.

Workgroup (x, y, z) = (N tile, M tile, batch); block = numWaves * waveSize threads, 1-D.
Wave w owns the (w // wavesN, w % wavesN) sub-tile of mPerWave x nPerWave. The kernel
is the frame below (ids, lane coordinates, zero accumulators), the k-tile loop
(codegen/schedule.py) over the operand copies (codegen/global_copy.py) and the MMA
step (codegen/mma_step.py), then the epilogue (codegen/epilogue.py). Every choice
among ways to build it comes from the gemm's kernel plan (accel-plan-kernel,
dialect/kernel_plan.py).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from accel.codegen.builder import Emitter, kernel_module_text
from accel.codegen.c_staging import CStaging, check_plan, region_bytes
from accel.codegen.direct_lds_copy import DirectLdsCopy
from accel.codegen.epilogue import Epilogue, Extra, check_c_alignment, check_extra_alignment
from accel.codegen.global_copy import ELEM_BITS, OperandCopy
from accel.codegen.grid_order import grouped_tile
from accel.codegen.k_slices import k_slice, slice_copies, split_k_kernels
from accel.codegen.mma import MmaLayout, mma_layout
from accel.codegen.mma_step import LdsTile, MmaStep
from accel.codegen.schedule import TileCopies, k_tile_loop
from accel.codegen.split_k_reduce import ReductionKernel
from accel.codegen.workgroup_tile import WorkgroupTile
from accel.dialect.accel_tile import ceil_div
from accel.dialect.c_staging_plan import CStagingPlan
from accel.dialect.epilogue_program import LEGACY, Program
from accel.dialect.kernel_plan import KernelPlan
from accel.dialect.operand_layouts import view_strides
from accel.dialect.gemm import GemmOp, GemmShape
from accel.dialect.gemm_types import ACCUMULATOR
from accel.dialect.ir_helpers import memref_info
from accel.dialect.perf_config import PerfConfig
from accel.dialect.split_k_plan import SplitKPlan
from accel.diagnostics import AccelError, located
from accel.target.database import ArchInfo, get_arch
from accel.tuning.launch import Launch, geometry


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
    plan: KernelPlan
    a: OperandCopy
    b: OperandCopy
    c_type: str
    accumulate: bool
    c_layout: str                    # row | accel
    c_shape: tuple[int, ...]
    epilogue: str                    # a fixed name or an op list (dialect/epilogue_program.py)
    extras: tuple[Extra, ...]        # the epilogue's operands after C, in argument order
    # Split-K (codegen/k_slices.py): this kernel writes one K slice's partial product to
    # C, the workspace, and `reduction` sums them into the gemm's C.
    split_k: SplitKPlan | None = None
    reduction: ReductionKernel | None = None
    c_staging: CStagingPlan | None = None   # C through LDS (codegen/c_staging.py)
    c_strides: tuple[int, int, int] | None = None   # a strided C's (codegen/epilogue.py)
    c_offset: int = 0                # a strided C's first element in its buffer

    @property
    def symbol(self) -> str:
        return self.plan.symbol

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
        return self.plan.lds_buffers

    @property
    def lds_bytes(self) -> int:
        return sum(self._lds_elems()) * ELEM_BITS[self.in_type] // 8

    def _lds_elems(self) -> tuple[int, int]:
        """Elements of A's and B's LDS buffers: their tiles, and the staged C rows
        in the one that holds them."""
        elems = [self.buffers * op.lds_elems for op in (self.a, self.b)]
        if self.c_staging is not None:
            i = "ab".index(self.c_staging.buffer)
            staged = self.config.num_waves * region_bytes(self.c_staging, self.out_type)
            elems[i] = max(elems[i], staged * 8 // ELEM_BITS[self.in_type])
        return tuple(elems)

    @property
    def reps(self) -> tuple[int, int]:
        return self.config.m_per_wave // self.mma.m, self.config.n_per_wave // self.mma.n

    # ---- text ------------------------------------------------------------------------
    def module_text(self) -> str:
        em = Emitter()
        self._emit_body(em)
        lds_a, lds_b = self._lds_types()
        args = [f"%A: {self.a.memref_type}", f"%B: {self.b.memref_type}", f"%C: {self.c_type}"]
        args += [f"{x.memref}: {x.memref_type}" for x in self.extras]
        return kernel_module_text(self.symbol, args, em.body_text(), self.block_size, self.grid,
                                  [f"%lds_a: {lds_a}", f"%lds_b: {lds_b}"],
                                  self.plan.waves_per_eu)

    def _lds_types(self) -> tuple[str, str]:
        return tuple(f"memref<{elems}x{op.elem}, #gpu.address_space<workgroup>>"
                     for elems, op in zip(self._lds_elems(), (self.a, self.b)))

    def _emit_body(self, em: Emitter, tile: WorkgroupTile | None = None) -> None:
        """The kernel's body; `tile` (a grouped GEMM's, codegen/grouped.py) replaces the
        block ids as the workgroup's tile, and A (self.a.rows) and C read its row window."""
        cfg, mma = self.config, self.mma
        wave = self.arch.wave_size
        lds_a_t, lds_b_t = self._lds_types()
        tid = em.gpu_id("thread_id x", "tid")
        a_copy, b_copy = self.a, self.b
        if self.plan.direct_to_lds:
            a_copy = replace(a_copy, wave_size=wave).prepare(em, tid)
            b_copy = replace(b_copy, wave_size=wave).prepare(em, tid)
        if tile is None:
            n_tile = em.gpu_id("block_id x", "bx")
            m_tile = em.gpu_id("block_id y", "by")
            batch = em.gpu_id("block_id z", "bz")
            c_batch, g_out = batch, self.g
            if self.split_k is not None:
                batch, first_k_tile = k_slice(em, c_batch, self.split_k)
                g_out = self.g * self.split_k.slices
            if self.plan.grid_group > 1:
                gx, gy, _ = self.grid
                m_tile, n_tile = grouped_tile(em, em.add(em.mul(m_tile, gx), n_tile), gy, gx,
                                              self.plan.grid_group)
        else:
            n_tile, m_tile, batch = tile.n_tile, tile.m_tile, tile.batch
            c_batch, g_out = batch, self.g
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
        sup = self.plan.k_steps_per_read
        tile_a = LdsTile(a_copy, "%lds_a", lds_a_t)
        tile_b = LdsTile(b_copy, "%lds_b", lds_b_t)
        step = MmaStep(mma=mma, a=tile_a, b=tile_b, k_per_block=cfg.k_per_block, k_steps_per_read=sup,
                       reps_m=reps_m, reps_n=reps_n, a_row=a_row, b_col=b_col,
                       k_lane=mma.k_base(em, lane, sup), read_ahead=self.plan.lds_read_ahead,
                       interleave_reads=self.plan.interleave_reads)
        copies = TileCopies(tiles=((tile_a, m_tile), (tile_b, n_tile)), tid=tid, batch=batch,
                            g=self.g, load_wait_once=self.plan.load_wait_once,
                            direct=self.plan.direct_to_lds)
        k_tiles = self.k_tiles
        if self.split_k is not None:
            copies = slice_copies(copies, first_k_tile, self.k_tiles, self.split_k)
            k_tiles = self.split_k.k_tiles
        accs = k_tile_loop(em, self.buffers, self.plan.sched_barriers, k_tiles, copies,
                           step, accs, acc_t, self.plan.pipeline_depth)

        epilogue = Epilogue(mma=mma, c="%C", c_type=self.c_type, c_layout=self.c_layout,
                            g=g_out, m=self.m, n=self.n,
                            m_per_block=cfg.m_per_block, n_per_block=cfg.n_per_block,
                            kpack_per_block=cfg.kpack_per_block, kpack=cfg.kpack,
                            acc_elem=self.acc_type, out_elem=self.out_type,
                            accumulate=self.accumulate, width=self.plan.c_vector,
                            program=Program.parse(self.epilogue), extras=self.extras,
                            rows=self.a.rows, c_strides=self.c_strides,
                            bf16_round=self.plan.bf16_round)
        row_in_tile = em.add(em.mul(wave_m, cfg.m_per_wave), mma.a_row(em, lane))
        col_wave = em.add(em.mul(n_tile, cfg.n_per_block), em.mul(wave_n, cfg.n_per_wave))
        col_lane = em.add(col_wave, mma.c_col_base(em, lane))
        if self.c_staging is not None:
            lds, lds_t, elem = (("%lds_a", lds_a_t, self.a.elem) if self.c_staging.buffer == "a"
                                else ("%lds_b", lds_b_t, self.b.elem))
            epilogue = replace(epilogue, staging=CStaging(
                plan=self.c_staging, lds=lds, lds_type=lds_t, lds_elem=elem,
                out_elem=self.out_type, wave_size=wave,
                wave_id=wave_id, lane=lane, lane_row=mma.a_row(em, lane),
                lane_col=mma.c_col_base(em, lane), row_wave=em.mul(wave_m, cfg.m_per_wave),
                col_wave=col_wave))
        epilogue.emit(em, accs, reps_m, reps_n, c_batch, m_tile, row_in_tile, col_lane)


# ---- from the op ------------------------------------------------------------------------
def build_kernel(gemm: GemmOp) -> GemmKernel:
    """Validate the op for codegen and describe its kernel; AccelError at the op."""
    with located(gemm.location):
        return _build(gemm)


def _build(gemm: GemmOp) -> GemmKernel:
    gemm.verify()
    config = gemm.perf_config
    if config is None:
        raise AccelError("'accel.gemm' has no perf_config; run accel-affix-perf-config first")
    plan = KernelPlan.read(gemm.op)
    if plan is None:
        raise AccelError("'accel.gemm' has no kernel plan; run accel-plan-kernel first")
    arch = get_arch(gemm.arch)
    shape = gemm.shape()
    in_type, out_type = gemm.in_type, gemm.out_type
    # C^T = B^T * A^T (codegen/mma.py): B's type is the instruction's first source.
    instr = [i for i in arch.mma_for(gemm.b_type, in_type) if i.mnemonic == plan.mma]
    if not instr:
        raise AccelError(f"kernel plan: {plan.mma} is not a {in_type} x {gemm.b_type} "
                         f"instruction of {arch.name}")
    mma = mma_layout(arch, instr[0])

    def operand(name, value, layout, d_extent, d_per_block, op_plan) -> OperandCopy:
        shp, elem = memref_info(value)
        strides, offset = view_strides(value.type) or (None, 0)
        kind = DirectLdsCopy if plan.direct_to_lds else OperandCopy
        return kind(name=name, layout=layout, memref=f"%{name}",
                           memref_type=str(value.type), shape=tuple(shp), elem=elem,
                           d_extent=d_extent, k_extent=shape.k, d_per_block=d_per_block,
                           kpack_per_block=config.kpack_per_block, kpack=config.kpack,
                           block_size=config.block_size(arch.wave_size), plan=op_plan,
                           view_strides=strides, view_offset=offset)

    def extra(i, v, kind) -> Extra:
        shp, elem = memref_info(v)
        strides, offset = view_strides(v.type) or (None, 0)
        return Extra(name="bias" if fixed else f"e{i}", memref_type=str(v.type),
                     shape=tuple(shp), kind=kind, elem=elem, view_strides=strides,
                     view_offset=offset)

    fixed = gemm.epilogue in LEGACY
    c_view = view_strides(gemm.c.type)
    extras = tuple(extra(i, v, kind)
                   for i, (v, kind) in enumerate(zip(gemm.extras, gemm.extra_kinds)))
    kernel = GemmKernel(
        arch=arch, config=config, mma=mma, g=shape.g, m=shape.m, n=shape.n, k=shape.k,
        in_type=in_type, out_type=out_type, plan=plan,
        a=operand("A", gemm.a, gemm.a_layout, shape.m, config.m_per_block, plan.a),
        b=operand("B", gemm.b, gemm.b_layout, shape.n, config.n_per_block, plan.b),
        c_type=str(gemm.c.type), accumulate=gemm.accumulate,
        c_layout=gemm.c_layout, c_shape=tuple(memref_info(gemm.c)[0]), epilogue=gemm.epilogue,
        extras=extras, c_staging=CStagingPlan.read(gemm.op),
        c_strides=c_view[0] if c_view else None, c_offset=c_view[1] if c_view else 0)
    for op in (kernel.a, kernel.b):
        op.check_plan()
        op.check_view_alignment()
    kernel = split_k_kernels(kernel, SplitKPlan.read(gemm.op))
    # The epilogue's loads are as wide as its stores: the reduction kernel's, if split.
    width = kernel.reduction.width if kernel.reduction is not None else plan.c_vector
    for x in extras:
        check_extra_alignment(x, width)
    check_c_alignment(c_view, width, None if kernel.reduction else kernel.c_staging, shape.n)
    if kernel.c_staging is not None:
        check_plan(kernel.c_staging, mma, config, kernel.out_type, shape.n, kernel.c_layout)
    if kernel.lds_bytes > arch.lds_bytes:
        raise AccelError(f"kernel plan needs {kernel.lds_bytes} bytes of LDS, more than the "
                         f"{arch.lds_bytes} of {arch.name}")
    return kernel

