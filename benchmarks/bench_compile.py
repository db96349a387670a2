"""Compile latency per GEMM kernel: accel.gemm -> ELF code object, in-process.

    python benchmarks/bench_compile.py [--repeat 5] [--assembly]

Times `accel.api.compile_gemm` (perf-config selection, codegen, ROCDL lowering, LLVM
backend, link) per shape and arch after one warm-up compile per arch, so process start
and first-use initialization are excluded. Prints one line per kernel and, over the
18 kernels, the median of each kernel's best and of each kernel's median time; the
target is 100 ms per kernel. `--assembly` also produces the assembly (a second LLVM
backend run).

Why the best of N: on a shared machine the same compile, repeated in one process,
took anywhere from 64 to 169 ms (a 1x11008x4096 f16 kernel, gfx1201, 40 compiles);
the compiler does the same work every time, so the fastest repeat is its latency
and the rest is the neighbours' load (the `timeit` convention). The median of the
repeats is printed beside it, and CPU time (this process and the linker it starts)
beside wall time.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time

from accel.api import compile_gemm
from accel.passes import wmma_banks

ARCHES = ("gfx942", "gfx1100", "gfx1201")
# (g, m, n, k, in_type): model-like shapes, ragged ones, a batched one, seed 001's.
SHAPES = (
    (1, 4096, 4096, 4096, "f16"),
    (1, 128, 1280, 5120, "f16"),
    (1, 1, 11008, 4096, "f16"),
    (1, 3402, 4096, 1024, "bf16"),
    (8, 512, 512, 64, "f16"),
    (1, 77, 1001, 320, "i8"),
)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=int, default=5, help="compiles per kernel")
    p.add_argument("--assembly", action="store_true", help="also produce the assembly")
    p.add_argument("--without-wmma-banks", action="store_true",
                   help="serialize as LLVM allocated (wmma_banks.ENABLED = False): the before")
    args = p.parse_args()
    wmma_banks.ENABLED = not args.without_wmma_banks
    for arch in ARCHES:  # warm-up: bindings, linker shim, each target's first use
        compile_gemm(arch, m=64, n=64, k=64, assembly=args.assembly)
    rows = {"best": [], "median": [], "best cpu": [], "median cpu": []}
    print(f"{'':42} {'best':>7} {'median':>7} {'cpu best':>9} {'cpu median':>10}  (ms)")
    for arch in ARCHES:
        for g, m, n, k, t in SHAPES:
            times, cpu = [], []
            for _ in range(args.repeat):
                start, start_cpu = time.perf_counter(), cpu_seconds()
                r = compile_gemm(arch, g=g, m=m, n=n, k=k, in_type=t, assembly=args.assembly)
                times.append(time.perf_counter() - start)
                cpu.append(cpu_seconds() - start_cpu)
            row = [min(times), statistics.median(times), min(cpu), statistics.median(cpu)]
            for key, v in zip(rows, row):
                rows[key].append(v * 1e3)
            meta = r.kernels[0].metadata
            print(f"{arch:8} g={g} m={m:<5} n={n:<6} k={k:<5} {t:5} "
                  + " ".join(f"{v * 1e3:{w}.1f}" for v, w in zip(row, (7, 7, 9, 10)))
                  + f"  {meta['perf_config']}  vgprs={meta['vgprs']}")
    med = {key: statistics.median(v) for key, v in rows.items()}
    print(f"median over {len(rows['best'])} kernels: best {med['best']:.1f} ms, "
          f"median {med['median']:.1f} ms (cpu: best {med['best cpu']:.1f}, "
          f"median {med['median cpu']:.1f})")
    print(f"median compile latency per kernel: {med['best']:.1f} ms (best of {args.repeat}; "
          f"target <= 100 ms)")


def cpu_seconds() -> float:
    """User + system time of this process and its finished children (the linker)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(
        resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


if __name__ == "__main__":
    main()
