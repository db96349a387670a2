"""The partial-product kernel of a split-K gemm: one K slice per workgroup.

With splitKFactor S (dialect/split_k_plan.py) the grid's z is G * S: workgroup z
computes batch z // S over k-tiles [s * T, (s + 1) * T) of K, s = z % S, T = the plan's
`k_tiles`, and writes its partial product to batch z of the [G * S, M, N] workspace (no
epilogue: the reduction kernel, codegen/split_k_reduce.py, applies it once, after the
sum). When S does not divide K's k-tiles, the last slices run past K's last k-tile:
those tiles are loaded with the batch index sent to G, past the operand's end, where
buffer loads read 0, so they add exact zeros (codegen/global_copy.py's edge rule).
`split_k_kernels` makes a gemm's kernel this one, carrying its reduction.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from accel.codegen.builder import Emitter, Value
from accel.codegen.schedule import TileCopies
from accel.codegen.split_k_reduce import ReductionKernel
from accel.diagnostics import AccelError
from accel.dialect.split_k_plan import SplitKPlan


def k_slice(em: Emitter, block_z: Value, plan: SplitKPlan) -> tuple[Value, Value]:
    """(batch, first k-tile) of workgroup z = batch * S + slice."""
    return em.div(block_z, plan.slices), em.mul(em.rem(block_z, plan.slices), plan.k_tiles)


@dataclass(frozen=True)
class SliceCopies:
    """TileCopies for k-tiles counted from a slice's first (`first`); a k-tile at or
    past `k_tiles` (K's own count) reads zeros."""
    copies: TileCopies
    first: Value
    k_tiles: int
    ragged: bool     # S does not divide k_tiles: some slice runs past the end

    def _at(self, em: Emitter, k_tile: Value) -> tuple[Value, TileCopies]:
        kt = em.add(self.first, k_tile)
        if not self.ragged:
            return kt, self.copies
        inside = em.lt(kt, self.k_tiles)
        return kt, replace(self.copies, batch=em.select(inside, self.copies.batch,
                                                        self.copies.g))

    def fetch(self, em: Emitter, k_tile: Value) -> list[tuple[str, str]]:
        kt, copies = self._at(em, k_tile)
        return copies.fetch(em, kt)

    def put(self, em: Emitter, k_tile: Value, buf: Value, staged: list[str],
            newer: int = 0) -> None:
        kt, copies = self._at(em, k_tile)
        copies.put(em, kt, buf, staged, newer)


def slice_copies(copies: TileCopies, first: Value, k_tiles: int,
                 plan: SplitKPlan) -> SliceCopies:
    return SliceCopies(copies, first, k_tiles, plan.slices * plan.k_tiles > k_tiles)


def split_k_kernels(kernel, split: SplitKPlan | None):
    """GemmKernel `kernel` as its plan's `split_k` says: unchanged without one, else its
    partial-product kernel (C: the [G * S, M, N] workspace in the accumulator type, no
    epilogue) carrying the reduction kernel that writes the gemm's C
    (codegen/split_k_reduce.py). AccelError if the plan does not fit the perf config."""
    cfg = kernel.config
    if (split is not None) != (cfg.split_k > 1) or (split and split.slices != cfg.split_k):
        raise AccelError(f"kernel plan: split_k does not match splitKFactor {cfg.split_k}; "
                         f"rerun accel-plan-kernel")
    if split is None:
        return kernel
    reduction = ReductionKernel(
        symbol=f"{kernel.symbol}_reduce", slices=split.slices, g=kernel.g, m=kernel.m,
        n=kernel.n, acc_type=kernel.acc_type, c_type=kernel.c_type, c_layout=kernel.c_layout,
        c_shape=kernel.c_shape, out_type=kernel.out_type, accumulate=kernel.accumulate,
        epilogue=kernel.epilogue, extras=kernel.extras, m_per_block=cfg.m_per_block,
        n_per_block=cfg.n_per_block, kpack_per_block=cfg.kpack_per_block, kpack=cfg.kpack,
        width=split.reduce_vector, c_strides=kernel.c_strides,
        c_offset=kernel.c_offset, bf16_round=kernel.plan.bf16_round)
    return replace(kernel, c_type=reduction.workspace_type, c_layout="row", c_strides=None, c_offset=0,
                   c_shape=reduction.workspace_shape, out_type=kernel.acc_type,
                   accumulate=False, epilogue="none", extras=(),
                   plan=replace(kernel.plan, c_vector=split.partial_vector),
                   split_k=split, reduction=reduction)
