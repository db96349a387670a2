"""Split-K: what the choice (tuning/split_k.py) picks and what it costs to compile.

    python benchmarks/bench_split_k.py [--repeat 5]

Per chip and shape (skinny deep GEMMs, and ones that fill the chip): the selector's
tile, its workgroups and estimated time; the split-K choice, its workgroups (x S) and
estimated time; the time the choice itself takes (best of --repeat, after the
selection). Then, for the shapes that are split, the compile of the split pair
(partial + reduction kernels) against the one-kernel GEMM of the same tile with
splitKFactor 1 (`compile_gemm`, best wall and best CPU time of --repeat, interleaved;
CPU time counts the linker too), and the
machine's load average, since timings on a shared machine are noisy (best of N is the
compiler's latency: bench_compile.py). Estimates are the cost model's, not
measurements (no GPU here).

Figures (load average 0.4-0.9 on 2 cores): gfx942 splits the skinny deep shapes
(48x4096x4096: 16x64x128, 192 workgroups, 24.9 us estimated -> split 4, 768 workgroups,
14.3 us; 1x4096x4096 split 4, 24.9 -> 9.6 us; 48x1024x16384 16x64x64 split 16, 99.1 ->
18.0 us) and seed 001's 128x1280x5120 (128x64x128 split 8: 31.2 -> 10.8 us);
gfx1100/gfx1201 split 48x1024x16384 (8 slices) and 128x1280x5120 (4 / 2) only, since
their 48-96 WGPs are filled by the narrow tiles already; 4096^3 and 512^3 are never
split. The choice: 0.6-4.3 ms after the selection. Compile CPU time, split pair against
one kernel, best of 2: +23 to +70 ms (gfx942 48x4096x4096 94.4 against 71.1 ms): a
second gpu.module through the lowering, the backend and the link.
"""

from __future__ import annotations

import argparse
import os
import resource
import time

from accel.api import compile_gemm
from accel.dialect.gemm import GemmShape
from accel.target.database import get_arch
from accel.tuning import cost_model
from accel.tuning.selection import select
from accel.tuning.split_k import choose_split_k, split_cost_us

ARCHES = ("gfx942", "gfx1100", "gfx1201")
SHAPES = ((1, 48, 4096, 4096), (1, 16, 4096, 8192), (1, 48, 1024, 16384), (1, 1, 4096, 4096),
          (1, 128, 1280, 5120), (1, 4096, 4096, 4096), (1, 512, 512, 512))


def cpu_seconds() -> float:
    """CPU time of this process and of the children it waited for (the linker)."""
    return sum(r.ru_utime + r.ru_stime for r in (resource.getrusage(resource.RUSAGE_SELF),
                                                 resource.getrusage(resource.RUSAGE_CHILDREN)))


def estimate(sel, config) -> tuple[float, int]:
    """(estimated us, workgroups) of `config` (a ranked tile, maybe split) on sel.shape."""
    base = config.replace(split_k=1)
    # The ranking, not split_candidates: a tie may go to another wave split of a tile.
    prep, launch = next((p, lc) for p, lc in sel.scored if p.config == base)
    return (split_cost_us(prep.terms, sel.in_type, sel.out_type, sel.shape, launch,
                          config.split_k), launch.grid_size * config.split_k)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    print(f"{'arch':8} {'shape':18} {'selected tile':>14} {'wg':>5} {'est us':>7}  "
          f"{'split tile':>12} {'S':>3} {'wg':>5} {'est us':>7}  {'choice ms':>9}")
    split = []
    for arch in ARCHES:
        info = get_arch(arch)
        for g, m, n, k in SHAPES:
            sel = select(info, "f16", "f16", GemmShape(g, m, n, k))
            prep, launch = sel.scored[0]
            base_us = cost_model.estimate_us(prep.terms, "f16", launch)
            times = []
            for _ in range(args.repeat):
                start = time.perf_counter()
                chosen = choose_split_k(sel)
                times.append(time.perf_counter() - start)
            us, wg = estimate(sel, chosen)
            tile, split_tile = (f"{c.m_per_block}x{c.n_per_block}x{c.k_per_block}"
                                for c in (sel.best, chosen))
            print(f"{arch:8} {f'{m}x{n}x{k}':18} {tile:>14} {launch.grid_size:>5} "
                  f"{base_us:>7.2f}  {split_tile:>12} {chosen.split_k:>3} {wg:>5} {us:>7.2f}  "
                  f"{min(times) * 1e3:>9.2f}")
            if chosen.split_k > 1:
                split.append((arch, (g, m, n, k), chosen))
    print("\ncompile, split pair vs one kernel of the same tile (ms, best of "
          f"{args.repeat}: wall / CPU incl. the linker)")
    for arch in ARCHES:
        compile_gemm(arch, m=64, n=64, k=64, assembly=False)   # warm-up
    for arch, (g, m, n, k), chosen in split:
        pair, one = ([], []), ([], [])
        for _ in range(args.repeat):
            for config, (wall, cpu) in ((chosen, pair), (chosen.replace(split_k=1), one)):
                start, start_cpu = time.perf_counter(), cpu_seconds()
                compile_gemm(arch, g=g, m=m, n=n, k=k, perf_config=config, assembly=False)
                wall.append((time.perf_counter() - start) * 1e3)
                cpu.append((cpu_seconds() - start_cpu) * 1e3)
        print(f"{arch:8} {f'{m}x{n}x{k}':18} split {chosen.split_k:>2}: "
              f"{min(pair[0]):6.1f} / {min(pair[1]):6.1f}   one kernel: "
              f"{min(one[0]):6.1f} / {min(one[1]):6.1f}")
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
