"""The main job: seed 001's GEMM and a 4096^3 GEMM on every arch, compiled and checked.

For gfx942, gfx1100 and gfx1201:
  * compile seed 001's GEMM (M=128, K=5120, N=1280, f16, perf config
    v3:32,32,8,16,16,8,1,2,2,1,1, A and B in the accel layout) and a plain 4096^3 f16
    GEMM (perf config chosen by accel-affix-perf-config) to code objects in OUT/<arch>/;
  * simulate a scaled-down version of each (same perf config, same layouts) and compare
    every element of C with a float64 numpy product;
  * print one summary row per kernel.
Exit status 1 if any simulated GEMM is wrong.

  python -m accel.tools.main_job [OUT]        (scripts/main.sh sets up and runs this)
"""

from __future__ import annotations

from accel.tools.interrupts import interruptible_start

PROG = "accel-main-job"

# The imports below (the MLIR bindings, numpy) take ~0.4 s: a Ctrl-C during them is
# reported like one during the run.
with interruptible_start(PROG):
    import os
    import sys
    import time
    from dataclasses import dataclass
    from typing import Sequence

    from accel.api import compile_gemm
    from accel.check import check_gemm
    from accel.target.database import ARCHES
    from accel.tools.accel_compile import write_result
    from accel.tools.cli_common import run_cli

SEED_CONFIG = "v3:32,32,8,16,16,8,1,2,2,1,1"


@dataclass(frozen=True)
class Job:
    name: str
    full: dict       # compile_gemm arguments of the real GEMM
    scaled: dict     # the shape simulated: small enough for the CPU, same tile and layouts


JOBS = (
    Job("seed001", dict(m=128, n=1280, k=5120, a_layout="accel", b_layout="accel",
                        perf_config=SEED_CONFIG),
        # N and K cut by 10: the same 32x32 tile and 64-deep k-tile, 4x4 workgroups.
        dict(m=128, n=128, k=512)),
    Job("4096^3", dict(m=4096, n=4096, k=4096),
        # One 256^3 problem: at least one full tile of whatever the selector chose.
        dict(m=256, n=256, k=256)),
)

HEADER = ("arch", "gemm", "tile", "grid", "block", "LDS", "VGPRs", "MMA", "simulated",
          "max err", "bound", "result")


def run_job(arch: str, job: Job, out_dir: str) -> tuple[str, ...]:
    result = compile_gemm(arch, in_type="f16", **job.full)
    kernel = result.kernels[0]
    meta = kernel.metadata
    write_result(result, os.path.join(out_dir, arch), f"{job.name.replace('^', '_')}")
    layouts = {k: job.full[k] for k in ("a_layout", "b_layout") if k in job.full}
    checked = check_gemm(arch, in_type="f16", perf_config=meta["perf_config"],
                         **job.scaled, **layouts)
    c = checked.comparison
    m_pb, n_pb, k_pb = checked.tile
    return (arch, job.name, f"{m_pb}x{n_pb}x{k_pb}", "x".join(map(str, meta["grid"])),
            str(meta["block"][0]), str(meta["lds_bytes"]), str(meta["vgprs"]), meta["mma"],
            f"{job.scaled['m']}x{job.scaled['n']}x{job.scaled['k']}",
            f"{c.max_abs_error:.2e}", f"{c.bound_at_max:.2e}",
            "PASS" if c.mismatches == 0 else f"FAIL ({c.mismatches}/{c.total})")


def format_table(rows: list[tuple[str, ...]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _main(argv: Sequence[str] | None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    out_dir = args[0] if args else "out"
    start = time.perf_counter()
    rows = [HEADER]
    for arch in ARCHES:
        for job in JOBS:
            rows.append(run_job(arch, job, out_dir))
    print(format_table(rows))
    print(f"\ncode objects, assembly and metadata in {out_dir}/<arch>/; "
          f"{time.perf_counter() - start:.1f} s")
    return 0 if all(r[-1] == "PASS" for r in rows[1:]) else 1


def main(argv: Sequence[str] | None = None) -> int:
    return run_cli(_main, argv, prog="accel-main-job")


if __name__ == "__main__":
    raise SystemExit(main())
