"""The values the VGPRs of one AMDGPU assembly kernel hold (LLVM's text for gfx11/gfx12).

A value (a web) is one register's writes and the reads they reach through the control
flow. Reading them takes: the instructions and their blocks (`Kernel`); each operand's
role, modelled per instruction class (`_assign_roles`: results first; 16-bit halves,
d16 loads and accumulators keep the rest of a register; a v_wmma's D is an update of C,
or written while A and B are read); and EXEC, since a VGPR written while EXEC may exclude
lanes keeps its old value in them, so such a write continues the value it overwrites
(`Lanes` follows EXEC and the SGPRs that save it as lane sets, which sees if / else /
end-if give all lanes back). `Values` then finds the values, their live points (bit sets
over program points: 2i while instruction i reads, 2i + 1 after it wrote) and the atoms:
values a tuple operand ties together, which move as one block. accel-wmma-banks
(passes/wmma_banks.py) gives atoms other registers.
"""

from __future__ import annotations

import bisect
import functools
import re

MAX_VGPRS = 256
# `v` first (the regex engine then skips to each `v`), not preceded by a word character;
# then whether a 16-bit half (`.l`, `.h`) follows, looked at, not taken into the match.
_VGPR = re.compile(r"v(?<![\w.]v)(?:(\d+)|\[(\d+):(\d+)\])(?=(\.[lh]))?")
_ODD_VGPR = re.compile(r"v\[(?!\d+:\d+\])")


class Refused(Exception):
    """The kernel's values cannot be read (or, in the pass, renamed); the message says
    why."""


_LABEL = re.compile(r"[\w.$]+:")
_HEAD = re.compile(r"\s*(\S+)\s*")
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


@functools.lru_cache(maxsize=None)
def _keeps_rest(mnemonic: str) -> bool:
    return bool(_KEEPS_REST.search(mnemonic))


# An operand: [first register, registers, offset in its line, end, comma-separated
# operand of its component (0: where the result goes), a 16-bit half (`v1.l`), role,
# value node of its first register(, VOPD component: 0 for X, 1 for Y)].
REG, SIZE, AT, END, ARG, HALF, ROLE, NODE = range(8)
# Roles: read; written; read, then written (the rest of the register is kept); written
# while the instruction still reads its sources (early clobber).
USE, DEF, RMW, EARLY = range(4)


class _Instr:
    __slots__ = ("line", "mnemonics", "args_at", "ops")

    def __init__(self, line, mnemonics, args_at, ops):
        self.line, self.mnemonics, self.args_at, self.ops = line, mnemonics, args_at, ops


def _operands(line: str, lo: int, hi: int, vopd: bool) -> list[list]:
    ops = []
    for m in _VGPR.finditer(line, lo, hi):
        single, a, b, half = m.groups()
        at, end = m.span()
        if single:
            reg = int(single)
            size = 1
        else:
            reg = int(a)
            size = int(b) - reg + 1
        ops.append([reg, size, at, end, line.count(",", lo, at) if vopd else 0 if at == lo else 1,
                    half is not None, USE, -1])
    return ops


class Kernel:
    """A kernel's assembly split around its code (from the function's label to
    `.Lfunc_end`; the rest is directives and metadata), its instructions and blocks."""

    def __init__(self, asm: str):
        sym = re.search(r"^\t\.amdhsa_kernel (\S+)$", asm, re.M)
        start = asm.find(f"\n{sym.group(1)}:\n") if sym else -1
        end = asm.find("\n.Lfunc_end", start)
        if start < 0 or end < 0 or asm.count(".amdhsa_kernel ") != 1:
            raise Refused("not one kernel between its label and .Lfunc_end")
        start += len(sym.group(1)) + 3
        self.before, self.after = asm[:start], asm[end:]
        self.lines = asm[start:end].split("\n")
        counts = re.findall(r"\.vgpr_count:\s+(\d+)", self.after)
        self.vgprs = int(counts[0]) if len(counts) == 1 else 0
        # What the descriptor has the hardware allocate: LLVM sets it above the count
        # used when something else (LDS) limits the waves (the fewest VGPRs they allow).
        free = re.findall(r"\.amdhsa_next_free_vgpr (\d+)", self.after)
        self.allocated = max(self.vgprs, int(free[0])) if len(free) == 1 else self.vgprs
        target = re.search(r"amdgcn-amd-amdhsa-[^\s\"]*-(gfx\w+)", asm)
        self.arch = target.group(1) if target else None
        # The hardware writes the work-item ids into v0 (.. v2) before the kernel runs.
        ids = re.findall(r"\.amdhsa_system_vgpr_workitem_id (\d)", self.after)
        self.initialized = (1 << (int(ids[0]) + 1 if ids else 3)) - 1
        odd = _ODD_VGPR.search(asm, start, end)
        if odd:
            raise Refused(f"unrecognized register operand at '{asm[odd.start():][:20]}'")
        code = asm[start:end]
        hit = next((x for x in _REFUSED if x in code), None)
        if hit:
            raise Refused(f"it has {hit}*, across which no renaming is sound")
        self.instrs: list[_Instr] = []
        # Blocks: [first instruction, end, successor labels (None: the next block)].
        self.blocks: list[list] = [[0, 0, [None]]]
        self.labels: dict[str, int] = {}
        instrs, blocks = self.instrs, self.blocks
        for n, line in enumerate(self.lines):
            head = line[:2]
            if head[:1] != "\t":
                if line.endswith(":") and _LABEL.fullmatch(line):
                    if blocks[-1][0] != len(instrs) or len(blocks) - 1 in self.labels.values():
                        blocks.append([len(instrs), len(instrs), [None]])
                    self.labels[line[:-1]] = len(blocks) - 1
                elif line and head[:1] != ";":
                    raise Refused(f"unrecognized line '{line[:30]}'")
                continue
            if head in ("\t.", "\t;") or len(line) < 2:
                continue
            semi = line.find(";")
            body = len(line) if semi < 0 else semi
            cut = line.find("::", 0, body)
            if cut >= 0:
                parts = ((1, cut), (cut + 2, body))
                mnemonics, args_at, ops = [], [], []
                for k, (lo, hi) in enumerate(parts):
                    head = _HEAD.match(line, lo, hi)
                    mnemonics.append(head.group(1))
                    args_at.append(head.end())
                    for o in _operands(line, head.end(), hi, True):
                        o.append(k)
                        ops.append(o)
                instrs.append(_Instr(n, mnemonics, args_at, ops))
                blocks[-1][1] = len(instrs)
                continue
            sp = line.find(" ", 1)
            if sp < 0 or sp > body:
                sp = body
            mnemonic = line[1:sp]
            args_at = sp
            while args_at < body and line[args_at] in " \t":
                args_at += 1
            ops = _operands(line, args_at, body, False) if mnemonic[:2] != "s_" else []
            instrs.append(_Instr(n, (mnemonic,), (args_at,), ops))
            if mnemonic[:2] == "s_" and (mnemonic.startswith(_BRANCH) or mnemonic in _TERMINATORS):
                target = line[sp + 1:body].strip()
                blocks[-1][1] = len(instrs)
                blocks[-1][2] = [target] if mnemonic == "s_branch" else \
                    [target, None] if mnemonic.startswith(_BRANCH) else []
                blocks.append([len(instrs), len(instrs), [None]])
            else:
                blocks[-1][1] = len(instrs)

    def args(self, i: int, k: int = 0) -> list[str]:
        """The comma-separated operands of instruction i (its component k)."""
        ins = self.instrs[i]
        line = self.lines[ins.line]
        end = line.find(";")
        text = line[ins.args_at[k]:end if end >= 0 else len(line)]
        if len(ins.mnemonics) == 2 and k == 0:
            text = text[:text.index("::")]
        return [a.strip() for a in text.split(",")]

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
                    raise Refused(f"a branch to {s}, outside the kernel")
            out.append(targets)
        return out


class Lanes:
    """EXEC and the SGPRs that hold lane masks, as sets of lanes: truth tables over the
    conditions the kernel branches on (each unknown SGPR read a variable), so that
    `s_and_saveexec` .. `s_xor exec` .. `s_or exec, exec, s` (if, else, end if) is seen to
    give all lanes back. A VGPR written while EXEC may exclude lanes keeps its old value
    in them."""

    VARIABLES = 12                 # 4096-entry tables; the kernels measured read <= 6
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
            if not _MASK_REG.fullmatch(name):
                return None
            state[name] = self._variable((i, name))
        return state[name]

    def step(self, state: dict, i: int, mnemonic: str, args: list[str]) -> dict:
        state = dict(state)
        first = args[0] if args else ""
        dst = "exec" if first.startswith("exec") else first
        if mnemonic.startswith("v_"):
            if mnemonic.startswith("v_cmpx"):
                cond = self._variable((i, "v_cmpx"))
                state["exec"] = None if cond is None or state["exec"] is None else \
                    state["exec"] & cond
            for name in args[:2]:      # v_cmp's, v_readlane's, a carry-out's SGPR result
                state.pop(name, None)
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
        elif "exec" in mnemonic or dst == "exec":
            state["exec"] = None
        else:
            # Anything else an SGPR result goes to is no longer a known mask.
            tuple_ = _SGPR_TUPLE.fullmatch(first)
            if tuple_:
                for r in range(int(tuple_.group(1)), int(tuple_.group(2)) + 1):
                    state.pop(f"s{r}", None)
            elif first.startswith("vcc"):
                state.pop("vcc_lo", None)
            state.pop(first, None)
        return state


_MASK_REG = re.compile(r"s\d+|vcc_lo")
_SGPR_TUPLE = re.compile(r"s\[(\d+):(\d+)\]")
# Scalar instructions that write no SGPR and no EXEC.
_NO_SCALAR_RESULT = ("s_waitcnt", "s_delay_alu", "s_nop", "s_clause", "s_barrier", "s_cbranch",
                     "s_branch", "s_endpgm", "s_sleep", "s_set_inst_prefetch", "s_wait_",
                     "s_setprio", "s_sendmsg", "s_inst_prefetch", "s_code_end", "s_dcache")
# Vector instructions that may write an SGPR (v_cmpx: EXEC).
_SCALAR_RESULT = ("v_cmp", "v_read", "v_add_co", "v_sub_co", "v_subrev_co", "v_mad_u64",
                  "v_mad_i64", "v_mad_co", "v_div_scale")


@functools.lru_cache(maxsize=None)
def _steps_lanes(mnemonic: str) -> bool:
    """May `mnemonic` write EXEC or an SGPR that holds a lane mask (Lanes.step)?"""
    return mnemonic[:2] == "s_" and not mnemonic.startswith(_NO_SCALAR_RESULT) or \
        mnemonic.startswith(_SCALAR_RESULT)


def _join(a: dict, b: dict) -> dict:
    return {k: v for k, v in a.items() if k in b and b[k] == v} | \
        {"exec": a["exec"] if a["exec"] == b["exec"] else None}


def masked_instructions(kernel: Kernel, succ: list[list[int]]) -> list[bool]:
    """Per instruction: may EXEC exclude lanes of the launch there?"""
    lanes = Lanes()
    state_in: list[dict | None] = [None] * len(kernel.blocks)
    state_in[0] = {"exec": Lanes.ALL}
    masked = [True] * len(kernel.instrs)    # unreached code: assume the worst
    work = [0]
    instrs = kernel.instrs
    # The instructions that may change a mask; between them EXEC stays what it is.
    steps = [i for i, ins in enumerate(instrs) if _steps_lanes(ins.mnemonics[0])]
    while work:
        b = work.pop()
        state = state_in[b]
        first, end, _ = kernel.blocks[b]
        at = first
        for i in steps[bisect.bisect_left(steps, first):bisect.bisect_left(steps, end)]:
            masked[at:i + 1] = [state["exec"] != Lanes.ALL] * (i + 1 - at)
            state = lanes.step(state, i, instrs[i].mnemonics[0], kernel.args(i))
            at = i + 1
        masked[at:end] = [state["exec"] != Lanes.ALL] * (end - at)
        for s in succ[b]:
            new = state if state_in[s] is None else _join(state_in[s], state)
            if new != state_in[s]:
                state_in[s] = new
                work.append(s)
    return masked


# Instruction classes of _assign_roles.
_WMMA, _VALU, _READS, _LOAD, _STORE, _UNMODELLED = range(6)


@functools.lru_cache(maxsize=None)
def _kind(mnemonic: str) -> int:
    if mnemonic.startswith("v_wmma"):
        return _WMMA
    if mnemonic[:2] == "v_":
        return _READS if mnemonic.startswith(_READS_FIRST) else _VALU
    if mnemonic.startswith(_LOADS):
        return _LOAD
    return _STORE if mnemonic.startswith(_STORES) else _UNMODELLED


def _assign_roles(ins: _Instr, masked: bool) -> None:
    ops = ins.ops
    if len(ins.mnemonics) == 2:
        # VOPD: each component's first operand; written while the other component still
        # reads (LLVM pairs only independent halves; no source may become a result).
        for o in ops:
            if o[ARG] == 0:
                o[ROLE] = RMW if masked or _keeps_rest(ins.mnemonics[o[8]]) else EARLY
        return
    mnemonic = ins.mnemonics[0]
    result = ops[0] if ops[0][ARG] == 0 else None
    kind = _kind(mnemonic)
    if kind == _WMMA:
        if len(ops) not in (3, 4) or result is None or any(o[SIZE] == 1 for o in ops):
            raise Refused(f"unrecognized operands of {mnemonic}")
        same = len(ops) == 4 and ops[3][REG] == result[REG] and ops[3][SIZE] == result[SIZE]
        # D partly over A or B is not allowed; D equal to C is an update in place.
        result[ROLE] = RMW if same else EARLY
    elif kind == _VALU or kind == _READS:
        if result is None or kind == _READS:
            return
        size = result[SIZE]
        # A tuple result equal to a source (v_lshlrev_b64 v[0:1], 1, v[0:1]) stays one.
        identical = size > 1 and any(o[REG] == result[REG] and o[SIZE] == size for o in ops[1:])
        result[ROLE] = RMW if masked or result[HALF] or identical or \
            _keeps_rest(mnemonic) else EARLY if size > 1 else DEF
    elif kind == _LOAD:
        if result is None:
            raise Refused(f"unrecognized operands of {mnemonic}")
        result[ROLE] = RMW if masked or "d16" in mnemonic else DEF
    elif kind == _UNMODELLED:
        raise Refused(f"no model of the VGPRs {mnemonic} reads and writes")


class Values:
    """Every value a VGPR holds, found through the control flow: a value (web) is a
    register's defs and uses that reach each other; those of one tuple operand form an
    atom, moved as one block. Live ranges are bit sets over program points (2i: while
    instruction i reads, 2i + 1: after it wrote)."""

    def __init__(self, kernel: Kernel):
        succ = kernel.successors()
        masked = masked_instructions(kernel, succ)
        instrs, blocks = kernel.instrs, kernel.blocks
        for ins, m in zip(instrs, masked):
            if ins.ops:
                _assign_roles(ins, m)
        nb = len(blocks)
        gen, kill, written = [0] * nb, [0] * nb, [0] * nb
        for b, (first, end, _) in enumerate(blocks):
            g = k = w = 0
            for i in range(end - 1, first - 1, -1):
                ops = instrs[i].ops
                for o in ops:
                    if o[ROLE] != USE:
                        bits = ((1 << o[SIZE]) - 1) << o[REG]
                        w |= bits
                        if o[ROLE] != RMW:
                            k |= bits
                            g &= ~bits
                for o in ops:
                    if o[ROLE] == USE or o[ROLE] == RMW:
                        g |= ((1 << o[SIZE]) - 1) << o[REG]
            gen[b], kill[b], written[b] = g, k, w
        live_in, live_out = [0] * nb, [0] * nb
        changed = True
        while changed:
            changed = False
            for b in range(nb - 1, -1, -1):
                out = 0
                for s in succ[b]:
                    out |= live_in[s]
                new = gen[b] | (out & ~kill[b])
                if new != live_in[b] or out != live_out[b]:
                    live_in[b], live_out[b], changed = new, out, True
        # A value is live only where some def (or the hardware, for the work-item id)
        # may have written it: a 16-bit half or masked lanes written into a register
        # nothing wrote before keep garbage, which no renaming needs to keep.
        preds = [[] for _ in blocks]
        for b, targets in enumerate(succ):
            for s in targets:
                preds[s].append(b)
        defined_in = [0] * nb
        changed = True
        while changed:
            changed = False
            for b in range(nb):
                new = kernel.initialized if b == 0 else 0
                for p in preds[b]:
                    new |= defined_in[p] | written[p]
                if new != defined_in[b]:
                    defined_in[b], changed = new, True
        for b in range(nb):
            live_in[b] &= defined_in[b]
            live_out[b] &= defined_in[b] | written[b]

        parent: list[int] = []       # node -> the node it joined (itself: a root)
        reg_of: list[int] = []       # node -> its register
        new_node, new_reg = parent.append, reg_of.append

        def find(x: int) -> int:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        segments = []          # [node, first point, last point]
        joins = []             # (node at a block's end, successor block, register)
        in_nodes: list[dict[int, int]] = []
        tuples = []            # nodes of one tuple operand
        for b, (first, end, _) in enumerate(blocks):
            # Per register: [its node, first point, last point so far], the segment it
            # becomes when the register is written again or the block ends.
            cur: dict[int, list[int]] = {}
            at = 2 * first
            entry = {}
            for r in _bits(live_in[b]):
                entry[r] = n = len(parent)
                cur[r] = [n, at, at]
                new_node(n)
                new_reg(r)
            in_nodes.append(entry)
            for i in range(first, end):
                ops = instrs[i].ops
                if not ops:
                    continue
                use_at = 2 * i
                defs = False
                for o in ops:
                    role = o[ROLE]
                    if role == USE or role == RMW:
                        # An update in place (RMW) continues the value it reads.
                        seen = use_at if role == USE else use_at + 1
                        first_reg, size = o[REG], o[SIZE]
                        for r in range(first_reg, first_reg + size):
                            seg = cur.get(r)
                            if seg is None:       # garbage: nothing wrote it
                                cur[r] = seg = [len(parent), use_at, seen]
                                new_node(seg[0])
                                new_reg(r)
                            else:
                                seg[2] = seen
                        o[NODE] = cur[first_reg][0]
                        if size > 1:
                            tuples.append([cur[r][0] for r in range(first_reg, first_reg + size)])
                    else:
                        defs = True
                if not defs:
                    continue
                for o in ops:
                    role = o[ROLE]
                    if role == USE or role == RMW:
                        continue
                    born = use_at if role == EARLY else use_at + 1
                    r = o[REG]
                    o[NODE] = n = len(parent)
                    for r in range(r, r + o[SIZE]):
                        new_node(n)
                        new_reg(r)
                        seg = cur.get(r)
                        if seg is not None:
                            segments.append(seg)
                        cur[r] = [n, born, use_at + 1]
                        n += 1
                    if o[SIZE] > 1:
                        tuples.append(list(range(o[NODE], n)))
            end_point = 2 * end - 1 if end > first else 2 * first
            out = live_out[b]
            for r, seg in cur.items():
                if out >> r & 1:
                    seg[2] = end_point
                segments.append(seg)
            for r in _bits(out):
                for s in succ[b]:
                    joins.append((cur[r][0], s, r))
        for n, s, r in joins:
            target = in_nodes[s].get(r)
            if target is not None:
                a, c = find(n), find(target)
                if a != c:
                    parent[a] = c
        web = [n if p == n else find(n) for n, p in enumerate(parent)]   # node -> its value
        pinned = {web[n] for n in in_nodes[0].values()}

        # Atoms: values tied by tuple operands (a value's offset in its atom is its
        # register minus the atom's first register).
        atom_parent = {}

        def afind(x):
            root = x
            while atom_parent.get(root, root) != root:
                root = atom_parent[root]
            while x != root:
                atom_parent[x], x = root, atom_parent[x]
            return root

        for ws in {tuple([web[n] for n in nodes]) for nodes in tuples}:
            a = afind(ws[0])
            for w in ws[1:]:
                c = afind(w)
                if c != a:
                    atom_parent[c] = a
        live: dict[int, int] = {}
        for n, lo, hi in segments:
            w = web[n]
            live[w] = live.get(w, 0) | ((1 << (hi - lo + 1)) - 1) << lo
        members: dict[int, list[int]] = {}
        for w in live:
            members.setdefault(afind(w) if w in atom_parent else w, []).append(w)
        self.web, self.reg_of = web, reg_of
        self.atom_of: dict[int, int] = {}      # value -> atom index
        self.atoms: list[Atom] = []
        spans = []
        for ws in members.values():
            regs = [reg_of[w] for w in ws]
            spans.append((min(regs), max(regs), ws))
        spans.sort(key=lambda x: x[0])
        atom_of, atoms = self.atom_of, self.atoms
        for base, top, ws in spans:
            at = Atom(base, top - base + 1)
            bits = at.live
            for w in ws:
                bits[reg_of[w] - base] |= live[w]
                atom_of[w] = len(atoms)
                if w in pinned:
                    at.pinned = True
            atoms.append(at)

    def place(self, o: list) -> tuple[int, int]:
        """(atom, offset in it) of an operand's first register."""
        w = self.web[o[NODE]]
        n = self.atom_of[w]
        return n, self.reg_of[w] - self.atoms[n].start


def _bits(x: int):
    while x:
        low = x & -x
        yield low.bit_length() - 1
        x ^= low


class Atom:
    """Registers start .. start + length - 1 in LLVM's text; `live`: per register, the
    points its values occupy; `limit`: the highest start that keeps its e32 16-bit
    halves reachable; `pinned`: it holds a value live at the kernel's entry (v0)."""
    __slots__ = ("start", "length", "limit", "pinned", "live")

    def __init__(self, start: int, length: int):
        self.start, self.length, self.limit, self.pinned = start, length, MAX_VGPRS, False
        self.live = [0] * length
