"""Pass `accel-wmma-banks`: every v_wmma reads its A, B and C from three VGPR banks.

Why (seed 002, LLVM bug 204254, measured on gfx1151): a dependent v_wmma issues every
32 cycles when its A (src0), B (src1) and C (src2/dst) operands start on three
different VGPR banks (bank = first VGPR % 4), every 34 cycles when two share one: 6%
of a WMMA-bound kernel. Each operand is 2, 4 or 8 VGPRs, so LLVM's allocator, laying
tuples out one after the other, puts them on one bank: 16 of 16 WMMAs in accel's
4096^3 kernels on gfx1100 and gfx1201 collided. The pinned LLVM has no option for it
(a pre-RA hint is under review upstream, llvm-project PR 205530).

How: the kernel is serialized to assembly, its VGPRs are renumbered, and the text is
assembled. The renumbering moves whole *atoms*: an atom is a maximal run of registers
that some tuple operand (`v[a:b]`) of the kernel ties together, so moving each atom
as a block keeps every tuple of every instruction contiguous, and a bijection on
registers changes no instruction's meaning. Kept fixed or respected:
  - the atom holding v0, which the hardware loads with the work-item id;
  - VOPD (v_dual_*) pairs: their X and Y operands in each slot stay on different banks
    (dst: different parity), the encoding's rule (AMDGPUBaseInfo, VOPD bank masks);
  - 16-bit halves (`v1.l`) in _e32 encodings stay below v128, all that encoding reaches;
  - kernels that index VGPRs (v_movrel*) are left alone.
Then each atom gets a start register, residues first (a small constraint search: each
WMMA's three banks distinct), positions second (first fit below the VGPR budget). The
instruction stream is LLVM's, unchanged: the same instructions, waits and schedule,
only other register numbers, so no main-loop instruction is added and nothing spills.

Assembling: the text becomes a gpu.module's `llvm.module_asm` and goes through
gpu-module-to-binary, whose assembler and linker are the ones LLVM's own objects go
through. LLVM appends the (empty) metadata note of that function-less module after the
kernel's; it is cut off (`_drop_empty_metadata_note`), leaving one metadata note.

Limit: an atom is the union over the whole kernel, so two operands of one WMMA can share
one (a tuple that at another point of the loop holds both fragments ties them); on one
bank they cannot be parted without live-range splitting, and the kernel is left as
allocated, its assembly's first line saying why. Measured over the kernels selection
picks (benchmarks/bench_wmma_banks.py): 66 of 84 fully separated, f16 and bf16 50 of
56, i8 16 of 28.

Switching off: `ENABLED = False` restores plain gpu-module-to-binary; it is off on
arches without WMMA, and a kernel whose WMMAs already sit on three banks (a future
LLVM's allocation) is assembled as LLVM printed it.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass

from accel.bindings import gpu, ir, passmanager
from accel.diagnostics import AccelError
from accel.passes.registry import AccelPass, option, register
from accel.target.database import ARCHES

ENABLED = True

# A dependent v_wmma: 32 cycles on three banks, 34 with two operands on one (seed 002).
BANKS = 4
MAX_VGPRS = 256
# VOP1/VOP2 (_e32) encodings name a 16-bit VGPR half in 8 bits: v0.l .. v127.h.
E32_HALF_LIMIT = 128
# Residue searches give up after this many assignments (the largest kernels measured
# need a few hundred; a bound keeps a pathological one from stalling a compile).
SEARCH_LIMIT = 20000

# `v` first (the regex engine then skips to each `v`), not preceded by a word character.
_VGPR = re.compile(r"v(?<![\w.]v)(?:(\d+)|\[(\d+):(\d+)\])")
# D, A, B and, when a VGPR tuple, C (src2; accel's kernels accumulate in place, C = D).
# (Instructions are a tab and the mnemonic; a literal first lets the regex engine skip.)
_WMMA = re.compile(r"\tv_wmma\w*\s+v\[(\d+):\d+\],\s*v\[(\d+):\d+\],\s*v\[(\d+):\d+\]"
                   r"(?:,\s*v\[(\d+):\d+\])?")
_HALF = re.compile(r"v(?<![\w.]v)(\d+)\.[lh]\b")
_ODD_VGPR = re.compile(r"v\[(?!\d+:\d+\])")
_INDEXING = ("v_movrel", "v_swaprel", "s_set_gpr_idx")
NOTE_PREFIX = "; accel-wmma-banks: "


def applies(arch: str) -> bool:
    """Does serialization for `arch` go through this pass?"""
    return ENABLED and ARCHES[arch].mma_kind == "wmma"


def _triples(operands) -> list[tuple[int, int, int]]:
    """The (C, A, B) start registers that must sit on three banks: D's, and src2's if
    it is another tuple."""
    d, a, b, c = operands
    out = [(int(d), int(a), int(b))]
    if c and c != d:
        out.append((int(c), int(a), int(b)))
    return out


def wmma_bank_collisions(asm: str) -> tuple[int, int]:
    """(v_wmma with two of A, B, C/D starting on one VGPR bank, all v_wmma) in `asm`."""
    found = _WMMA.findall(asm)
    return sum(any(len({r % BANKS for r in t}) < 3 for t in _triples(m)) for m in found), \
        len(found)


# ---- the renumbering ------------------------------------------------------------------
class _Refused(Exception):
    """The kernel cannot be renumbered; the message says why."""


@dataclass
class _Atom:
    start: int
    length: int
    limit: int = MAX_VGPRS      # highest start that keeps its e32 16-bit halves reachable


class _Kernel:
    """A kernel's assembly split around its code: from the function's label to
    `.Lfunc_end`, where the instructions are (the rest is directives and metadata)."""

    def __init__(self, asm: str):
        sym = re.search(r"^\t\.amdhsa_kernel (\S+)$", asm, re.M)
        start = asm.find(f"\n{sym.group(1)}:\n") if sym else -1
        end = asm.find("\n.Lfunc_end", start)
        if start < 0 or end < 0 or asm.count(".amdhsa_kernel ") != 1:
            raise _Refused("not one kernel between its label and .Lfunc_end")
        start += len(sym.group(1)) + 3
        self.before, self.code, self.after = asm[:start], asm[start:end], asm[end:]
        counts = re.findall(r"\.vgpr_count:\s+(\d+)", self.after)
        self.vgprs = int(counts[0]) if len(counts) == 1 else 0
        hit = next((x for x in _INDEXING if x in self.code), None)
        if hit:
            raise _Refused(f"it indexes VGPRs ({hit}*)")
        odd = _ODD_VGPR.search(self.code)
        if odd:
            raise _Refused(f"unrecognized register operand at '{self.code[odd.start():][:20]}'")

        # Code and VGPR operands alternate: text, (v, lo, hi) groups of a match, text, ...
        self.parts = _VGPR.split(self.code)
        self.operands = list(zip(self.parts[1::4], self.parts[2::4], self.parts[3::4]))

    def spans(self) -> list[tuple[int, int]]:
        return [(int(r), int(r)) if r else (int(a), int(b)) for r, a, b in set(self.operands)]

    def renamed(self, mapping: dict[int, int]) -> str:
        """The assembly with every VGPR operand renamed by `mapping`."""
        names = {}
        for op in set(self.operands):
            r, a, b = op
            names[op] = f"v{mapping[int(r)]}" if r else \
                f"v[{mapping[int(a)]}:{mapping[int(a)] + int(b) - int(a)}]"
        out = [""] * (2 * len(self.operands) + 1)
        out[0::2] = self.parts[0::4]
        out[1::2] = [names[op] for op in self.operands]
        return self.before + "".join(out) + self.after


def _vopd_slots(part: str) -> list[tuple[int | None, int]]:
    """(VGPR or None, bank mask) of one VOPD component's dst, src0 and vsrc1 (the first
    VGPR after src0: fmamk's literal sits between them)."""
    fields = part.strip().split(None, 1)
    ops = [o.strip() for o in fields[1].split(",")] if len(fields) > 1 else []
    regs = [int(o[1:]) if o[:1] == "v" and o[1:].isdigit() else None for o in ops] + [None] * 2
    src1 = next((r for r in regs[2:] if r is not None), None)
    return [(regs[0], 1), (regs[1], 3), (src1, 3)]


def _atoms(spans: list[tuple[int, int]]) -> tuple[list[_Atom], dict[int, int]]:
    """The atoms of the kernel and the atom index of every register it names."""
    atoms: list[_Atom] = []
    for a, b in sorted(set(spans)):
        if atoms and a < atoms[-1].start + atoms[-1].length:
            last = atoms[-1]
            last.length = max(last.length, b - last.start + 1)
        else:
            atoms.append(_Atom(a, b - a + 1))
    of = {}
    for n, at in enumerate(atoms):
        for r in range(at.start, at.start + at.length):
            of[r] = n
    return atoms, of


def _plan(kernel: _Kernel) -> tuple[dict[int, int], int]:
    """Old -> new VGPR number for every register of the kernel, and the VGPRs it uses."""
    atoms, of = _atoms(kernel.spans())
    code = kernel.code
    wmmas = [t for m in _WMMA.findall(code) for t in _triples(m)]
    lines = code.split("\n")
    vopd = []
    for line in (ln for ln in lines if "::" in ln):
        x, y = line.split("::")
        vopd += [(rx, ry, mask) for (rx, mask), (ry, _) in zip(_vopd_slots(x), _vopd_slots(y))
                 if rx is not None and ry is not None and of[rx] != of[ry]]
    e32 = [ln for ln in lines if "_e32 " in ln and ln.split(None, 1)[0].endswith("_e32")]
    for h in _HALF.findall("\n".join(e32)):
        r = int(h)
        at = atoms[of[r]]
        at.limit = min(at.limit, E32_HALF_LIMIT - 1 - (r - at.start))

    def place(r):
        return of[r], r - atoms[of[r]].start

    # Constraints on q[atom] = new start % 4: ((atom, offset), ...) pairwise different
    # in the bits of the mask.
    cons = []
    for d, a, b in wmmas:
        ops = tuple(place(r) for r in (d, a, b))
        same = [(x, y) for x in ops for y in ops if x < y and x[0] == y[0]]
        if any((ox - oy) % BANKS == 0 for (_, ox), (_, oy) in same):
            raise _Refused("a v_wmma has two operands in one register tuple on one bank")
        cons.append((ops, BANKS - 1))
    cons += [((place(x), place(y)), mask) for x, y, mask in vopd]
    fixed = {of[0]: atoms[of[0]].start % BANKS} if 0 in of else {}
    # Two orders of the residue search; the layout with fewer VGPRs wins (the first,
    # if they tie).
    layouts, why = [], None
    for limited_first in (True, False):
        try:
            start = _layout(atoms, _residues(atoms, cons, fixed, limited_first), fixed)
            layouts.append((max(start[n] + at.length for n, at in enumerate(atoms)), start))
        except _Refused as e:
            why = e
    if not layouts:
        raise why
    used, start = min(layouts, key=lambda x: x[0])
    mapping = {}
    for n, at in enumerate(atoms):
        for k in range(at.length):
            mapping[at.start + k] = start[n] + k
    return mapping, used


def _residues(atoms: list[_Atom], cons, fixed: dict[int, int],
              limited_first: bool) -> dict[int, int]:
    """A bank residue for every constrained atom, depth first. Order: the atom most tied
    to those already ordered next, so a wrong choice shows at once (`limited_first`:
    atoms with a 16-bit limit before all others, they are the hardest to place); each
    atom's own residue is tried first, so most atoms keep their bank."""
    by_atom: dict[int, list] = {}
    for c in cons:
        for at, _ in c[0]:
            by_atom.setdefault(at, []).append(c)
    q = dict(fixed)
    linked = dict.fromkeys(by_atom, 0)

    def link(at):
        for c in by_atom.get(at, ()):
            for b, _ in c[0]:
                if b in linked:
                    linked[b] += 1

    for at in fixed:
        linked.pop(at, None)
        link(at)
    order = []
    while linked:
        at = min(linked, key=lambda a: (limited_first and atoms[a].limit == MAX_VGPRS,
                                        -linked[a], -len(by_atom[a]), atoms[a].start))
        del linked[at]
        order.append(at)
        link(at)

    def holds(c) -> bool:
        vals = [(q[at] + off) & c[1] for at, off in c[0] if at in q]
        return len(set(vals)) == len(vals)

    steps = 0

    def solve(k: int) -> bool:
        nonlocal steps
        if k == len(order):
            return True
        at = order[k]
        own = atoms[at].start % BANKS
        for v in ((own + i) % BANKS for i in range(BANKS)):
            steps += 1
            if steps > SEARCH_LIMIT:
                raise _Refused("the bank search did not finish")
            q[at] = v
            if all(holds(c) for c in by_atom[at]) and solve(k + 1):
                return True
            del q[at]
        return False

    if not all(holds(c) for at in fixed for c in by_atom.get(at, [])) or not solve(0):
        raise _Refused("no bank assignment satisfies every v_wmma and VOPD")
    return q


def _layout(atoms: list[_Atom], q: dict[int, int], fixed: dict[int, int]) -> dict[int, int]:
    """A start register for every atom: the fixed one where it is; then first fit, atoms
    with a 16-bit limit first, then those with a residue, by residue, longest first."""
    taken = bytearray(MAX_VGPRS)
    start = {}

    def put(n: int, lo: int, hi: int, step: int) -> bool:
        size = atoms[n].length
        hole = bytes(size)
        p = lo
        while p <= hi:
            p = taken.find(hole, p)
            if p < 0 or p > hi:
                return False
            if (p - lo) % step:
                p += step - (p - lo) % step
                continue
            taken[p:p + size] = b"\1" * size
            start[n] = p
            return True
        return False

    for n in fixed:
        put(n, atoms[n].start, atoms[n].start, 1)
    # Atoms of one residue in a row: a change of residue leaves up to 3 registers
    # free for the single registers placed last. Grouped by residue, the layout grew
    # 1 of 14 measured kernels (by 6 VGPRs); longest first, 3 of 14 (by 2, 4 and 14).
    order = sorted((n for n in range(len(atoms)) if n not in start),
                   key=lambda n: (atoms[n].limit == MAX_VGPRS, n not in q, q.get(n, 0),
                                  -atoms[n].length, atoms[n].start))
    for n in order:
        at = atoms[n]
        hi = min(at.limit, MAX_VGPRS - at.length)
        lo = q[n] if n in q else 0
        if not put(n, lo, hi, BANKS if n in q else 1):
            raise _Refused(f"no room for {at.length} VGPRs within {MAX_VGPRS}")
    return start


def _rewrite(kernel: _Kernel, mapping: dict[int, int], used: int) -> str:
    text = kernel.renamed(mapping)
    # The VGPR counts of the descriptor and the metadata grow if the layout did.
    for pat in () if used <= kernel.vgprs else (r"(\.amdhsa_next_free_vgpr )(\d+)",
                                                r"(\.num_vgpr, )(\d+)",
                                                r"(\.vgpr_count:\s+)(\d+)"):
        text = re.sub(pat, lambda m: m.group(1) + str(max(int(m.group(2)), used)), text)
    return text


def renumber(asm: str) -> str:
    """The kernel's assembly with its v_wmma operands on three VGPR banks, headed by a
    comment that says what was done (or why nothing was)."""
    colliding, total = wmma_bank_collisions(asm)
    if total == 0 or asm.startswith(NOTE_PREFIX):
        return asm
    if colliding == 0:
        return f"{NOTE_PREFIX}{total} of {total} v_wmma on three VGPR banks as allocated\n" + asm
    try:
        kernel = _Kernel(asm)
        mapping, used = _plan(kernel)
    except _Refused as why:
        return (f"{NOTE_PREFIX}left as allocated ({why}): {total - colliding} of {total} "
                f"v_wmma on three VGPR banks\n" + asm)
    out = _rewrite(kernel, mapping, used)
    left, _ = wmma_bank_collisions(out)
    return (f"{NOTE_PREFIX}{total - left} of {total} v_wmma on three VGPR banks "
            f"(as allocated: {total - colliding}), VGPRs renumbered\n" + out)


# ---- assembling -----------------------------------------------------------------------
_NT_AMDGPU_METADATA = 32
_EMPTY_KERNELS = b"\xaeamdhsa.kernels\x90"   # msgpack: "amdhsa.kernels": []


def _drop_empty_metadata_note(elf: bytes) -> bytes:
    """Cut the last note of `.note` when it is a metadata note listing no kernels (what
    a module without functions adds). The notes before it, section and program headers
    keep their places; the cut bytes become zero padding."""
    out = bytearray(elf)
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    phoff, = struct.unpack_from("<Q", elf, 0x20)
    phentsize, phnum, shentsize, shnum, shstrndx = struct.unpack_from("<HHHHH", elf, 0x36)
    names_at = struct.unpack_from("<Q", elf, shoff + shstrndx * shentsize + 0x18)[0]
    for i in range(shnum):
        head = shoff + i * shentsize
        name, _, _, _, off, size = struct.unpack_from("<IIQQQQ", elf, head)
        if elf[names_at + name:elf.index(b"\0", names_at + name)] != b".note":
            continue
        notes, at = [], off
        while at < off + size:
            namesz, descsz, kind = struct.unpack_from("<III", elf, at)
            end = at + 12 + (namesz + 3) // 4 * 4 + (descsz + 3) // 4 * 4
            notes.append((at, end, kind))
            at = end
        last_at, last_end, kind = notes[-1]
        if len(notes) < 2 or kind != _NT_AMDGPU_METADATA or \
                _EMPTY_KERNELS not in elf[last_at:last_end]:
            return elf
        new_size = last_at - off
        struct.pack_into("<Q", out, head + 0x20, new_size)
        out[last_at:last_end] = bytes(last_end - last_at)
        for k in range(phnum):
            ph = phoff + k * phentsize
            p_type, _, p_offset = struct.unpack_from("<IIQ", elf, ph)
            if p_type == 4 and p_offset == off:   # PT_NOTE
                struct.pack_into("<QQ", out, ph + 0x20, new_size, new_size)
        return bytes(out)
    return elf


def _unoptimized(target: ir.Attribute) -> ir.Attribute:
    """The target at O=0: the holder module has no function to optimize, and its code
    object is byte-identical; building LLVM's O2 codegen pipeline for it cost 0.9 of its
    3.8 ms (gfx1201 64x64 kernel)."""
    text = str(target)
    text = re.sub(r"O = \d", "O = 0", text) if "O = " in text else \
        text.replace("#rocdl.target<", "#rocdl.target<O = 0, ", 1)
    return ir.Attribute.parse(text)


def _assemble_one(text: str, target: ir.Attribute, sym: str) -> bytes | None:
    """The linked code object of one kernel's assembly, or None if it does not assemble.
    A module of its own, so a failure leaves the caller's module as it was."""
    with ir.Location.unknown():
        holder = ir.Module.create()
        holder.operation.attributes["gpu.container_module"] = ir.UnitAttr.get()
        with ir.InsertionPoint(holder.body):
            op = ir.Operation.create(
                "gpu.module", regions=1,
                attributes={"sym_name": ir.StringAttr.get(sym),
                            "targets": ir.ArrayAttr.get([_unoptimized(target)]),
                            "llvm.module_asm": ir.ArrayAttr.get([ir.StringAttr.get(text)])})
            op.regions[0].blocks.append()
    try:
        passmanager.PassManager.parse(
            "builtin.module(gpu-module-to-binary{format=bin})").run(holder.operation)
    except ir.MLIRError:
        return None
    (binary,) = holder.body.operations
    return _drop_empty_metadata_note(bytes(gpu.ObjectAttr(binary.attributes["objects"][0]).object))


def serialize(module: ir.Module, fmt: str) -> dict[str, str]:
    """Every gpu.binary holding LLVM's assembly -> its renumbered assembly (isa) or the
    code object assembled from that (bin). Returns symbol -> the assembly each now holds
    or was assembled from. Should the assembler refuse a renumbered text, LLVM's own is
    assembled and the first line says so."""
    texts = {}
    for op in module.body.operations:
        if op.operation.name != "gpu.binary":
            continue
        obj = gpu.ObjectAttr(op.attributes["objects"][0])
        if obj.format != gpu.CompilationTarget.Assembly:
            raise AccelError(f"'{WmmaBanks.NAME}' takes gpu.binary assembly "
                             f"(gpu-module-to-binary{{format=isa}})", op.location)
        sym = op.attributes["sym_name"].value
        asm = bytes(obj.object).decode()
        text = renumber(asm)
        if fmt == "isa":
            kind, data = gpu.CompilationTarget.Assembly, text.encode()
        else:
            kind, data = gpu.CompilationTarget.Binary, _assemble_one(text, obj.target, sym)
            if data is None and text != asm:
                text = f"{NOTE_PREFIX}left as allocated (the assembler refused the " \
                       f"renumbered text)\n" + asm
                data = _assemble_one(text, obj.target, sym)
            if data is None:
                raise AccelError(f"the assembly of kernel '{sym}' does not assemble",
                                 op.location)
        texts[sym] = text
        op.attributes["objects"] = ir.ArrayAttr.get(
            [gpu.ObjectAttr.get(obj.target, int(kind), data)])
    return texts


@register
@dataclass(frozen=True)
class WmmaBanks(AccelPass):
    NAME = "accel-wmma-banks"
    SUMMARY = ("gpu.binary assembly (gpu-module-to-binary{format=isa}) -> VGPRs renumbered "
               "so each v_wmma's A, B, C sit on three banks; format=bin assembles it")
    format: str = option("bin", "bin: the assembled code object; isa: the renumbered "
                                "assembly", choices=("bin", "isa"))

    def run(self, module: ir.Module) -> None:
        serialize(module, self.format)
