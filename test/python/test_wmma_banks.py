"""accel-wmma-banks (passes/wmma_banks.py): every v_wmma's A, B and C on three VGPR banks.

The kernels are LLVM's with other VGPR numbers: each test compares the renumbered
assembly with LLVM's own (gpu-module-to-binary{format=isa} alone), by code that shares
nothing with the pass: the same instructions (an _e32 may become the _e64 LLVM prints
for a 16-bit half above v127), and every VGPR read sees the values its read in LLVM's
text sees (a reaching-definitions analysis of both, below).
"""

from __future__ import annotations

import re
import struct

import pytest

from accel.api import compile_gemm, gemm_module_text
from accel.bindings import ir, new_context
from accel.passes import vgpr_values, wmma_banks
from accel.passes.registry import load_all
from accel.pipelines.kernel import KernelPipeline, binaries, serialization
from accel.pipelines.textual import UpstreamSegment, run_steps
from accel.target.toolchain import ensure_linker

SHAPE = dict(g=1, m=3402, n=4096, k=1024)
# The WMMA kernels of benchmarks/bench_kernel_quality.py, then one per rung of the tile
# ladder (16..256, N rotated along it) and element type, in plain and transposed layouts.
CASES = [
    ("gfx1100", "f16", "v4:128,128,2,64,64,16,8,1,1,2,0,0,1,1", False),
    ("gfx1100", "f16", "v4:32,64,8,16,16,16,8,1,1,2,0,0,1,1", True),
    ("gfx1100", "i8", "v4:16,32,8,16,16,16,16,1,1,2,0,0,1,1", False),
    ("gfx1201", "f16", "v4:128,256,2,64,64,16,8,1,1,2,0,0,1,1", False),
    ("gfx1201", "f16", "v4:16,256,4,16,32,16,8,1,1,2,0,0,1,1", True),
    ("gfx1100", "bf16", "v4:16,64,4,16,16,16,8,1,1,2,0,0,1,1", False),
    ("gfx1100", "i8", "v4:128,128,8,32,32,16,16,1,1,2,0,0,1,1", False),
    ("gfx1100", "bf16", "v4:128,16,2,32,16,16,8,1,2,2,0,0,1,1", True),
    ("gfx1100", "f16", "v4:256,32,2,64,32,16,8,1,1,2,0,0,1,1", False),
    ("gfx1201", "i8", "v4:16,64,4,16,32,16,16,1,1,2,0,0,1,1", True),
    ("gfx1201", "bf16", "v4:32,128,4,32,32,16,8,1,2,2,0,0,1,1", False),
    ("gfx1201", "f16", "v4:64,256,2,64,64,16,8,1,1,2,0,0,1,1", True),
    ("gfx1201", "i8", "v4:128,16,2,32,16,16,16,1,2,2,0,0,1,1", False),
    ("gfx1201", "bf16", "v4:256,32,2,64,32,16,8,1,1,2,0,0,1,1", True),
]
CASES.insert(6, ("gfx1100", "f16", "v4:32,128,4,32,32,16,8,1,2,2,0,0,1,1", True))
# The kernels selection picks for the shapes of benchmarks/bench_wmma_banks.py: every
# rung it reaches on both chips and all three element types.
SWEEP_SHAPES = ((1, 4096, 4096, 4096), (1, 128, 1280, 5120), (1, 1, 11008, 4096),
                (1, 3402, 4096, 1024), (8, 512, 512, 64), (1, 77, 1001, 320), (4, 256, 256, 256),
                (1, 32, 4096, 4096), (1, 4096, 32, 4096), (1, 333, 777, 111), (16, 64, 64, 64))
SWEEP = [pytest.param(arch, t, shape, id=f"{arch}-{t}-{'x'.join(map(str, shape))}")
         for arch in ("gfx1100", "gfx1201") for t in ("f16", "bf16", "i8")
         for shape in SWEEP_SHAPES]
# A sample of the perf-config ladder (tuning/selection.py `_ladder`): every 37th rung of
# each chip and type, 58 of the 2068 (`python benchmarks/bench_wmma_banks.py --ladder`
# compiles them all: 2068 on three banks), the four rungs only the restarts of
# passes/wmma_banks.py lay out (LADDER_RESTARTED) and the six only its last resort lays
# out, LLVM's register ranges reordered (LADDER_REORDERED): gfx1100 rungs whose every
# operand is 8 VGPRs and whose allocation LLVM left within 7 VGPRs of the occupancy's
# limit (at one point of 64x256x2's loop 144 of 144 in use).
LADDER_STRIDE = 37
LADDER_RESTARTED = (("f16", "v4:64,128,16,32,32,16,8,1,1,2,0,0,1,1"),
                    ("bf16", "v4:64,128,16,32,32,16,8,1,1,2,0,0,1,1"),
                    ("bf16", "v4:128,128,2,64,64,16,16,1,1,2,0,0,1,1"),
                    ("bf16", "v4:256,256,4,64,64,16,8,1,1,2,0,0,1,1"))
LADDER_REORDERED = (("f16", "v4:64,256,2,64,32,16,16,1,1,2,0,0,1,1"),
                    ("f16", "v4:128,128,2,64,64,16,16,1,1,2,0,0,1,1"),
                    ("f16", "v4:256,64,2,64,32,16,16,1,1,2,0,0,1,1"),
                    ("f16", "v4:256,256,4,64,64,16,8,1,1,2,0,0,1,1"),
                    ("bf16", "v4:64,256,2,64,32,16,16,1,1,2,0,0,1,1"),
                    ("bf16", "v4:256,64,2,64,32,16,16,1,1,2,0,0,1,1"))


def _ladder_params():
    from accel.target.database import get_arch
    from accel.tuning.selection import _ladder
    out = []
    for arch in ("gfx1100", "gfx1201"):
        for t in ("f16", "bf16", "i8"):
            good, _ = _ladder(get_arch(arch), t, t, None, None, 1)
            out += [pytest.param(arch, t, p.text, id=f"{arch}-{t}-{p.text[3:]}")
                    for i, p in enumerate(good) if i % LADDER_STRIDE == 0]
    out += [pytest.param("gfx1100", t, c, id=f"gfx1100-{t}-{c[3:]}-restarted")
            for t, c in LADDER_RESTARTED]
    return out + [pytest.param("gfx1100", t, c, id=f"gfx1100-{t}-{c[3:]}-reordered")
                  for t, c in LADDER_REORDERED]


_TOKEN = re.compile(r"\bv(?:(\d+)|\[(\d+):(\d+)\])")
_WMMA = re.compile(r"^\s*v_wmma\w*\s+v\[(\d+):\d+\],\s*v\[(\d+):\d+\],\s*v\[(\d+):\d+\]", re.M)


def lower_plain(module, arch, fmt):
    """The kernel pipeline's lowering, serialized by LLVM alone (no accel-wmma-banks)."""
    pipeline = KernelPipeline(arch=arch)
    pipeline.to_kernel_ir(module)
    run_steps(module, pipeline.kernel_steps() + [UpstreamSegment(serialization(fmt), verify=False)])


def llvm_assembly(arch, in_type, config, trans_b):
    """The kernel as LLVM prints it, without accel-wmma-banks."""
    ensure_linker()
    text = gemm_module_text(arch, **SHAPE, in_type=in_type, out_type=None, trans_a=False,
                            trans_b=trans_b, a_layout="row", b_layout="row",
                            perf_config=config, accumulate=False)
    with new_context():
        module = ir.Module.parse(text)
        lower_plain(module, arch, "isa")
        (asm,) = binaries(module).values()
    return asm.decode()


def compiled(arch, in_type, config, trans_b):
    (k,) = compile_gemm(arch, **SHAPE, in_type=in_type, perf_config=config,
                        trans_b=trans_b).kernels
    return k


def banks(asm):
    return [tuple(int(r) % 4 for r in m) for m in _WMMA.findall(asm)]


def occupancy(asm: str) -> int:
    """Waves per SIMD on gfx11/gfx12 the descriptor's VGPRs allow (1536 per lane, at most
    16 waves, allocated in granules of 24)."""
    vgprs = int(re.search(r"\.amdhsa_next_free_vgpr (\d+)", asm).group(1))
    return min(16, 1536 // (-(-vgprs // 24) * 24))


def check_renumbered(before: str, kernel):
    """`kernel` is `before` (LLVM's text) with every v_wmma on three banks, the same data
    flow, and metadata that covers the registers it uses at LLVM's occupancy."""
    after = kernel.assembly.split("\n", 1)[1]
    assert any(len(set(x)) < 3 for x in banks(before)), "LLVM no longer collides"
    assert banks(after) and all(len(set(x)) == 3 for x in banks(after)), \
        kernel.assembly.split("\n", 1)[0]
    same_dataflow(before, after)
    used = 1 + max(int(m.group(3) or m.group(1)) for m in _TOKEN.finditer(
        "\n".join(_code_lines(after))))
    llvm_count = int(re.search(r"\.vgpr_count:\s+(\d+)", before).group(1))
    vgprs = kernel.metadata["vgprs"]
    assert vgprs >= used and vgprs >= llvm_count
    assert int(re.search(r"\.amdhsa_next_free_vgpr (\d+)", after).group(1)) >= used
    # More VGPRs only where the waves per SIMD stay.
    assert occupancy(after) == occupancy(before)
    # No spill added (LLVM's own stay: one scratch store and load in gfx1100 bf16
    # 333x777x111 on 64x64x128, TILE_OF_256_VGPRS).
    assert after.count("scratch_") == before.count("scratch_")


@pytest.mark.parametrize("arch,in_type,config,trans_b", CASES,
                         ids=[f"{a}-{t}-{c[3:14]}{'-tb' if tb else ''}"
                              for a, t, c, tb in (getattr(x, "values", x) for x in CASES)])
def test_every_wmma_on_three_banks(arch, in_type, config, trans_b):
    check_renumbered(llvm_assembly(arch, in_type, config, trans_b),
                     compiled(arch, in_type, config, trans_b))


@pytest.mark.parametrize("arch,in_type,shape", SWEEP)
def test_selected_kernels_on_three_banks(arch, in_type, shape, monkeypatch):
    g, m, n, k = shape

    def compile_it():
        # A split-K choice is two kernels; the reduction has no v_wmma.
        return [k for k in compile_gemm(arch, g=g, m=m, n=n, k=k, in_type=in_type).kernels
                if banks(k.assembly)]

    monkeypatch.setattr(wmma_banks, "ENABLED", False)
    before = [k.assembly for k in compile_it()]
    monkeypatch.setattr(wmma_banks, "ENABLED", True)
    after = compile_it()
    assert len(before) == len(after) == 1
    check_renumbered(before[0], after[0])


@pytest.mark.parametrize("arch,in_type,config", _ladder_params())
def test_ladder_rungs_on_three_banks(arch, in_type, config, monkeypatch):
    def compile_it():
        (k,) = compile_gemm(arch, m=2048, n=2048, k=2048, in_type=in_type,
                            perf_config=config).kernels
        return k

    monkeypatch.setattr(wmma_banks, "ENABLED", False)
    before = compile_it().assembly
    monkeypatch.setattr(wmma_banks, "ENABLED", True)
    after = compile_it()
    if all(len(set(x)) == 3 for x in banks(before)):    # 52 gfx1201 i8 rungs, as LLVM lays them
        assert after.assembly.split("\n", 1)[1] == before and "as allocated" in \
            after.assembly.split("\n", 1)[0]
    else:
        check_renumbered(before, after)


def test_the_budget_is_the_most_vgprs_at_the_same_waves():
    def waves(n):
        return min(16, 1536 // (-(-n // 24) * 24))

    for arch in ("gfx1100", "gfx1201"):
        for n in range(1, 257):
            budget = wmma_banks.occupancy_budget(arch, n)
            assert budget >= n and waves(budget) == waves(n)
            assert budget == 256 or waves(budget + 1) < waves(n)
    assert wmma_banks.occupancy_budget("gfx1100", 104) == 120   # 12 waves
    assert wmma_banks.occupancy_budget("gfx1201", 241) == 256   # 5 waves (LDS-bound: LLVM's 241)


def test_the_dataflow_check_sees_a_clobbered_value():
    """The check above fails for a renaming that is not one: one read moved to another
    register, or one write moved onto a register still live."""
    arch, in_type, config, tb = CASES[0]
    before = llvm_assembly(arch, in_type, config, tb)
    after = compiled(arch, in_type, config, tb).assembly.split("\n", 1)[1]
    same_dataflow(before, after)
    code = after.index(".type")
    # The first v_wmma's B one register on.
    read = re.search(r"\tv_wmma\w* v\[\d+:\d+\], v\[\d+:\d+\], v\[(\d+):(\d+)\]",
                     after[code:])
    lo, hi = int(read.group(1)), int(read.group(2))
    wrong = after[:code + read.start(1)] + f"{lo + 1}:{hi + 1}" + after[code + read.end(2):]
    with pytest.raises(AssertionError, match="reads see other values"):
        same_dataflow(before, wrong)
    # A VALU result moved onto the A operand of the next v_wmma, which still holds A.
    wmma = re.search(r"\tv_wmma\w* v\[\d+:\d+\], v\[(\d+):", after[code:])
    prior = list(re.finditer(r"^\tv_(?!wmma|cmp)\w+ v(\d+), ", after[code:code + wmma.start()],
                             re.M))[-1]
    clobbered = after[:code + prior.start(1)] + wmma.group(1) + after[code + prior.end(1):]
    with pytest.raises(AssertionError, match="reads see other values"):
        same_dataflow(before, clobbered)


# ---- the data flow of an assembly kernel, independent of the pass -------------------------
# A VGPR is two 16-bit units (true16 names v1.l, v1.h); a def is (instruction, operand,
# unit of it). A read sees the defs that reach it through the control flow; a write
# kills the unit's earlier defs only when it surely replaces all lanes (not after EXEC
# was narrowed: inactive lanes keep their value).
_REG = re.compile(r"\bv(?:(\d+)|\[(\d+):(\d+)\])(\.[lh])?")
_UNDEF = "undef"


def _code_lines(asm):
    start = asm.index(":\n", asm.index(".type")) + 2
    return asm[start:asm.index(".Lfunc_end")].split("\n")


def _instructions(asm):
    """[(label or None, mnemonic text, [(units, written?)] per VGPR operand)] and block
    structure: each entry is one instruction or one label."""
    out = []
    depth = 0
    for line in _code_lines(asm):
        body = line.split(";")[0].strip()
        if not body or body.startswith("."):
            if re.fullmatch(r"[\w.]+:", body):
                out.append(("label", body[:-1], None, None))
            continue
        mnemonic = body.split()[0]
        masked = depth > 0
        if mnemonic.startswith(("s_and_saveexec", "v_cmpx")):
            depth += 1
        elif mnemonic == "s_or_b32" and body.startswith("s_or_b32 exec_lo, exec_lo"):
            depth -= 1
        ops = []
        for part in body.split("::"):
            words = part.strip().split(None, 1)
            name, args = words[0], words[1] if len(words) > 1 else ""
            writes_first = name.startswith(("v_", "ds_load", "buffer_load", "global_load",
                                                   "scratch_load")) \
                and not name.startswith(("v_cmp", "v_readfirstlane"))
            for k, m in enumerate(_REG.finditer(args)):
                lo = int(m.group(1) or m.group(2))
                hi = int(m.group(1) or m.group(3))
                units = [2 * r + h for r in range(lo, hi + 1) for h in (0, 1)]
                if m.group(4):
                    units = [2 * lo + (m.group(4) == ".h")]
                first = writes_first and k == 0 and m.start() == 0
                if first and "d16" in name:
                    units = [u for u in units if u % 2 == ("d16_hi" in name)]
                ops.append((units, "write" if first else "read"))
        out.append(("instr", mnemonic, ops, masked))
    return out


def _reaching(asm):
    """{(instruction, operand, unit index): set of defs} for every VGPR read."""
    items = _instructions(asm)
    blocks, labels, cur = [], {}, []
    for kind, a, ops, masked in items:
        if kind == "label":
            if cur or not blocks:
                blocks.append(cur)
            cur = []
            labels[a] = len(blocks)
            continue
        cur.append((a, ops, masked))
        if a.startswith(("s_branch", "s_cbranch", "s_endpgm")):
            blocks.append(cur)
            cur = []
    blocks.append(cur)
    # Each label names the block that starts after it.
    labels = {k: v for k, v in labels.items()}
    index, n = [], 0
    for b in blocks:
        index.append(n)
        n += len(b)
    text = [ln.split(";")[0].strip() for ln in _code_lines(asm)]
    targets = [ln.split()[1] for ln in text if ln.startswith(("s_branch", "s_cbranch"))]
    succ = []
    for bi, b in enumerate(blocks):
        last = b[-1][0] if b else ""
        s = []
        if b and last.startswith(("s_branch", "s_cbranch")):
            s.append(labels[targets.pop(0)])
        if not (b and last.startswith(("s_branch", "s_endpgm"))) and bi + 1 < len(blocks):
            s.append(bi + 1)
        succ.append(s)
    entry = {u: frozenset([_UNDEF]) for u in range(512)}
    entry[0] = entry[1] = frozenset(["v0 at entry"])
    state_in = [None] * len(blocks)
    state_in[0] = entry
    reads = {}
    work = [0]
    while work:
        bi = work.pop()
        state = dict(state_in[bi])
        for j, (mnemonic, ops, masked) in enumerate(blocks[bi]):
            i = index[bi] + j
            for k, (units, role) in enumerate(ops):
                if role == "read":
                    for x, u in enumerate(units):
                        reads[(i, k, x)] = state[u]
            for k, (units, role) in enumerate(ops):
                if role == "write":
                    for x, u in enumerate(units):
                        d = frozenset([(i, k, x)])
                        state[u] = state[u] | d if masked else d
        for s in succ[bi]:
            new = state if state_in[s] is None else \
                {u: state_in[s][u] | state[u] for u in state}
            if new != state_in[s]:
                state_in[s] = new
                work.append(s)
    return reads


def same_dataflow(before, after):
    """Every VGPR read of `after` sees the defs its read in `before` sees (a read that may
    see an undefined value in `before` may see anything there)."""
    blank = [_REG.sub("V", ln) for ln in _code_lines(before)]
    lines = _code_lines(after)
    assert len(lines) == len(blank)
    for n, (line, was) in enumerate(zip(lines, blank)):
        now = _REG.sub("V", line)
        if now != was and now == was.replace("_e32 ", "_e64 ", 1):
            # The VOP3 form LLVM itself prints where a 16-bit half is above v127.
            assert any(m.group(4) and int(m.group(1) or m.group(2)) >= 128
                       for m in _REG.finditer(line)), line
            now = was
        assert now == was, (n, line)
    b, a = _reaching(before), _reaching(after)
    assert b.keys() == a.keys()
    bad = [(key, b[key], a[key]) for key in b
           if not (b[key] - {_UNDEF} <= a[key] and (_UNDEF in b[key] or a[key] <= b[key]))]
    assert not bad, f"{len(bad)} reads see other values, e.g. {bad[:3]}"


def test_code_object_is_llvm_text_assembled():
    """The assembler path adds nothing: LLVM's own text, not renumbered, assembles to
    LLVM's own code object bytes for .text, and to one metadata note, LLVM's."""
    arch, in_type, config, tb = CASES[1]
    before = llvm_assembly(arch, in_type, config, tb)
    with new_context():
        elf = wmma_banks._assemble_one(before, f'#rocdl.target<chip = "{arch}">',
                                       "k")
        module = ir.Module.parse(gemm_module_text(
            arch, **SHAPE, in_type=in_type, out_type=None, trans_a=False, trans_b=tb,
            a_layout="row", b_layout="row", perf_config=config, accumulate=False))
        lower_plain(module, arch, "bin")
        (llvm_elf,) = binaries(module).values()
    assert section(elf, ".text") == section(llvm_elf, ".text")
    assert metadata_notes(elf) == metadata_notes(llvm_elf) and len(metadata_notes(elf)) == 1


def test_deterministic_and_the_same_through_the_pipeline():
    arch, in_type, config, tb = CASES[0]
    a, b = compiled(arch, in_type, config, tb), compiled(arch, in_type, config, tb)
    assert a.code_object == b.code_object and a.assembly == b.assembly


# gfx1100 bf16 333x777x111 on 64x64x128: LLVM allocates 256 VGPRs and spills one.
TILE_OF_256_VGPRS = "v4:64,64,16,32,32,16,8,1,1,2,0,0,1,1"


def test_the_restarts_lay_out_what_the_strategies_leave(monkeypatch):
    """gfx1100 bf16 333x777x111 on TILE_OF_256_VGPRS (LLVM's 256 VGPRs, the best of
    STRATEGIES 257): without the seeded restarts it is left as allocated; with them it
    is on three banks, and the same restarts give the same code object."""
    def compile_it():
        return [k for k in compile_gemm("gfx1100", m=333, n=777, k=111, in_type="bf16",
                                        perf_config=TILE_OF_256_VGPRS).kernels
                if banks(k.assembly)]

    monkeypatch.setattr(wmma_banks, "RESTARTS", 0)
    (left,) = compile_it()
    assert "left as allocated (no layout on three banks within 256 VGPRs" in \
        left.assembly.split("\n", 1)[0]
    monkeypatch.undo()
    a, b = compile_it()[0], compile_it()[0]
    assert all(len(set(x)) == 3 for x in banks(a.assembly))
    assert a.code_object == b.code_object and a.assembly == b.assembly


def test_the_last_resort_lays_out_what_no_value_layout_does(monkeypatch):
    """gfx1100 f16 64x256x2 (144 of its 144 VGPRs in use at one point of the loop): the
    value layouts and their restarts leave it as allocated; LLVM's register ranges
    reordered put it on three banks with LLVM's VGPR count, the same twice over."""
    def compile_it():
        (k,) = compile_gemm("gfx1100", m=2048, n=2048, k=2048, in_type="f16",
                            perf_config=LADDER_REORDERED[0][1]).kernels
        return k

    monkeypatch.setattr(wmma_banks, "_reordered", lambda *args: None)
    left = compile_it()
    assert "left as allocated (no layout on three banks within 144 VGPRs" in \
        left.assembly.split("\n", 1)[0]
    monkeypatch.undo()
    a, b = compile_it(), compile_it()
    assert "LLVM's VGPR ranges reordered" in a.assembly.split("\n", 1)[0]
    assert all(len(set(x)) == 3 for x in banks(a.assembly))
    assert a.metadata["vgprs"] == left.metadata["vgprs"] == 144
    assert a.code_object == b.code_object and a.assembly == b.assembly


def test_ranges_are_what_no_operand_straddles():
    kernel = vgpr_values.Kernel(kernel_text(
        "\tv_mov_b32_e32 v1, 1\n"
        "\tv_lshlrev_b64 v[2:3], 1, v[4:5]\n"
        "\tglobal_store_b64 v1, v[3:4], s[0:1]\n"
        "\tv_mov_b32_e32 v7, v6\n"
        "\ts_endpgm\n"))
    assert wmma_banks._ranges(kernel, 9) == [(0, 1), (1, 1), (2, 4), (6, 1), (7, 1), (8, 1)]


def test_switched_off_is_plain_serialization(monkeypatch):
    arch, in_type, config, tb = CASES[2]
    monkeypatch.setattr(wmma_banks, "ENABLED", False)
    kernel = compiled(arch, in_type, config, tb)
    assert wmma_banks.NOTE_PREFIX not in kernel.assembly
    assert any(len(set(x)) < 3 for x in banks(kernel.assembly))


def test_mfma_arch_is_untouched():
    assert not wmma_banks.applies("gfx942")
    (k,) = compile_gemm("gfx942", m=64, n=64, k=64).kernels
    assert wmma_banks.NOTE_PREFIX not in k.assembly


def test_refusals_leave_the_text_and_say_why():
    asm = llvm_assembly(*CASES[1])
    head = asm.index("v_wmma")
    indexed = asm[:head] + "v_movrels_b32_e32 v1, v2\n\t" + asm[head:]
    out = wmma_banks.renumber(indexed)
    first, rest = out.split("\n", 1)
    assert rest == indexed and "left as allocated (it has v_movrel" in first
    assert wmma_banks.renumber("\ts_endpgm\n") == "\ts_endpgm\n"     # no v_wmma


def test_a_renumbering_the_assembler_refuses_falls_back_to_llvms_text(monkeypatch):
    renumber = wmma_banks.renumber
    monkeypatch.setattr(wmma_banks, "renumber",
                        lambda asm: renumber(asm).replace("\tv_wmma", "\tv_no_such_wmma", 1))
    kernel = compiled(*CASES[1])
    first, rest = kernel.assembly.split("\n", 1)
    assert "the assembler refused the renumbered text" in first
    assert rest == llvm_assembly(*CASES[1])
    assert kernel.code_object[:4] == b"\x7fELF"


def test_pass_is_registered():
    assert load_all()["accel-wmma-banks"]().format == "bin"


# ---- ELF reading, independent of the pass -----------------------------------------------
def _sections(elf: bytes):
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3A)
    heads = [struct.unpack_from("<IIQQQQ", elf, shoff + i * shentsize) for i in range(shnum)]
    names = heads[shstrndx][4]
    for name, _, _, _, off, size in heads:
        yield elf[names + name:elf.index(b"\0", names + name)].decode(), elf[off:off + size]


def section(elf: bytes, name: str) -> bytes:
    return next(data for n, data in _sections(elf) if n == name)


def metadata_notes(elf: bytes) -> list[bytes]:
    notes, data, at = [], section(elf, ".note"), 0
    while at < len(data):
        namesz, descsz, kind = struct.unpack_from("<III", data, at)
        desc = at + 12 + (namesz + 3) // 4 * 4
        if kind == 32:
            notes.append(data[desc:desc + descsz])
        at = desc + (descsz + 3) // 4 * 4
    return notes


# ---- the EXEC model of passes/vgpr_values.py on small kernels ----------------------------------------------
def kernel_text(code: str) -> str:
    return ("\t.text\nk:\n" + code + ".Lfunc_end0:\n\t.amdhsa_kernel k\n"
            "\t\t.amdhsa_system_vgpr_workitem_id 0\n\t.end_amdhsa_kernel\n"
            "amdhsa.kernels:\n  - .vgpr_count:     16\n")


def masked(code: str) -> list[bool]:
    kernel = vgpr_values.Kernel(kernel_text(code))
    return vgpr_values.masked_instructions(kernel, kernel.successors())


def test_exec_is_followed_through_if_else_end_if():
    # LLVM's if/else: save EXEC, narrow it, swap to the else lanes, give all back.
    flags = masked("\tv_cmp_gt_u32_e32 vcc_lo, 4, v0\n"
                   "\ts_and_saveexec_b32 s1, vcc_lo\n"
                   "\tv_mov_b32_e32 v1, 1\n"           # then
                   "\ts_xor_b32 s0, exec_lo, s1\n"
                   "\ts_or_saveexec_b32 s1, s0\n"
                   "\ts_xor_b32 exec_lo, exec_lo, s1\n"
                   "\ts_cbranch_execz .LBB0_2\n"
                   "\tv_mov_b32_e32 v1, 2\n"           # else
                   ".LBB0_2:\n"
                   "\ts_or_b32 exec_lo, exec_lo, s1\n"
                   "\tv_mov_b32_e32 v2, v1\n"          # all lanes again
                   "\ts_endpgm\n")
    assert flags == [False, False, True, True, True, False, True, True, True, False, False]


def test_a_saved_mask_overwritten_is_not_trusted():
    flags = masked("\ts_and_saveexec_b32 s1, vcc_lo\n"
                   "\ts_mov_b32 s1, 0\n"
                   "\ts_or_b32 exec_lo, exec_lo, s1\n"
                   "\tv_mov_b32_e32 v2, v1\n"
                   "\ts_endpgm\n")
    assert flags[-2] is True


def test_a_masked_write_continues_the_value_it_overwrites():
    """v1 written under a narrowed EXEC keeps its first value in the other lanes, so both
    writes are one value and stay in one register; v3, written with all lanes, is free."""
    kernel = vgpr_values.Kernel(kernel_text(
        "\tv_mov_b32_e32 v1, 1\n"
        "\ts_and_saveexec_b32 s1, vcc_lo\n"
        "\tv_mov_b32_e32 v1, 3\n"
        "\ts_or_b32 exec_lo, exec_lo, s1\n"
        "\tv_mov_b32_e32 v3, 4\n"
        "\tv_add_nc_u32_e32 v2, v1, v3\n"
        "\ts_endpgm\n"))
    values = vgpr_values.Values(kernel)
    first, second, plain = kernel.instrs[0].ops[0], kernel.instrs[2].ops[0], kernel.instrs[4].ops[0]
    assert values.web[first[vgpr_values.NODE]] == values.web[second[vgpr_values.NODE]]
    assert second[vgpr_values.ROLE] == vgpr_values.RMW and plain[vgpr_values.ROLE] == vgpr_values.DEF


def test_a_spill_reads_and_writes_vgprs():
    """scratch_store reads its VGPR and scratch_load writes one (LLVM's spill in gfx1100
    bf16 333x777x111 on TILE_OF_256_VGPRS): the value spilled and the one reloaded are
    values like any other, not scalar operands."""
    kernel = vgpr_values.Kernel(kernel_text(
        "\tv_mov_b32_e32 v1, 1\n"
        "\tscratch_store_b32 off, v1, off\n"
        "\tscratch_load_b32 v2, off, off\n"
        "\tv_add_nc_u32_e32 v3, v2, v2\n"
        "\ts_endpgm\n"))
    vgpr_values.Values(kernel)
    store, load = kernel.instrs[1].ops, kernel.instrs[2].ops
    assert [(o[vgpr_values.REG], o[vgpr_values.ROLE]) for o in store + load] == \
        [(1, vgpr_values.USE), (2, vgpr_values.DEF)]


def plain_operands(line: str) -> list[tuple]:
    """The VGPR operands of one instruction line, read piece by piece: (first register,
    registers, offset, end, operand index (VOPD) or whether it is not the first, a 16-bit
    half follows, VOPD component or None)."""
    code = line.split(";")[0]
    comps = code.split("::")
    out, base = [], 0
    for k, comp in enumerate(comps):
        mnemonic = comp.split()[0]
        args = base + comp.index(mnemonic) + len(mnemonic)
        while args < len(line) and line[args] in " \t":
            args += 1
        if not mnemonic.startswith("s_"):
            at = args
            for i, piece in enumerate(comp[args - base:].split(",")):
                for m in re.finditer(r"v(\d+)|v\[(\d+):(\d+)\]", piece):
                    if m.start() and (piece[m.start() - 1].isalnum() or
                                      piece[m.start() - 1] in "_."):
                        continue
                    first = int(m.group(1) or m.group(2))
                    size = 1 if m.group(1) else int(m.group(3)) - first + 1
                    start, end = at + m.start(), at + m.end()
                    arg = i if len(comps) == 2 else int(start != args)
                    out.append((first, size, start, end, arg,
                                line[end:end + 2] in (".l", ".h"),
                                k if len(comps) == 2 else None))
                at += len(piece) + 1
        base += len(comp) + 2
    return out


# A kernel of each chip with both VOPD pairs and 16-bit halves (f16 C: v_cvt_f16_f32 on
# halves; a bf16 C has none since the plan's bf16_round packs it with v_perm_b32).
@pytest.mark.parametrize("case", [CASES[0], CASES[3]], ids=lambda c: f"{c[0]}-{c[1]}")
def test_operands_are_a_plain_reading_of_each_line(case):
    """Kernel's operands (one regex over each line, the 16-bit half looked ahead at) are
    those a piece-by-piece reading of the line finds, VOPD halves and 16-bit halves
    included."""
    kernel = vgpr_values.Kernel(llvm_assembly(*case))
    seen = set()
    for ins in kernel.instrs:
        line = kernel.lines[ins.line]
        got = [tuple(o[:vgpr_values.HALF + 1]) + (o[8] if len(o) > 8 else None,)
               for o in ins.ops]
        assert got == plain_operands(line), line
        seen |= {"vopd" for o in got if o[-1] is not None} | {"half" for o in got if o[5]}
    assert seen == {"vopd", "half"}
