"""Selection benchmark: milliseconds to choose a perf config, per arch and shape.

The first call per (arch, element type) also builds and validates the
shape-independent ladder, which is then cached: "first ms" is that call on the
target's first shape, else the shape's first call; "best ms" the best of --repeat more.

    python benchmarks/bench_selection.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import time

from accel.dialect.ops import GemmShape
from accel.target.database import get_arch
from accel.tuning.selection import select

SHAPES = [
    GemmShape(1, 1, 4096, 4096), GemmShape(1, 48, 4096, 4096), GemmShape(1, 528, 528, 1024),
    GemmShape(1, 333, 4096, 1024), GemmShape(1, 1536, 1536, 1024),
    GemmShape(1, 3402, 4096, 1024), GemmShape(1, 4096, 4096, 4096),
    GemmShape(1, 1024, 50257, 512), GemmShape(16, 512, 512, 64),
]
TARGETS = [("gfx942", "f16"), ("gfx942", "i8"), ("gfx1100", "bf16"), ("gfx1201", "f16")]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    print(f"{'arch':<8} {'type':<5} {'G':>3} {'M':>6} {'N':>6} {'K':>6}  {'first ms':>8} "
          f"{'best ms':>8}  best")
    for arch_name, in_type in TARGETS:
        arch = get_arch(arch_name)
        for shape in SHAPES:
            t0 = time.perf_counter()
            select(arch, in_type, "f32" if in_type != "i8" else "i32", shape)
            cold = time.perf_counter() - t0
            warm = float("inf")
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                sel = select(arch, in_type, "f32" if in_type != "i8" else "i32", shape)
                warm = min(warm, time.perf_counter() - t0)
            cfg = sel.best
            print(f"{arch_name:<8} {in_type:<5} {shape.g:>3} {shape.m:>6} {shape.n:>6} "
                  f"{shape.k:>6}  {cold * 1e3:>8.2f} {warm * 1e3:>8.2f}  "
                  f"{cfg.m_per_block}x{cfg.n_per_block}x{cfg.k_per_block} {cfg}")


if __name__ == "__main__":
    main()
