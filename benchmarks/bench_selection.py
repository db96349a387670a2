"""Selection benchmark: does accel choose the tile AMD's origami model rates best?

    python benchmarks/bench_selection.py [--table PATH] [--arch gfx942] [--list]
    python benchmarks/bench_selection.py --misses [--arch gfx942]
    python benchmarks/bench_selection.py --timing [--repeat 5]

Origami's table (shared/data/origami_tiles.csv, see its README) gives a predicted time for
every macro tile (mPerBlock x nPerBlock x K depth, MFMA size) on 61 model-like GEMMs per
chip. For each GEMM this selects a perf config the way `accel-compile` does without one
(output in the input type, as the table's), looks the chosen tile up in the table and
prints, per chip, how many GEMMs with M >= 32 get a tile within 5% of origami's best and
the worst ratio (chosen tile's predicted time / best predicted time), three ways:

  one kernel  the selector's tile (`select(...).best`), no split-K;
  compiled    the tile accel-compile builds: split-K's choice (tuning/split_k.py) may be
              another tile, split along K. Origami's best is often faster than one
              kernel of it can be (below), i.e. origami splits K itself;
  layout      compiled, for the GEMM stored as the table stores it. The table was made
              with origami's A contiguous along M and B along K; origami rounds A's M
              extent and B's K extent to 128-byte lines (rocm-libraries shared/origami,
              compute_memory_latency), so 16 rows of A cost a 64-row line's bytes and it
              rates a narrow-M tile slower than its narrow-N mirror (gfx942 512^3:
              16x64x128 1.56x 64x16x128). Accel's row-major A is contiguous along K and
              its B along N, where the 16-column B tile is the one that fetches a
              128-byte line for 32 bytes (`cost_model.fetched_bytes`). Those operands
              are C^T = B^T A^T's, so accel's tile for the GEMM (G, N, M, K), mirrored,
              is its choice for the table's data.

Separately for the GEMMs the cost model's constants were fitted on and those held out of
the fit (`held_out`: a fixed rule on the GEMM's position, so anyone can re-derive it;
benchmarks/fit_cost_model.py searches the constants). M <= 16 is left out: the README
says origami's times there are not credible. Some of origami's best times are faster
than the hardware allows: more than the datasheet MMA rate of the CUs the grid occupies
(gfx942 128x4096x11008 on 128x128x128: 32 workgroups at 2.4x what 32 CUs can do, i.e. a
split K), or less than moving A, B and C once through DRAM; `physical` counts the
compiled reading's agreement over the others only. `--misses` prints, for each GEMM off
by more than 5% (one kernel), the cost model's reading of the chosen tile and of
origami's (bound, grid, residency, pipeline depth, clocks per k-step), or why origami's
tile was no candidate.

Figures (f16/bf16, C in the input type): within 5% of origami's best / worst ratio, each
column this script run against that commit's tuning/ (an export of the commit first on
PYTHONPATH), load average 8-10:

  chip     set       reading     441d660 (main)     this branch
  gfx942   fit       one kernel  20/36 (56%) 2.08   20/36 (56%) 2.08
                     compiled    22/36 (61%) 1.69   21/36 (58%) 1.49
                     layout      23/36 (64%) 1.69   23/36 (64%) 1.69
  gfx942   held-out  one kernel   7/17 (41%) 3.36    7/17 (41%) 3.36
                     compiled     9/17 (53%) 3.36    9/17 (53%) 3.36
                     layout      12/17 (71%) 3.36   13/17 (76%) 3.36
  gfx1100  fit       one kernel  24/36 (67%) 1.76   24/36 (67%) 1.69
                     compiled    24/36 (67%) 1.76   24/36 (67%) 1.69
                     layout      24/36 (67%) 1.76   23/36 (64%) 1.68
  gfx1100  held-out  one kernel   7/17 (41%) 1.72   10/17 (59%) 1.50
                     compiled     7/17 (41%) 1.97   10/17 (59%) 1.50
                     layout       7/17 (41%) 1.97   10/17 (59%) 1.44
  gfx1201  fit       one kernel  17/36 (47%) 1.69   17/36 (47%) 1.69
                     compiled    17/36 (47%) 1.69   17/36 (47%) 1.69
                     layout      18/36 (50%) 1.69   18/36 (50%) 1.69
  gfx1201  held-out  one kernel   5/17 (29%) 1.94    5/17 (29%) 1.94
                     compiled     4/17 (24%) 1.94    4/17 (24%) 1.94
                     layout       4/17 (24%) 1.94    4/17 (24%) 1.94

What the misses are (`--list`, `--misses`), none of which a per-chip constant moves
(fit_cost_model.py is flat over them): on RDNA origami counts CUs where accel's code
objects run in WGP mode (a workgroup of 4+ waves spreads over the WGP's four SIMDs) and
fill WGPs, which seed 000's W7900 timings support (tuning/cost_model.py): origami
favours tiles that give every CU a workgroup (gfx1100 384x768x768: 64x64x128, 72
workgroups on 96 CUs, against accel's 128x64x128, 36 on 48 WGPs); on gfx942 origami
charges a K that the k-tile does not divide far beyond the padded work (4096x320x320:
128x64x128 3.4x 128x64x64 for 20% more MMA work), counts K/kPerBlock - 1 main-loop
iterations, so K = 64 is as cheap on a 32-deep tile as on a 64-deep one (8x512x512x64:
128x64x32), and its 256x256x64 beats accel's 128x256x64 on 4096^3 by 1.11x, where
accel's 256x256 tile loads nothing ahead (passes/plan_kernel.py: its 128x128 wave tile's
accumulators fill half the registers) and must win by WIDE_MARGIN (tuning/selection.py).

`--timing` prints instead the milliseconds selection takes per shape.
"""

from __future__ import annotations

import argparse
import csv
import time
from collections import defaultdict
from pathlib import Path

from accel.dialect.element_types import ELEMENT_BYTES
from accel.dialect.gemm import GemmShape
from accel.target.database import get_arch
from accel.tuning.cost_model import params_for
from accel.tuning.selection import select
from accel.tuning.split_k import choose_split_k

# The table lives beside the repository (shared/data/), not in it: the first such
# folder above this file.
TABLE = next((p / "shared" / "data" / "origami_tiles.csv" for p in Path(__file__).resolve().parents
              if (p / "shared" / "data" / "origami_tiles.csv").is_file()),
             Path("shared/data/origami_tiles.csv"))


def load_table(path: Path) -> dict[tuple, dict[tuple, float]]:
    """{(arch, type, g, m, n, k): {(tile_m, tile_n, tile_k, mi): us}}"""
    table: dict[tuple, dict[tuple, float]] = defaultdict(dict)
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            gemm = (r["arch"], r["type"], *(int(r[c]) for c in ("g", "m", "n", "k")))
            tile = tuple(int(r[c]) for c in ("tile_m", "tile_n", "tile_k", "mi"))
            table[gemm][tile] = float(r["us"])
    return dict(table)


def held_out(gemm: tuple, gemms: list[tuple]) -> bool:
    """Every third GEMM of a chip, in (type, g, m, n, k) order, is held out of the fit."""
    same_chip = sorted(g for g in gemms if g[0] == gemm[0])
    return same_chip.index(gemm) % 3 == 2


def chosen_tile(arch_name: str, gemm: tuple, compiled: bool = False):
    """(the table's key of the tile accel chooses, the Selection): the selector's one-kernel
    choice, or with `compiled` the tile accel-compile builds (split-K's choice,
    tuning/split_k.py, which keeps the tile and its depth and adds K slices)."""
    _, in_type, g, m, n, k = gemm
    sel = select(get_arch(arch_name), in_type, in_type, GemmShape(g, m, n, k))
    c = choose_split_k(sel) if compiled else sel.best
    mi = c.mn_per_xdl if arch_name == "gfx942" else 16
    return (c.m_per_block, c.n_per_block, c.k_per_block, mi), sel


def same_layout_tile(arch_name: str, gemm: tuple) -> tuple:
    """The tile accel-compile builds for the table's GEMM stored as origami stored it:
    C^T = B^T A^T, whose left operand (B^T, N x K) is contiguous along K and right one
    (A^T, K x M) along M, as accel's row-major A and B are. Its tile, mirrored, is read
    as the table's mPerBlock x nPerBlock."""
    _, in_type, g, m, n, k = gemm
    (tm, tn, tk, mi), _ = chosen_tile(arch_name, (arch_name, in_type, g, n, m, k), True)
    return tn, tm, tk, mi


READINGS = ("one kernel", "compiled", "layout")


def readings(table, gemm) -> dict[str, tuple]:
    """{reading: (chosen tile, its time over origami's best)} for one GEMM."""
    arch_name = gemm[0]
    tiles = table[gemm]
    best = min(tiles.values())
    chosen = {"one kernel": chosen_tile(arch_name, gemm)[0],
              "compiled": chosen_tile(arch_name, gemm, True)[0],
              "layout": same_layout_tile(arch_name, gemm)}
    return {r: (t, tiles.get(t, float("inf")) / best) for r, t in chosen.items()}


def agreement(table, arch_filter=None, listing=False):
    gemms = sorted(table)
    rows = defaultdict(list)   # (arch, set) -> [(gemm, origami's best, readings, beyond)]
    for gemm in gemms:
        arch_name, m = gemm[0], gemm[3]
        if arch_filter and arch_name != arch_filter:
            continue
        tiles = table[gemm]
        best_tile = min(tiles, key=lambda t: (tiles[t], t))
        part = "held-out" if held_out(gemm, gemms) else "fit"
        rows[(arch_name, part if m >= 32 else "M<=16")].append(
            (gemm, best_tile, readings(table, gemm), beyond_peak(gemm, best_tile, tiles)))
    print("per reading: GEMMs within 5% of origami's best / the worst ratio")
    print("  one kernel: the selector's tile, no split-K (tuning/selection.py)")
    print("  compiled:   the tile accel-compile builds (split-K chosen as compile_gemm does)")
    print("  layout:     compiled, for the GEMM stored as origami's table stores it (C^T = "
          "B^T A^T, tile mirrored)")
    print("physical: 'compiled' over the GEMMs whose origami best runs its active CUs at most "
          "at their datasheet MMA rate and takes at least the time to move A, B and C once "
          "through DRAM")
    print(f"{'arch':<8} {'set':<9} {'GEMMs':>5} " + " ".join(f"{r:>16}" for r in READINGS)
          + f" {'physical':>9}  worst compiled GEMM")
    for (arch_name, part), rs in sorted(rows.items()):
        if part == "M<=16":
            continue
        cells = []
        for reading in READINGS:
            ratios = [r[2][reading][1] for r in rs]
            good = sum(x <= 1.05 for x in ratios)
            cells.append(f"{good:>3} ({good / len(rs):>4.0%}) {max(ratios):>5.2f}")
        possible = [r for r in rs if not r[3]]
        good_possible = sum(r[2]["compiled"][1] <= 1.05 for r in possible)
        gemm, best_tile, worst, _ = max(rs, key=lambda r: r[2]["compiled"][1])
        print(f"{arch_name:<8} {part:<9} {len(rs):>5} " + " ".join(f"{c:>16}" for c in cells)
              + f" {good_possible:>4}/{len(possible):<4}  {gemm[1]} "
              f"{gemm[2]}x{gemm[3]}x{gemm[4]}x{gemm[5]}: {_t(worst['compiled'][0])} vs "
              f"{_t(best_tile)}")
    if listing:
        for (arch_name, part), rs in sorted(rows.items()):
            for g, best, rd, beyond in sorted(rs, key=lambda r: r[0]):
                print(f"  {arch_name:<8} {part:<9} {g[1]:<4} {g[2]:>2}x{g[3]}x{g[4]}x{g[5]:<6} "
                      f"origami {_t(best):<16} "
                      + "  ".join(f"{r} {_t(rd[r][0])} {rd[r][1]:.3f}" for r in READINGS)
                      + (" beyond peak" if beyond else ""))


def misses(table, arch_filter=None) -> None:
    """Each GEMM (M >= 32) whose chosen tile origami rates more than 5% slower than its
    best, worst first, with the cost model's reading of both tiles (the best-scored
    config of origami's tile): estimate, the term that bounds it, grid, tiles resident
    per unit, pipeline depth and the clocks of one k-step, or why it was not a
    candidate. Where the model rates origami's tile slower, the terms that differ say
    which part of the model disagrees."""
    gemms = sorted(table)
    out = []
    for gemm in gemms:
        arch_name, in_type, g, m, n, k = gemm
        if m < 32 or (arch_filter and arch_name != arch_filter):
            continue
        tiles = table[gemm]
        best_tile = min(tiles, key=lambda t: (tiles[t], t))
        tile, sel = chosen_tile(arch_name, gemm)
        ratio = tiles.get(tile, float("inf")) / tiles[best_tile]
        if ratio <= 1.05:
            continue
        mi = (lambda c: c.mn_per_xdl) if arch_name == "gfx942" else (lambda c: 16)
        theirs = [c for c in sel.ranked if (c.config.m_per_block, c.config.n_per_block,
                                            c.config.k_per_block, mi(c.config)) == best_tile]
        lines = [f"{arch_name:<8} {in_type:<4} {g}x{m}x{n}x{k}: origami rates accel's "
                 f"{_t(tile)} {ratio:.2f}x its best {_t(best_tile)}",
                 "    accel's  " + _reading(sel.ranked[0])]
        if theirs:
            lines.append("    origami's " + _reading(theirs[0]))
        else:
            why = [r for c, r in sel.rejected
                   if (c.m_per_block, c.n_per_block, c.k_per_block, mi(c)) == best_tile]
            lines.append(f"    origami's {_t(best_tile)}: not a candidate"
                         + (f" ({why[0][0]})" if why else " (not in the ladder)"))
        out.append((ratio, lines))
    for _, lines in sorted(out, key=lambda r: -r[0]):
        print("\n".join(lines))


def _reading(c) -> str:
    b = c.breakdown
    steps = " ".join(f"{k} {v}" for k, v in b["step_clocks"].items())
    return (f"{c.config.m_per_block}x{c.config.n_per_block}x{c.config.k_per_block}: "
            f"{c.score:.2f} us, {b['bound']}, grid {b['grid']}, resident {b['resident']}, "
            f"depth {b['pipeline_depth']}; k-step clocks: {steps}")


def beyond_peak(gemm: tuple, tile: tuple, tiles: dict) -> bool:
    """Is origami's time for `tile` faster than the hardware allows: more than the
    datasheet MMA rate of the CUs its grid occupies (min(workgroups, CUs)), which only a
    kernel that splits K could reach, or less than reading A and B and writing C once
    at the DRAM bandwidth?"""
    arch_name, in_type, g, m, n, k = gemm
    arch = get_arch(arch_name)
    p = params_for(arch)
    tm, tn, tk, _ = tile
    grid = g * -(-m // tm) * -(-n // tn)
    flops = 2 * grid * tm * tn * -(-k // tk) * tk
    peak = min(grid, arch.cu_count) * p.mma_flops_per_clock[in_type] * p.clock_ghz * 1e3
    eb = ELEMENT_BYTES[in_type]
    dram_us = g * (m * k + k * n + m * n) * eb / p.dram_bytes_per_clock / (p.clock_ghz * 1e3)
    return flops / tiles[tile] > peak or tiles[tile] < dram_us


def _t(tile) -> str:
    return f"{tile[0]}x{tile[1]}x{tile[2]}/{tile[3]}"


TIMING_SHAPES = [
    GemmShape(1, 1, 4096, 4096), GemmShape(1, 48, 4096, 4096), GemmShape(1, 528, 528, 1024),
    GemmShape(1, 333, 4096, 1024), GemmShape(1, 1536, 1536, 1024),
    GemmShape(1, 3402, 4096, 1024), GemmShape(1, 4096, 4096, 4096),
    GemmShape(1, 1024, 50257, 512), GemmShape(16, 512, 512, 64),
]
TIMING_TARGETS = [("gfx942", "f16"), ("gfx942", "i8"), ("gfx1100", "bf16"), ("gfx1201", "f16")]


def timing(repeat: int) -> None:
    """The first call per (arch, element type) also builds and validates the
    shape-independent ladder, which is then cached: "first ms" is that call on the
    target's first shape, else the shape's first call; "best ms" the best of `repeat`."""
    print(f"{'arch':<8} {'type':<5} {'G':>3} {'M':>6} {'N':>6} {'K':>6}  {'first ms':>8} "
          f"{'best ms':>8}  best")
    for arch_name, in_type in TIMING_TARGETS:
        arch = get_arch(arch_name)
        out_type = "f32" if in_type != "i8" else "i32"
        for shape in TIMING_SHAPES:
            t0 = time.perf_counter()
            select(arch, in_type, out_type, shape)
            cold = time.perf_counter() - t0
            warm = float("inf")
            for _ in range(repeat):
                t0 = time.perf_counter()
                sel = select(arch, in_type, out_type, shape)
                warm = min(warm, time.perf_counter() - t0)
            cfg = sel.best
            print(f"{arch_name:<8} {in_type:<5} {shape.g:>3} {shape.m:>6} {shape.n:>6} "
                  f"{shape.k:>6}  {cold * 1e3:>8.2f} {warm * 1e3:>8.2f}  "
                  f"{cfg.m_per_block}x{cfg.n_per_block}x{cfg.k_per_block} {cfg}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--table", type=Path, default=TABLE)
    ap.add_argument("--arch", help="only this chip")
    ap.add_argument("--list", action="store_true", help="one line per GEMM")
    ap.add_argument("--misses", action="store_true",
                    help="explain each GEMM off by more than 5%% with the model's terms")
    ap.add_argument("--timing", action="store_true", help="selection time per shape instead")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    if args.timing:
        timing(args.repeat)
    elif args.misses:
        misses(load_table(args.table), args.arch)
    else:
        agreement(load_table(args.table), args.arch, args.list)


if __name__ == "__main__":
    main()
