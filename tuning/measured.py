"""Measured facts the selector must reproduce, each with its source.

All come from seed 000 (FlyDSL's RDNA3 WMMA GEMM): Radeon PRO W7900 = gfx1100 with
96 CUs, bf16 in and out, CUDA-graph timed against a sweep of every tile of the
ladder. A fact pins only what was measured: the tile's M and N extents, and kPerBlock
or the padded N where the measurement names them.

Seed 000's sweep covered its own ladder, not accel's: on gfx1100 it topped out at
128x128x32 and 64x64x64 (its kernel's registers) and went no deeper than kPerBlock 64.
A fact says which of *those* tiles is fastest, so the model is held to it over the
tiles the sweep timed (`in_swept_ladder`); deeper or larger tiles it never measured.
"""

from __future__ import annotations

from dataclasses import dataclass

from accel.dialect.gemm import GemmShape
from accel.dialect.perf_config import PerfConfig
from accel.tuning.launch import geometry
from accel.target.database import ArchInfo


# The largest tiles of seed 000's gfx1100 ladder, 128x128x32 and 64x64x64: at most 128
# a side, 64 deep, and this many MACs per k-tile.
SWEPT_VOLUME = 128 * 128 * 32


@dataclass(frozen=True)
class MeasuredFact:
    arch: str
    cu_count: int
    in_type: str
    out_type: str
    shape: GemmShape
    m_per_block: int
    n_per_block: int | None      # None: not pinned by the measurement
    k_per_block: int | None
    padded_n: int | None
    source: str

    def in_swept_ladder(self, config: PerfConfig) -> bool:
        """Was a tile like this one among those seed 000's sweep timed?"""
        c = config
        return (c.k_per_block <= 64 and max(c.m_per_block, c.n_per_block) <= 128 and
                c.m_per_block * c.n_per_block * c.k_per_block <= SWEPT_VOLUME)

    def mismatches(self, arch: ArchInfo, config: PerfConfig) -> list[str]:
        """What in `config` disagrees with the measurement ([] = agrees)."""
        out = []
        if config.m_per_block != self.m_per_block:
            out.append(f"mPerBlock {config.m_per_block}, measured best {self.m_per_block}")
        if self.n_per_block is not None and config.n_per_block != self.n_per_block:
            out.append(f"nPerBlock {config.n_per_block}, measured best {self.n_per_block}")
        if self.k_per_block is not None and config.k_per_block != self.k_per_block:
            out.append(f"kPerBlock {config.k_per_block}, measured best {self.k_per_block}")
        if self.padded_n is not None:
            pn = geometry(arch, self.shape, config).padded[1]
            if pn != self.padded_n:
                out.append(f"N padded to {pn}, measured best pads it to {self.padded_n}")
        return out


_W7900 = dict(arch="gfx1100", cu_count=96, in_type="bf16", out_type="bf16")

MEASURED_TILES: tuple[MeasuredFact, ...] = (
    MeasuredFact(**_W7900, shape=GemmShape(1, 48, 4096, 4096), m_per_block=16,
                 n_per_block=None, k_per_block=None, padded_n=None,
                 source="seed 000: 'That keeps M=48 on 16x16' (a 32- or 64-row tile pads "
                        "M by 33%, over the 25% budget)"),
    MeasuredFact(**_W7900, shape=GemmShape(1, 3402, 4096, 1024), m_per_block=128,
                 n_per_block=128, k_per_block=None, padded_n=None,
                 source="seed 000: 'lets M=3402 reach 128x128 for 1.6% waste'; "
                        "3402x4096x1024 at 83.3 TF"),
    MeasuredFact(**_W7900, shape=GemmShape(1, 528, 528, 1024), m_per_block=64,
                 n_per_block=64, k_per_block=64, padded_n=576,
                 source="seed 000: 528x528x1024 23.0 -> 16.8 us, padding N to 576 buys "
                        "the 64-wide tile (64x64x64, 1.38x the narrow 32x16x64)"),
)


@dataclass(frozen=True)
class MeasuredOrder:
    """Two tiles seed 000 timed against each other on one GEMM: `faster` (mPerBlock,
    nPerBlock, kPerBlock) ran `ratio` times faster than `slower`."""
    arch: str
    cu_count: int
    in_type: str
    out_type: str
    shape: GemmShape
    faster: tuple[int, int, int]
    slower: tuple[int, int, int]
    ratio: float
    source: str


MEASURED_ORDERS: tuple[MeasuredOrder, ...] = (
    MeasuredOrder(**_W7900, shape=GemmShape(1, 1536, 1536, 1024), faster=(128, 128, 32),
                  slower=(64, 64, 64), ratio=1.26,
                  source="seed 000: 128x128x32 measured 1.26x faster than the 64x64x64 "
                         "its picker chose"),
    MeasuredOrder(**_W7900, shape=GemmShape(1, 333, 4096, 1024), faster=(128, 128, 32),
                  slower=(64, 64, 64), ratio=1.19,
                  source="seed 000: 128x128x32 measured 1.19x faster than the 64x64x64 "
                         "its picker chose"),
    MeasuredOrder(**_W7900, shape=GemmShape(1, 528, 528, 1024), faster=(64, 64, 64),
                  slower=(32, 16, 64), ratio=23.0 / 16.8,
                  source="seed 000: 528x528x1024 23.0 us on 32x16x64, 16.8 us on 64x64x64"),
)


@dataclass(frozen=True)
class MeasuredRate:
    """A GEMM seed 000 timed on one tile (mPerBlock, nPerBlock, kPerBlock): `tflops`."""
    arch: str
    cu_count: int
    in_type: str
    out_type: str
    shape: GemmShape
    tile: tuple[int, int, int]
    tflops: float
    source: str


MEASURED_RATES: tuple[MeasuredRate, ...] = (
    MeasuredRate(**_W7900, shape=GemmShape(1, 4096, 4096, 4096), tile=(128, 128, 32),
                 tflops=88.6, source="seed 000: '4096^3 unchanged at 88.6 TF' (its pick, "
                                     "128x128x32: issue 12)"),
    MeasuredRate(**_W7900, shape=GemmShape(1, 3402, 4096, 1024), tile=(128, 128, 32),
                 tflops=83.3, source="seed 000: 3402x4096x1024 83.3 TF on 128x128 (its "
                                     "ladder's 128x128 is 32 deep)"),
    MeasuredRate(**_W7900, shape=GemmShape(1, 3402, 2048, 2048), tile=(128, 128, 32),
                 tflops=86.0, source="seed 000: 3402x2048x2048 86.0 TF, 'the same tile' "
                                     "as 3402x4096x1024"),
)
