"""WMMA operand banks over the kernels perf-config selection picks: how many have every
v_wmma's A, B and C on three VGPR banks (seed 002: 32 instead of 34 cycles).

    python benchmarks/bench_wmma_banks.py [--without-wmma-banks]

Compiles 14 model-like and ragged shapes for f16, bf16 and i8 on gfx1100 and gfx1201
(the selected perf config each) and prints, per arch and type, the kernels whose
v_wmma all sit on three banks, then every kernel that does not, with the first line
of its assembly (accel-wmma-banks says there why it left the kernel as allocated).
`--without-wmma-banks`: as LLVM allocated them.
"""

from __future__ import annotations

import argparse
from collections import Counter

from accel.api import compile_gemm
from accel.passes import wmma_banks
from accel.passes.wmma_banks import wmma_bank_collisions

SHAPES = ((1, 4096, 4096, 4096), (1, 128, 1280, 5120), (1, 1, 11008, 4096), (1, 3402, 4096, 1024),
          (8, 512, 512, 64), (1, 77, 1001, 320), (1, 2048, 2048, 2048), (1, 1024, 4096, 1024),
          (4, 256, 256, 256), (1, 32, 4096, 4096), (1, 4096, 32, 4096), (1, 333, 777, 111),
          (16, 64, 64, 64), (1, 8192, 1024, 512))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--without-wmma-banks", action="store_true",
                   help="serialize as LLVM allocated (wmma_banks.ENABLED = False): the before")
    args = p.parse_args()
    wmma_banks.ENABLED = not args.without_wmma_banks
    good, total, misses = Counter(), Counter(), []
    for arch in ("gfx1100", "gfx1201"):
        for in_type in ("f16", "bf16", "i8"):
            for g, m, n, k in SHAPES:
                (kernel,) = compile_gemm(arch, g=g, m=m, n=n, k=k, in_type=in_type).kernels
                colliding, wmmas = wmma_bank_collisions(kernel.assembly)
                total[arch, in_type] += 1
                if colliding == 0:
                    good[arch, in_type] += 1
                else:
                    misses.append(f"  {arch} {in_type} g={g} m={m} n={n} k={k} "
                                  f"{kernel.metadata['perf_config']}: {colliding} of {wmmas} "
                                  f"collide | {kernel.assembly.splitlines()[0]}")
    for key in total:
        print(f"{key[0]} {key[1]:5} {good[key]:3} of {total[key]} kernels with every v_wmma "
              f"on three VGPR banks")
    print(f"all: {sum(good.values())} of {sum(total.values())}")
    print("\n".join(misses))


if __name__ == "__main__":
    main()
