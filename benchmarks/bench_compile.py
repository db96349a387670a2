"""Compile latency per GEMM kernel: accel.gemm -> ELF code object, in-process.

    python benchmarks/bench_compile.py [--repeat 3] [--assembly]

Times `accel.api.compile_gemm` (perf-config selection, codegen, ROCDL lowering, LLVM
backend, link) per shape and arch after one warm-up compile, so process start and
first-use initialization are excluded. Prints one line per kernel and the median;
the target is 100 ms per kernel. `--assembly` also produces the assembly (a second
LLVM backend run).

Wall time is what a caller waits; CPU time (this process and the linker it starts)
is printed beside it because on a shared machine wall time varies by tens of percent
from run to run while CPU time stays within a few.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time

from accel.api import compile_gemm

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
    p.add_argument("--repeat", type=int, default=3, help="compiles per kernel (median kept)")
    p.add_argument("--assembly", action="store_true", help="also produce the assembly")
    args = p.parse_args()
    compile_gemm("gfx942", m=64, n=64, k=64)  # warm-up: bindings, linker shim
    per_kernel, per_kernel_cpu = [], []
    for arch in ARCHES:
        for g, m, n, k, t in SHAPES:
            times, cpu = [], []
            for _ in range(args.repeat):
                start, start_cpu = time.perf_counter(), cpu_seconds()
                r = compile_gemm(arch, g=g, m=m, n=n, k=k, in_type=t, assembly=args.assembly)
                times.append(time.perf_counter() - start)
                cpu.append(cpu_seconds() - start_cpu)
            ms, cpu_ms = statistics.median(times) * 1e3, statistics.median(cpu) * 1e3
            per_kernel.append(ms)
            per_kernel_cpu.append(cpu_ms)
            meta = r.kernels[0].metadata
            print(f"{arch:8} g={g} m={m:<5} n={n:<6} k={k:<5} {t:5} {ms:7.1f} ms "
                  f"(cpu {cpu_ms:6.1f})  {meta['perf_config']}  vgprs={meta['vgprs']}")
    med, med_cpu = statistics.median(per_kernel), statistics.median(per_kernel_cpu)
    print(f"median compile latency per kernel: {med:.1f} ms (cpu {med_cpu:.1f} ms) over "
          f"{len(per_kernel)} kernels (target <= 100 ms)")


def cpu_seconds() -> float:
    """User + system time of this process and its finished children (the linker)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(
        resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


if __name__ == "__main__":
    main()
