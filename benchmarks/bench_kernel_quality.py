"""Kernel quality per arch and tile: what the ISA and the simulator's LDS model show.

    python benchmarks/bench_kernel_quality.py [--arch gfx942] [--no-sim] [--show-asm N]
        [--only cases|shapes|c-staging|full-agprs|depth-two] [--schedule-version 1|2|3|4]
        [--without-wmma-banks] [--every N] [--trans-b] [--in-type T] [--out-type T]
        [--bf16-round truncf|i32] [--min-acc N]

First the main loop (the innermost loop holding MMAs) of the six GEMMs of issue 12
with the selector's tile, per chip: MMA work share = MMA work / (MMA work + other
instructions), each MMA weighted m*n*k/4096 (a 32x32x8 counts 2, a 16x16x16 1); load
cover = per global load of the loop, the MMA work issued between it and the first
wait that needs it (`vmcnt(N)` / `s_wait_loadcnt N` leaves the N newest outstanding),
across the back edge; the plan's pipeline depth (k-tiles ahead the loads are issued);
the instruction mix; VGPRs, scratch, spills; simulated LDS bank
conflicts; and per chip the medians.

Then, for each case (arch, perf config, operand layouts) it compiles a GEMM with
`accel.api.compile_gemm` and prints, from the code object and its assembly:
VGPRs (+ AGPRs on gfx942), scratch bytes (spills), code size, MMA instructions, global
loads and stores by width in bits, LDS reads and writes by width, barriers, s_waitcnt,
and the compile time (with the assembly: two LLVM backend runs on gfx942, one on the
WMMA chips, whose code object is assembled from it; bench_compile.py times the code
object alone), and the v_wmma whose operands share a VGPR bank (`--without-wmma-banks`:
as LLVM allocated them, without accel-wmma-banks). Then it simulates the same kernel on one workgroup's worth of
problem (M = mPerBlock, N = nPerBlock, K = 2 k-tiles) and prints the extra LDS clocks
the simulator's bank model (sim/lds.py) counts for LDS reads and for LDS writes of
one workgroup. Widths like `64x2` are two-address ds_read2/ds_write2 forms; "k-tile
loop" counts the instructions of the outermost loop by kind.

`--only full-agprs` prints the gfx942 rungs whose accumulators fill the AGPRs (every one
of the f16 and bf16 ladders, both scheduleVersions, B row-major and transposed): the
plan's read-ahead, VGPRs, scratch, spills, machine instructions, the main loop's and its
work share. With `--arch` gfx1100 or gfx1201, that chip's rungs whose accumulators fill
half its VGPRs, where its registers run out first; `--min-acc N` takes the rungs with at
least N accumulator registers a lane instead, `--every N` every Nth of them.

`--in-type` / `--out-type` set the six shapes' A and B type (f16) and C's type (the
input type), and C's type of every rung of `--only full-agprs`; `--bf16-round` makes
the plan round f32 to bf16 that way wherever it rounds to bf16 (passes/plan_kernel.py
`bf16_round`), for the figures of both ways.

`--only depth-two` compiles the rungs whose loads run two k-tiles ahead (plan
pipeline_depth 2: the scheduleVersion 2 ladders of every chip and type, fp8 where the
chip has it; every `--every`th, B row-major, or transposed with `--trans-b`, 2048^3)
and prints, per chip and type, how many use scratch or spill and how many VGPRs the
register estimate under-counts by more than 10% (tuning/validity.py's contract).

Last, C through LDS (outputSwizzle 1, codegen/c_staging.py) against C from the
accumulators (0) for each case: C store instructions and bytes per store, the LDS
accesses and barriers the staging adds, VGPRs, the best of 3 compile CPU times, and the
bank-conflict clocks the staging adds in the simulator.
"""

from __future__ import annotations

import argparse
import re
import statistics
import struct
import time
from collections import Counter

import numpy as np

from accel.api import compile_gemm, gemm_module_text
from accel.bindings import ir, new_context
from accel.dialect.element_types import NUMPY_TYPES
from accel.diagnostics import AccelError
from accel.dialect.perf_config import PerfConfig
from accel.dialect.kernel_plan import BF16_ROUNDS
from accel.passes import wmma_banks
from accel.passes.gemm_to_gpu import lower_gemms
from accel.passes.plan_kernel import PlanKernel
from accel.passes.wmma_banks import wmma_bank_collisions
from accel.sim import run_kernel
from accel.target.database import get_arch
from bench_compile import force_bf16_round   # scripts beside this one

# (arch, in_type, perf config, A layout, B layout): the tiles selection picks for large
# and skinny GEMMs, plus a small one, in the plain layouts a graph compiler passes most.
CASES = (
    ("gfx942", "f16", "v4:128,256,4,64,64,32,8,1,1,2,0,0,1,1", "row", "row"),
    ("gfx942", "f16", "v4:64,64,8,32,32,32,8,1,1,2,0,0,1,1", "row", "transposed"),
    ("gfx942", "f16", "v4:16,16,8,16,16,16,8,1,1,2,0,0,1,1", "accel", "accel"),
    ("gfx942", "i8", "v4:16,16,8,16,16,16,16,1,1,2,0,0,1,1", "row", "row"),
    ("gfx1100", "f16", "v4:128,128,2,64,64,16,8,1,1,2,0,0,1,1", "row", "row"),
    ("gfx1100", "f16", "v4:32,64,8,16,16,16,8,1,1,2,0,0,1,1", "row", "transposed"),
    ("gfx1100", "i8", "v4:16,32,8,16,16,16,16,1,1,2,0,0,1,1", "row", "row"),
    ("gfx1201", "f16", "v4:128,256,2,64,64,16,8,1,1,2,0,0,1,1", "row", "row"),
    ("gfx1201", "f16", "v4:64,64,8,32,16,16,8,1,1,2,0,0,1,1", "accel", "accel"),
    ("gfx1201", "f16", "v4:16,256,4,16,32,16,8,1,1,2,0,0,1,1", "row", "transposed"),
)
# fp8 (arch, A type, B type, perf config, A layout, B layout): both gfx942 MFMA shapes
# with fp8 x bf8, gfx1201's WMMA with bf8 x fp8; the first of each chip is the tile
# selection picks for SHAPE, the second a small one in other layouts.
FP8_CASES = (
    ("gfx942", "f8E4M3FNUZ", "f8E5M2FNUZ", "v4:128,128,16,64,64,32,16,1,1,2,0,0,1,1", "row", "row"),
    ("gfx942", "f8E4M3FNUZ", "f8E5M2FNUZ", "v4:64,64,8,32,32,16,16,1,1,2,0,0,1,1", "row",
     "transposed"),
    ("gfx1201", "f8E5M2", "f8E4M3FN", "v4:128,128,8,32,32,16,16,1,1,2,0,0,1,1", "row", "row"),
    ("gfx1201", "f8E5M2", "f8E4M3FN", "v4:64,64,8,32,16,16,16,1,1,2,0,0,1,1", "accel", "accel"),
)
# The six f16 GEMMs (f16 out) of the main-loop figures, compiled with the tile the
# selector picks, B row-major and transposed.
SIX_SHAPES = ((4096, 4096, 4096), (2048, 2048, 2048), (3402, 4096, 1024), (528, 528, 1024),
              (48, 4096, 4096), (1, 11008, 4096))
LARGE_SHAPES = SIX_SHAPES[:3]
ARCHES = ("gfx942", "gfx1100", "gfx1201")
# The compiled problem: many k-tiles, M ragged so the row predicates are in the code,
# N a multiple of 8 as in most models (C stores take their full vector width).
SHAPE = dict(g=1, m=3402, n=4096, k=1024)

# gfx9 spells widths as words, gfx11/12 as bit counts.
_WORD_BITS = {"ubyte": 8, "sbyte": 8, "byte": 8, "ushort": 16, "sshort": 16, "short": 16,
              "dword": 32, "dwordx2": 64, "dwordx3": 96, "dwordx4": 128}


def width(mnemonic: str) -> str:
    """The access width of a memory instruction in bits ('64x2' for read2/write2)."""
    parts = mnemonic.split("_")
    pair = "x2" if any(p.startswith(("read2", "write2", "load_2", "store_2")) or
                       p in ("read2st64", "write2st64") for p in parts) else ""
    for p in reversed(parts):
        if p in _WORD_BITS:
            return f"{_WORD_BITS[p]}{pair}"
        m = re.fullmatch(r"[buid]?(8|16|32|64|96|128)", p)
        if m:
            return f"{m.group(1)}{pair}"
    return "?"


def classify(mnemonic: str) -> str | None:
    """The row of the table an instruction counts in, or None."""
    if mnemonic.startswith(("v_mfma", "v_wmma")):
        return "mma"
    if mnemonic.startswith(("buffer_load", "global_load")):
        return "gload"
    if mnemonic.startswith(("buffer_store", "global_store")):
        return "gstore"
    if mnemonic.startswith(("ds_read", "ds_load")):
        return "lds_rd"
    if mnemonic.startswith(("ds_write", "ds_store")):
        return "lds_wr"
    if mnemonic in ("s_barrier", "s_barrier_signal"):
        return "barrier"
    if mnemonic.startswith("s_wait"):   # s_waitcnt; gfx12 s_wait_loadcnt/dscnt/...
        return "waits"
    return None


def isa_stats(asm: str) -> dict:
    counts: dict[str, Counter] = {k: Counter() for k in
                                  ("mma", "gload", "gstore", "lds_rd", "lds_wr")}
    scalar = Counter()
    instructions = 0
    for line in asm.splitlines():
        if not line.startswith("\t") or line.startswith("\t."):
            continue
        mnemonic = line.split()[0]
        instructions += 1
        row = classify(mnemonic)
        if row in counts:
            counts[row][mnemonic if row == "mma" else width(mnemonic)] += 1
        elif row:
            scalar[row] += 1
    loop = loop_body(asm)
    meta = {k: int(v) for k, v in re.findall(r"^\s+\.(\w+_count|private_segment_fixed_size):"
                                             r"\s+(\d+)", asm, re.M)}
    return {"counts": counts, "barrier": scalar["barrier"], "waits": scalar["waits"],
            "vgprs": meta.get("vgpr_count", 0), "agprs": meta.get("agpr_count", 0),
            "scratch": meta.get("private_segment_fixed_size", 0),
            "spills": meta.get("vgpr_spill_count", 0) + meta.get("sgpr_spill_count", 0),
            "loop": Counter(_kind(m) for m in loop), "instructions": instructions}


def _kind(mnemonic: str) -> str:
    if classify(mnemonic) in ("mma", "gload", "gstore", "lds_rd", "lds_wr"):
        return "mem+mma"
    return "valu" if mnemonic.startswith("v_") else "salu+other"


def loop_body(asm: str) -> list[str]:
    """Mnemonics of the outermost loop (the k-tile loop): from the label that the last
    backward branch targets to that branch."""
    lines = [ln.strip() for ln in asm.splitlines()]
    labels = {ln[:-1]: i for i, ln in enumerate(lines) if ln.startswith(".LBB") and
              ln.endswith(":")}
    body = []
    for i, ln in enumerate(lines):
        parts = ln.split()
        if parts and parts[0].startswith(("s_cbranch", "s_branch")) and parts[-1] in labels and \
                labels[parts[-1]] < i:
            start = labels[parts[-1]]
            # The k-tile loop's blocks may sit past a conditional latch and close with
            # an s_branch back (an operand copy under scf.if): take the farthest branch.
            if not body or start < body[0] or (start == body[0] and i > body[1]):
                body = [start, i]
    if not body:
        return []
    return [ln.split()[0] for ln in lines[body[0] + 1:body[1] + 1]
            if ln and not ln.startswith((".", ";"))]


def mma_loop(asm: str) -> list[str]:
    """Instruction lines (mnemonic and operands) of the innermost loop that holds MMAs:
    a loop spans from a label to the last backward branch to it (its blocks may be laid
    out around the header), and the innermost is the shortest such span with a
    v_mfma/v_wmma."""
    lines = [ln.strip() for ln in asm.splitlines()]
    labels = {ln[:-1]: i for i, ln in enumerate(lines) if ln.startswith(".LBB") and
              ln.endswith(":")}
    ends: dict[int, int] = {}
    for i, ln in enumerate(lines):
        parts = ln.split()
        if parts and parts[0].startswith(("s_cbranch", "s_branch")) and \
                parts[-1] in labels and labels[parts[-1]] < i:
            ends[labels[parts[-1]]] = i
    best = None
    for start, end in ends.items():
        body = [x for x in lines[start + 1:end + 1] if x and not x.startswith((".", ";"))]
        if any(classify(x.split()[0]) == "mma" for x in body) and \
                (best is None or len(body) < len(best)):
            best = body
    return best or []


def mma_work(line: str) -> float:
    """MMA work of an instruction in 16x16x16 units (m*n*k / 4096); 0 for others."""
    m = re.match(r"v_(?:mfma|wmma)\w*?_(\d+)x(\d+)x(\d+)", line)
    return int(m.group(1)) * int(m.group(2)) * int(m.group(3)) / 4096 if m else 0.0


def loop_mix(body: list[str]) -> dict:
    """The main loop's instruction mix, by kind."""
    mix = Counter()
    for line in body:
        mn = line.split()[0]
        row = classify(mn)
        if row in ("mma", "gload", "lds_rd", "lds_wr", "barrier", "waits"):
            mix[row] += 1
        elif mn.startswith("v_"):
            mix["valu"] += 1
        else:
            mix["salu"] += 1
    mix["total"] = len(body)
    return mix


def work_share(body: list[str]) -> float:
    """MMA work / (MMA work + every other instruction) over one iteration."""
    work = sum(mma_work(x) for x in body)
    others = sum(1 for x in body if not mma_work(x))
    return work / (work + others) if work else 0.0


def _vm_wait(line: str) -> int | None:
    """The global-load count a wait leaves outstanding (`s_waitcnt vmcnt(N)`,
    `s_wait_loadcnt N`, `s_wait_loadcnt_dscnt` with loadcnt in bits 8+), else None."""
    m = re.search(r"vmcnt\((\d+)\)", line)
    if m and line.startswith("s_waitcnt"):
        return int(m.group(1))
    parts = line.split()
    if parts[0] == "s_wait_loadcnt":
        return int(parts[1], 0)
    if parts[0] == "s_wait_loadcnt_dscnt":
        return int(parts[1], 0) >> 8
    return None


def load_cover(body: list[str]) -> list[float]:
    """Per global load of the loop: the MMA work (16x16x16 units) issued between it and
    the first wait that needs it (a wait for N leaves the N newest loads outstanding),
    following the back edge. A load no wait of the next iteration needs is covered by
    (at least) a whole iteration and then some: reported as two iterations' work."""
    cover = []
    n = len(body)
    for i, line in enumerate(body):
        if classify(line.split()[0]) != "gload":
            continue
        work, newer = 0.0, 0
        for j in range(1, 2 * n):
            x = body[(i + j) % n]
            mn = x.split()[0]
            if classify(mn) == "gload":
                newer += 1
            work += mma_work(x)
            keep = _vm_wait(x)
            if keep is not None and newer >= keep:
                break
        cover.append(work)
    return cover


def text_bytes(elf: bytes) -> int:
    """Size of the code object's .text section (one kernel per object)."""
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3A)
    heads = [struct.unpack_from("<IIQQQQ", elf, shoff + i * shentsize) for i in range(shnum)]
    names_at = heads[shstrndx][4]
    for name_off, _, _, _, _, size in heads:
        start = names_at + name_off
        if elf[start:elf.index(b"\0", start)] == b".text":
            return size
    return 0


def bank_conflicts(arch, in_type, config, a_layout, b_layout,
                   b_type=None, out_type=None) -> tuple[int, int]:
    """Extra LDS clocks (reads, writes) of one workgroup over two k-tiles, simulated
    (a split-K config unsplit: its partial kernel has the same LDS traffic)."""
    cfg = PerfConfig.parse(config, get_arch(arch).mma_kind).replace(split_k=1)
    config = str(cfg)
    g, m, n, k = 1, cfg.m_per_block, cfg.n_per_block, 2 * cfg.k_per_block
    text = gemm_module_text(arch, g=g, m=m, n=n, k=k, in_type=in_type, out_type=out_type,
                            trans_a=a_layout == "transposed", trans_b=b_layout == "transposed",
                            a_layout="accel" if a_layout == "accel" else "row",
                            b_layout="accel" if b_layout == "accel" else "row",
                            perf_config=config, accumulate=False, b_type=b_type)
    with new_context():
        module = ir.Module.parse(text)
        PlanKernel().run(module)
        (kernel,) = lower_gemms(module)
        args = []
        for op in (kernel.a, kernel.b):
            args.append(np.zeros(op.shape, dtype=NUMPY_TYPES[op.elem]))
        args.append(np.zeros((g, m, n), dtype=NUMPY_TYPES[kernel.out_type]))
        report = run_kernel(module, kernel.symbol, grid=kernel.grid,
                            block=(kernel.block_size, 1, 1), args=args, arch=arch)
    reads = sum(c for op, c in report.bank_conflicts.items() if ".load" in op.split()[0])
    writes = sum(c for op, c in report.bank_conflicts.items() if ".store" in op.split()[0])
    return reads, writes


def fmt(c: Counter) -> str:
    return " ".join(f"{k}:{v}" for k, v in sorted(c.items(), key=lambda kv: str(kv[0]))) or "-"


def main_loop_line(asm: str) -> str:
    body = mma_loop(asm)
    cover = load_cover(body)
    mix = loop_mix(body)
    cover_text = f"{min(cover):g}/{statistics.median(cover):g}" if cover else "-"
    return (f"work share {work_share(body):.3f}  load cover min/median {cover_text}  "
            f"mix {fmt(mix)}")


def b_path_line(arch: str, mixes: dict) -> str:
    """What a row-major B adds to the main loop over a transposed one, by kind, against
    the dwords of B each thread transposes a k-tile. An MMA lane takes K pairs of one
    column per dword and a row-major load gives N pairs of one k, so each dword the
    transpose builds is one instruction (v_perm_b32, two halves of two rows), what the
    row-major loop adds on every chip. Moving the transpose to the LDS reads costs more:
    a lane's B dword is then two 16-bit reads, and kpack 1 (LDS in the global [K][N]
    order, fragments gathered element by element) measured on gfx942 4096^3 (128x256,
    kPerBlock 64): 192 ds_read_u16, 32 ds_write_b16 and 96 v_perm_b32 in the loop, work
    share 0.193 against 0.574."""
    (row, row_cfg), (tr, tr_cfg) = mixes[False], mixes[True]
    if row_cfg != tr_cfg:
        return "row-major B: another tile than transposed, not compared"
    cfg = PerfConfig.parse(row_cfg)
    dwords = cfg.n_per_block * cfg.k_per_block * 2 // (4 * cfg.block_size(
        get_arch(arch).wave_size))
    extra = {kind: row[kind] - tr[kind] for kind in sorted(set(row) | set(tr))
             if row[kind] != tr[kind] and kind != "total"}
    return (f"row-major B: {row['total'] - tr['total']:+d} instructions an iteration "
            f"({fmt(Counter(extra))}); B dwords transposed a thread {dwords}")


def six_shapes(arch_filter: str | None, sim: bool, schedule: int | None,
               in_type: str = "f16", out_type: str | None = None) -> None:
    """The main loop over the six shapes with the selector's tile, per chip (its
    scheduleVersion replaced by `schedule` when given)."""
    out_type = out_type or in_type
    print(f"Main loop (innermost loop with MMAs), {in_type} -> {out_type}, the selector's tile"
          + (f", scheduleVersion {schedule}:" if schedule else ":"))
    for arch in ARCHES:
        if arch_filter and arch != arch_filter:
            continue
        shares = {False: [], True: []}
        large_cover = {False: [], True: []}
        for m, n, k in SIX_SHAPES:
            mixes = {}
            for trans_b in (False, True):
                r = compile_gemm(arch, m=m, n=n, k=k, in_type=in_type, out_type=out_type,
                                 trans_b=trans_b, assembly=schedule is None)
                kept = ""
                if schedule:
                    cfg = PerfConfig.parse(r.kernels[0].metadata["perf_config"])
                    try:
                        r = compile_gemm(arch, m=m, n=n, k=k, in_type=in_type,
                                         out_type=out_type, trans_b=trans_b, perf_config=str(
                                             cfg.replace(schedule_version=schedule)))
                    except AccelError as e:   # e.g. two LDS copies that do not fit
                        # The reason, without the perf config the row already shows.
                        why = e.message.split("': ", 1)[-1]
                        kept = f" (scheduleVersion {schedule} refused: {why})"
                        r = compile_gemm(arch, m=m, n=n, k=k, in_type=in_type,
                                         out_type=out_type, trans_b=trans_b,
                                         perf_config=str(cfg))
                kern = r.kernels[0]
                body = mma_loop(kern.assembly)
                s = isa_stats(kern.assembly)
                shares[trans_b].append(work_share(body))
                if (m, n, k) in LARGE_SHAPES:
                    large_cover[trans_b] += load_cover(body)
                sim_text = ""
                if sim:
                    rd, wr = bank_conflicts(arch, in_type, kern.metadata["perf_config"], "row",
                                            "transposed" if trans_b else "row",
                                            out_type=out_type)
                    sim_text = f" bank-conflict clocks rd={rd} wr={wr}"
                depth = pipeline_depth(_plan_text(in_type, kern.metadata["perf_config"],
                                                  trans_b, arch, (m, n, k)))
                print(f"  {arch} {m}x{n}x{k} B={'transposed' if trans_b else 'row'} "
                      f"{kern.metadata['perf_config']} depth={depth} vgpr={s['vgprs']}"
                      + (f"+agpr={s['agprs']}" if s["agprs"] else "")
                      + f" scratch={s['scratch']}B spills={s['spills']}{sim_text}{kept}"
                      + f" instructions={s['instructions']} loop={len(body)}")
                print(f"      {main_loop_line(kern.assembly)}")
                mixes[trans_b] = (loop_mix(body), kern.metadata["perf_config"])
            print(f"      {b_path_line(arch, mixes)}")
        for trans_b in (False, True):
            cover = large_cover[trans_b]
            cover_text = f"{min(cover):g}/{statistics.median(cover):g}" if cover else "-"
            print(f"  {arch} B {'transposed' if trans_b else 'row'}: median work share "
                  f"{statistics.median(shares[trans_b]):.3f} (six shapes), "
                  f"{statistics.median(shares[trans_b][:3]):.3f} (three large); load cover "
                  f"min/median on the large shapes {cover_text}")


def full_agprs(arch_name: str = "gfx942", out_type: str | None = None,
               min_acc: int | None = None, every: int = 1) -> None:
    """The gfx942 rungs whose MFMA accumulators fill the AGPRs (a 128x128 wave tile: 256
    of the 512 registers a lane), where registers run out first: every such rung of the
    f16 and bf16 ladders (tuning/selection.py `_ladder`, scheduleVersion 1 and 2), B
    row-major and transposed, 2048^3: the plan's read-ahead and fences, VGPRs, scratch,
    spills (LLVM's count, spills into AGPRs included), the machine instructions, the
    main loop's and its work share. On a WMMA chip the rungs whose accumulators fill
    half its VGPRs. C is `out_type` (default: the input type); `min_acc` takes the rungs
    with at least that many accumulator registers a lane instead, every `every`th."""
    from accel.tuning.selection import _ladder
    arch = get_arch(arch_name)
    least = min_acc or arch.vgprs_per_lane // 2
    print(f"{arch_name} rungs with at least {least} accumulator registers a lane, 2048^3"
          + (f", every {every}" if every > 1 else "") + (f", C {out_type}:" if out_type else ":"))
    totals = Counter()
    for version in (1, 2):
        for in_type in ("f16", "bf16"):
            good, _ = _ladder(arch, in_type, in_type, None, None, version)
            for prep in [p for p in good if p.config.m_per_wave * p.config.n_per_wave
                         // arch.wave_size >= least][::every]:
                for trans_b in (False, True):
                    r = compile_gemm(arch_name, m=2048, n=2048, k=2048, in_type=in_type,
                                     out_type=out_type, trans_b=trans_b, perf_config=prep.text)
                    kern = r.kernels[0]
                    s = isa_stats(kern.assembly)
                    planned = _plan_text(in_type, prep.text, trans_b, arch_name)
                    plan = re.search(r"lds_read_ahead = (\w+)", planned)
                    body = mma_loop(kern.assembly)
                    totals["kernels"] += 1
                    totals["with scratch"] += bool(s["scratch"])
                    totals["with spills"] += bool(s["spills"])
                    print(f"  {in_type} {prep.text} B={'transposed' if trans_b else 'row'} "
                          f"read-ahead={plan.group(1) if plan else '?'} depth="
                          f"{pipeline_depth(planned)} "
                          f"vgpr={s['vgprs']} "
                          f"scratch={s['scratch']}B spills={s['spills']} instructions="
                          f"{s['instructions']} loop={len(body)} work share "
                          f"{work_share(body):.3f}", flush=True)
    print(f"  {totals['kernels']} kernels, {totals['with scratch']} with scratch, "
          f"{totals['with spills']} with spills")


def depth_two(every: int, trans_b: bool) -> None:
    """The scheduleVersion 2 rungs planned two k-tiles ahead, compiled (module docstring)."""
    from accel.tuning.selection import _ladder
    fp8 = {"gfx942": "f8E4M3FNUZ", "gfx1201": "f8E4M3FN"}
    print(f"Rungs with pipeline_depth 2, 2048^3, B {'transposed' if trans_b else 'row'}, "
          f"every {every}:")
    for arch_name in ARCHES:
        arch = get_arch(arch_name)
        for in_type in ("f16", "bf16", "i8") + ((fp8[arch_name],) if arch_name in fp8 else ()):
            good, _ = _ladder(arch, in_type, in_type, None, None, 2)
            deep = [p for p in good if p.terms.depth == 2][::every]
            worst, bad = (0.0, ""), Counter()
            for prep in deep:
                r = compile_gemm(arch_name, m=2048, n=2048, k=2048, in_type=in_type,
                                 trans_b=trans_b, perf_config=prep.text)
                s = isa_stats(r.kernels[0].assembly)
                used = s["vgprs"] + s["agprs"]
                bad["scratch"] += bool(s["scratch"])
                bad["spills"] += bool(s["spills"])
                bad["under 10%"] += prep.regs < 0.9 * used
                worst = max(worst, (used / prep.regs, f"{prep.text} {used} for {prep.regs}"))
            print(f"  {arch_name} {in_type}: {len(deep)} rungs, {bad['scratch']} with scratch, "
                  f"{bad['spills']} with spills, {bad['under 10%']} under-estimated by >10%; "
                  f"most VGPRs over the estimate: {worst[0]:.2f}x ({worst[1]})", flush=True)


def _plan_text(in_type: str, config: str, trans_b: bool, arch: str = "gfx942",
               shape: tuple[int, int, int] = (2048, 2048, 2048), b_type: str | None = None,
               trans_a: bool = False, a_layout: str = "row", b_layout: str = "row") -> str:
    """The planned gemm's attributes (accel-plan-kernel) as text."""
    m, n, k = shape
    text = gemm_module_text(arch, g=1, m=m, n=n, k=k, in_type=in_type, b_type=b_type,
                            out_type=None, trans_a=trans_a, trans_b=trans_b,
                            a_layout=a_layout, b_layout=b_layout, perf_config=config,
                            accumulate=False)
    with new_context():
        module = ir.Module.parse(text)
        PlanKernel().run(module)
        return str(module)


def pipeline_depth(text: str) -> str:
    """The plan's pipeline_depth (k-tiles the loads run ahead) in `_plan_text`'s text."""
    m = re.search(r"pipeline_depth = (\d+)", text)
    return m.group(1) if m else "?"


def c_staging(arch_filter: str | None, sim: bool) -> None:
    """outputSwizzle 1 against 0 on each case's tile and SHAPE (f16 -> f16 cases)."""
    print("C through LDS (outputSwizzle 1) vs from the accumulators (0), "
          f"{SHAPE['m']}x{SHAPE['n']}x{SHAPE['k']}:")
    cases = [(arch, t, t, config, la, lb) for arch, t, config, la, lb in CASES] + list(FP8_CASES)
    for i, (arch, t, bt, config, la, lb) in enumerate(cases):
        if arch_filter and arch != arch_filter:
            continue
        cfg = PerfConfig.parse(config, get_arch(arch).mma_kind)
        row = []
        for swizzle in (0, 1):
            text = str(cfg.replace(output_swizzle=swizzle))
            kw = dict(in_type=t, b_type=bt, perf_config=text, trans_a=la == "transposed",
                      trans_b=lb == "transposed", a_layout="accel" if la == "accel" else "row",
                      b_layout="accel" if lb == "accel" else "row")
            try:
                cpu = []
                for _ in range(3):
                    start = time.process_time()
                    r = compile_gemm(arch, **SHAPE, **kw)
                    cpu.append(time.process_time() - start)
            except AccelError as e:
                row.append(f"refused: {e.message}")
                continue
            s = isa_stats(r.kernels[0].assembly)
            c = s["counts"]
            stores = sum(c["gstore"].values())
            bits = sum(int(w) * n for w, n in c["gstore"].items())
            conflicts = ""
            if sim:
                conflicts = " conflict clocks rd+wr=%d" % sum(bank_conflicts(arch, t, text, la, lb, bt))
            row.append(f"stores {stores} x {bits / stores / 8:g} B, LDS rd "
                       f"{sum(c['lds_rd'].values())} wr {sum(c['lds_wr'].values())}, barriers "
                       f"{s['barrier']}, vgpr {s['vgprs']}, "
                       f"lds {r.kernels[0].metadata['lds_bytes']} B, cpu {min(cpu) * 1e3:.0f} ms"
                       + conflicts)
        print(f"  [{i}] {arch} {t} {config}\n      0: {row[0]}\n      1: {row[1]}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--arch", help="only this arch")
    p.add_argument("--no-sim", action="store_true", help="skip the bank-conflict simulation")
    p.add_argument("--show-asm", type=int, metavar="N", help="print the assembly of case N")
    p.add_argument("--only", choices=("cases", "shapes", "c-staging", "full-agprs",
                                      "depth-two"),
                   help="only the ladder cases, only the six shapes, only C through LDS or "
                   "only the gfx942 rungs whose accumulators fill the AGPRs")
    p.add_argument("--schedule-version", type=int, choices=(1, 2, 3, 4),
                   help="the six shapes with this scheduleVersion instead of the selector's")
    p.add_argument("--every", type=int, default=1, metavar="N",
                   help="with --only depth-two or full-agprs: every Nth rung")
    p.add_argument("--min-acc", type=int, metavar="N",
                   help="with --only full-agprs: the rungs with at least N accumulator "
                        "registers a lane (default half the registers)")
    p.add_argument("--trans-b", action="store_true",
                   help="with --only depth-two: B transposed")
    p.add_argument("--without-wmma-banks", action="store_true",
                   help="serialize as LLVM allocated (wmma_banks.ENABLED = False): the before")
    p.add_argument("--in-type", default="f16", help="the six shapes' A and B type")
    p.add_argument("--out-type", help="C's type in the six shapes and the full-agprs rungs")
    p.add_argument("--bf16-round", choices=BF16_ROUNDS,
                   help="round f32 to bf16 this way wherever the plan rounds to bf16")
    args = p.parse_args()
    wmma_banks.ENABLED = not args.without_wmma_banks
    if args.bf16_round:
        force_bf16_round(args.bf16_round)
    compile_gemm("gfx942", m=64, n=64, k=64)  # warm-up
    if args.only == "c-staging":
        c_staging(args.arch, not args.no_sim)
        return
    if args.only == "full-agprs":
        full_agprs(args.arch or "gfx942", args.out_type, args.min_acc, args.every)
        return
    if args.only == "depth-two":
        depth_two(args.every, args.trans_b)
        return
    if args.only != "cases":
        six_shapes(args.arch, not args.no_sim, args.schedule_version, args.in_type,
                   args.out_type)
    if args.only == "shapes":
        return
    cases = [(arch, t, t, config, la, lb) for arch, t, config, la, lb in CASES] + list(FP8_CASES)
    for i, (arch, t, bt, config, la, lb) in enumerate(cases):
        if args.arch and arch != args.arch:
            continue
        start = time.perf_counter()
        r = compile_gemm(arch, **SHAPE, in_type=t, b_type=bt, perf_config=config,
                         trans_a=la == "transposed", trans_b=lb == "transposed",
                         a_layout="accel" if la == "accel" else "row",
                         b_layout="accel" if lb == "accel" else "row")
        ms = (time.perf_counter() - start) * 1e3
        k = r.kernels[0]
        s = isa_stats(k.assembly)
        c = s["counts"]
        regs = f"vgpr={s['vgprs']}" + (f"+agpr={s['agprs']}" if s["agprs"] else "")
        types = t if bt == t else f"{t} x {bt}"
        depth = pipeline_depth(_plan_text(
            t, config, lb == "transposed", arch, (SHAPE["m"], SHAPE["n"], SHAPE["k"]), bt,
            la == "transposed", "accel" if la == "accel" else "row",
            "accel" if lb == "accel" else "row"))
        print(f"[{i}] {arch} {types} {config} A={la} B={lb} depth={depth}  "
              f"({ms:.0f} ms to compile)")
        print(f"    {regs} scratch={s['scratch']}B spills={s['spills']} "
              f"code={text_bytes(k.code_object)}B  mma {fmt(c['mma'])}")
        print(f"    global load {fmt(c['gload'])} | store {fmt(c['gstore'])}")
        print(f"    LDS read {fmt(c['lds_rd'])} | write {fmt(c['lds_wr'])} | "
              f"barriers={s['barrier']} waits={s['waits']} | k-tile loop {fmt(s['loop'])}")
        # Seed 002: a v_wmma with two of its A, B, C/D operands on one VGPR bank (first
        # VGPR % 4) issues every 34 instead of 32 cycles; accel-wmma-banks separates them.
        print(f"    main loop: {main_loop_line(k.assembly)}")
        colliding, wmmas = wmma_bank_collisions(k.assembly)
        if wmmas:
            print(f"    WMMA VGPR-bank collisions (seed 002: 34 instead of 32 cycles): "
                  f"{colliding} of {wmmas}")
        if not args.no_sim:
            rd, wr = bank_conflicts(arch, t, config, la, lb, bt)
            print(f"    sim bank-conflict clocks per workgroup: read={rd} write={wr}")
        if args.show_asm == i:
            print(k.assembly)
    if args.only is None:
        c_staging(args.arch, not args.no_sim)


if __name__ == "__main__":
    main()
