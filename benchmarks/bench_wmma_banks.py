"""WMMA operand banks over the kernels perf-config selection picks: how many have every
v_wmma's A, B and C on three VGPR banks (seed 002: 32 instead of 34 cycles), at what
cost in VGPRs, waves and main-loop instructions.

    python benchmarks/bench_wmma_banks.py [--latency N | --ladder [--every N --offset I] |
                                           --batch-kernels N [--instructions]]

Compiles 14 model-like and ragged shapes for f16, bf16 and i8 on gfx1100 and gfx1201
(the selected perf config each), once as LLVM allocated them (wmma_banks.ENABLED =
False, the before) and once through accel-wmma-banks (the after), and prints per arch
and type: the kernels whose v_wmma all sit on three banks, before and after; the VGPRs
(sum over the kernels) and the kernels whose waves per SIMD changed; the instructions
of the main loops (from each loop's label to its back-edge branch; summed). Then every
kernel that still collides, with the first line of its assembly (accel-wmma-banks says
there why it left the kernel as allocated).

`--latency N`: instead, the compile latency the pass adds: the 12 WMMA kernels of
benchmarks/bench_compile.py, each compiled N times with and N times without
accel-wmma-banks, alternating (so a neighbour's load falls on both alike); per kernel
the best wall and CPU time of each, then the medians and the median of the per-kernel
ratios, and the CPU time the renumbering itself takes inside the compiles with the
pass (best of N) as a share of the compile without it.

`--ladder`: instead, every candidate of the perf-config ladder (tuning/selection.py
`_ladder`: each tile, wave split and kpack the rules accept; 2068 on the two chips and
three types) compiled for 2048x2048x2048 through accel-wmma-banks; per arch and type, the
rungs compiled, how many have every v_wmma on three banks and how many of those only the
pass's last resort lays out (LLVM's register ranges reordered), then each rung that is
not on three banks, with its assembly's first line, and each one the last resort laid
out, compiled again as LLVM allocated it: VGPRs, waves per SIMD, main-loop
instructions and VOP3 (_e64) 16-bit half instructions, before -> after. `--every N`
compiles every Nth rung (from `--offset`).

`--batch-kernels N`: instead, the renumbering's own CPU time over the gfx1100/gfx1201
kernels of benchmarks/bench_batch_compile.py's 100-GEMM batch (66 GEMMs, 67 kernels;
a split-K reduction has no v_wmma): their GEMMs are compiled once in this process, with
the garbage collector as accel-compile sets it, the assembly LLVM printed
for each kernel is kept, and `wmma_banks.renumber` runs on each N times; prints the
total of the per-kernel best times, the five kernels that take longest, and how many
kernels each first line's outcome has. `--instructions` adds the instructions the
renumbering executes per kernel, counted by valgrind's callgrind in a child process
with instrumentation on around each kernel's `renumber` alone (within ~0.5% from run
to run, unlike a time on a shared machine; ~8 minutes).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter

from accel.api import compile_gemm
from bench_batch_compile import model_gemms   # scripts beside this one
from bench_compile import callgrind_counts, cpu_seconds
from accel import batch
from accel.passes import wmma_banks
from accel.passes.wmma_banks import wmma_bank_collisions
from accel.target.database import get_arch
from accel.tuning.selection import _ladder

SHAPES = ((1, 4096, 4096, 4096), (1, 128, 1280, 5120), (1, 1, 11008, 4096), (1, 3402, 4096, 1024),
          (8, 512, 512, 64), (1, 77, 1001, 320), (1, 2048, 2048, 2048), (1, 1024, 4096, 1024),
          (4, 256, 256, 256), (1, 32, 4096, 4096), (1, 4096, 32, 4096), (1, 333, 777, 111),
          (16, 64, 64, 64), (1, 8192, 1024, 512))
_LABEL = re.compile(r"^(\.LBB\w+):", re.M)
_E64_HALF = re.compile(r"^\tv_\w+_e64 v\d+\.[lh]", re.M)
REORDERED = "LLVM's VGPR ranges reordered"


def main_loop_instructions(asm: str) -> int:
    """Instructions from each loop label to the branch back to it."""
    total = 0
    for label in _LABEL.finditer(asm):
        back = re.search(rf"^\ts_cbranch_\w+ {re.escape(label.group(1))}$", asm[label.end():],
                         re.M)
        if back:
            body = asm[label.end():label.end() + back.end()]
            total += sum(1 for ln in body.split("\n") if ln.startswith("\t") and
                         not ln.startswith(("\t.", "\t;")))
    return total


def waves(asm: str) -> int:
    """Waves per SIMD the descriptor's VGPRs allow on gfx11/gfx12: 1536 per lane, in
    granules of 24 (passes/wmma_banks.py VGPR_GRANULE)."""
    vgprs = int(re.search(r"\.amdhsa_next_free_vgpr (\d+)", asm).group(1))
    return min(16, 1536 // (-(-vgprs // 24) * 24))


def latency(repeat: int) -> None:
    shapes = ((1, 4096, 4096, 4096, "f16"), (1, 128, 1280, 5120, "f16"), (1, 1, 11008, 4096, "f16"),
              (1, 3402, 4096, 1024, "bf16"), (8, 512, 512, 64, "f16"), (1, 77, 1001, 320, "i8"))
    for arch in ("gfx1100", "gfx1201"):     # warm-up
        compile_gemm(arch, m=64, n=64, k=64)
    # The renumbering's own CPU time inside each compile with the pass: a figure the
    # neighbours' load hardly moves, unlike the difference of two compiles.
    renumber, spent = wmma_banks.renumber, [0.0]

    def timed_renumber(asm):
        start = time.process_time()
        try:
            return renumber(asm)
        finally:
            spent[0] += time.process_time() - start

    wmma_banks.renumber = timed_renumber
    best = {True: [], False: []}
    shares = []
    print(f"{'':40} {'wall ms: off':>12} {'on':>7} {'cpu ms: off':>12} {'on':>7} "
          f"{'renumber':>9}")
    for arch in ("gfx1100", "gfx1201"):
        for g, m, n, k, t in shapes:
            times = {True: [], False: []}
            own = []
            for _ in range(repeat):
                for on in (False, True):
                    wmma_banks.ENABLED = on
                    spent[0] = 0.0
                    w, c = time.perf_counter(), cpu_seconds()
                    compile_gemm(arch, g=g, m=m, n=n, k=k, in_type=t)
                    times[on].append((time.perf_counter() - w, cpu_seconds() - c))
                    if on:
                        own.append(spent[0])
            row = {on: (min(x[0] for x in v) * 1e3, min(x[1] for x in v) * 1e3)
                   for on, v in times.items()}
            for on in row:
                best[on].append(row[on])
            shares.append(min(own) * 1e3 / row[False][1])
            print(f"{arch} g={g} m={m} n={n} k={k} {t:5} {row[False][0]:12.1f} {row[True][0]:7.1f} "
                  f"{row[False][1]:12.1f} {row[True][1]:7.1f} {min(own) * 1e3:9.1f}")
    wmma_banks.renumber = renumber
    for i, what in ((0, "wall"), (1, "cpu")):
        off = [x[i] for x in best[False]]
        on = [x[i] for x in best[True]]
        ratio = statistics.median(b / a for a, b in zip(off, on))
        print(f"{what}: median best {statistics.median(off):.1f} ms without, "
              f"{statistics.median(on):.1f} ms with accel-wmma-banks; median ratio {ratio:.3f}")
    print(f"renumbering: median {statistics.median(shares):.1%} of the compile without the "
          f"pass (CPU, best of {repeat}; largest {max(shares):.1%})")


def ladder(every: int, offset: int) -> None:
    misses, reordered, total = [], [], Counter()
    print(f"{'':13} {'rungs':>6} {'on three banks':>15} {'ranges reordered':>17}  seconds")
    for arch in ("gfx1100", "gfx1201"):
        for in_type in ("f16", "bf16", "i8"):
            good, _ = _ladder(get_arch(arch), in_type, in_type, None, None, 1)
            rungs = [p.text for i, p in enumerate(good) if i % every == offset % every]
            start, row = time.perf_counter(), Counter()
            for config in rungs:
                (kern,) = compile_gemm(arch, m=2048, n=2048, k=2048, in_type=in_type,
                                       perf_config=config).kernels
                colliding, wmmas = wmma_bank_collisions(kern.assembly)
                row["good"] += colliding == 0 and wmmas > 0
                if colliding or not wmmas:
                    misses.append(f"  {arch} {in_type} {config}: {colliding} of {wmmas} collide | "
                                  f"{kern.assembly.splitlines()[0]}")
                if REORDERED in kern.assembly.split("\n", 1)[0]:
                    row["reordered"] += 1
                    reordered.append((arch, in_type, config, kern))
            total.update(row, rungs=len(rungs))
            print(f"{arch} {in_type:5} {len(rungs):6} {row['good']:15} {row['reordered']:17}  "
                  f"{time.perf_counter() - start:.0f}", flush=True)
    print(f"all: {total['good']} of {total['rungs']} rungs with every v_wmma on three VGPR banks")
    if misses:
        print("\n".join(misses))
    if reordered:
        print("\nthe rungs laid out by reordering LLVM's register ranges, as LLVM allocated "
              "them -> after:")
        print(f"{'':50} {'VGPRs':>9} {'waves':>7} {'main-loop instrs':>17} {'_e64 halves':>12}")
    for arch, in_type, config, kern in reordered:
        wmma_banks.ENABLED = False
        (plain,) = compile_gemm(arch, m=2048, n=2048, k=2048, in_type=in_type,
                                perf_config=config).kernels
        wmma_banks.ENABLED = True
        before, after = plain.assembly, kern.assembly
        print(f"{arch} {in_type:5} {config:38} {plain.metadata['vgprs']:4}->"
              f"{kern.metadata['vgprs']:<4} {waves(before):3}->{waves(after):<3} "
              f"{main_loop_instructions(before):8}->{main_loop_instructions(after):<8} "
              f"{len(_E64_HALF.findall(before)):5}->{len(_E64_HALF.findall(after)):<5}")


def batch_kernels() -> list[tuple[str, str]]:
    """(symbol, the assembly LLVM printed) of every kernel accel-wmma-banks renumbers in
    the batch's gfx1100/gfx1201 GEMMs, in the batch's order."""
    kept, renumber = [], wmma_banks.renumber

    def keep(asm):
        kept.append(asm)
        return renumber(asm)

    wmma_banks.renumber = keep
    try:
        batch.compile_batch([g for g in model_gemms() if g["arch"] != "gfx942"], cache=None)
    finally:
        wmma_banks.renumber = renumber
    return [(re.search(r"^\t\.amdhsa_kernel (\S+)$", asm, re.M).group(1), asm) for asm in kept]


# Under callgrind with instrumentation off: for each assembly file named on the command
# line, prints `ready`, waits for a line on stdin (the parent has switched instrumentation
# on), renumbers it, prints `done` and waits again (the parent has dumped the count).
_COUNT_CHILD = """
import sys
from accel import batch
from accel.passes import wmma_banks
batch.collect_for_compiling()
texts = [open(path).read() for path in sys.argv[1:]]
wmma_banks.renumber(texts[0])        # first-call costs (regex compiles) outside the counts
for text in texts:
    print("ready", flush=True); sys.stdin.readline()
    wmma_banks.renumber(text)
    print("done", flush=True); sys.stdin.readline()
"""


def renumber_instructions(texts: list[str]) -> list[int]:
    """Per assembly text: the instructions `wmma_banks.renumber` executes on it (callgrind)."""
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for i, text in enumerate(texts):
            paths.append(os.path.join(tmp, f"{i}.s"))
            with open(paths[-1], "w") as f:
                f.write(text)
        return list(callgrind_counts(_COUNT_CHILD, paths, tmp))


def batch_renumbering(repeat: int, instructions: bool) -> None:
    if instructions and not shutil.which("valgrind"):
        sys.exit("--instructions: valgrind (callgrind) is not on PATH")
    batch.collect_for_compiling()     # the garbage collector as accel-compile's processes set it
    print(f"renumbering code: {wmma_banks.__file__}; load average "
          f"{', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    kernels = batch_kernels()
    best, outcomes = [], Counter()
    for symbol, asm in kernels:
        times = []
        for _ in range(repeat):
            start = time.process_time()
            out = wmma_banks.renumber(asm)
            times.append(time.process_time() - start)
        best.append(min(times))
        first = out.split("\n", 1)[0]
        outcomes[re.sub(r"\d+ of \d+|\(as allocated: \d+\)|within \d+ VGPRs.*", "..", first)] += 1
    counts = renumber_instructions([asm for _, asm in kernels]) if instructions else None
    print(f"{len(kernels)} kernels: renumbering CPU {sum(best):.3f} s (sum of each kernel's "
          f"best of {repeat})" + (f"; {sum(counts) / 1e6:.1f} M instructions (callgrind)"
                                   if counts else ""))
    # The counts, where there are, rank them: they repeat, times on a shared machine not.
    top = sorted(range(len(kernels)), key=lambda i: -(counts or best)[i])[:5]
    for i in top:
        print(f"  {best[i] * 1e3:7.1f} ms" + (f" {counts[i] / 1e6:7.1f} M" if counts else "") +
              f"  {kernels[i][0]}")
    for first, n in outcomes.most_common():
        print(f"  {n:3} kernels: {first}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--latency", type=int, metavar="N",
                   help="time N compiles with and N without the pass per kernel instead")
    p.add_argument("--ladder", action="store_true",
                   help="compile the perf-config ladder through the pass instead")
    p.add_argument("--every", type=int, default=1, help="with --ladder: every Nth rung")
    p.add_argument("--offset", type=int, default=0, help="with --ladder: the first rung")
    p.add_argument("--batch-kernels", type=int, metavar="N",
                   help="time the renumbering of the batch's WMMA kernels, best of N, instead")
    p.add_argument("--instructions", action="store_true",
                   help="with --batch-kernels: callgrind's instruction counts too")
    args = p.parse_args()
    if args.batch_kernels:
        batch_renumbering(args.batch_kernels, args.instructions)
        return
    if args.latency:
        latency(args.latency)
        return
    if args.ladder:
        ladder(args.every, args.offset)
        return
    rows: dict[tuple[str, str], Counter] = {}
    misses = []
    for arch in ("gfx1100", "gfx1201"):
        for in_type in ("f16", "bf16", "i8"):
            row = rows.setdefault((arch, in_type), Counter())
            for g, m, n, k in SHAPES:
                kernels = {}
                for after in (False, True):
                    wmma_banks.ENABLED = after
                    # A split-K choice is two kernels; the reduction has no v_wmma.
                    (kernels[after],) = [
                        kern for kern in compile_gemm(arch, g=g, m=m, n=n, k=k,
                                                      in_type=in_type).kernels
                        if wmma_bank_collisions(kern.assembly)[1]]
                row["kernels"] += 1
                for after, kern in kernels.items():
                    colliding, wmmas = wmma_bank_collisions(kern.assembly)
                    row[after, "good"] += colliding == 0
                    row[after, "vgprs"] += kern.metadata["vgprs"]
                    row[after, "loop"] += main_loop_instructions(kern.assembly)
                    if after and colliding:
                        misses.append(f"  {arch} {in_type} g={g} m={m} n={n} k={k} "
                                      f"{kern.metadata['perf_config']}: {colliding} of {wmmas} "
                                      f"collide | {kern.assembly.splitlines()[0]}")
                row["waves changed"] += waves(kernels[True].assembly) != \
                    waves(kernels[False].assembly)
    print(f"{'':13} {'on three banks':>16} {'VGPRs (sum)':>13} {'waves':>7} "
          f"{'main-loop instrs':>18}")
    print(f"{'':13} {'before':>7} {'after':>8} {'before':>6} {'after':>6} {'changed':>7} "
          f"{'before':>8} {'after':>9}")
    total = Counter()
    for (arch, in_type), row in rows.items():
        total.update(row)
        print(f"{arch} {in_type:5} {row[False, 'good']:4}/{row['kernels']:<2} "
              f"{row[True, 'good']:5}/{row['kernels']:<2} {row[False, 'vgprs']:6} "
              f"{row[True, 'vgprs']:6} {row['waves changed']:7} {row[False, 'loop']:8} "
              f"{row[True, 'loop']:9}")
    print(f"all: {total[True, 'good']} of {total['kernels']} kernels with every v_wmma on three "
          f"VGPR banks (as LLVM allocated: {total[False, 'good']}); main-loop instructions "
          f"{total[False, 'loop']} -> {total[True, 'loop']}; waves per SIMD changed in "
          f"{total['waves changed']}")
    if misses:
        print("\n".join(misses))


if __name__ == "__main__":
    main()
