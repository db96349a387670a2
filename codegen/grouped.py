"""The grouped GEMM's main kernel: the GEMM kernel of codegen/kernel.py on a tile found at run time.

Each workgroup takes a position x in the (group, M tile) list (tuning/grouped_launch.py)
and an N tile y. Its entry is group * T_g + M tile: x itself in uniform mode, the
device-side tile list's entry x in compact mode (codegen/tile_list.py). Then

  s, e = seq_offsets[group], seq_offsets[group + 1]
  rows [s, s + min(e - s, max_seq_len)) are the group's, A and C's row window

and the GEMM kernel's body runs on that tile (codegen/workgroup_tile.py): A rows past
the window read 0, C rows past it are not stored, B is batch `group` of [G, N, K]
(stacked) or [G, K, N] (row), the bias batch `group` of [G, N].

A workgroup with no tile (uniform: an M tile past its group's rows; compact: the
sentinel) skips the whole body, one scf.if: it issues no load of A, B or the bias and
no MMA. In compact mode the check reads only its list entry, and seq_offsets is read
inside the branch.

Kernel arguments, in order: A [1, L, K], B, C [1, L, N], the bias [G, N] (if any),
seq_offsets [G + 1] i32, and in compact mode the tile list. The host passes the
user's [L, K], [G*N, K], [L, N], [G*N] buffers through memref.expand_shape views
(passes/grouped_gemm_to_gpu.py): the same pointers.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from accel.codegen.builder import Emitter, kernel_module_text, memref_text
from accel.codegen.epilogue import Extra
from accel.codegen.global_copy import OperandCopy
from accel.codegen.kernel import GemmKernel
from accel.codegen.mma import mma_layout
from accel.codegen.tile_list import TileListKernel, clamp_rows, load_group_rows
from accel.codegen.workgroup_tile import RowWindow, WorkgroupTile
from accel.dialect.grouped_gemm import GroupedGemmOp
from accel.dialect.kernel_plan import KernelPlan
from accel.dialect.perf_config import PerfConfig
from accel.diagnostics import AccelError, located
from accel.target.database import get_arch
from accel.tuning.grouped_launch import GroupedLaunch


@dataclass(frozen=True)
class GroupedGemmKernel:
    """The main kernel of one accel.grouped_gemm, and its prep kernel in compact mode."""
    gemm: GemmKernel         # the per-tile GEMM: g = G, m = max_seq_len; A and C one batch
    launch: GroupedLaunch
    b_layout: str            # stacked | row
    symbol: str

    @property
    def mode(self) -> str:
        return self.launch.mode

    @property
    def groups(self) -> int:
        return self.launch.groups

    @property
    def grid(self) -> tuple[int, int, int]:
        return self.launch.grid

    @property
    def seq_type(self) -> str:
        return f"memref<{self.groups + 1}xi32>"

    @property
    def tile_list(self) -> TileListKernel | None:
        if self.mode != "compact":
            return None
        return TileListKernel(arch=self.gemm.arch.name, groups=self.groups,
                              max_seq_len=self.launch.max_seq_len,
                              m_per_block=self.gemm.config.m_per_block,
                              entries=self.launch.tile_list_entries)

    def module_text(self) -> str:
        g = self.gemm
        em = Emitter()
        self._emit_body(em)
        lds_a, lds_b = g._lds_types()
        args = [f"%A: {g.a.memref_type}", f"%B: {g.b.memref_type}", f"%C: {g.c_type}"]
        args.extend(f"{x.memref}: {x.memref_type}" for x in g.extras)
        args.append(f"%seq_offsets: {self.seq_type}")
        if self.tile_list is not None:
            args.append(f"%tile_map: {self.tile_list.list_type}")
        return kernel_module_text(self.symbol, args, em.body_text(), g.block_size, self.grid,
                                  [f"%lds_a: {lds_a}", f"%lds_b: {lds_b}"],
                                  g.plan.waves_per_eu)

    def _emit_body(self, em: Emitter) -> None:
        tpg = self.launch.tiles_per_group
        mpb = self.gemm.config.m_per_block
        x = em.gpu_id("block_id x", "bx")
        n_tile = em.gpu_id("block_id y", "by")

        def tile_of(entry) -> tuple[WorkgroupTile, str]:
            """The tile of list entry `entry`, and its group's computed row count."""
            group, m_tile = em.div(entry, tpg), em.rem(entry, tpg)
            s, e = load_group_rows(em, "%seq_offsets", self.seq_type, group)
            rows = clamp_rows(em, s, e, self.launch.max_seq_len)
            return WorkgroupTile(n_tile=n_tile, m_tile=m_tile, batch=group,
                                 rows=RowWindow(base=s, bound=em.add(s, rows))), rows

        if self.mode == "uniform":
            tile, rows = tile_of(x)
            live = em.lt(em.mul(tile.m_tile, mpb), rows)   # the M tile holds a row
            with em.region(f"scf.if {live}"):
                self._emit_tile(em, tile)
        else:
            entry = em.assign(f"amdgpu.raw_buffer_load %tile_map[{x}] : "
                              f"{self.tile_list.list_type}, i32 -> i32", "entry")
            # The sentinel (all ones) and anything >= G * T_g is no tile.
            live = em.lt(entry, self.launch.uniform_tiles)
            with em.region(f"scf.if {live}"):
                self._emit_tile(em, tile_of(entry)[0])

    def _emit_tile(self, em: Emitter, tile: WorkgroupTile) -> None:
        g = self.gemm
        replace(g, a=replace(g.a, rows=tile.rows))._emit_body(em, tile)


def grouped_symbol(op: GroupedGemmOp, mode: str) -> str:
    """Deterministic: shape, types, B's layout, mode, the bias and the arch."""
    name = (f"accel_grouped_gemm_b{op.groups}_l{op.total_rows}_s{op.max_seq_len}_n{op.n}"
            f"_k{op.k}_{op.in_type}_{op.out_type}_{op.b_layout}_{mode}")
    if op.bias is not None:
        name += "_bias"
    return f"{name}_{op.arch}"


def build_grouped_kernel(op: GroupedGemmOp, plan: KernelPlan) -> GroupedGemmKernel:
    """Describe the op's kernels as `plan` says (passes/plan_kernel.py plan_grouped, which
    validated the op); AccelError at the op."""
    with located(op.location):
        return _build(op, plan)


def _build(op: GroupedGemmOp, plan: KernelPlan) -> GroupedGemmKernel:
    config: PerfConfig = op.perf_config
    arch = get_arch(op.arch)
    g, n, k, rows, msl = op.groups, op.n, op.k, op.total_rows, op.max_seq_len
    in_type, out_type = op.in_type, op.out_type
    instr = [i for i in arch.mma_for(in_type, in_type) if i.mnemonic == plan.mma]
    if not instr:
        raise AccelError(f"kernel plan: {plan.mma} is not a {in_type} instruction of {arch.name}")
    mma = mma_layout(arch, instr[0])
    b_shape, b_layout = ((g, n, k), "transposed") if op.b_layout == "stacked" else ((g, k, n), "row")

    def operand(name, shape, layout, d_extent, d_per_block, op_plan) -> OperandCopy:
        memref_type = memref_text(shape, in_type)
        return OperandCopy(name=name, layout=layout, memref=f"%{name}", memref_type=memref_type,
                           shape=shape, elem=in_type, d_extent=d_extent, k_extent=k,
                           d_per_block=d_per_block, kpack_per_block=config.kpack_per_block,
                           kpack=config.kpack, block_size=config.block_size(arch.wave_size),
                           plan=op_plan)

    has_bias = op.bias is not None
    gemm = GemmKernel(
        arch=arch, config=config, mma=mma, g=g, m=msl, n=n, k=k, in_type=in_type,
        out_type=out_type, plan=plan,
        a=operand("A", (1, rows, k), "row", msl, config.m_per_block, plan.a),
        b=operand("B", b_shape, b_layout, n, config.n_per_block, plan.b),
        c_type=f"memref<1x{rows}x{n}x{out_type}>",
        accumulate=False, c_layout="row", c_shape=(1, rows, n),
        epilogue="bias" if has_bias else "none",
        extras=(Extra(name="bias", memref_type=f"memref<{g}x{n}x{out_type}>", shape=(g, n),
                      kind="gn", elem=out_type),) if has_bias else ())
    if gemm.lds_bytes > arch.lds_bytes:
        raise AccelError(f"kernel plan needs {gemm.lds_bytes} bytes of LDS, more than the "
                         f"{arch.lds_bytes} of {arch.name}")
    launch = GroupedLaunch(groups=g, total_rows=rows, max_seq_len=msl,
                           m_per_block=config.m_per_block, n_tiles=gemm.grid[0], mode=op.mode)
    return GroupedGemmKernel(gemm=gemm, launch=launch, b_layout=op.b_layout,
                             symbol=grouped_symbol(op, op.mode))
