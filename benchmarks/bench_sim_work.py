"""How fast the simulator gets through its work estimate: the figure behind accel-run's
default --work-limit (tools/accel_run.py, DEFAULT_WORK_LIMIT).

For each GEMM, prints the estimated wave-instructions (accel.sim.run,
CompiledKernel.wave_instructions: op count per thread with constant loop trips, once
per wave), the simulated seconds and their ratio. A steady ratio across shapes means
the estimate predicts the run time; the default limit is that rate times a minute.

    python benchmarks/bench_sim_work.py [--sizes 128,256,512] [--arch gfx942]
"""

from __future__ import annotations

import argparse

from accel.check import check_gemm
from accel.sim.run import WorkLimitError
from accel.target.database import ARCHES


def estimate(arch: str, s: int) -> int:
    """The whole host function's estimate, found by letting the limit refuse it."""
    try:
        check_gemm(arch, m=s, n=s, k=s, work_limit=0)
    except WorkLimitError as e:
        return e.estimate
    raise AssertionError("a zero work limit refuses every launch")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="128,256,512")
    ap.add_argument("--arch", choices=sorted(ARCHES), action="append")
    args = ap.parse_args()
    print(f"{'arch':<8} {'size':>5} {'wave-instr':>11} {'seconds':>8} {'per second':>11}")
    for arch in args.arch or sorted(ARCHES):
        for s in (int(x) for x in args.sizes.split(",")):
            work = estimate(arch, s)
            run = check_gemm(arch, m=s, n=s, k=s)
            assert run.comparison.ok
            print(f"{arch:<8} {s:>5} {work:>11.3g} {run.seconds:>8.2f} "
                  f"{work / run.seconds:>11.3g}", flush=True)


if __name__ == "__main__":
    main()
