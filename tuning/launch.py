"""Launch geometry of a GEMM kernel under a perf config.

One workgroup computes one mPerBlock x nPerBlock tile of C for one batch. The grid
is (x = N tile, y = M tile, z = batch); codegen uses the same convention. With
splitKFactor S > 1, z = batch * S + K slice (codegen/k_slices.py): the grid of the
partial-product kernel. M and N are padded up to whole tiles, K up to the k-tile
(kPerBlock).
"""

from __future__ import annotations

from dataclasses import dataclass

from accel.dialect.accel_tile import ceil_div
from accel.dialect.gemm import GemmShape
from accel.dialect.perf_config import PerfConfig
from accel.target.database import ArchInfo


@dataclass(frozen=True)
class Launch:
    block_size: int                    # threads per workgroup
    grid: tuple[int, int, int]         # workgroups along (x = N tiles, y = M tiles, z = G * S)
    padded: tuple[int, int, int]       # (M, N, K) rounded up to the tile

    @property
    def grid_size(self) -> int:
        x, y, z = self.grid
        return x * y * z


def geometry(arch: ArchInfo, shape: GemmShape, config: PerfConfig) -> Launch:
    grid = (ceil_div(shape.n, config.n_per_block), ceil_div(shape.m, config.m_per_block),
            shape.g * config.split_k)
    padded = (grid[1] * config.m_per_block, grid[0] * config.n_per_block,
              ceil_div(shape.k, config.k_per_block) * config.k_per_block)
    return Launch(block_size=config.block_size(arch.wave_size), grid=grid, padded=padded)
