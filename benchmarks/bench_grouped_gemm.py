"""Grouped GEMM (accel.grouped_gemm, seed 003): idle work, compile latency, simulated time,
and the main kernel's static figures against accel.gemm's on the same tile.

    python benchmarks/bench_grouped_gemm.py [--repeat 3] [--no-sim]

1. Simulated (small shapes the simulator runs in seconds; seed 003's skew regime and
   G = 1024 mostly empty groups), uniform vs compact: occupied (group, M tile, N tile)
   tiles, main-kernel workgroups launched, those that load A / B / the bias or run an
   MMA (the simulator's per-workgroup record), the simulator's wall time for the
   launches, and the correctness check (every row of every group).
2. Seed 003's shapes on each chip (compiled, not run): compile latency of
   compile_grouped_gemm (best of --repeat, both kernels with the prep kernel in compact
   mode) and of compile_gemm on the same tile, and the static figures of
   benchmarks/bench_kernel_quality.py (VGPRs, code bytes, the k-tile loop's
   instructions by kind, global loads) for the grouped main kernel and the gemm kernel
   of one group at the envelope (1 x max_seq_len x N x K, B [1, N, K], bias [1, N]).
"""

from __future__ import annotations

import argparse
import time

from bench_kernel_quality import fmt, isa_stats, text_bytes

from accel.api import compile_gemm, compile_grouped_gemm
from accel.check import check_grouped_gemm, group_lengths

# (arch, groups, k, n, max_seq_len, distribution, perf config or None)
SIM_CASES = (
    ("gfx942", 64, 64, 64, 64, "skew", "v4:16,32,4,16,16,16,8,1,1,2,0,0,1,1"),
    ("gfx942", 1024, 32, 32, 16, "tiny", "v4:16,32,4,16,16,16,8,1,1,2,0,0,1,1"),
    ("gfx1100", 64, 64, 64, 64, "skew", "v4:16,32,4,16,16,16,8,1,2,2,0,0,1,1"),
)
# (arch, groups, k, n, max_seq_len, L_max fraction of G * max_seq_len)
STATIC_CASES = (
    ("gfx942", 120, 256, 256, 7680, 1.0),
    ("gfx942", 1024, 512, 512, 7680, 0.2),
    ("gfx1100", 120, 256, 256, 7680, 1.0),
    ("gfx1201", 120, 256, 256, 7680, 0.2),
)


def _lengths(kind: str, groups: int, max_seq_len: int) -> list[int]:
    if kind == "tiny":   # 90% empty, the rest 1..8 rows
        skew = group_lengths("skew", groups, 8, seed=1)
        return [x if i % 10 == 0 else 0 for i, x in enumerate(skew)]
    return group_lengths(kind, groups, max_seq_len, seed=0)


def simulate(args) -> None:
    print("== simulated: occupied tiles vs workgroups that load or multiply ==")
    for arch, g, k, n, msl, kind, cfg in SIM_CASES:
        lengths = _lengths(kind, g, msl)
        rows = max(sum(lengths), msl)
        print(f"{arch} G={g} K={k} N={n} max_seq_len={msl} {kind}: rows {sum(lengths)} "
              f"in L_max {rows}, {sum(1 for x in lengths if x == 0)} empty groups, tile {cfg}")
        for mode in ("uniform", "compact"):
            r = check_grouped_gemm(arch, lengths=lengths, n=n, k=k, max_seq_len=msl,
                                   total_rows=rows, mode=mode, perf_config=cfg)
            loads = " ".join(f"{name}={v}" for name, v in r.loading_workgroups.items())
            ok = r.comparison.ok and r.untouched_rows_kept
            print(f"  {mode:8s} launched {r.main_workgroups:6d}  occupied {r.tiles_occupied:5d}"
                  f"  loading {loads}  mma={r.mma_workgroups}  sim {r.seconds:6.2f} s  "
                  f"{'PASS' if ok else 'FAIL'}")


def _best_ms(fn, repeat: int):
    best, result = None, None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        ms = (time.perf_counter() - start) * 1e3
        best = ms if best is None else min(best, ms)
    return best, result


def static(args) -> None:
    print("== seed 003 shapes: compile latency and the main kernel vs accel.gemm ==")
    for arch in sorted({c[0] for c in STATIC_CASES}):
        compile_gemm(arch, m=64, n=64, k=64)   # warm-up per target
    for arch, g, k, n, msl, frac in STATIC_CASES:
        rows = int(g * msl * frac)
        ms, grouped = _best_ms(lambda: compile_grouped_gemm(
            arch, groups=g, n=n, k=k, max_seq_len=msl, total_rows=rows), args.repeat)
        meta = grouped.metadata()
        main = meta["kernels"][-1]
        gemm_ms, gemm = _best_ms(lambda: compile_gemm(
            arch, g=1, m=msl, n=n, k=k, in_type="bf16", trans_b=True, epilogue="bias",
            batched_bias=True, perf_config=main["perf_config"]), args.repeat)
        print(f"{arch} B{g}D{k}K{n}N{msl} L_max={rows}: mode {main['mode']}, "
              f"{main['perf_config']}, grid {main['grid']}, workspace "
              f"{meta['workspace']['bytes']} B")
        print(f"  compile: grouped {ms:.0f} ms ({len(grouped.kernels)} kernels), "
              f"gemm {gemm_ms:.0f} ms")
        for name, kernel in (("grouped", grouped.kernels[-1]), ("gemm", gemm.kernels[0])):
            s = isa_stats(kernel.assembly)
            regs = f"vgpr={s['vgprs']}" + (f"+agpr={s['agprs']}" if s["agprs"] else "")
            print(f"  {name:8s} {regs} spills={s['spills']} code={text_bytes(kernel.code_object)}B"
                  f"  mma {fmt(s['counts']['mma'])}  k-tile loop {fmt(s['loop'])}  "
                  f"global load {fmt(s['counts']['gload'])}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--no-sim", action="store_true", help="skip the simulated cases")
    args = p.parse_args()
    if not args.no_sim:
        simulate(args)
    static(args)


if __name__ == "__main__":
    main()
