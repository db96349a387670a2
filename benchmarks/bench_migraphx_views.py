"""Kernels and compile time of the MIGraphX corpus chunks whose dots read views.

    python benchmarks/bench_migraphx_views.py [--repeats 3]

For each corpus chunk (benchmarks/bench_migraphx_corpus.py's reading of the corpus)
whose dot operands or epilogue operands are slices, batch strides or broadcast
batches (rocMLIR's gemm-layouts sliced-k / sliced-b / broadcasted-b tests,
mixr-slice-dot, mixr-gemm-broadcast): the kernels compile_module makes for gfx942 and
the CPU seconds (user + system, best of --repeats) to convert and compile it, in this
process.

Figures (8 chunks, load average 5.5 on the shared 2-core machine), before (every such
view copied by an accel.copy kernel) -> after (read in place by the gemm as a strided
memref): kernels per chunk 3 or 4 -> 1 (the gemm alone); sum of best-of-3 CPU seconds
2.20 -> 1.58 (mixr-slice-dot 0.208 -> 0.101, broadcasted-b 0.322 -> 0.278).
"""

from __future__ import annotations

import argparse
import resource
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_migraphx_corpus import DEFAULT_CORPUS, convert, dot_chunks, fill_placeholders  # noqa: E402

from accel.api import compile_module  # noqa: E402

CHUNKS = ("sliced-k-e2e", "mixr-slice-dot", "broadcasted-b-e2e", "sliced-b-e2e",
          "mixr-gemm-broadcast")


def cpu_seconds() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args()
    chunks = [c for c in dot_chunks(DEFAULT_CORPUS) if any(x in c[0] for x in CHUNKS)]
    best, kernels = {}, {}
    for _ in range(args.repeats):
        for name, first_line, text in chunks:
            start = cpu_seconds()
            converted, message = convert(fill_placeholders("\n" * first_line + text,
                                                           "gfx942"), name, "gfx942")
            if converted is None:
                print(f"{name}: {message}")
                return 1
            result = compile_module(converted, "gfx942", assembly=False)
            best[name] = min(best.get(name, float("inf")), cpu_seconds() - start)
            kernels[name] = len(result.kernels)
    print(f"{len(chunks)} chunks, sum of best-of-{args.repeats} CPU seconds: "
          f"{sum(best.values()):.2f}")
    for name in best:
        print(f"  {best[name]:.3f} s  {kernels[name]} kernel(s)  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
