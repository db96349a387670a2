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
DEBUG_LAYOUT = False

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
_ODD_VGPR = re.compile(r"v\[(?!\d+:\d+\])")
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


# ---- reading the kernel ---------------------------------------------------------------
class _Refused(Exception):
    """The kernel cannot be renumbered; the message says why."""


_LABEL = re.compile(r"[\w.$]+:")
_LOADS = ("ds_load", "ds_read", "buffer_load", "global_load", "flat_load", "scratch_load")
_STORES = ("ds_store", "ds_write", "buffer_store", "global_store", "flat_store", "scratch_store")
# VALU instructions whose first operand, when a VGPR, is read (v_cmpx writes EXEC).
_READS_FIRST = ("v_cmpx", "v_readlane", "v_readfirstlane")
# Results that keep part of the register they write: 16-bit results (a half, or the high
# half kept), d16 loads, accumulators, v_writelane (the other lanes).
_KEEPS_REST = re.compile(r"_[bfiu]16(?!x)|d16|fmac|_mac_|dot2c|dot2acc|writelane")
# Instructions that name VGPRs indirectly, move lanes between registers or leave the
# kernel: no register renaming is sound across them.
_REFUSED = ("v_movrel", "v_swaprel", "s_set_gpr_idx", "v_swap", "v_permlane", "_dpp",
            "s_setpc", "s_swappc", "s_call")
_BRANCH = "s_cbranch_"
_TERMINATORS = ("s_branch", "s_endpgm", "s_endpgm_saved")


@dataclass
class _Operand:
    """One VGPR operand of an instruction: registers reg .. reg + size - 1."""
    reg: int
    size: int
    at: int            # offset in the code line
    end: int
    arg: int           # which comma-separated operand of its component (0: the result's)
    half: bool         # a 16-bit half (`v1.l`)
    role: str = "use"  # use | def | rmw (read, then written) | early (written while the
                       # instruction still reads its sources)
    node: int = -1     # value node of its first register


@dataclass
class _Instr:
    line: int
    mnemonics: list[str]       # one, or VOPD's two
    args: list[list[str]]      # each component's comma-separated operands
    operands: list[list[_Operand]]


def _component(line: str, lo: int, hi: int) -> tuple[str, list[str], list[_Operand]]:
    text = line[lo:hi]
    head = re.match(r"\s*(\S+)\s*", text)
    mnemonic, args_at = head.group(1), lo + head.end()
    ops = []
    for m in _VGPR.finditer(line, args_at, hi):
        single, a, b = m.groups()
        reg, size = (int(single), 1) if single else (int(a), int(b) - int(a) + 1)
        ops.append(_Operand(reg, size, m.start(), m.end(), line.count(",", args_at, m.start()),
                            line.startswith((".l", ".h"), m.end())))
    return mnemonic, [x.strip() for x in line[args_at:hi].split(",")], ops


class _Kernel:
    """A kernel's assembly split around its code (from the function's label to
    `.Lfunc_end`; the rest is directives and metadata), its instructions and blocks."""

    def __init__(self, asm: str):
        sym = re.search(r"^\t\.amdhsa_kernel (\S+)$", asm, re.M)
        start = asm.find(f"\n{sym.group(1)}:\n") if sym else -1
        end = asm.find("\n.Lfunc_end", start)
        if start < 0 or end < 0 or asm.count(".amdhsa_kernel ") != 1:
            raise _Refused("not one kernel between its label and .Lfunc_end")
        start += len(sym.group(1)) + 3
        self.before, self.after = asm[:start], asm[end:]
        self.lines = asm[start:end].split("\n")
        # The hardware writes the work-item ids into v0 (.. v2) before the kernel runs.
        ids = re.findall(r"\.amdhsa_system_vgpr_workitem_id (\d)", self.after)
        self.initialized = (1 << (int(ids[0]) + 1 if ids else 3)) - 1
        counts = re.findall(r"\.vgpr_count:\s+(\d+)", self.after)
        self.vgprs = int(counts[0]) if len(counts) == 1 else 0
        odd = _ODD_VGPR.search(asm, start, end)
        if odd:
            raise _Refused(f"unrecognized register operand at '{asm[odd.start():][:20]}'")
        self.instrs: list[_Instr] = []
        # Blocks: [first instruction, end, successor labels or None for the next block].
        self.blocks: list[list] = [[0, 0, [None]]]
        self.labels: dict[str, int] = {}
        for n, line in enumerate(self.lines):
            body_end = line.find(";")
            body_end = len(line) if body_end < 0 else body_end
            body = line[:body_end].strip()
            if not body or body.startswith("."):
                if _LABEL.fullmatch(body):
                    self._new_block()
                    self.labels[body[:-1]] = len(self.blocks) - 1
                continue
            cuts = [0] + [m.start() for m in re.finditer("::", line[:body_end])] + [body_end]
            comps = [_component(line, lo + (2 if k else 0), hi)
                     for k, (lo, hi) in enumerate(zip(cuts, cuts[1:]))]
            hit = next((x for c in comps for x in _REFUSED if x in c[0]), None)
            if hit:
                raise _Refused(f"it has {comps[0][0]}")
            self.instrs.append(_Instr(n, [c[0] for c in comps], [c[1] for c in comps],
                                      [c[2] for c in comps]))
            self.blocks[-1][1] = len(self.instrs)
            mnemonic = comps[0][0]
            if mnemonic.startswith(_BRANCH) or mnemonic in _TERMINATORS:
                self.blocks[-1][2] = [comps[0][1][0]] if mnemonic == "s_branch" else \
                    [comps[0][1][0], None] if mnemonic.startswith(_BRANCH) else []
                self._new_block()

    def _new_block(self) -> None:
        last = self.blocks[-1]
        if last[0] == last[1] and last[2] == [None] and len(self.blocks) > 1 and \
                len(self.blocks) - 1 not in self.labels.values():
            return
        self.blocks.append([len(self.instrs), len(self.instrs), [None]])

    def successors(self) -> list[list[int]]:
        out = []
        for b, (_, _, succ) in enumerate(self.blocks):
            targets = []
            for s in succ:
                if s is None:
                    if b + 1 < len(self.blocks):
                        targets.append(b + 1)
                elif s in self.labels:
                    targets.append(self.labels[s])
                else:
                    raise _Refused(f"a branch to {s}, outside the kernel")
            out.append(targets)
        return out


# ---- which operands are read and written ----------------------------------------------
class _Lanes:
    """EXEC and the SGPRs that hold lane masks, as sets of lanes: truth tables over the
    conditions the kernel branches on (each v_cmp result a variable), so that
    `s_and_saveexec` .. `s_xor exec` .. `s_or exec, exec, s` (if, else, end if) is seen to
    give all lanes back. A VGPR written while EXEC may exclude lanes keeps its old value
    in them."""

    VARIABLES = 12                 # 4096-entry tables; the kernels measured branch on <= 4
    ALL = (1 << (1 << VARIABLES)) - 1
    _ops = {"s_and_b32": lambda a, b: a & b, "s_or_b32": lambda a, b: a | b,
            "s_xor_b32": lambda a, b: a ^ b, "s_andn2_b32": lambda a, b: a & ~b,
            "s_and_not1_b32": lambda a, b: a & ~b}

    def __init__(self):
        self.variables: dict[tuple[int, str], int] = {}

    def _variable(self, key) -> int | None:
        if key not in self.variables:
            if len(self.variables) == self.VARIABLES:
                return None
            self.variables[key] = len(self.variables)
        j, size = self.variables[key], 1 << self.VARIABLES
        width = 2 << j
        table = ((1 << (1 << j)) - 1) << (1 << j)
        while width < size:
            table |= table << width
            width *= 2
        return table

    def read(self, state: dict, name: str, i: int) -> int | None:
        name = "exec" if name.startswith("exec") else name
        if name not in state:
            if not re.fullmatch(r"s\d+|vcc_lo", name):
                return None
            state[name] = self._variable((i, name))
        return state[name]

    def step(self, state: dict, i: int, mnemonic: str, args: list[str]) -> dict:
        state = dict(state)
        first = args[0] if args else ""
        dst = "exec" if first.startswith("exec") else first
        if mnemonic.startswith("v_cmpx"):
            cond = self._variable((i, "v_cmpx"))
            state["exec"] = None if cond is None or state["exec"] is None else state["exec"] & cond
        elif mnemonic in ("s_and_saveexec_b32", "s_or_saveexec_b32") and len(args) == 2:
            old, src = state["exec"], self.read(state, args[1], i)
            state[dst] = old
            state["exec"] = None if old is None or src is None else \
                old & src if mnemonic.startswith("s_and") else old | src
        elif mnemonic in self._ops and len(args) == 3:
            a, b = self.read(state, args[1], i), self.read(state, args[2], i)
            state[dst] = None if a is None or b is None else self._ops[mnemonic](a, b)
        elif mnemonic == "s_mov_b32" and len(args) == 2:
            state[dst] = self.read(state, args[1], i)
        elif "saveexec" in mnemonic or "wrexec" in mnemonic or dst == "exec":
            state["exec"] = None
        elif mnemonic.startswith(("s_", "v_")):
            # Anything else an SGPR result goes to (v_cmp's, v_readfirstlane's) is no
            # longer a known mask.
            for name in re.findall(r"s\d+|vcc_lo", first):
                state.pop(name, None)
            if re.match(r"s\[(\d+):(\d+)\]|vcc\b", first):
                state = {"exec": state["exec"]}
        return state


def _join(a: dict, b: dict) -> dict:
    return {k: v for k, v in a.items() if k in b and b[k] == v} | \
        {"exec": a["exec"] if a["exec"] == b["exec"] else None}


def _masked(kernel: _Kernel, succ: list[list[int]]) -> list[bool]:
    """Per instruction: may EXEC exclude lanes of the launch there?"""
    lanes = _Lanes()
    state_in: list[dict | None] = [None] * len(kernel.blocks)
    state_in[0] = {"exec": _Lanes.ALL}
    masked = [True] * len(kernel.instrs)    # unreached code: assume the worst
    work = [0]
    while work:
        b = work.pop()
        state = state_in[b]
        first, end, _ = kernel.blocks[b]
        for i in range(first, end):
            masked[i] = state["exec"] != _Lanes.ALL
            ins = kernel.instrs[i]
            state = lanes.step(state, i, ins.mnemonics[0], ins.args[0])
        for s in succ[b]:
            new = state if state_in[s] is None else _join(state_in[s], state)
            if new != state_in[s]:
                state_in[s] = new
                work.append(s)
    return masked


def _assign_roles(ins: _Instr, masked: bool) -> None:
    for mnemonic, ops in zip(ins.mnemonics, ins.operands):
        if not ops:
            continue
        result = ops[0] if ops[0].arg == 0 else None
        if mnemonic.startswith("v_wmma"):
            if len(ops) not in (3, 4) or not all(o.size > 1 for o in ops):
                raise _Refused(f"unrecognized operands of {mnemonic}")
            c = ops[3] if len(ops) == 4 else None
            same = c is not None and (c.reg, c.size) == (result.reg, result.size)
            # D partly over A or B is not allowed; D equal to C is an update in place.
            result.role = "rmw" if same else "early"
        elif mnemonic.startswith("v_"):
            if result is None or mnemonic.startswith(_READS_FIRST):
                continue
            # A tuple result equal to a source (v_lshlrev_b64 v[0:1], 1, v[0:1]) stays one.
            identical = result.size > 1 and \
                any((o.reg, o.size) == (result.reg, result.size) for o in ops[1:])
            result.role = "rmw" if masked or result.half or identical or \
                _KEEPS_REST.search(mnemonic) else "early" if result.size > 1 else "def"
        elif mnemonic.startswith(_LOADS):
            if result is None:
                raise _Refused(f"unrecognized operands of {mnemonic}")
            result.role = "rmw" if masked or "d16" in mnemonic else "def"
        elif not mnemonic.startswith(_STORES + ("s_",)):
            raise _Refused(f"no model of the VGPRs {mnemonic} reads and writes")


# ---- values, their live ranges and the blocks they move in --------------------------------
class _Values:
    """Every value a VGPR holds, found through the control flow: a value (web) is a
    register's defs and uses that reach each other; those of one tuple operand form an
    atom, moved as one block. Live ranges are bit sets over program points (2i: while
    instruction i reads, 2i + 1: after it wrote)."""

    def __init__(self, kernel: _Kernel):
        succ = kernel.successors()
        masked = _masked(kernel, succ)
        for i, ins in enumerate(kernel.instrs):
            _assign_roles(ins, masked[i])
        blocks, instrs = kernel.blocks, kernel.instrs
        gen, kill = [0] * len(blocks), [0] * len(blocks)
        for b, (first, end, _) in enumerate(blocks):
            for i in range(end - 1, first - 1, -1):
                ops = [o for part in instrs[i].operands for o in part]
                for o in ops:
                    if o.role in ("def", "early"):
                        bits = ((1 << o.size) - 1) << o.reg
                        kill[b] |= bits
                        gen[b] &= ~bits
                for o in ops:
                    if o.role in ("use", "rmw"):
                        gen[b] |= ((1 << o.size) - 1) << o.reg
        live_in, live_out = [0] * len(blocks), [0] * len(blocks)
        changed = True
        while changed:
            changed = False
            for b in range(len(blocks) - 1, -1, -1):
                out = 0
                for s in succ[b]:
                    out |= live_in[s]
                new = gen[b] | (out & ~kill[b])
                if new != live_in[b] or out != live_out[b]:
                    live_in[b], live_out[b], changed = new, out, True

        # A value is live only where some def (or the hardware, for the work-item id)
        # may have written it: a 16-bit half or masked lanes written into a register
        # nothing wrote before keep garbage, which no renaming needs to keep.
        written = [0] * len(blocks)
        for b, (first, end, _) in enumerate(blocks):
            for i in range(first, end):
                for ops in instrs[i].operands:
                    for o in ops:
                        if o.role != "use":
                            written[b] |= ((1 << o.size) - 1) << o.reg
        preds = [[] for _ in blocks]
        for b, targets in enumerate(succ):
            for s in targets:
                preds[s].append(b)
        defined_in = [0] * len(blocks)
        changed = True
        while changed:
            changed = False
            for b in range(len(blocks)):
                new = kernel.initialized if b == 0 else 0
                for p in preds[b]:
                    new |= defined_in[p] | written[p]
                if new != defined_in[b]:
                    defined_in[b], changed = new, True
        for b in range(len(blocks)):
            live_in[b] &= defined_in[b]
            live_out[b] &= defined_in[b] | written[b]

        parent: list[int] = []

        def node() -> int:
            parent.append(len(parent))
            return len(parent) - 1

        def find(x: int) -> int:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        reg_of: list[int] = []
        segments = []          # (node, first point, last point)
        entry_nodes = {}
        in_nodes: list[dict[int, int]] = []
        tuples = []            # nodes of one tuple operand
        for b, (first, end, _) in enumerate(blocks):
            cur, since, last = {}, {}, {}
            at = 2 * first
            ins_nodes = {}
            for r in _bits(live_in[b]):
                ins_nodes[r] = cur[r] = node()
                reg_of.append(r)
                since[r] = last[r] = at
            in_nodes.append(ins_nodes)
            for i in range(first, end):
                for ops in instrs[i].operands:
                    for o in ops:
                        if o.role in ("use", "rmw"):
                            nodes = []
                            for r in range(o.reg, o.reg + o.size):
                                if r not in cur:        # garbage: nothing wrote it
                                    cur[r] = node()
                                    reg_of.append(r)
                                    since[r] = 2 * i
                                last[r] = 2 * i
                                nodes.append(cur[r])
                            o.node = nodes[0]
                            if o.size > 1 and o.role == "use":
                                tuples.append(nodes)
                for ops in instrs[i].operands:
                    for o in ops:
                        if o.role == "use":
                            continue
                        nodes = []
                        for r in range(o.reg, o.reg + o.size):
                            n = node()
                            reg_of.append(r)
                            if o.role == "rmw":
                                parent[n] = find(cur[r])
                            if r in cur:
                                segments.append((cur[r], since[r], last[r]))
                            cur[r] = n
                            since[r] = 2 * i if o.role == "early" else 2 * i + 1
                            last[r] = 2 * i + 1
                            nodes.append(n)
                        o.node = nodes[0]
                        if o.size > 1:
                            tuples.append(nodes)
            end_point = 2 * end - 1 if end > first else 2 * first
            for r, n in cur.items():
                live = live_out[b] >> r & 1
                segments.append((n, since[r], end_point if live else last[r]))
            for r in _bits(live_out[b]):
                for s in succ[b]:
                    if live_in[s] >> r & 1:
                        entry_nodes.setdefault((s, r), []).append(cur[r])
        for (s, r), nodes in entry_nodes.items():
            for n in nodes:
                a, c = find(n), find(in_nodes[s][r])
                if a != c:
                    parent[a] = c
        self.find, self.reg_of = find, reg_of
        self.pinned = {find(n) for n in in_nodes[0].values()}

        # Atoms: values tied by tuple operands (a value's offset in its atom is its
        # register minus the atom's first register).
        atom_parent = {}

        def afind(x):
            while atom_parent.setdefault(x, x) != x:
                atom_parent[x] = atom_parent[atom_parent[x]]
                x = atom_parent[x]
            return x

        for nodes in tuples:
            a = afind(find(nodes[0]))
            for n in nodes[1:]:
                c = afind(find(n))
                if c != a:
                    atom_parent[c] = a
        live: dict[int, int] = {}
        for n, lo, hi in segments:
            w = find(n)
            live[w] = live.get(w, 0) | ((1 << (hi - lo + 1)) - 1) << lo
        members: dict[int, list[int]] = {}
        for w in live:
            members.setdefault(afind(w), []).append(w)
        self.atom_of: dict[int, int] = {}      # value -> atom index
        self.atoms: list[_Atom] = []
        for root in sorted(members, key=lambda a: min(reg_of[w] for w in members[a])):
            ws = members[root]
            base = min(reg_of[w] for w in ws)
            at = _Atom(base, max(reg_of[w] for w in ws) - base + 1)
            at.live = [0] * at.length
            for w in ws:
                at.live[reg_of[w] - base] |= live[w]
                self.atom_of[w] = len(self.atoms)
                at.pinned = at.pinned or w in self.pinned
            self.atoms.append(at)

    def place(self, o: _Operand) -> tuple[int, int]:
        """(atom, offset in it) of an operand's first register."""
        w = self.find(o.node)
        n = self.atom_of[w]
        return n, self.reg_of[w] - self.atoms[n].start


def _bits(x: int):
    while x:
        low = x & -x
        yield low.bit_length() - 1
        x ^= low


@dataclass
class _Atom:
    start: int
    length: int
    limit: int = MAX_VGPRS      # highest start that keeps its e32 16-bit halves reachable
    pinned: bool = False        # holds a value live at the kernel's entry (v0: work-item id)
    live: list = None           # per register of the atom: the points its values occupy


# ---- the renumbering ------------------------------------------------------------------
def _vopd_slots(ops: list[_Operand]) -> list[tuple[_Operand | None, int]]:
    """(operand or None, bank mask) of one VOPD component's dst, src0 and vsrc1 (the first
    VGPR after src0: fmamk's literal sits between them)."""
    arg = {}
    for o in ops:
        arg.setdefault(o.arg, o)
    src1 = next((arg[k] for k in sorted(arg) if k >= 2), None)
    return [(arg.get(0), 1), (arg.get(1), 3), (src1, 3)]


def _plan(kernel: _Kernel) -> tuple[_Values, dict[int, int], int]:
    """The kernel's values, the new start register of every atom and the VGPRs the kernel
    then uses."""
    values = _Values(kernel)
    atoms = values.atoms
    wmmas, vopd = [], []
    for ins in kernel.instrs:
        for mnemonic, ops in zip(ins.mnemonics, ins.operands):
            for o in ops:
                if o.half and mnemonic.endswith("_e32"):
                    n, off = values.place(o)
                    atoms[n].limit = min(atoms[n].limit, E32_HALF_LIMIT - 1 - off)
            if mnemonic.startswith("v_wmma"):
                d, a, b, *c = ops
                wmmas.append(tuple(values.place(o) for o in (d, a, b)))
                if c and c[0].role == "use" and (c[0].reg, c[0].size) != (d.reg, d.size):
                    wmmas.append(tuple(values.place(o) for o in (c[0], a, b)))
        if len(ins.mnemonics) == 2:
            x, y = (_vopd_slots(ops) for ops in ins.operands)
            for (ox, mask), (oy, _) in zip(x, y):
                if ox is not None and oy is not None:
                    px, py = values.place(ox), values.place(oy)
                    if px[0] != py[0]:
                        vopd.append(((px, py), mask))
    for ops in wmmas:
        same = [(x, y) for x in ops for y in ops if x < y and x[0] == y[0]]
        if any((ox - oy) % BANKS == 0 for (_, ox), (_, oy) in same):
            raise _Refused("a v_wmma has two operands in one register tuple on one bank")
    # Every constraint is pairwise: two registers' banks (mask 3) or parities (mask 1)
    # differ; between two atoms, a difference of their starts that is not allowed.
    pairs = [(x, y, BANKS - 1) for ops in wmmas for x in ops for y in ops if x[0] < y[0]]
    pairs += [(x, y, mask) if x[0] < y[0] else (y, x, mask) for (x, y), mask in vopd]
    moved = {at for ops in wmmas for at, _ in ops if not atoms[at].pinned}
    residue = _residues(atoms, moved, pairs)
    live = {n: sum(x.bit_count() for x in atoms[n].live) for n in moved}
    orders = {"size": sorted(moved, key=lambda n: (-atoms[n].length, -live[n], atoms[n].start)),
              "bank": sorted(moved, key=lambda n: (residue[n], -atoms[n].length, atoms[n].start)),
              "start": sorted(moved, key=lambda n: (atoms[n].start, -atoms[n].length))}
    results = []
    for budget in dict.fromkeys((max(kernel.vgprs, 1), MAX_VGPRS)):
        for name, order in orders.items():
            for keep in (True, False):
                try:
                    results.append((_layout(atoms, order, residue, budget, keep), name, keep))
                except _Refused as e:
                    why = e
    if DEBUG_LAYOUT:
        print([(r[0][1], r[1], r[2]) for r in results])
    if not results:
        raise why
    return (values,) + min(results, key=lambda r: r[0][1])[0]


def _residues(atoms: list[_Atom], moved: set[int], pairs) -> dict[int, int]:
    """A start residue (mod 4) for every moved atom such that every pair's registers
    differ in the bits of its mask; the atoms that stay keep theirs. Depth first, the
    atom with the fewest residues left next (DSATUR), each atom's own residue first."""
    domain = {n: set(range(BANKS)) for n in moved}
    links: dict[int, list] = {}
    for (x, ox), (y, oy), mask in pairs:
        for n in (x, y):
            links.setdefault(n, []).append(((x, ox), (y, oy), mask))

    def conflicts(n: int, v: int, m: int) -> set[int]:
        """The residues of atom m that a residue v of atom n rules out."""
        out = set()
        for (x, ox), (y, oy), mask in links[n]:
            if {x, y} != {n, m} and not (x == y == n):
                continue
            on, om = (ox, oy) if x == n else (oy, ox)
            out |= {w for w in range(BANKS) if (w + om) & mask == (v + on) & mask}
        return out

    fixed = {n for n in links if n not in moved}
    for n in fixed:
        for m in {z for (x, _), (y, _), _ in links[n] for z in (x, y)} & moved:
            domain[m] -= conflicts(n, atoms[n].start % BANKS, m)
    q: dict[int, int] = {}
    steps = 0

    def solve() -> bool:
        nonlocal steps
        open_ = [n for n in domain if n not in q]
        if not open_:
            return True
        n = min(open_, key=lambda a: (len(domain[a]), -len(links.get(a, ())), a))
        own = atoms[n].start % BANKS
        for v in sorted(domain[n], key=lambda w: (w - own) % BANKS):
            steps += 1
            if steps > SEARCH_LIMIT:
                raise _Refused("the bank search did not finish")
            q[n] = v
            trail = []
            ok = True
            for m in {z for (x, _), (y, _), _ in links.get(n, ()) for z in (x, y)}:
                if m in domain and m not in q:
                    cut = domain[m] & conflicts(n, v, m)
                    domain[m] -= cut
                    trail.append((m, cut))
                    ok = ok and bool(domain[m])
            if ok and solve():
                return True
            for m, cut in trail:
                domain[m] |= cut
            del q[n]
        return False

    if not all(domain.values()) or not solve():
        raise _Refused("no bank assignment satisfies every v_wmma and VOPD")
    return q


def _layout(atoms: list[_Atom], order: list[int], residue: dict[int, int], budget: int,
            keep: bool):
    """The moved atoms, in order, around the others (where LLVM put them): at their own
    start if it has the atom's residue and is free, else at the lowest start of that
    residue whose registers are free over the atom's live points."""
    start = {n: at.start for n, at in enumerate(atoms)}
    occupied = [0] * MAX_VGPRS
    for n, at in enumerate(atoms):
        if n not in residue:
            for k, bits in enumerate(at.live):
                occupied[at.start + k] |= bits
    for n in order:
        at = atoms[n]
        hi = min(at.limit, budget - at.length)
        # Where LLVM put it, if that is on its bank and still free: the others of its
        # kind (the accumulators, all alike) then keep their places too.
        own = [at.start] if keep and at.start % BANKS == residue[n] and at.start <= hi else []
        for s in own + list(range(residue[n], hi + 1, BANKS)):
            if all(not occupied[s + k] & bits for k, bits in enumerate(at.live)):
                break
        else:
            raise _Refused(f"no room for {at.length} VGPRs on bank {residue[n]} within {budget}")
        start[n] = s
        for k, bits in enumerate(at.live):
            occupied[s + k] |= bits
    used = max(start[n] + at.length for n, at in enumerate(atoms))
    return start, used


def _rewrite(kernel: _Kernel, values: _Values, start: dict[int, int], used: int) -> str:
    lines = list(kernel.lines)
    for ins in kernel.instrs:
        line = lines[ins.line]
        for o in sorted((o for ops in ins.operands for o in ops), key=lambda o: -o.at):
            n, off = values.place(o)
            r = start[n] + off
            name = f"v{r}" if o.size == 1 else f"v[{r}:{r + o.size - 1}]"
            line = line[:o.at] + name + line[o.end:]
        lines[ins.line] = line
    text = kernel.before + "\n".join(lines) + kernel.after
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
        values, start, used = _plan(kernel)
    except _Refused as why:
        return (f"{NOTE_PREFIX}left as allocated ({why}): {total - colliding} of {total} "
                f"v_wmma on three VGPR banks\n" + asm)
    out = _rewrite(kernel, values, start, used)
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
