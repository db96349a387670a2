"""accel-wmma-banks (passes/wmma_banks.py): every v_wmma's A, B and C on three VGPR banks.

The kernels are LLVM's with other VGPR numbers: each test compares the renumbered
assembly with LLVM's own (gpu-module-to-binary{format=isa} alone), by code that shares
nothing with the pass.
"""

from __future__ import annotations

import re
import struct

import pytest

from accel.api import compile_gemm, gemm_module_text
from accel.bindings import ir, new_context
from accel.passes import wmma_banks
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
    ("gfx1100", "f16", "v4:32,128,4,32,32,16,8,1,2,2,0,0,1,1", True),
    pytest.param("gfx1100", "i8", "v4:64,256,2,32,64,16,16,1,1,2,0,0,1,1", False,
                 marks=pytest.mark.xfail(strict=True, reason=(
                     "LLVM reuses one 8-VGPR tuple for this v_wmma's A and B (offsets 4 "
                     "and 0, one bank): moving whole atoms cannot part them"))),
    ("gfx1100", "bf16", "v4:128,16,2,32,16,16,8,1,2,2,0,0,1,1", True),
    ("gfx1100", "f16", "v4:256,32,2,64,32,16,8,1,1,2,0,0,1,1", False),
    ("gfx1201", "i8", "v4:16,64,4,16,32,16,16,1,1,2,0,0,1,1", True),
    ("gfx1201", "bf16", "v4:32,128,4,32,32,16,8,1,2,2,0,0,1,1", False),
    ("gfx1201", "f16", "v4:64,256,2,64,64,16,8,1,1,2,0,0,1,1", True),
    ("gfx1201", "i8", "v4:128,16,2,32,16,16,16,1,2,2,0,0,1,1", False),
    ("gfx1201", "bf16", "v4:256,32,2,64,32,16,8,1,1,2,0,0,1,1", True),
]
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


def renaming(before: str, after: str) -> dict[int, int]:
    """The register map that turns `before` into `after`, checked to be one: the lines
    are equal with every VGPR blanked out, each register maps to one register, tuples
    to tuples of their length, and no two registers to one."""
    def code(asm):
        start = asm.index(":\n", asm.index(".type")) + 2
        return asm[start:asm.index(".Lfunc_end")]
    b, a = code(before), code(after)
    assert _TOKEN.sub("V", b) == _TOKEN.sub("V", a)
    mapping = {}
    for x, y in zip(_TOKEN.finditer(b), _TOKEN.finditer(a)):
        if x.group(1) is not None:
            pairs = [(int(x.group(1)), int(y.group(1)))]
        else:
            (lo, hi), (nlo, nhi) = ((int(x.group(2)), int(x.group(3))),
                                    (int(y.group(2)), int(y.group(3))))
            assert hi - lo == nhi - nlo
            pairs = [(lo + i, nlo + i) for i in range(hi - lo + 1)]
        for old, new in pairs:
            assert mapping.setdefault(old, new) == new, f"v{old} renamed twice"
    assert len(set(mapping.values())) == len(mapping), "two registers renamed to one"
    return mapping


@pytest.mark.parametrize("arch,in_type,config,trans_b", CASES,
                         ids=[f"{a}-{t}-{c[3:14]}{'-tb' if tb else ''}"
                              for a, t, c, tb in (getattr(x, "values", x) for x in CASES)])
def test_every_wmma_on_three_banks(arch, in_type, config, trans_b):
    before = llvm_assembly(arch, in_type, config, trans_b)
    kernel = compiled(arch, in_type, config, trans_b)
    after = kernel.assembly.split("\n", 1)[1]
    assert any(len(set(x)) < 3 for x in banks(before)), "LLVM no longer collides"
    assert banks(after) and all(len(set(x)) == 3 for x in banks(after)), \
        kernel.assembly.split("\n", 1)[0]
    mapping = renaming(before, after)
    assert mapping.get(0, 0) == 0               # the work-item id arrives in v0
    # The code object says how many VGPRs the kernel uses, and it uses no more; here as
    # many as LLVM's allocation.
    used = max(mapping.values()) + 1
    llvm_count = int(re.search(r"\.vgpr_count:\s+(\d+)", before).group(1))
    assert kernel.metadata["vgprs"] >= used and kernel.metadata["vgprs"] == llvm_count
    nfv = int(re.search(r"\.amdhsa_next_free_vgpr (\d+)", after).group(1))
    assert nfv >= used
    assert "scratch_" not in after


def test_code_object_is_llvm_text_assembled():
    """The assembler path adds nothing: LLVM's own text, not renumbered, assembles to
    LLVM's own code object bytes for .text, and to one metadata note, LLVM's."""
    arch, in_type, config, tb = CASES[1]
    before = llvm_assembly(arch, in_type, config, tb)
    with new_context():
        elf = wmma_banks._assemble_one(before, ir.Attribute.parse(f'#rocdl.target<chip = "{arch}">'),
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
    assert rest == indexed and "left as allocated (it indexes VGPRs" in first
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
