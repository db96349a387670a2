"""Choose a perf config for a GEMM: enumerate a ladder, screen it, rank by the cost model.

Candidates (per usable MMA instruction, see validity.usable_instructions):
  mPerBlock, nPerBlock  16, 32, 64, 128, 256 that the instruction tile divides;
  waves                 1, 2, 4, 8 or 16 per workgroup, split between M and N the way
                        that reads the least LDS (squarest per-wave tile);
  kPerBlock             16, 32, 64, 128 (and 256 for 1-byte types);
  kpack                 the instruction's per-lane K run, or 16 bytes of elements.
An operand already in the accel layout fixes mPerBlock/nPerBlock, kpackPerBlock and
kpack, and only agreeing candidates are made.

Screens, in order (seed 000's rules):
  validity  `check_config`'s rules (the same rules codegen applies), through
            validity.screen_config;
  padding   the padded output area may exceed the real one by at most 25%; when no
            valid tile manages that, by at most 25% over the least padding any does
            (so M=1 still gets the narrowest tile).
How many dispatch units a grid fills is the cost model's business (wave quantization,
resident tiles): a tile that leaves units idle can still be the fastest (gfx942
512^3: 16x64x128, 256 workgroups on 304 CUs, each bound by its k-tiles' load latency,
4.45 us; 16x32x128 gives every CU work but two tiles to some, 6.0 us).
The rest are ranked by estimated time (cost_model; a tile 256 wide pays WIDE_MARGIN
for its compile time), candidates within TIE of the best left being a tie (the model is
not that precise); ties go to the one whose busiest unit finishes first (within TIE:
where the chip-wide traffic bounds both, the other has no slack), then to fewer global
bytes fetched in all, fewer LDS bytes read per flop (wider wave tiles: on gfx942
4096^3 128x256 with 128x64 per wave instead of 64x64 per wave, main-loop MMA work share
0.454 -> 0.522 by benchmarks/bench_kernel_quality.py, no scratch), less LDS, fewer
registers, the wider MFMA, fewer waves, kpack closest to a 16-byte LDS read, then the
config text: deterministic.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass, field

from accel import validate
from accel.diagnostics import AccelError
from accel.dialect.accel_tile import AccelTile
from accel.dialect.element_types import ELEMENT_BYTES, is_fp8
from accel.dialect.gemm import GemmShape
from accel.dialect.gemm_types import OUTPUT_TYPES, element_type_error
from accel.dialect.perf_config import PerfConfig
from accel.target.database import ArchInfo, MmaInstr
from accel.tuning import cost_model
from accel.tuning.launch import Launch, geometry
from accel.tuning.validity import (grid_errors, lane_k_run, operand_size_errors,
                                   screen_config, selection_arguments,
                                   usable_instructions)

TILE_LADDER = (16, 32, 64, 128, 256)
WAVE_COUNTS = (1, 2, 4, 8, 16)
K_LADDER = (16, 32, 64, 128)
PAD_LIMIT = 1.25
# Estimates within 0.5% of each other rank by traffic instead: decode (1x4096x4096 on
# gfx942) scores 16x16x128 and 16x64x128 31.36 and 31.38 us, and the 16-wide tile
# fetches 4x the bytes.
TIE = 0.005
# A tile 256 wide in M or N compiles slower than a 128-wide one: measured (best of 4-5
# in one process, load average 7-9, so only the ratios mean much) 256x256 2-3x
# 128x256 or 128x128 (gfx942 4096^3: 848 against 441 and 671 ms; gfx1201: 585 against
# 220 and 307 ms), and on gfx1100 128x256 1.3-1.9x 128x128 (2048^3: 549-905 against
# 292-491 ms); the lead measured ~440 against ~90 ms for a typical kernel. It is chosen
# only when its estimate beats every narrower tile's by more than WIDE_MARGIN, i.e. it
# ranks by its estimate times 1 + WIDE_MARGIN.
WIDE = 256
WIDE_MARGIN = 0.05


def ranking_score(config: PerfConfig, us: float) -> float:
    """What the selector ranks by: the estimate, times 1 + WIDE_MARGIN for a tile 256
    wide (its compile time)."""
    return us * (1 + WIDE_MARGIN) if max(config.m_per_block, config.n_per_block) >= WIDE \
        else us


def tie_groups(items: list[tuple], at: int) -> list[list[tuple]]:
    """`items` in groups of ties, best first, by their value at index `at`: each group
    holds what is within TIE of the least value left (so two estimates 0.1% apart
    never fall on either side of a fixed step), in ascending order (equal values in
    their order in `items`)."""
    groups: list[list[tuple]] = []
    bound = 0.0
    for item in sorted(items, key=lambda i: i[at]):
        if groups and item[at] <= bound:
            groups[-1].append(item)
        else:
            groups.append([item])
            bound = item[at] * (1 + TIE)
    return groups


@dataclass(frozen=True)
class Candidate:
    config: PerfConfig
    score: float          # estimated microseconds; lower is better
    breakdown: dict


@dataclass(frozen=True)
class Prepared:
    """A candidate with all that does not depend on the shape, made once per arch and
    element type (`_ladder`)."""
    config: PerfConfig
    instr: MmaInstr
    lds: int
    regs: int
    text: str   # str(config), the last tie-breaker; formatted once
    terms: cost_model.ConfigTerms   # the cost model's shape-independent part


@dataclass
class Selection:
    arch: ArchInfo
    in_type: str
    out_type: str
    shape: GemmShape
    # The admissible candidates with their launches, best first. A compile needs only
    # the first; `ranked` makes every candidate's breakdown when someone asks for it.
    scored: list[tuple[Prepared, Launch]]
    rejected: list[tuple[PerfConfig, list[str]]] = field(default_factory=list)
    b_type: str | None = None    # B's element type where it differs from A's (fp8)

    @property
    def best(self) -> PerfConfig:
        return self.scored[0][0].config

    @functools.cached_property
    def ranked(self) -> list[Candidate]:
        out = []
        for p, lc in self.scored:
            us, breakdown = cost_model.estimate_terms(p.terms, self.out_type, self.shape, lc)
            out.append(Candidate(p.config, round(us, 6),
                                 {**breakdown, "lds_bytes": p.lds, "registers": p.regs}))
        return out

    def explain(self, top: int | None = 10, show_rejected: bool = True) -> str:
        s = self.shape
        types = self.in_type if self.b_type in (None, self.in_type) else \
            f"{self.in_type} x {self.b_type}"
        lines = [f"{self.arch.name} ({self.arch.cu_count} CUs) {types} -> {self.out_type}  "
                 f"G={s.g} M={s.m} N={s.n} K={s.k}: {len(self.ranked)} ranked, "
                 f"{len(self.rejected)} rejected",
                 f"{'rank':>4}  {'est us':>9}  {'tile':<12} {'mma':<6} {'thr':>4} {'grid':>7} "
                 f"{'fill':>5} {'pad':>5} {'AIglb':>6} {'AIlds':>6} {'ahead':>5}  {'bound':<14} "
                 f"perf config"]
        for i, c in enumerate(self.ranked[:top] if top else self.ranked):
            b, cfg = c.breakdown, c.config
            tile = f"{cfg.m_per_block}x{cfg.n_per_block}x{cfg.k_per_block}"
            lines.append(
                f"{i + 1:>4}  {c.score:>9.3f}  {tile:<12} {cfg.mn_per_xdl:<6} "
                f"{cfg.block_size(self.arch.wave_size):>4} {b['grid']:>7} {b['fill']:>5.0%} "
                f"{b['pad_area']:>5.0%} {b['ai_global']:>6} {b['ai_lds']:>6} "
                f"{b['pipeline_depth']:>5}  {b['bound']:<14} {cfg}")
        if show_rejected and self.rejected:
            lines.append("rejected:")
            for cfg, reasons in self.rejected:
                tile = f"{cfg.m_per_block}x{cfg.n_per_block}x{cfg.k_per_block}"
                lines.append(f"  {cfg} ({tile}, {cfg.block_size(self.arch.wave_size)} threads): "
                             + "; ".join(reasons))
        return "\n".join(lines)

    def to_json(self, top: int | None = None) -> str:
        ranked = self.ranked[:top] if top else self.ranked
        return json.dumps({
            "arch": self.arch.name, "cu_count": self.arch.cu_count,
            "in_type": self.in_type, "b_type": self.b_type or self.in_type,
            "out_type": self.out_type,
            "shape": {"g": self.shape.g, "m": self.shape.m, "n": self.shape.n, "k": self.shape.k},
            "best": str(self.best),
            "ranked": [{"perf_config": str(c.config), "score_us": c.score, **c.breakdown}
                       for c in ranked],
            "rejected": [{"perf_config": str(cfg), "reasons": r} for cfg, r in self.rejected],
        }, indent=2)


def _wave_split(m_pb: int, n_pb: int, waves: int, mn: int) -> tuple[int, int] | None:
    """(waves_m, waves_n) for `waves` waves reading the least LDS, or None."""
    best = None
    for wm in range(1, waves + 1):
        if waves % wm:
            continue
        wn = waves // wm
        if m_pb % (wm * mn) or n_pb % (wn * mn):
            continue
        reads = wn * m_pb + wm * n_pb
        if best is None or reads < best[0]:
            best = (reads, wm, wn)
    return None if best is None else best[1:]


def _kpack_choices(instr: MmaInstr, in_type: str) -> tuple[int, ...]:
    return tuple(sorted({lane_k_run(instr), 16 // ELEMENT_BYTES[in_type]}))


@functools.lru_cache(maxsize=64)
def _ladder(arch: ArchInfo, in_type: str, b_type: str, fixed_a: AccelTile | None,
            fixed_b: AccelTile | None, schedule_version: int
            ) -> tuple[tuple[Prepared, ...], tuple[tuple[PerfConfig, tuple[str, ...]], ...]]:
    """Shape-independent part: the candidates and the ones the arch rules out, cached."""
    fixed = [t for t in (fixed_a, fixed_b) if t is not None]
    if fixed and any((t.kpack_per_block, t.kpack) != (fixed[0].kpack_per_block, fixed[0].kpack)
                     for t in fixed):
        raise AccelError("A and B accel layouts disagree on kpackPerBlock/kpack "
                         f"({fixed_a} vs {fixed_b}); one perf config cannot serve both")
    eb = ELEMENT_BYTES[in_type]
    probe = GemmShape(1, 1, 1, 1)
    good: list[Prepared] = []
    bad: list[tuple[PerfConfig, tuple[str, ...]]] = []
    for instr in usable_instructions(arch, in_type, b_type):
        mn = instr.m
        if fixed:
            k_options = [(fixed[0].kpack_per_block, fixed[0].kpack)]
        else:
            k_options = [(kpb // kp, kp)
                         for kpb in K_LADDER + ((2 * K_LADDER[-1],) if eb == 1 else ())
                         for kp in _kpack_choices(instr, in_type) if kpb % kp == 0]
        m_tiles = (fixed_a.d_per_block,) if fixed_a else TILE_LADDER
        n_tiles = (fixed_b.d_per_block,) if fixed_b else TILE_LADDER
        for mpb in m_tiles:
            for npb in n_tiles:
                for waves in WAVE_COUNTS:
                    split = _wave_split(mpb, npb, waves, mn)
                    if split is None:
                        continue
                    wm, wn = split
                    for kpack_pb, kpack in k_options:
                        cfg = PerfConfig(m_per_block=mpb, n_per_block=npb,
                                         kpack_per_block=kpack_pb, m_per_wave=mpb // wm,
                                         n_per_wave=npb // wn, mn_per_xdl=mn, kpack=kpack,
                                         schedule_version=schedule_version)
                        # select checked the arguments; the estimate is
                        # `instr`'s, the one instruction of its mnPerXdl.
                        errors, lds, regs, depth = screen_config(arch, in_type, probe,
                                                                 cfg, b_type)
                        if errors:
                            bad.append((cfg, tuple(errors)))
                        else:
                            good.append(Prepared(cfg, instr, lds, regs, str(cfg),
                                                  cost_model.config_terms(
                                                      arch, in_type, cfg, instr, lds, regs,
                                                      depth=depth)))
    return tuple(good), tuple(bad)


def select(arch: ArchInfo, in_type: str, out_type: str, shape: GemmShape, *,
           fixed_a: AccelTile | None = None, fixed_b: AccelTile | None = None,
           double_buffer_default: bool = False, b_type: str | None = None) -> Selection:
    """Rank every admissible config for this GEMM; `.best` is the choice.

    `in_type` is A's element type, `b_type` B's (default: the same; two fp8 formats
    may differ). `fixed_a` / `fixed_b`: the blocking of an operand already in the accel
    layout. `double_buffer_default`: make candidates with the double-buffered schedule
    (2). Raises AccelError when no config is valid.
    """
    arch, in_type, out_type, shape = selection_arguments(arch, in_type, out_type, shape)
    for name, tile in (("fixed_a", fixed_a), ("fixed_b", fixed_b)):
        validate.instance(name, tile, (AccelTile, type(None)), "an AccelTile or None")
    double_buffer_default = validate.boolean("double_buffer_default", double_buffer_default)
    b_type = in_type if b_type is None else validate.string("b_type", b_type)
    if not arch.supports(in_type, b_type) or in_type not in ELEMENT_BYTES:
        why = element_type_error(arch, in_type, b_type) if is_fp8(in_type) or is_fp8(b_type) \
            else f"element type {validate.clipped(in_type)} has no MMA instruction on {arch.name}"
        raise AccelError(why or f"{in_type} x {b_type} has no MMA instruction on {arch.name}")
    if out_type not in OUTPUT_TYPES.get(in_type, ()):
        raise AccelError(f"output type {validate.clipped(out_type)} is not supported for "
                         f"{in_type} inputs "
                         f"(expected one of {', '.join(OUTPUT_TYPES.get(in_type, ()))})")
    if min(shape.g, shape.m, shape.n, shape.k) < 1:
        raise AccelError(f"GEMM extents must be positive, got G={shape.g} M={shape.m} "
                         f"N={shape.n} K={shape.k}")
    too_large = operand_size_errors(shape, in_type, out_type)
    if too_large:
        raise AccelError(f"no perf config can serve G={shape.g} M={shape.m} N={shape.n} "
                         f"K={shape.k}: {too_large[0]}")
    good, bad = _ladder(arch, in_type, b_type, fixed_a, fixed_b,
                        2 if double_buffer_default else 1)
    rejected: list[tuple[PerfConfig, list[str]]] = [(c, list(r)) for c, r in bad]

    valid: list[tuple[Prepared, object]] = []
    # The grid and its rule depend on the tile's extents, threads and split alone,
    # which candidates differing only in kpack, wave split or MMA share: each is made
    # once per select (the bench's 97 selections: 56,774 candidates, 26,870 grids).
    grids: dict[tuple[int, int, int, int, int], tuple[list[str], Launch]] = {}
    for prep in good:
        c = prep.config
        key = (c.m_per_block, c.n_per_block, c.k_per_block, c.num_waves, c.split_k)
        grid = grids.get(key)
        if grid is None:
            grid = grids[key] = (grid_errors(arch, shape, c), geometry(arch, shape, c))
        if grid[0]:
            rejected.append((c, list(grid[0])))
        else:
            valid.append((prep, grid[1]))
    if not valid:
        why = rejected[0][1][0] if rejected else "no candidate"
        raise AccelError(f"no valid perf config for {in_type} G={shape.g} M={shape.m} "
                         f"N={shape.n} K={shape.k} on {arch.name} (e.g. {why})")

    real = shape.m * shape.n
    budget = PAD_LIMIT * real
    if not any(lc.padded[0] * lc.padded[1] <= budget for _, lc in valid):
        budget = PAD_LIMIT * min(lc.padded[0] * lc.padded[1] for _, lc in valid)
    limit = "25%" if budget == PAD_LIMIT * real else "25% over the least padding possible"
    # (padded M, padded N) -> why it is too much: written once for the candidates that
    # share it (the bench's 97 selections reject 16,024 candidates so, at 172 sizes).
    too_padded: dict[tuple[int, int], str] = {}
    admissible = []
    for p, lc in valid:
        pm, pn, _ = lc.padded
        if pm * pn > budget:
            why = too_padded.get((pm, pn))
            if why is None:
                why = too_padded[pm, pn] = (f"padding: pads the {shape.m}x{shape.n} output to "
                                            f"{pm}x{pn}, +{pm * pn / real - 1:.0%} area "
                                            f"(limit {limit})")
            rejected.append((p.config, [why]))
        else:
            admissible.append((p, lc))

    eb = ELEMENT_BYTES[in_type]
    # kpack variants of a tile have the same terms (ConfigTerms holds no kpack): score
    # each tile and wave split once, half the ~1000 estimates on gfx942.
    scores: dict[tuple, tuple[float, float]] = {}

    def keyed(pl) -> tuple:
        """(ranking score, unit time, tie-break key, candidate)"""
        prep, launch = pl
        c = prep.config
        key = (c.m_per_block, c.n_per_block, c.k_per_block, c.m_per_wave, c.n_per_wave,
               c.mn_per_xdl, prep.lds, prep.regs)
        parts = scores.get(key)
        if parts is None:
            parts = scores[key] = cost_model.estimate_parts(prep.terms, out_type, launch)
        traffic = prep.terms.global_bytes * launch.grid_size * launch.padded[2]
        return (ranking_score(c, parts[0]), parts[1],
                (traffic // c.k_per_block, prep.terms.lds_traffic / prep.terms.flops,
                 prep.lds, prep.regs, -c.mn_per_xdl,
                 prep.terms.num_waves, abs(c.kpack * eb - 16), prep.text), pl)

    scored = []
    for group in tie_groups([keyed(pl) for pl in admissible], 0):
        for units_tied in tie_groups(group, 1):
            scored.extend(k[3] for k in sorted(units_tied, key=lambda k: k[2]))
    return Selection(arch=arch, in_type=in_type, out_type=out_type, shape=shape,
                     scored=scored, rejected=rejected, b_type=b_type)

