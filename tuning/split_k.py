"""The cost of split-K, and the choice of splitKFactor for a selected tile.

A skinny, deep GEMM has few C tiles and a long K loop: 48 x 4096 x 4096 on gfx942 with
the selector's tile gives a few hundred workgroups or fewer for 304 CUs, each walking
all of K. Split-K (codegen/k_slices.py, codegen/split_k_reduce.py) runs S times the
workgroups, each over K / S, and pays for it in traffic: the partial kernel writes S
partial products of C in the accumulator type, the reduction kernel reads them back and
writes C, and the reduction is one more kernel launch.

The estimate of S slices, in microseconds:
  partial    the cost model's estimate (tuning/cost_model.py) of the same tile on the
             GEMM the partial kernel runs: a grid of G * S batches, ceil(K tiles / S)
             k-tiles each, writing f32/i32. Fill, rounds, residency and the per-k-step
             limits come from the model as for any GEMM, so a grid that already fills
             the chip gains nothing and loses the traffic below.
  reduction  S * G * M * N accumulator values read and G * M * N values of C written,
             over the chip's DRAM bandwidth (the model's dram_bytes_per_clock: what
             bounds a streaming kernel with no reuse), plus the partial kernel's own
             write of the workspace, which the model's estimate counts only as C bytes
             of the tile (tile_out), so it is added again here at DRAM bandwidth.
  launch     LAUNCH_US for the second kernel.
The selector's best tile is kept as it is unless some tile it ranked (every admissible
mPerBlock x nPerBlock x kPerBlock: a tile too large to fill the chip alone may be the
best one to split; of each, the wave split and MMA the selector ranked first) with some
S in SLICES is estimated faster by more than GAIN (the model is not that
precise below; estimates within the selector's TIE of the cheapest split are a tie,
`split_choice`); S stays at most K's k-tiles (an empty slice computes zeros for
nothing) and keeps the workspace below 2 GiB (32-bit offsets).
"""

from __future__ import annotations

import math

from accel.dialect.accel_tile import ceil_div
from accel.dialect.element_types import ELEMENT_BYTES
from accel.dialect.gemm_types import ACCUMULATOR
from accel.dialect.perf_config import PerfConfig
from accel.tuning import cost_model
from accel.tuning.launch import Launch
from accel.tuning.selection import TIE

SLICES = (2, 4, 8, 16)
# A kernel launch queued behind another on one stream: a few microseconds on ROCm
# (assumed, not measured here: no GPU); it keeps split-K off small GEMMs.
LAUNCH_US = 3.0
# Split only for an estimated gain above 10%: the model's agreement with origami on
# gfx942 is ~61-67% within 5% (cost_model's calibration), so smaller gains are noise.
GAIN = 0.10
WORKSPACE_LIMIT = 2**31


def split_cost_us(terms: cost_model.ConfigTerms, in_type: str, out_type: str, shape,
                  launch: Launch, slices: int) -> float:
    """Estimated microseconds of the GEMM `shape` on the tile of `terms` (whose
    one-kernel launch is `launch`) with splitKFactor `slices` (1: no split)."""
    if slices == 1:
        return cost_model.estimate_us(terms, out_type, launch)
    acc, grid, padded, reduce_us = _split(terms, in_type, out_type, shape, launch, slices)
    partial = Launch(launch.block_size, grid, padded)
    return cost_model.estimate_us(terms, acc, partial) + reduce_us + LAUNCH_US


def split_bound_us(terms: cost_model.ConfigTerms, in_type: str, out_type: str, shape,
                   launch: Launch, slices: int) -> float:
    """A lower bound of `split_cost_us` (slices > 1): the partial kernel's chip-wide
    traffic alone (cost_model.chip_bound_us) in place of its estimate."""
    acc, grid, padded, reduce_us = _split(terms, in_type, out_type, shape, launch, slices)
    return cost_model.chip_bound_us(terms, acc, padded, grid) + reduce_us + LAUNCH_US


def _split(terms: cost_model.ConfigTerms, in_type: str, out_type: str, shape, launch: Launch,
           slices: int) -> tuple[str, tuple[int, int, int], tuple[int, int, int], float]:
    """(the accumulator type the partial kernel writes, its grid and padded extents, the
    reduction's microseconds) of `slices` slices."""
    acc = ACCUMULATOR[in_type]
    kpb = terms.config.k_per_block
    k_tiles = ceil_div(launch.padded[2], kpb)
    gx, gy, gz = launch.grid
    padded = (launch.padded[0], launch.padded[1], ceil_div(k_tiles, slices) * kpb)
    values = shape.g * shape.m * shape.n
    moved = values * (2 * slices * ELEMENT_BYTES[acc] + ELEMENT_BYTES[out_type])
    p = terms.params
    return (acc, (gx, gy, gz * slices), padded,
            moved / p.dram_bytes_per_clock / (p.clock_ghz * 1e3))


def choose_split_k(selection) -> PerfConfig:
    """The selection's best config, or the ranked tile and splitKFactor that
    split_cost_us says is faster by more than GAIN."""
    return split_choice(selection)[0]


def split_choice(selection) -> tuple[PerfConfig, float, float]:
    """(choose_split_k's config, its estimate, the unsplit best's estimate) in us.

    Splits estimated within TIE of the cheapest are a tie (the selector's rule), as are
    the other wave splits of the tied tiles at the same S (`split_candidates` scores
    each tile size once): a tie goes to the fewest LDS bytes read per flop, the wider
    wave tile, whose main loop issues fewer instructions per MMA (gfx942 48x4096x4096:
    16x64x128 in four slices, one 16x64 wave instead of two 16x32, MMA work share
    0.189 against 0.168 by benchmarks/bench_kernel_quality.py), then the ranking."""
    shape, in_type, out_type = selection.shape, selection.in_type, selection.out_type
    best_prep, best_launch = selection.scored[0]
    base = cost_model.estimate_us(best_prep.terms, out_type, best_launch)
    acc_bytes = ELEMENT_BYTES[ACCUMULATOR[in_type]]
    bounds = []   # (lower bound us, rank, prepared, launch, S)
    for rank, (prep, launch) in enumerate(split_candidates(selection)):
        k_tiles = ceil_div(shape.k, prep.config.k_per_block)
        for s in SLICES:
            if s > k_tiles or shape.g * s * shape.m * shape.n * acc_bytes >= WORKSPACE_LIMIT:
                break
            bounds.append((split_bound_us(prep.terms, in_type, out_type, shape, launch, s),
                           rank, prep, launch, s))
    # The splits are estimated from the lowest bound up, while one left may yet be
    # chosen: until a bound passes the ties of the cheapest estimated, or both it and
    # that cheapest miss the gain needed (no split then wins). The bench's 97
    # selections bound 24,070 splits and estimate 443 (the other wave splits of tied
    # tiles included): split_choice 2.0 -> 1.1 ms of CPU a selection.
    threshold = base * (1 - GAIN)
    costs = []    # (us, index in bounds)
    cheapest = math.inf
    for i in sorted(range(len(bounds)), key=lambda i: bounds[i][0]):
        bound = bounds[i][0]
        if bound > cheapest * (1 + TIE) or (bound >= threshold and cheapest >= threshold):
            break
        _, _, prep, launch, s = bounds[i]
        us = split_cost_us(prep.terms, in_type, out_type, shape, launch, s)
        costs.append((us, i))
        cheapest = min(cheapest, us)
    if cheapest >= threshold:
        return best_prep.config, base, base
    # In the order the splits were enumerated, which decides a tie below.
    tied = [(us,) + bounds[i][1:] for us, i in sorted(costs, key=lambda c: c[1])
            if us <= cheapest * (1 + TIE)]
    sizes = {(_size(c[2].config), c[4]) for c in tied}
    for rank, (prep, launch) in enumerate(selection.scored):
        for size, s in sizes:
            if _size(prep.config) == size and prep.config.split_k == 1:
                us = split_cost_us(prep.terms, in_type, out_type, shape, launch, s)
                if us <= cheapest * (1 + TIE):
                    tied.append((us, len(bounds) + rank, prep, launch, s))
    us, _, prep, _, s = min(tied, key=lambda c: (c[2].terms.lds_traffic / c[2].terms.flops,
                                                  c[1]))
    return prep.config.replace(split_k=s), us, base


def _size(config: PerfConfig) -> tuple[int, int, int, int]:
    return config.m_per_block, config.n_per_block, config.k_per_block, config.mn_per_xdl


def split_candidates(selection) -> list:
    """(prepared config, launch) of each tile size the selection ranked, its first-ranked
    variant: split-K changes a tile's grid and K walk, which its wave split and MMA do not
    (91 tile sizes of 1000 ranked candidates for gfx942 4096^3: scoring them all took
    18 ms against the selection's 7)."""
    seen, out = set(), []
    for prep, launch in selection.scored:
        c = prep.config
        key = (c.m_per_block, c.n_per_block, c.k_per_block)
        if key not in seen:
            seen.add(key)
            out.append((prep, launch))
    return out
