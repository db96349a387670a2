"""Register estimate against the compiled kernel, over the perf-config ladder.

    python benchmarks/bench_register_estimate.py [--arch gfx1201] [--type i8]
        [--every N] [--offset I] [--near F] [--shape M,N,K] [--list]

For every candidate selection enumerates (tuning/selection.py `_ladder`: each tile,
wave split and kpack the rules accept) it compiles a GEMM with that perf config
(default shape 2048x2048x2048, as the issue's spilling i8 kernels; `--shape` for a
ragged one) and compares tuning/validity.py's `register_estimate` with the VGPRs the
code object reports (arch VGPRs + AGPRs on gfx942), and its scratch and spills.
Per (arch, type) it prints how many rungs were compiled, how many spill or use scratch,
how many the estimate under-counts by more than 10% (the contract: conservative, or
within 10%), and the worst under- and over-estimates. `--every N` compiles every Nth
candidate (starting at `--offset`), for a sample; the whole ladder is ~6400 compiles
(~0.35 s each). `--near F` also compiles every candidate whose register floor (what
`check_config` admits by) is at least F of the budget: where spills would show.
"""

from __future__ import annotations

import argparse
import re
import time

from accel.api import compile_gemm
from accel.target.database import get_arch
from accel.tuning.selection import _ladder
from accel.tuning.validity import register_floor

TARGETS = [("gfx942", t) for t in ("f16", "bf16", "i8", "f32")] + \
          [(a, t) for a in ("gfx1100", "gfx1201") for t in ("f16", "bf16", "i8")]

_META = re.compile(r"^\s+\.(vgpr_count|agpr_count|vgpr_spill_count|sgpr_spill_count|"
                   r"private_segment_fixed_size):\s+(\d+)", re.M)


def emitted(arch: str, in_type: str, config: str, shape) -> dict:
    """VGPRs (+ AGPRs), spills and scratch bytes of the compiled kernel."""
    m, n, k = shape
    r = compile_gemm(arch, m=m, n=n, k=k, in_type=in_type, perf_config=config)
    meta = {key: int(v) for key, v in _META.findall(r.kernels[0].assembly)}
    # gfx942: .vgpr_count already counts the unified file (arch VGPRs, then AGPRs).
    return {"regs": meta.get("vgpr_count", 0),
            "spills": meta.get("vgpr_spill_count", 0) + meta.get("sgpr_spill_count", 0),
            "scratch": meta.get("private_segment_fixed_size", 0)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--arch")
    ap.add_argument("--type", dest="in_type")
    ap.add_argument("--every", type=int, default=1)
    ap.add_argument("--offset", type=int, default=0)
    ap.add_argument("--near", type=float, default=None)
    ap.add_argument("--shape", default="2048,2048,2048")
    ap.add_argument("--list", action="store_true", help="one line per compiled rung")
    args = ap.parse_args()
    shape = tuple(int(x) for x in args.shape.split(","))
    print(f"{'arch':<8} {'type':<5} {'rungs':>5} {'spill':>5} {'under>10%':>9} "
          f"{'worst under':>12} {'worst over':>11}  seconds")
    for arch_name, in_type in TARGETS:
        if (args.arch and arch_name != args.arch) or (args.in_type and in_type != args.in_type):
            continue
        arch = get_arch(arch_name)
        good, _ = _ladder(arch, in_type, in_type, None, None, 1)
        rungs = [p for i, p in enumerate(good)
                 if i % args.every == args.offset % args.every or
                 (args.near is not None and register_floor(arch, p.instr, p.config, in_type)
                  >= args.near * arch.vgprs_per_lane)]
        t0 = time.perf_counter()
        spilled, under, worst_under, worst_over = [], [], (1.0, None), (1.0, None)
        for prep in rungs:
            got = emitted(arch_name, in_type, prep.text, shape)
            ratio = prep.regs / max(got["regs"], 1)
            if got["spills"] or got["scratch"]:
                spilled.append(prep.text)
            if ratio < 0.9 or got["spills"]:
                under.append(prep.text)
            if ratio < worst_under[0]:
                worst_under = (ratio, prep.text)
            if ratio > worst_over[0]:
                worst_over = (ratio, prep.text)
            if args.list:
                c = prep.config
                print(f"  {arch_name} {in_type} {c.m_per_block}x{c.n_per_block}x{c.k_per_block}"
                      f"/{c.mn_per_xdl} waves={c.num_waves} {prep.text}: estimate {prep.regs}, "
                      f"emitted {got['regs']}, spills {got['spills']}, scratch {got['scratch']}B",
                      flush=True)
        secs = time.perf_counter() - t0
        print(f"{arch_name:<8} {in_type:<5} {len(rungs):>5} {len(spilled):>5} {len(under):>9} "
              f"{worst_under[0]:>12.2f} {worst_over[0]:>11.2f}  {secs:.0f}", flush=True)
        for text in spilled[:5]:
            print(f"    spills: {text}")
        for text in under[:5]:
            print(f"    under-estimated: {text}")


if __name__ == "__main__":
    main()
