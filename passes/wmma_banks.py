"""Pass `accel-wmma-banks`: every v_wmma reads its A, B and C from three VGPR banks.

Why (seed 002, LLVM bug 204254, measured on gfx1151): a dependent v_wmma issues every
32 cycles when its A (src0), B (src1) and C (src2/dst) operands start on three
different VGPR banks (bank = first VGPR % 4), every 34 cycles when two share one: 6%
of a WMMA-bound kernel. Each operand is 2, 4 or 8 VGPRs, so LLVM's allocator, laying
tuples out one after the other, puts them on one bank: all 84 kernels selection picks
in benchmarks/bench_wmma_banks.py collided. The pinned LLVM has no option for it (a
pre-RA hint is under review upstream, llvm-project PR 205530).

How: the kernel is serialized to assembly, the *values* its VGPRs hold get other
registers, and the text is assembled. A value is a register's writes and the reads they
reach through the control flow (passes/vgpr_values.py finds them, with the EXEC mask
followed as lane sets: a write under a narrowed EXEC continues the value it overwrites);
registers are renamed per value, so a register that holds an A fragment at one point and
a B fragment at another can part. Values one tuple operand ties together form an
*atom*, moved as one block, so tuples stay contiguous.
Kept fixed or respected:
  - values live at the kernel's entry (v0, which the hardware loads with the work-item id);
  - VOPD (v_dual_*) pairs: their X and Y operands in each slot stay on different banks
    (dst: different parity), the encoding's rule (AMDGPUBaseInfo, VOPD bank masks);
  - 16-bit halves (`v1.l`) in _e32 encodings stay below v128, all that encoding reaches;
  - kernels with v_movrel*, v_swap*, v_permlane*, DPP or calls are left alone.
Then each v_wmma atom gets a bank residue (a DSATUR search over the pairwise rules) and
the atoms a start register (first fit over each register's live points, in the orders
of STRATEGIES, then seeded restarts, until one layout keeps the kernel's waves per
SIMD and adds no v_wmma D->A/B hazard: the VGPRs its
descriptor allocates, in LLVM's granule of 24, VGPR_GRANULE). Where none does, the last
resort (`_reordered`) keeps LLVM's packing and moves its registers instead: the ranges
of registers no operand straddles, each whole, in another order, with the ranges no
v_wmma reads laid between the others to shift their banks. The instruction stream is
LLVM's: the same instructions, waits and schedule, only other register numbers (and,
in the last resort, the VOP3 form LLVM prints for a 16-bit half it lifts above v127,
WIDENED_E32), so no main-loop instruction or spill is added; the VGPR count may grow
within the occupancy it has (the metadata says the new count).

Assembling: the text becomes a gpu.module's `llvm.module_asm` and goes through
gpu-module-to-binary, whose assembler and linker are the ones LLVM's own objects go
through. LLVM appends the (empty) metadata note of that function-less module after the
kernel's; it is cut off (`_drop_empty_metadata_note`), leaving one metadata note.

Measured (benchmarks/bench_wmma_banks.py): all 84 kernels selection picks for its
shapes have every v_wmma on three banks, and all 2068 rungs of the perf-config ladder
(`--ladder`, 2048^3: 2058 through STRATEGIES, four more, like one selected kernel, only
through the seeded restarts, RESTARTS, and six through the last resort: gfx1100 f16
64x256x2, 128x128x2, 256x64x2, 256x256x4 and bf16 64x256x2, 256x64x2, whose operands
are all 8 VGPRs and whose allocation LLVM left within 7 VGPRs of the occupancy's
limit). A kernel no layout places is left as allocated, its assembly's first line
saying why.

Switching off: `ENABLED = False` restores plain gpu-module-to-binary; it is off on
arches without WMMA, and a kernel whose WMMAs already sit on three banks (a future
LLVM's allocation) is assembled as LLVM printed it.
"""

from __future__ import annotations

import random
import re
import struct
from dataclasses import dataclass

from accel.bindings import gpu, ir, passmanager
from accel.diagnostics import AccelError
from accel.passes.registry import AccelPass, option, register
from accel.passes.vgpr_values import (ARG, AT, END, HALF, MAX_VGPRS, NODE, REG, ROLE, SIZE,
                                      USE, Atom, Kernel, Refused, Values)
from accel.target.database import ARCHES

ENABLED = True

# A dependent v_wmma: 32 cycles on three banks, 34 with two operands on one (seed 002).
BANKS = 4
# VOP1/VOP2 (_e32) encodings name a 16-bit VGPR half in 8 bits: v0.l .. v127.h.
E32_HALF_LIMIT = 128
# VOP1 instructions on 16-bit halves whose VOP3 (_e64) form, the one LLVM itself prints
# for a half above v127, is the same operation on the same operands: where the last
# resort (`_reordered`) puts such a half above v127, its _e32 becomes _e64 (4 bytes
# more, outside the main loop). The only ones on halves in the kernels measured: f16
# results (v_cvt_f16_f32, 64 to 128 a kernel), bf16 ones (v_mov_b16, 32) where LLVM
# packs a bf16 C (the plan's bf16_round "truncf"; "i32" packs with v_perm_b32).
WIDENED_E32 = ("v_cvt_f16_f32_e32", "v_mov_b16_e32")
# Residue searches give up after this many assignments (the largest kernels measured
# need a few hundred; a bound keeps a pathological one from stalling a compile).
SEARCH_LIMIT = 20000

# D, A, B and, when a VGPR tuple, C (src2; accel's kernels accumulate in place, C = D).
# (Instructions are a tab and the mnemonic; a literal first lets the regex engine skip.)
_WMMA = re.compile(r"\tv_wmma\w*\s+v\[(\d+):\d+\],\s*v\[(\d+):\d+\],\s*v\[(\d+):\d+\]"
                   r"(?:,\s*v\[(\d+):\d+\])?")
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
def _vopd_slots(ops: list[list], k: int) -> list[tuple[list | None, int]]:
    """(operand or None, bank mask) of VOPD component k's dst, src0 and vsrc1 (the first
    VGPR after src0: fmamk's literal sits between them)."""
    arg = {}
    for o in ops:
        if o[8] == k:
            arg.setdefault(o[ARG], o)
    src1 = next((arg[a] for a in sorted(arg) if a >= 2), None)
    return [(arg.get(0), 1), (arg.get(1), 3), (src1, 3)]


# The VGPR allocation granule of wave32 on gfx11/gfx12 with 1536 VGPRs per lane (LLVM's
# getVGPRAllocGranule with Feature1_5xVGPRs). LLVM's descriptors show it: where LDS limits
# the waves, .amdhsa_next_free_vgpr is the fewest VGPRs that allow no more of them, and
# all 679 such counts among 2167 gfx1100/gfx1201 kernels measured (the ladder's rungs and
# the selected ones) are 24k + 1, from 97 to 241.
VGPR_GRANULE = 24


def occupancy_budget(arch: str | None, allocated: int) -> int:
    """The most VGPRs a kernel may use and keep the waves per SIMD that `allocated` (its
    descriptor's count) give it: simd_regs_per_lane // VGPRs rounded up to the granule."""
    if arch not in ARCHES or allocated <= 0:
        return allocated
    a = ARCHES[arch]

    def waves(n):
        return min(a.max_waves_per_simd,
                   a.simd_regs_per_lane // (-(-n // VGPR_GRANULE) * VGPR_GRANULE))

    return max(n for n in range(allocated, MAX_VGPRS + 1) if waves(n) == waves(allocated))


def _constraints(kernel: Kernel):
    """The kernel's values; the atoms v_wmma read (but those that must stay); the pairwise
    bank rules ((atom, offset), (atom, offset), mask) that keep every v_wmma on three
    banks and VOPD's halves apart; the VOPD rules of each atom."""
    values = Values(kernel)
    atoms = values.atoms
    wmmas, vopd = [], []
    for ins in kernel.instrs:
        ops = ins.ops
        if not ops:
            continue
        mnemonic = ins.mnemonics[0]
        if mnemonic.endswith("_e32"):
            for o in ops:
                if o[HALF]:
                    n, off = values.place(o)
                    atoms[n].limit = min(atoms[n].limit, E32_HALF_LIMIT - 1 - off)
        if mnemonic.startswith("v_wmma"):
            d, a, b, *c = ops
            wmmas.append(tuple(values.place(o) for o in (d, a, b)))
            if c and c[0][ROLE] == USE and (c[0][REG], c[0][SIZE]) != (d[REG], d[SIZE]):
                wmmas.append(tuple(values.place(o) for o in (c[0], a, b)))
        elif len(ins.mnemonics) == 2:
            for (ox, mask), (oy, _) in zip(_vopd_slots(ops, 0), _vopd_slots(ops, 1)):
                if ox is not None and oy is not None:
                    px, py = values.place(ox), values.place(oy)
                    if px[0] != py[0]:
                        vopd.append((px, py, mask) if px[0] < py[0] else (py, px, mask))
    for ops in wmmas:
        same = [(x, y) for x in ops for y in ops if x < y and x[0] == y[0]]
        if any((ox - oy) % BANKS == 0 for (_, ox), (_, oy) in same):
            raise Refused("a v_wmma has two operands in one register tuple on one bank")
    # Every constraint is pairwise: two registers' banks (mask 3) or parities (mask 1)
    # differ; between two atoms, a difference of their starts that is not allowed.
    pairs = [(x, y, BANKS - 1) for ops in wmmas for x in ops for y in ops if x[0] < y[0]]
    pairs += vopd
    wmma_atoms = {at for ops in wmmas for at, _ in ops if not atoms[at].pinned}
    links: dict[int, list] = {}
    for p in vopd:
        for n in (p[0][0], p[1][0]):
            links.setdefault(n, []).append(p)
    return values, wmma_atoms, pairs, links


def _layout_order(atoms: list[Atom], how: str, wmma_atoms: set[int],
                  residue: dict[int, int]) -> tuple[list[int], bool]:
    """The atoms to lay out, in order, and whether each keeps its own start when that is
    free. `wmma by bank`: only the v_wmma operands, around the rest where LLVM put it,
    residue by residue, longest first; the others every value anew, those that e32
    16-bit halves keep below v128 first: `all by size` longest first; `all by bank`
    residue by residue, longest first, the last to die first (first fit in that order
    colours a residue's tuples as intervals are coloured, in as many registers as the
    most of them live at once); `wmma first, by birth` the v_wmma operands in the order
    they come alive, then the rest."""
    if how == "wmma by bank":
        return sorted(wmma_atoms, key=lambda n: (residue[n], -atoms[n].length,
                                                 atoms[n].start)), False
    free = [n for n, at in enumerate(atoms) if not at.pinned]
    if how == "all by size":
        live = [sum(x.bit_count() for x in at.live) for at in atoms]
        return sorted(free, key=lambda n: (atoms[n].limit == MAX_VGPRS, -atoms[n].length,
                                           -live[n], atoms[n].start)), True
    if how == "all by bank":
        return sorted(free, key=lambda n: (atoms[n].limit == MAX_VGPRS, n not in residue,
                                           residue.get(n, 0), -atoms[n].length,
                                           -max(x.bit_length() for x in atoms[n].live))), False
    born = {n: min((x & -x).bit_length() for x in atoms[n].live if x) for n in free}
    return sorted(free, key=lambda n: (atoms[n].limit == MAX_VGPRS, n not in residue, born[n],
                                       -atoms[n].length)), False


# (residue search, layout) in the order tried, until one keeps the occupancy. Measured
# over 2167 kernels (the 99 of benchmarks/bench_wmma_banks.py and test_wmma_banks.py, the
# 2068 rungs of the perf-config ladder at 2048^3), how many each lays out alone: the
# cheap partial layout 1775, `all by bank` 2137, `size` ranked `all by size` 2119,
# `wmma first, by birth` 2068; tried in this order they lay out 1775, 363, 14 and 5
# (10 none).
STRATEGIES = (("links", "wmma by bank"), ("links", "all by bank"), ("size", "all by size"),
              ("links", "wmma first, by birth"))


# The last resort, for kernels all of STRATEGIES leave (LLVM's allocation within a few
# VGPRs of the occupancy's limit, every operand 8 VGPRs): `wmma first, by birth` again,
# each atom's birth moved later by up to RESTART_JITTER points and the `links` residues
# relabelled (where the rules still hold), from a generator seeded alike for every
# kernel (the same kernel, the same tries), up to RESTARTS times. Measured on the eleven
# kernels STRATEGIES leave: the tile selected for gfx1100 bf16 333x777x111 is laid out
# at the 49th restart (its best of STRATEGIES needed 257 VGPRs, 256 exist), the gfx1100
# ladder rungs f16 64x128x16 at the 259th, bf16 64x128x16, 128x128x2 and 256x256x4 at
# the 40th, 187th and 3rd; the other six none within 1500 (their peak pressure 0 to 7
# VGPRs under the budget; `_reordered` lays them out). 400 restarts cost the six 0.1 to
# 0.3 s of CPU each. Four gfx1201 f16 kernels of benchmarks/bench_batch_compile.py's
# batch (m=2048, 239 of 240 VGPRs) no try and no last resort lays out, 0.09 to 0.4 s
# each (`python benchmarks/bench_wmma_banks.py --batch-kernels 3`); no test at one
# program point could refuse them first: their pressure peaks at 239, and at each of
# the 106 points within 8 of the budget 31 single-VGPR values are live to fill the gaps
# three banks leave (at most 3 between two of them), while the accumulators e32 halves
# keep below v128 fill at most 128 (120) of its 128 registers, as LLVM's allocation
# shows they can. What fails is a value's one place over its whole life, which only
# the search decides.
RESTARTS = 400
RESTART_JITTER = 40
RESTART_SEED = 0


def _rules_hold(atoms: list[Atom], pairs, residue: dict[int, int]) -> bool:
    """Does every pairwise rule hold with these residues (the atoms without one at their
    own start, as `_residues` takes them)?"""
    def at(n):
        return residue[n] if n in residue else atoms[n].start % BANKS

    return all((at(x) + ox) & mask != (at(y) + oy) & mask for (x, ox), (y, oy), mask in pairs)


def _tries(atoms: list[Atom], wmma_atoms: set[int], pairs):
    """(residues, layout order, keep own starts) in the order tried: STRATEGIES, then the
    restarts."""
    residues: dict[str, dict[int, int]] = {}
    for ranking, how in STRATEGIES:
        if ranking not in residues:
            residues[ranking] = _residues(atoms, wmma_atoms, pairs, ranking)
        yield (residues[ranking],) + _layout_order(atoms, how, wmma_atoms, residues[ranking])
    rng = random.Random(RESTART_SEED)
    free = [n for n, at in enumerate(atoms) if not at.pinned]
    born = {n: min((x & -x).bit_length() for x in atoms[n].live if x) for n in free}
    # A relabelling is one of the 24 orders of the banks: its residues, or None where
    # they break a rule, made once for the RESTARTS that draw it.
    relabelled: dict[tuple[int, ...], dict[int, int] | None] = {}
    for _ in range(RESTARTS):
        relabel = sorted(range(BANKS), key=lambda _: rng.random())
        later = {n: born[n] + rng.random() * RESTART_JITTER for n in free}
        if tuple(relabel) not in relabelled:
            residue = {n: relabel[q] for n, q in residues["links"].items()}
            relabelled[tuple(relabel)] = residue if _rules_hold(atoms, pairs, residue) else None
        residue = relabelled[tuple(relabel)]
        if residue is not None:
            yield residue, sorted(free, key=lambda n: (atoms[n].limit == MAX_VGPRS,
                                                       n not in residue, later[n],
                                                       -atoms[n].length)), False


def _moved(values: Values, start: dict[int, int]) -> dict[int, int]:
    """Value -> its new register, for the values whose atom moved."""
    atoms = values.atoms
    return {w: values.reg_of[w] + start[n] - atoms[n].start
            for w, n in values.atom_of.items() if start[n] != atoms[n].start}


def _plan(kernel: Kernel):
    """operand -> its new first register, whether that moves LLVM's register ranges
    whole (the last resort, `_reordered`) rather than values, and the VGPRs the kernel
    then uses: the first layout tried that keeps the occupancy and puts no v_wmma's A or
    B on the D of the one before."""
    values, wmma_atoms, pairs, links = _constraints(kernel)
    atoms = values.atoms
    budget = occupancy_budget(kernel.arch, kernel.allocated) if kernel.vgprs else MAX_VGPRS
    hazards = False
    for residue, order, keep in _tries(atoms, wmma_atoms, pairs):
        found = _layout(atoms, order, residue, links, budget, keep)
        if found:
            new_reg = _value_map(values, _moved(values, found[0]))
            if _new_wmma_hazards(kernel, new_reg):
                hazards = True
            else:
                return new_reg, False, found[1]
    found = _reordered(kernel, values, pairs, wmma_atoms, budget)
    if found and _new_wmma_hazards(kernel, _register_map(found[0])):
        hazards = True
    elif found:
        return _register_map(found[0]), True, found[1]
    if hazards:
        raise Refused("the layouts within the budget put a v_wmma's A or B on the D of "
                      "the one before")
    raise Refused(f"no layout on three banks within {budget} VGPRs (LLVM's "
                   f"{kernel.vgprs}, {kernel.allocated} allocated, and the registers that "
                   f"keep its occupancy)")


def _value_map(values: Values, moved: dict[int, int]):
    """operand -> its new first register, for a layout of values."""
    web = values.web
    return lambda o: moved.get(web[o[NODE]], o[REG])


def _register_map(new: list[int]):
    """operand -> its new first register, for LLVM's registers mapped one to one."""
    return lambda o: new[o[REG]]


def _residues(atoms: list[Atom], moved: set[int], pairs, ranking: str) -> dict[int, int]:
    """A start residue (mod 4) for every moved atom such that every pair's registers
    differ in the bits of its mask; the atoms that stay keep theirs. Depth first, the
    atom with the fewest residues left next (DSATUR), each atom's own residue first."""
    domain = {n: set(range(BANKS)) for n in moved}
    degree: dict[int, int] = {}          # atom -> how many pairs it is in
    between: dict[tuple[int, int], list] = {}
    for (x, ox), (y, oy), mask in pairs:
        degree[x] = degree.get(x, 0) + 1
        degree[y] = degree.get(y, 0) + 1
        between.setdefault((x, y), []).append((ox, oy, mask))
        between.setdefault((y, x), []).append((oy, ox, mask))
    neighbours: dict[int, list[int]] = {}
    for n, m in between:
        neighbours.setdefault(n, []).append(m)
    ruled_out: dict[tuple[int, int, int], set[int]] = {}

    def conflicts(n: int, v: int, m: int) -> set[int]:
        """The residues of atom m that a residue v of atom n rules out."""
        key = (n, v, m)
        if key not in ruled_out:
            ruled_out[key] = {w for on, om, mask in between[n, m] for w in range(BANKS)
                              if (w + om) & mask == (v + on) & mask}
        return ruled_out[key]

    for n in degree:
        if n not in moved:
            for m in neighbours[n]:
                if m in moved:
                    domain[m] -= conflicts(n, atoms[n].start % BANKS, m)
    # Among the atoms with as many residues left, those hardest to move elsewhere first,
    # so they keep their own: the ones kept below v128, then the longest, longest-lived
    # (accumulators: 16 of them fill v1..v128 in one kernel measured, their only layout).
    rank = {n: (atoms[n].limit == MAX_VGPRS, -atoms[n].length,
                -sum(x.bit_count() for x in atoms[n].live), n) if ranking == "size" else
            (-degree.get(n, 0), n) for n in moved}
    q: dict[int, int] = {}
    steps = 0

    def solve() -> bool:
        nonlocal steps
        open_ = [n for n in domain if n not in q]
        if not open_:
            return True
        n = min(open_, key=lambda a: (len(domain[a]),) + rank[a])
        own = atoms[n].start % BANKS
        for v in sorted(domain[n], key=lambda w: (w - own) % BANKS):
            steps += 1
            if steps > SEARCH_LIMIT:
                raise Refused("the bank search did not finish")
            q[n] = v
            trail = []
            ok = True
            for m in neighbours.get(n, ()):
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
        raise Refused("no bank assignment satisfies every v_wmma and VOPD")
    return q


def _layout(atoms: list[Atom], order: list[int], residue: dict[int, int], links: dict,
            budget: int, keep: bool) -> tuple[dict[int, int], int] | None:
    """The atoms of `order`, in that order, around the others (where LLVM put them): at
    their own start if `keep` and that is free (on their residue, if a v_wmma gave them
    one), else at the lowest such start whose registers are free over the atom's live
    points and whose VOPD partners already placed keep their banks. Where none is free,
    the small unconstrained atoms in the way of one move elsewhere. None if an atom does
    not fit within `budget` VGPRs."""
    start: dict[int, int] = {}
    occupied = [0] * MAX_VGPRS
    owners: list[set] = []      # per register, the atoms on it: built when first needed
    moving = set(order)
    # The atoms `evicting` may move out of another's way, and per register the live
    # points of the placed atoms it may not move: a start whose registers clash with
    # these is no eviction's, and is passed over without building its set of atoms in
    # the way (evicting's CPU 0.38 -> 0.18 s under cProfile in one of the four 239-VGPR
    # gfx1201 kernels of benchmarks/bench_batch_compile.py whose 206 layouts all fail).
    evictable = {n for n in order if n not in residue and atoms[n].length <= 2}
    pinned_down = [0] * MAX_VGPRS

    def put(n: int, s: int) -> None:
        start[n] = s
        fixed = n not in evictable
        for k, bits in enumerate(atoms[n].live):
            occupied[s + k] |= bits
            if fixed:
                pinned_down[s + k] |= bits
            if owners:
                owners[s + k].add(n)

    def take(n: int) -> None:
        s = start.pop(n)
        fixed = n not in evictable
        for k, bits in enumerate(atoms[n].live):
            occupied[s + k] ^= bits
            if fixed:
                pinned_down[s + k] ^= bits
            if owners:
                owners[s + k].discard(n)

    def banks_kept(n: int, s: int) -> bool:
        for (x, ox), (y, oy), mask in links.get(n, ()):
            m, om, on = (y, oy, ox) if x == n else (x, ox, oy)
            if m in start and (start[m] + om) & mask == (s + on) & mask:
                return False
        return True

    def fits(n: int, s: int) -> bool:
        k = s
        for bits in atoms[n].live:
            if occupied[k] & bits:
                return False
            k += 1
        return banks_kept(n, s)

    def candidates(n: int):
        at, q = atoms[n], residue.get(n)
        hi = min(at.limit, budget - at.length)
        lo, step = (0, 1) if q is None else (q, BANKS)
        return range(lo, hi + 1, step)

    def clear(n: int, taken: list[int]):
        """The candidate starts of atom n, lowest first, whose registers are clear of
        `taken` over the atom's live points."""
        live = atoms[n].live
        first, rest = live[0], live[1:]
        for s in candidates(n):
            if taken[s] & first:
                continue
            k = s + 1
            for bits in rest:
                if taken[k] & bits:
                    break
                k += 1
            else:
                yield s

    def first_fit(n: int) -> bool:
        for s in clear(n, occupied):
            if banks_kept(n, s):
                put(n, s)
                return True
        return False

    def evicting(n: int) -> bool:
        live = atoms[n].live
        for s in clear(n, pinned_down):
            if not banks_kept(n, s):
                continue
            if not owners:
                owners.extend(set() for _ in range(MAX_VGPRS))
                for m, p in start.items():
                    for k in range(atoms[m].length):
                        owners[p + k].add(m)
            away = {m for k, bits in enumerate(live) for m in owners[s + k]
                    if atoms[m].live[s + k - start[m]] & bits}
            if len(away) > 2:
                continue
            was = {m: start[m] for m in away}
            for m in away:
                take(m)
            put(n, s)
            placed = []
            for m in sorted(away, key=lambda m: -atoms[m].length):
                if not first_fit(m):
                    break
                placed.append(m)
            else:
                return True
            for m in placed:
                take(m)
            take(n)
            for m, p in was.items():
                put(m, p)
        return False

    for n, at in enumerate(atoms):
        if n not in moving:
            put(n, at.start)
    for n in order:
        at, q = atoms[n], residue.get(n)
        if keep and at.start + at.length <= budget and at.start <= at.limit and \
                (q is None or at.start % BANKS == q) and fits(n, at.start):
            put(n, at.start)
        elif not first_fit(n) and not evicting(n):
            return None
    return start, max(start[n] + at.length for n, at in enumerate(atoms))


# ---- the last resort: LLVM's register ranges reordered -----------------------------------
def _ranges(kernel: Kernel, size: int) -> list[tuple[int, int]]:
    """LLVM's registers 0 .. size - 1 cut into the ranges (first, length) that no
    operand straddles."""
    joined = bytearray(size)          # joined[r]: r and r + 1 are in one operand
    for ins in kernel.instrs:
        for o in ins.ops:
            joined[o[REG]:o[REG] + o[SIZE] - 1] = b"\1" * (o[SIZE] - 1)
    out, first = [], 0
    for r in range(size):
        if not joined[r]:
            out.append((first, r + 1 - first))
            first = r + 1
    return out


def _reordered(kernel: Kernel, values: Values, pairs, wmma_atoms: set[int],
               budget: int) -> tuple[list[int], int] | None:
    """[LLVM's register -> its new one] and the VGPRs used, or None: LLVM's register
    ranges (`_ranges`) laid out again in another order, each whole.

    Why: where LLVM's allocation fills the occupancy's VGPRs (all 144 at one point of
    gfx1100 f16 64x256x2's loop), the first-fit layouts of values found none in 1500
    restarts on six ladder rungs; LLVM's own packing, kept, fits by construction, and
    the order of its ranges alone decides their banks. A range's registers keep their
    order and the values in them, so the renaming is one to one and every live range
    stays as LLVM allocated it; what moves a range's bank is the ranges before it. So:
    a bank for each range with a v_wmma operand (`_residues` over the ranges), then the
    ranges one after another from the lowest register, those on the bank reached there
    first, and the others (and the registers nothing uses) laid between them to reach
    the next bank; the VOPD rules of those checked as they are placed. The halves of
    WIDENED_E32 may go above v127 (128x128x2's 16 accumulators, 128 VGPRs beside v0,
    hold them: below v128 they would all share one bank), the other e32 halves stay
    below."""
    atoms = values.atoms
    used = bytearray(MAX_VGPRS)
    for ins in kernel.instrs:
        for o in ins.ops:
            used[o[REG]:o[REG] + o[SIZE]] = b"\1" * o[SIZE]
    size = max(kernel.vgprs, max(r for r in range(MAX_VGPRS) if used[r]) + 1)
    ranges = _ranges(kernel, size)
    of = [0] * size
    for i, (first, length) in enumerate(ranges):
        of[first:first + length] = [i] * length
    real = [any(used[first:first + length]) for first, length in ranges]
    spare = budget - size + sum(length for (_, length), r in zip(ranges, real) if not r)
    limit = [MAX_VGPRS] * len(ranges)
    for ins in kernel.instrs:
        if ins.mnemonics[0].endswith("_e32") and ins.mnemonics[0] not in WIDENED_E32:
            for o in ins.ops:
                if o[HALF]:
                    i = of[o[REG]]
                    limit[i] = min(limit[i], E32_HALF_LIMIT - 1 - (o[REG] - ranges[i][0]))
    pinned = sorted({of[at.start + k] for at in atoms if at.pinned for k in range(at.length)})
    if pinned != list(range(len(pinned))):
        return None
    wmma = {of[atoms[n].start] for n in wmma_atoms} - set(pinned)
    rules: dict[int, list] = {}
    banked = []               # the rules between ranges that get a bank first
    for (x, ox), (y, oy), mask in pairs:
        rx, ry = atoms[x].start + ox, atoms[y].start + oy
        i, j = of[rx], of[ry]
        oi, oj = rx - ranges[i][0], ry - ranges[j][0]
        if i == j:
            if (oi - oj) & mask == 0:
                return None
            continue
        rules.setdefault(i, []).append((j, oi, oj, mask))
        rules.setdefault(j, []).append((i, oj, oi, mask))
        if {i, j} <= wmma | set(pinned):
            banked.append(((i, oi), (j, oj), mask) if i < j else ((j, oj), (i, oi), mask))
    as_atoms = [Atom(first, length) for first, length in ranges]
    try:
        residue = _residues(as_atoms, wmma, banked, "links")
    except Refused:
        return None
    for shift in range(BANKS):
        # The same banks turned by `shift`: the rules between them hold; the pinned
        # ranges' and where LLVM's text starts the others decide which orders exist.
        turned = {i: (q + shift) % BANKS for i, q in residue.items()}
        if _rules_hold(as_atoms, banked, turned):
            found = _order(ranges, real, pinned, turned, rules, limit, spare, budget)
            if found:
                return found
    return None


def _order(ranges, real, pinned, residue, rules, limit, spare, budget):
    """The ranges' new first registers (the pinned ones at their own), each range of
    `residue` on its bank, every rule held: depth first from the lowest register."""
    start: dict[int, int] = {}
    domain = [(1 << BANKS) - 1] * len(ranges)
    for i, q in residue.items():
        domain[i] = 1 << q

    def place(i: int, p: int) -> list | None:
        """Range i at register p; the banks that leaves the ranges not yet placed (their
        old domains, to undo), or None if it leaves one none."""
        start[i] = p
        trail = []
        for j, oi, oj, mask in rules.get(i, ()):
            if j in start:
                continue
            cut = sum(1 << w for w in range(BANKS) if (w + oj) & mask == (p + oi) & mask)
            if domain[j] & cut:
                trail.append((j, domain[j]))
                domain[j] &= ~cut
                if not domain[j]:
                    undo(i, trail)
                    return None
        return trail

    def undo(i: int, trail: list) -> None:
        del start[i]
        for j, d in reversed(trail):
            domain[j] = d

    cur = 0
    for i in pinned:
        if place(i, ranges[i][0]) is None:
            return None
        cur = sum(ranges[i])
    pending = {i for i, r in enumerate(real) if r and i not in start}
    steps = 0

    def fits(i: int, p: int) -> bool:
        return domain[i] >> (p % BANKS) & 1 and p <= limit[i] and p + ranges[i][1] <= budget

    def solve(cur: int, spare: int) -> bool:
        nonlocal steps
        if not pending:
            return True
        steps += 1
        if steps > SEARCH_LIMIT or any(limit[i] < cur for i in pending):
            return False
        banked = [i for i in pending if i in residue]
        if banked:
            # On this bank, first the ranges that leave it there (those e32 halves keep
            # low first); then the others, first those that move to a bank some range
            # still waits for.
            wanted = 0
            for i in banked:
                wanted |= domain[i]

            def moves_on(i):
                return not wanted >> ((cur + ranges[i][1]) % BANKS) & 1

            here = sorted((i for i in banked if fits(i, cur)),
                          key=lambda i: (ranges[i][1] % BANKS != 0, limit[i], i))
            others = sorted((i for i in pending if i not in residue and fits(i, cur) and
                             (ranges[i][1] % BANKS or limit[i] < MAX_VGPRS)),
                            key=lambda i: (ranges[i][1] % BANKS == 0 or moves_on(i),
                                           limit[i], bin(domain[i]).count("1"),
                                           ranges[i][1], i))
            choices = here + others
        else:
            choices = sorted((i for i in pending if fits(i, cur)), key=lambda i: (limit[i], i))
        for i in choices:
            trail = place(i, cur)
            if trail is None:
                continue
            pending.discard(i)
            if solve(cur + ranges[i][1], spare):
                return True
            pending.add(i)
            undo(i, trail)
        # A register left free moves the bank of what follows.
        return spare > 0 and solve(cur + 1, spare - 1)

    if not solve(cur, spare):
        return None
    new = list(range(sum(ranges[-1])))
    for i, p in start.items():
        first, length = ranges[i]
        new[first:first + length] = range(p, p + length)
    return new, max(p + ranges[i][1] for i, p in start.items())


def _new_wmma_hazards(kernel: Kernel, new_reg) -> int:
    """v_wmma whose A or B overlaps the D of the v_wmma before it with no other VALU
    between, in the renumbered text (`new_reg`: operand -> its new first register) but
    not in LLVM's: the case LLVM's hazard recognizer pads with a v_nop
    (GCNHazardRecognizer::fixWMMAHazards), which it did not see."""
    found = 0
    old_d = new_d = None
    for ins in kernel.instrs:
        mnemonic = ins.mnemonics[0]
        if mnemonic.startswith("v_wmma"):
            d, a, b = ins.ops[:3]
            new = [(new_reg(o), o[SIZE]) for o in (d, a, b)]
            old = [(o[REG], o[SIZE]) for o in (d, a, b)]
            if new_d is not None:
                def hits(dst, src):
                    return dst[0] < src[0] + src[1] and src[0] < dst[0] + dst[1]
                found += any(hits(new_d, x) and not hits(old_d, y)
                             for x, y in zip(new[1:], old[1:]))
            old_d, new_d = old[0], new[0]
        elif mnemonic[:2] == "v_":
            old_d = new_d = None
    return found


def _rewrite(kernel: Kernel, new_reg, used: int) -> str:
    lines = kernel.lines[:]
    for ins in kernel.instrs:
        if all(new_reg(o) == o[REG] for o in ins.ops):
            continue
        line = lines[ins.line]
        pieces, at = [], 0
        for o in ins.ops:
            r = new_reg(o)
            pieces += [line[at:o[AT]], f"v{r}" if o[SIZE] == 1 else f"v[{r}:{r + o[SIZE] - 1}]"]
            at = o[END]
        pieces.append(line[at:])
        line = "".join(pieces)
        mnemonic = ins.mnemonics[0]
        if mnemonic in WIDENED_E32 and \
                any(o[HALF] and new_reg(o) >= E32_HALF_LIMIT for o in ins.ops):
            line = line.replace(mnemonic, mnemonic[:-4] + "_e64", 1)
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
        kernel = Kernel(asm)
        new_reg, reordered, used = _plan(kernel)
        out = _rewrite(kernel, new_reg, used)
    except Refused as why:
        return (f"{NOTE_PREFIX}left as allocated ({why}): {total - colliding} of {total} "
                f"v_wmma on three VGPR banks\n" + asm)
    left, _ = wmma_bank_collisions(out)
    how = "LLVM's VGPR ranges reordered" if reordered else "VGPRs renumbered"
    return (f"{NOTE_PREFIX}{total - left} of {total} v_wmma on three VGPR banks "
            f"(as allocated: {total - colliding}), {how}\n" + out)


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


# A gpu.binary's target is read from, and written back as, text: a Python object of the
# #rocdl.target attribute would import the bindings' rocdl dialect module, 70 ms of CPU
# in the first WMMA compile of every process (and -j worker).
_ROCDL_TARGET = re.compile(r"#rocdl\.target<[^>]*>")
# MLIR string literal escapes, byte by byte: \XX for every byte a code object holds.
_MLIR_BYTE = tuple(f"\\{b:02X}" for b in range(256))


def _target_text(binary) -> str:
    """The text of a gpu.binary's (one) target."""
    return _ROCDL_TARGET.search(str(binary.attributes["objects"])).group(0)


def _objects(target: str, kind: str, data: bytes) -> ir.Attribute:
    """A gpu.binary's `objects`: one object of `kind` (bin | assembly) on `target`."""
    text = "".join(map(_MLIR_BYTE.__getitem__, data))
    return ir.Attribute.parse(f'[#gpu.object<{target}, {kind} = "{text}">]')


def _unoptimized(target: str) -> str:
    """The target at O=0: the holder module has no function to optimize, and its code
    object is byte-identical; building LLVM's O2 codegen pipeline for it cost 0.9 of its
    3.8 ms (gfx1201 64x64 kernel)."""
    return re.sub(r"O = \d", "O = 0", target) if "O = " in target else \
        target.replace("#rocdl.target<", "#rocdl.target<O = 0, ", 1)


def _assemble_one(text: str, target: str, sym: str) -> bytes | None:
    """The linked code object of one kernel's assembly, or None if it does not assemble.
    A module of its own, so a failure leaves the caller's module as it was."""
    with ir.Location.unknown():
        holder = ir.Module.create()
        holder.operation.attributes["gpu.container_module"] = ir.UnitAttr.get()
        with ir.InsertionPoint(holder.body):
            op = ir.Operation.create(
                "gpu.module", regions=1,
                attributes={"sym_name": ir.StringAttr.get(sym),
                            "targets": ir.Attribute.parse(f"[{_unoptimized(target)}]"),
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
        target = _target_text(op)
        asm = bytes(obj.object).decode()
        text = renumber(asm)
        if fmt == "isa":
            kind, data = "assembly", text.encode()
        else:
            kind, data = "bin", _assemble_one(text, target, sym)
            if data is None and text != asm:
                text = f"{NOTE_PREFIX}left as allocated (the assembler refused the " \
                       f"renumbered text)\n" + asm
                data = _assemble_one(text, target, sym)
            if data is None:
                raise AccelError(f"the assembly of kernel '{sym}' does not assemble",
                                 op.location)
        texts[sym] = text
        op.attributes["objects"] = _objects(target, kind, data)
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
