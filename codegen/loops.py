"""Counted scf.for loops carrying values, as the kernel's k-tile and k-step loops use them."""

from __future__ import annotations

from accel.codegen.builder import Emitter

# The k-tile loop keeps its back edge. With a constant trip count LLVM's AMDGPU
# unroller (whose threshold is raised for loops that touch LDS) otherwise unrolls it
# completely: the whole K reduction becomes straight-line code. Measured on gfx942,
# 64x64 tile, K=1024 (16 k-tiles; benchmarks/bench_kernel_quality.py case 1): compile
# 556 -> 183 ms, code 6784 -> 2688 bytes, VGPRs 84 -> 52, the same 8 MFMAs per k-tile
# (the k-step loop inside is still unrolled by LLVM, which is what the MMAs want);
# gfx1201 16x256, K=1024: code 12928 -> 2176 bytes, s_wait* 393 -> 20. The name is
# `loop_annotation`, the inherent attribute of llvm.br: convert-scf-to-cf copies
# LLVM-dialect attributes from scf.for to the latch branch, and only that name reaches
# LLVM IR as !llvm.loop metadata (`llvm.loop_annotation` would be silently dropped).
NO_UNROLL = "{loop_annotation = #llvm.loop_annotation<unroll = <disable = true>>}"


def counted_loop(em: Emitter, trips: int, carried: list[tuple[str, str]], body, hint: str,
                 unroll: bool = True) -> list[str]:
    """scf.for over [0, trips) carrying `carried` ((value, type) pairs); a single trip is
    inlined. `body(iv, values)` returns the next values. `unroll=False` forbids LLVM to
    unroll it (NO_UNROLL)."""
    if trips == 1:
        return body(0, [x for x, _ in carried])
    iv = em.fresh(hint)
    res = em.fresh(hint + "_res")
    args = [em.fresh("acc") for _ in carried]
    inits = ", ".join(f"{a} = {c}" for a, (c, _) in zip(args, carried))
    types = ", ".join(t for _, t in carried)
    footer = "}" if unroll else "} " + NO_UNROLL
    with em.region(f"{res}:{len(carried)} = "
                   + em.for_header(iv, trips, f"iter_args({inits}) -> ({types})"), footer):
        out = body(iv, args)
        em.line(f"scf.yield {', '.join(out)} : {types}")
    return [f"{res}#{i}" for i in range(len(carried))]
