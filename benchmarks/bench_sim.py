"""Simulator benchmark: seconds to simulate a GEMM kernel that accel generated.

For each arch, compiles a SIZE^3 f16 GEMM (perf config chosen by the selector, or
--perf-config), runs its host function in the simulator and prints the simulated
seconds (best of --repeat; the interpreter's one-time compile of the kernel is
included in each run), with the elementwise check so the figure is for a correct run.
Issue 5's target: 256x256x256 f16 in 2 s or less on the 2-core development machine.

    python benchmarks/bench_sim.py [--size 256] [--repeat 3] [--perf-config v4:...]
"""

from __future__ import annotations

import argparse

from accel.check import check_gemm
from accel.target.database import ARCHES


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=256)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--perf-config", default=None)
    args = ap.parse_args()
    s = args.size
    for arch in ARCHES:
        runs = [check_gemm(arch, m=s, n=s, k=s, in_type="f16", perf_config=args.perf_config,
                           seed=i) for i in range(args.repeat)]
        best = min(r.seconds for r in runs)
        last = runs[-1]
        ok = all(r.comparison.mismatches == 0 for r in runs)
        m_pb, n_pb, k_pb = last.tile
        print(f"gemm {s}x{s}x{s} f16 {arch}: simulated in {best:.3f} s "
              f"(tile {m_pb}x{n_pb}x{k_pb}, grid {'x'.join(map(str, last.grid))}, "
              f"block {last.block[0]}, {last.mma}), max |err| "
              f"{last.comparison.max_abs_error:.2e}, {'correct' if ok else 'WRONG'}")


if __name__ == "__main__":
    main()
