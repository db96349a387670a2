"""Kernel quality per arch and tile: what the ISA and the simulator's LDS model show.

    python benchmarks/bench_kernel_quality.py [--arch gfx942] [--no-sim] [--show-asm N]
                                              [--without-wmma-banks]

For each case (arch, perf config, operand layouts) it compiles a GEMM with
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
"""

from __future__ import annotations

import argparse
import re
import struct
import time
from collections import Counter

import numpy as np

from accel.api import compile_gemm, gemm_module_text
from accel.bindings import ir, new_context
from accel.dialect.perf_config import PerfConfig
from accel.passes import wmma_banks
from accel.passes.gemm_to_gpu import lower_gemms
from accel.passes.wmma_banks import wmma_bank_collisions
from accel.sim import run_kernel
from accel.target.database import get_arch

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
    for line in asm.splitlines():
        if not line.startswith("\t") or line.startswith("\t."):
            continue
        mnemonic = line.split()[0]
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
            "loop": Counter(_kind(m) for m in loop)}


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
        if parts and parts[0].startswith("s_cbranch") and parts[-1] in labels and \
                labels[parts[-1]] < i:
            start = labels[parts[-1]]
            if not body or start < body[0]:
                body = [start, i]
    if not body:
        return []
    return [ln.split()[0] for ln in lines[body[0] + 1:body[1] + 1]
            if ln and not ln.startswith((".", ";"))]


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


def bank_conflicts(arch, in_type, config, a_layout, b_layout) -> tuple[int, int]:
    """Extra LDS clocks (reads, writes) of one workgroup over two k-tiles, simulated."""
    cfg = PerfConfig.parse(config, get_arch(arch).mma_kind)
    g, m, n, k = 1, cfg.m_per_block, cfg.n_per_block, 2 * cfg.k_per_block
    text = gemm_module_text(arch, g=g, m=m, n=n, k=k, in_type=in_type, out_type=None,
                            trans_a=a_layout == "transposed", trans_b=b_layout == "transposed",
                            a_layout="accel" if a_layout == "accel" else "row",
                            b_layout="accel" if b_layout == "accel" else "row",
                            perf_config=config, accumulate=False)
    with new_context():
        module = ir.Module.parse(text)
        (kernel,) = lower_gemms(module)
        args = []
        for op in (kernel.a, kernel.b):
            args.append(np.zeros(op.shape, dtype=np.int8 if in_type == "i8" else np.float16))
        out = {"f16": np.float16, "i32": np.int32, "f32": np.float32}[kernel.out_type]
        args.append(np.zeros((g, m, n), dtype=out))
        report = run_kernel(module, kernel.symbol, grid=kernel.grid,
                            block=(kernel.block_size, 1, 1), args=args, arch=arch)
    reads = sum(c for op, c in report.bank_conflicts.items() if ".load" in op.split()[0])
    writes = sum(c for op, c in report.bank_conflicts.items() if ".store" in op.split()[0])
    return reads, writes


def fmt(c: Counter) -> str:
    return " ".join(f"{k}:{v}" for k, v in sorted(c.items(), key=lambda kv: str(kv[0]))) or "-"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--arch", help="only this arch")
    p.add_argument("--no-sim", action="store_true", help="skip the bank-conflict simulation")
    p.add_argument("--show-asm", type=int, metavar="N", help="print the assembly of case N")
    p.add_argument("--without-wmma-banks", action="store_true",
                   help="serialize as LLVM allocated (wmma_banks.ENABLED = False): the before")
    args = p.parse_args()
    wmma_banks.ENABLED = not args.without_wmma_banks
    compile_gemm("gfx942", m=64, n=64, k=64)  # warm-up
    for i, (arch, t, config, la, lb) in enumerate(CASES):
        if args.arch and arch != args.arch:
            continue
        start = time.perf_counter()
        r = compile_gemm(arch, **SHAPE, in_type=t, perf_config=config,
                         trans_a=la == "transposed", trans_b=lb == "transposed",
                         a_layout="accel" if la == "accel" else "row",
                         b_layout="accel" if lb == "accel" else "row")
        ms = (time.perf_counter() - start) * 1e3
        k = r.kernels[0]
        s = isa_stats(k.assembly)
        c = s["counts"]
        regs = f"vgpr={s['vgprs']}" + (f"+agpr={s['agprs']}" if s["agprs"] else "")
        print(f"[{i}] {arch} {t} {config} A={la} B={lb}  ({ms:.0f} ms to compile)")
        print(f"    {regs} scratch={s['scratch']}B spills={s['spills']} "
              f"code={text_bytes(k.code_object)}B  mma {fmt(c['mma'])}")
        print(f"    global load {fmt(c['gload'])} | store {fmt(c['gstore'])}")
        print(f"    LDS read {fmt(c['lds_rd'])} | write {fmt(c['lds_wr'])} | "
              f"barriers={s['barrier']} waits={s['waits']} | k-tile loop {fmt(s['loop'])}")
        # Seed 002: a v_wmma with two of its A, B, C/D operands on one VGPR bank (first
        # VGPR % 4) issues every 34 instead of 32 cycles; accel-wmma-banks separates them.
        colliding, wmmas = wmma_bank_collisions(k.assembly)
        if wmmas:
            print(f"    WMMA VGPR-bank collisions (seed 002: 34 instead of 32 cycles): "
                  f"{colliding} of {wmmas}")
        if not args.no_sim:
            rd, wr = bank_conflicts(arch, t, config, la, lb)
            print(f"    sim bank-conflict clocks per workgroup: read={rd} write={wr}")
        if args.show_asm == i:
            print(k.assembly)


if __name__ == "__main__":
    main()
