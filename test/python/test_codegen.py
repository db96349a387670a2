"""accel-gemm-to-gpu kernels, run in the simulator and checked elementwise.

Each case builds an `accel.gemm`, lowers it with the pass, simulates the kernel and
compares every element of C with a float64 numpy product (exact for i8; a bound that
grows with K for f16/bf16/f32 accumulation, plus the output type's rounding). C is a
view into a larger buffer pre-filled with a sentinel: an element the kernel never
wrote, or a store that escaped its mask, shows up in the data or in the guard.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from accel.bindings import func, ir, new_context
from accel.check import random_operand, reference
from accel.dialect.accel_tile import AccelTile, pack, unpack
from accel.dialect.element_types import NUMPY_TYPES
from accel.dialect.epilogue_program import BIAS_EPILOGUES
from accel.dialect.gemm import GemmOp, GemmShape
from accel.dialect.perf_config import PerfConfig
from accel.diagnostics import AccelError
from accel.passes.gemm_to_gpu import lower_gemms
from accel.passes.plan_kernel import PlanKernel
from accel.sim import run_host, run_kernel
from accel.target.database import get_arch
from accel.tuning.validity import check_config

GUARD = 64
SENTINEL = {"f32": 12345.0, "f16": 1234.0, "bf16": 1232.0, "i32": 123456789}
ARCHES = ("gfx942", "gfx1100", "gfx1201")


def plan_and_lower(module):
    """accel-plan-kernel then accel-gemm-to-gpu; the kernels."""
    PlanKernel().run(module)
    return lower_gemms(module)


def config(text: str) -> PerfConfig:
    return PerfConfig.parse(text, "mfma")


def plain_shapes(g, m, n, k, a_layout, b_layout, cfg, c_layout="row"):
    a = {"row": (g, m, k), "transposed": (g, k, m),
         "accel": AccelTile(cfg.m_per_block, cfg.kpack_per_block, cfg.kpack).shape(g, m, k)}
    b = {"row": (g, k, n), "transposed": (g, n, k),
         "accel": AccelTile(cfg.n_per_block, cfg.kpack_per_block, cfg.kpack).shape(g, n, k)}
    c = {"row": (g, m, n), "accel": c_tile(cfg).shape(g, m, n)}
    return a[a_layout], b[b_layout], c[c_layout]


def c_tile(cfg) -> AccelTile:
    """C's accel layout: D = M blocked by mPerBlock, N blocked like K."""
    return AccelTile(cfg.m_per_block, cfg.kpack_per_block, cfg.kpack)


def gemm_module(arch, in_t, out_t, g, m, n, k, a_layout, b_layout, cfg, accumulate=False,
                c_layout="row", epilogue="none", bias_shape=None):
    a_shape, b_shape, c_shape = plain_shapes(g, m, n, k, a_layout, b_layout, cfg, c_layout)
    ctx = new_context()
    with ctx, ir.Location.unknown():
        module = ir.Module.create()
        el = {"f16": ir.F16Type.get, "bf16": ir.BF16Type.get, "f32": ir.F32Type.get,
              "i8": lambda: ir.IntegerType.get_signless(8),
              "i32": lambda: ir.IntegerType.get_signless(32)}
        shapes = [(a_shape, in_t), (b_shape, in_t), (c_shape, out_t)]
        if bias_shape is not None:
            shapes.append((bias_shape, out_t))
        types = [ir.MemRefType.get(list(s), el[t]()) for s, t in shapes]
        with ir.InsertionPoint(module.body):
            f = func.FuncOp("gemm", (types, []))
            entry = f.add_entry_block()
            with ir.InsertionPoint(entry):
                args = list(entry.arguments)
                GemmOp.build(*args[:3], arch=arch, a_layout=a_layout, b_layout=b_layout,
                             c_layout=c_layout, perf_config=cfg, accumulate=accumulate,
                             bias=args[3] if bias_shape is not None else None,
                             epilogue=epilogue,
                             m=m if (a_layout, c_layout) == ("accel", "accel") else None,
                             n=n if (b_layout, c_layout) == ("accel", "accel") else None)
                func.ReturnOp([])
    return ctx, module


def run_gemm(arch, in_t, out_t, g, m, n, k, a_layout="row", b_layout="row", cfg=None,
             accumulate=False, seed=0, c_layout="row", epilogue="none", batched_bias=False):
    """Simulate one GEMM; returns (C computed, float64 reference, elementwise bound).

    C in the accel layout is unpacked for the comparison, after checking that the
    kernel wrote its padding as zeros (codegen/epilogue.py)."""
    has_bias = epilogue in BIAS_EPILOGUES
    bias_shape = ((g, n) if batched_bias else (n,)) if has_bias else None
    ctx, module = gemm_module(arch, in_t, out_t, g, m, n, k, a_layout, b_layout, cfg, accumulate,
                              c_layout, epilogue, bias_shape)
    with ctx:
        (kernel,) = plan_and_lower(module)
    rng = np.random.default_rng(seed)
    a = random_operand(rng, in_t, (g, m, k))
    b = random_operand(rng, in_t, (g, k, n))
    tile_a = AccelTile(cfg.m_per_block, cfg.kpack_per_block, cfg.kpack)
    tile_b = AccelTile(cfg.n_per_block, cfg.kpack_per_block, cfg.kpack)
    a_arg = {"row": a, "transposed": np.ascontiguousarray(a.transpose(0, 2, 1)),
             "accel": pack(a, tile_a)}[a_layout]
    b_arg = {"row": b, "transposed": np.ascontiguousarray(b.transpose(0, 2, 1)),
             "accel": pack(b, tile_b, transposed=True)}[b_layout]
    c_shape = plain_shapes(g, m, n, k, a_layout, b_layout, cfg, c_layout)[2]
    size = int(np.prod(c_shape))
    c_buf = np.full(size + GUARD, SENTINEL[out_t], dtype=NUMPY_TYPES[out_t])
    c0 = None
    if accumulate:
        c0 = random_operand(rng, "i8" if out_t == "i32" else "f16", (g, m, n)).astype(NUMPY_TYPES[out_t])
        c_buf[:size] = (pack(c0, c_tile(cfg)) if c_layout == "accel" else c0).reshape(-1)
    args = [a_arg, b_arg, c_buf]
    bias = None
    if has_bias:
        bias = random_operand(rng, "i8" if out_t == "i32" else "f16", bias_shape).astype(NUMPY_TYPES[out_t])
        args.append(bias)
    with ctx:
        run_kernel(module, kernel.symbol, grid=kernel.grid, block=(kernel.block_size, 1, 1),
                   args=args, arch=arch)
    assert (c_buf[size:] == SENTINEL[out_t]).all(), "a store escaped past C"
    got = c_buf[:size].reshape(c_shape)
    if c_layout == "accel":
        plain = unpack(got, m, n)
        padding = got.copy()
        padding[pack(np.ones((g, m, n), np.int8), c_tile(cfg)).astype(bool)] = 0
        assert (padding == 0).all(), "C's accel-layout padding is not zero"
        got = plain
    ref, tol = reference(a, b, in_t, out_t, c0=c0, bias=bias,
                         relu=epilogue in ("relu", "bias_relu"))
    return got.astype(np.float64), ref, tol


def check(*args, **kw):
    got, ref, tol = run_gemm(*args, **kw)
    bad = np.argwhere(~(np.abs(got - ref) <= tol))
    assert bad.size == 0, (f"{len(bad)} wrong elements, first at {tuple(bad[0])}: "
                           f"got {got[tuple(bad[0])]}, want {ref[tuple(bad[0])]}")


# ---- smoke: one small case per arch and type ------------------------------------------
MFMA_32 = "v4:32,32,4,32,32,32,8,1,1,2,0,0,1,1"
MFMA_16 = "v4:32,32,4,16,16,16,8,1,1,2,0,0,1,1"
WMMA = "v4:32,32,4,16,16,16,8,1,1,2,0,0,1,1"


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("in_t,out_t", [("f16", "f32"), ("bf16", "bf16"), ("i8", "i32")])
def test_small_gemm(arch, in_t, out_t):
    check(arch, in_t, out_t, 1, 48, 40, 64, cfg=config(MFMA_32 if arch == "gfx942" else WMMA))


def wave_config(arch, in_type, m_pb, n_pb, kpack_pb, kpack, waves=4, mn=None, sched=1):
    """A v4 config: up to `waves` waves, split between M and N as squarely as the MMA
    tile (mn, default 16) allows."""
    mn = mn or 16
    while True:
        splits = [(wm, waves // wm) for wm in (1, 2, 4, 8) if wm <= waves
                  and m_pb // wm >= mn and n_pb // (waves // wm) >= mn]
        if splits:
            break
        waves //= 2
    wm, wn = min(splits, key=lambda s: abs((m_pb // s[0]) - (n_pb // s[1])))
    return PerfConfig(m_per_block=m_pb, n_per_block=n_pb, kpack_per_block=kpack_pb,
                      m_per_wave=m_pb // wm, n_per_wave=n_pb // wn, mn_per_xdl=mn, kpack=kpack,
                      schedule_version=sched)


LAYOUTS = ("row", "transposed", "accel")
TYPES = (("f16", "f16"), ("bf16", "f32"), ("i8", "i32"))


# ---- every arch x type x (A layout, B layout) ------------------------------------------
@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("in_t,out_t", TYPES)
@pytest.mark.parametrize("a_layout", LAYOUTS)
@pytest.mark.parametrize("b_layout", LAYOUTS)
def test_layouts(arch, in_t, out_t, a_layout, b_layout):
    kpack = 8 if in_t != "i8" else 16
    cfg = wave_config(arch, in_t, 32, 32, 4 if in_t != "i8" else 2, kpack,
                      mn=32 if arch == "gfx942" and in_t == "f16" else 16)
    check(arch, in_t, out_t, 2, 45, 37, 77, a_layout=a_layout, b_layout=b_layout, cfg=cfg)


# ---- the shape grid: every M, N, K and G value at least once --------------------------
SHAPES = [  # (g, m, n, k)
    (1, 1, 1, 1), (3, 3, 64, 64), (1, 48, 77, 320), (3, 77, 64, 77), (1, 200, 77, 64),
    (1, 3, 1001, 77), (3, 48, 1, 320), (1, 1, 1001, 1), (3, 200, 64, 1),
]


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "g%d_m%d_n%d_k%d" % s)
def test_shapes(arch, shape):
    g, m, n, k = shape
    i = SHAPES.index(shape) + ARCHES.index(arch)
    in_t, out_t = TYPES[i % 3]
    a_layout, b_layout = LAYOUTS[i % 3], LAYOUTS[(i // 3) % 3]
    kpack = 8 if in_t != "i8" else 16
    cfg = wave_config(arch, in_t, 64, 32, 4 if in_t != "i8" else 2, kpack,
                      sched=1 + i % 2)
    check(arch, in_t, out_t, g, m, n, k, a_layout=a_layout, b_layout=b_layout, cfg=cfg,
          seed=i)


# ---- every tile of the ladder, on a shape none of them divides --------------------------
LADDER = (16, 32, 64, 128, 256)


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("m_pb", LADDER)
def test_tile_ladder(arch, m_pb):
    """Tile m_pb x n_pb (n_pb rotated along the ladder, so every M and N size runs), the
    deepest k-tile of 64/32/16 the arch's register budget takes."""
    n_pb = LADDER[(LADDER.index(m_pb) + 2) % len(LADDER)]
    mn = 32 if arch == "gfx942" and min(m_pb, n_pb) >= 32 else 16
    info = get_arch(arch)
    shape = GemmShape(1, 77, 83, 77)
    for k_pb, waves in ((64, 4), (32, 4), (32, 8), (16, 8)):
        cfg = wave_config(arch, "f16", m_pb, n_pb, k_pb // 8, 8, waves=waves, mn=mn,
                          sched=2 if m_pb in (32, 128) else 1)
        if not check_config(info, "f16", shape, cfg):
            break
    check(arch, "f16", "f32", 1, 77, 83, 77, a_layout="row", b_layout="transposed", cfg=cfg)


# ---- gfx942 with the AGPRs full of accumulators: fragments read without read-ahead ------
@pytest.mark.parametrize("in_t,out_t,a_layout,b_layout", [("f16", "f16", "row", "row"),
                                                          ("bf16", "f32", "transposed",
                                                           "transposed")])
def test_full_agprs_without_read_ahead(in_t, out_t, a_layout, b_layout):
    """The 256x256 tile with 128x128 per wave and 16x16 MFMAs (passes/plan_kernel.py
    lds_read_ahead: its read-ahead spilled), on a shape ragged in M, N and K (three
    k-tiles, two M tiles)."""
    cfg = config("v4:256,256,8,128,128,16,8,1,1,2,0,0,1,1")
    ctx, module = gemm_module("gfx942", in_t, out_t, 1, 261, 80, 130, a_layout, b_layout, cfg)
    with ctx:
        (kernel,) = plan_and_lower(module)
    assert not kernel.plan.lds_read_ahead
    check("gfx942", in_t, out_t, 1, 261, 80, 130, a_layout=a_layout, b_layout=b_layout,
          cfg=cfg)


# ---- gfx942 extras: f32 inputs, both MFMA sizes for every type ----------------------------
@pytest.mark.parametrize("mn", (16, 32))
@pytest.mark.parametrize("in_t,out_t,kpack", [("f32", "f32", 1), ("f32", "f32", 4),
                                              ("f16", "bf16", 4), ("bf16", "f16", 2),
                                              ("i8", "i32", 8)])
def test_gfx942_instructions(mn, in_t, out_t, kpack):
    cfg = wave_config("gfx942", in_t, 64, 64, 32 // kpack, kpack, mn=mn)
    check("gfx942", in_t, out_t, 2, 70, 50, 45, a_layout="transposed", b_layout="row", cfg=cfg)


@pytest.mark.parametrize("arch", ARCHES)
def test_accumulate(arch):
    cfg = wave_config(arch, "f16", 32, 32, 4, 8)
    check(arch, "f16", "f32", 2, 40, 33, 64, cfg=cfg, accumulate=True)
    check(arch, "i8", "i32", 1, 17, 20, 30, cfg=wave_config(arch, "i8", 32, 32, 2, 16),
          accumulate=True)


@pytest.mark.parametrize("arch", ("gfx1100", "gfx1201"))
def test_small_kpack_gathers_fragments(arch):
    # kpack 2 < the WMMA per-lane K run: a fragment is gathered from several LDS rows.
    cfg = wave_config(arch, "f16", 32, 32, 8, 2)
    check(arch, "f16", "f16", 1, 30, 30, 40, a_layout="transposed", b_layout="accel", cfg=cfg)


# ---- refusals ---------------------------------------------------------------------------
def test_missing_perf_config_is_a_diagnostic():
    ctx, module = gemm_module("gfx942", "f16", "f32", 1, 32, 32, 32, "row", "row",
                              config(MFMA_32))
    with ctx:
        op = [o for o in module.body.operations[0].regions[0].blocks[0].operations][0]
        del op.attributes["perf_config"]
        with pytest.raises(AccelError, match="no perf_config"):
            plan_and_lower(module)


def test_invalid_config_is_refused():
    bad = PerfConfig.parse("v4:32,32,4,32,32,4,8,1,1,2,0,0,1,1")  # the 4x4 MFMA
    ctx, module = gemm_module("gfx942", "f16", "f32", 1, 32, 32, 32, "row", "row", bad)
    with ctx, pytest.raises(AccelError, match="mma-tile"):
        plan_and_lower(module)


def test_kernel_is_a_loop_not_an_unrolled_tile():
    """A 256x256 tile stays loops over k-tiles and k-steps: only the per-wave MMA
    repeats (and each thread's few copy units) are unrolled, and with plan
    lds_read_ahead the last group of k-steps is peeled (the MMAs twice in the text)."""
    cfg = wave_config("gfx942", "f16", 256, 256, 4, 8, mn=32)
    ctx, module = gemm_module("gfx942", "f16", "f16", 1, 4096, 4096, 4096, "row", "row", cfg)
    with ctx:
        (kernel,) = plan_and_lower(module)
    text = kernel.module_text()
    reps_m, reps_n = kernel.reps
    sup = kernel.mma.super_step(cfg.k_per_block, cfg.kpack, 16)   # k-steps per LDS read
    assert sup == 2
    assert kernel.plan.lds_read_ahead
    assert text.count("amdgpu.mfma") == reps_m * reps_n * sup * 2
    assert text.count("scf.for") >= 2        # k-tiles, k-steps (and copies not held)
    assert text.count("unroll = <disable = true>") == 1   # on the k-tile loop
    assert len(text.splitlines()) < 2000


def test_k_tile_loop_stays_a_loop_in_the_isa():
    """LLVM would unroll all 16 k-tiles (128 MFMAs); the k-tile loop keeps its back edge
    while the 8 k-steps inside one k-tile are unrolled."""
    from accel.api import compile_gemm
    r = compile_gemm("gfx942", m=64, n=64, k=1024, trans_b=True,
                     perf_config="v4:64,64,8,32,32,32,8,1,1,2,0,0,1,1")
    asm = r.kernels[0].assembly
    assert asm.count("v_mfma_f32_32x32x8") == 8
    assert "s_cbranch" in asm


# ---- C stores: C^T = B^T A^T, runs of columns per lane ----------------------------------
def layouts_d_row(arch, instr, lane, e):
    """docs/layouts.md "read the other way", C/D column: the D row of lane `lane`, element e."""
    if arch == "gfx1100":
        return 2 * e + lane // 16
    if arch == "gfx1201":
        return 8 * (lane // 16) + e
    if instr.m == 32:
        return 8 * (e // 4) + 4 * (lane // 32) + e % 4
    return 4 * (lane // 16) + e


@pytest.mark.parametrize("arch,in_t,mn", [("gfx942", "f16", 32), ("gfx942", "f16", 16),
                                          ("gfx942", "i8", 32), ("gfx942", "f32", 16),
                                          ("gfx1100", "f16", 16), ("gfx1201", "i8", 16),
                                          ("gfx942", "f8E4M3FNUZ", 32),
                                          ("gfx942", "f8E5M2FNUZ", 16),
                                          ("gfx1201", "f8E4M3FN", 16)])
def test_lane_holds_consecutive_columns_of_c(arch, in_t, mn):
    """The B column a lane feeds (sigma) puts accumulator element e of lane l at column
    c_col_base(l) + e of the MMA tile, and sigma is a permutation of the tile's columns."""
    from accel.codegen.builder import Emitter
    from accel.codegen.mma import select_mma
    mma = select_mma(get_arch(arch), in_t, in_t, mn)
    em = Emitter()
    wave = get_arch(arch).wave_size
    sigma = [mma.b_column(em, lane) for lane in range(mma.m)]
    assert sorted(sigma) == list(range(mma.m))
    for lane in range(wave):
        for e in range(mma.c_len):
            row = layouts_d_row(arch, mma.instr, lane, e)
            assert sigma[row] == mma.c_col_base(em, lane) + e


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("n", (36, 40, 18))
def test_vector_stores_at_ragged_edges(arch, n):
    """N a multiple of 4, 8 or 2 but not of the tile: stores of 4, 8 or 2 columns, each
    wholly valid or wholly dropped; with accumulate C is read back in the same vectors."""
    cfg = wave_config(arch, "f16", 32, 32, 4, 8)
    check(arch, "f16", "f16", 2, 45, n, 64, cfg=cfg, accumulate=True)
    check(arch, "f16", "f32", 1, 33, n, 40, cfg=cfg, b_layout="transposed")


def test_c_stores_are_128_bit_vectors_in_the_isa():
    from accel.api import compile_gemm
    r = compile_gemm("gfx1100", m=128, n=128, k=64,
                     perf_config="v4:128,128,2,64,64,16,8,1,1,2,0,0,1,1")
    asm = r.kernels[0].assembly
    # 4x4 WMMA tiles per wave, 8 f16 columns per lane each: 16 stores of 128 bits.
    assert asm.count("buffer_store_b128") == 16
    assert "buffer_store_b16" not in asm and "buffer_store_short" not in asm


# ---- LDS bank conflicts (the simulator's bank model, sim/lds.py) -------------------------
@pytest.mark.parametrize("arch,mn,a_layout,b_layout", [
    ("gfx942", 32, "row", "row"), ("gfx942", 16, "accel", "transposed"),
    ("gfx1100", 16, "row", "row"), ("gfx1201", 16, "transposed", "row")])
def test_lds_accesses_are_bank_conflict_free(arch, mn, a_layout, b_layout):
    """Row swizzle, slab padding, transposing copy and 128-bit fragment reads together
    (codegen/global_copy.py row_key): no extra LDS clocks for f16 with kpack 8."""
    cfg = wave_config(arch, "f16", 64, 128, 4, 8, mn=mn)
    ctx, module = gemm_module(arch, "f16", "f32", 1, 64, 128, 64, a_layout, b_layout, cfg)
    with ctx:
        (kernel,) = plan_and_lower(module)
    args = [np.zeros(op.shape, np.float16) for op in (kernel.a, kernel.b)]
    args.append(np.zeros((1, 64, 128), np.float32))
    with ctx:
        report = run_kernel(module, kernel.symbol, grid=kernel.grid,
                            block=(kernel.block_size, 1, 1), args=args, arch=arch)
    assert report.bank_conflicts and not any(report.bank_conflicts.values()), \
        report.bank_conflicts


def test_gfx942_fragment_reads_are_128_bit():
    """Two k-steps of v_mfma_f32_32x32x8_f16 (4 f16 per lane each) share one ds_read_b128
    per operand tile (MmaLayout.super_step), instead of two ds_read_b64."""
    from accel.api import compile_gemm
    r = compile_gemm("gfx942", m=64, n=64, k=1024, trans_b=True,
                     perf_config="v4:64,64,8,32,32,32,8,1,1,2,0,0,1,1")
    asm = r.kernels[0].assembly
    assert asm.count("ds_read_b128") == 8      # 8 k-steps, A and B: 2 * 8 / 2
    assert "ds_read_b64" not in asm and "ds_read2_b64" not in asm


# ---- C in the accel layout ----------------------------------------------------------------
@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("in_t,out_t,shape", [
    ("f16", "f32", (2, 45, 37, 77)), ("bf16", "bf16", (1, 3, 100, 40)),
    ("i8", "i32", (3, 70, 9, 50)), ("f16", "f16", (1, 64, 64, 64))])
def test_c_in_accel_layout(arch, in_t, out_t, shape):
    """Ragged M and N: 6-D stores along N inside kpack runs, padding written as zeros
    (run_gemm checks it), nothing past the buffer."""
    g, m, n, k = shape
    kpack = 8 if in_t != "i8" else 16
    cfg = wave_config(arch, in_t, 32, 32, 4 if in_t != "i8" else 2, kpack,
                      mn=32 if arch == "gfx942" and in_t == "f16" else 16)
    check(arch, in_t, out_t, g, m, n, k, b_layout="transposed", cfg=cfg, c_layout="accel")


@pytest.mark.parametrize("arch", ARCHES)
def test_c_in_accel_layout_with_n_tiles_wider_than_its_padding(arch):
    """nPerBlock 64 but C pads N to kPerBlock 16: the last N tile's columns beyond C's
    32 padded columns are dropped; accumulate reads C back in the 6-D layout."""
    cfg = wave_config(arch, "f16", 32, 64, 2, 8)
    check(arch, "f16", "f32", 2, 40, 20, 48, cfg=cfg, c_layout="accel", accumulate=True)
    check(arch, "f16", "bf16", 1, 33, 20, 30, a_layout="accel", cfg=cfg, c_layout="accel")


# (nPerBlock, kpackPerBlock, kpack, waves): C pads N to kPB = kpackPB * kpack, the grid to nPB.
ACCEL_C_N_TILES = {"kPB 128 > nPB 16": (16, 16, 8, 4), "kPB 64 > nPB 48": (48, 8, 8, 3),
                   "kPB 16 < nPB 64": (64, 2, 8, 4)}


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("tile", list(ACCEL_C_N_TILES), ids=list(ACCEL_C_N_TILES))
@pytest.mark.parametrize("n", [1, 17, 56, 100])
def test_c_in_accel_layout_padding_past_the_grid(arch, tile, n):
    """C's N padding reaches past the grid's columns when kPB > nPB (N = 56, nPB 16:
    64 grid columns, 128 in C; with nPB 48 the part past the grid is not whole N tiles)
    and stops inside the last N tile when kPB < nPB: every padding element is exactly 0
    (run_gemm checks it elementwise; the buffer starts as a sentinel), plain, with
    accumulate (C_old + 0, A in the accel layout) and through a fused op list, G = 2,
    ragged M."""
    n_pb, kpack_pb, kpack, waves = ACCEL_C_N_TILES[tile]
    cfg = wave_config(arch, "f16", 32, n_pb, kpack_pb, kpack, waves=waves)
    check(arch, "f16", "f32", 2, 40, n, 48, cfg=cfg, c_layout="accel")
    check(arch, "f16", "f16", 2, 33, n, 20, a_layout="accel", cfg=cfg, c_layout="accel",
          accumulate=True)
    check(arch, "f16", "f16", 2, 45, n, 30, cfg=cfg, c_layout="accel", epilogue="bias_relu",
          batched_bias=True)



@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("m", [1, 45, 100])
@pytest.mark.parametrize("epilogue,accumulate,out_t", [
    ("bias", False, "f16"), ("bias_relu", False, "f32"), ("bias_relu", True, "f16")])
def test_a_and_c_accel_bias_keeps_padding_rows_zero(arch, m, epilogue, accumulate, out_t):
    """A and C both in the accel layout: no operand's shape holds M (45 rows pad to 64),
    so the gemm carries it (attribute m); a bias is not zero at zero, and without the
    exact M rows M..63 of C got (relu of) the bias. run_gemm checks C's padding is
    exactly 0 (the buffer starts as a sentinel), the rest elementwise."""
    cfg = wave_config(arch, "f16", 32, 32, 4, 8)
    check(arch, "f16", out_t, 2, m, 37, 30, a_layout="accel", cfg=cfg, c_layout="accel",
          epilogue=epilogue, accumulate=accumulate, batched_bias=accumulate)


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("n", [1, 37, 100])
@pytest.mark.parametrize("a_layout", ["row", "accel"])
def test_b_and_c_accel_bias_keeps_padding_columns_zero(arch, n, a_layout):
    """B and C both in the accel layout: N is only held padded (37 columns to 64), so the
    gemm carries it (attribute n, with A accel too also m) and the bias is [N]: C's
    padding columns are exactly 0 after bias_relu, the rest elementwise."""
    cfg = wave_config(arch, "f16", 32, 32, 4, 8)
    check(arch, "f16", "f16", 1, 45, n, 30, a_layout=a_layout, b_layout="accel", cfg=cfg,
          c_layout="accel", epilogue="bias_relu")


@pytest.mark.parametrize("arch", ARCHES)
def test_accel_c_feeds_the_next_gemm_as_a(arch):
    """C1 = A1 B1 in the accel layout is the next gemm's A: its N (the next K) padded to
    kPB 128 while the grid covers 64 of them (N = 56, nPB 16). C1 starts as NaN, so a
    padding column left unwritten makes NaN * 0 = NaN in every element of C2."""
    cfg = wave_config(arch, "f16", 32, 16, 16, 8)
    m, k1, n1, n2 = 40, 48, 56, 24
    tile = c_tile(cfg)
    with new_context(), ir.Location.unknown():
        module = ir.Module.create()
        f16, f32 = ir.F16Type.get(), ir.F32Type.get()
        types = [ir.MemRefType.get(list(s), t) for s, t in (
            ((1, m, k1), f16), ((1, k1, n1), f16), (tile.shape(1, m, n1), f16),
            ((1, n1, n2), f16), ((1, m, n2), f32))]
        with ir.InsertionPoint(module.body):
            f = func.FuncOp("chain", (types, []))
            with ir.InsertionPoint(f.add_entry_block()):
                a1, b1, c1, b2, c2 = f.entry_block.arguments
                GemmOp.build(a1, b1, c1, arch=arch, c_layout="accel", perf_config=cfg)
                GemmOp.build(c1, b2, c2, arch=arch, a_layout="accel", perf_config=cfg)
                func.ReturnOp([])
        plan_and_lower(module)
        rng = np.random.default_rng(4)
        a, b, b_next = (random_operand(rng, "f16", s) for s in ((1, m, k1), (1, k1, n1),
                                                                 (1, n1, n2)))
        c_mid = np.full(tile.shape(1, m, n1), np.nan, np.float16)
        out = np.full((1, m, n2), np.nan, np.float32)
        run_host(module, "chain", [a, b, c_mid, b_next, out], arch=arch)
    mid = unpack(c_mid, m, n1)
    ref, tol = reference(mid, b_next, "f16", "f32")
    bad = np.argwhere(~(np.abs(out - ref) <= tol))
    assert bad.size == 0, f"{len(bad)} wrong elements of C2, first at {tuple(bad[0])}"
    assert (c_mid[~pack(np.ones((1, m, n1), np.int8), tile).astype(bool)] == 0).all(), \
        "C1's accel-layout padding is not zero"
    ref, tol = reference(a, b, "f16", "f16")
    assert (np.abs(mid - ref) <= tol).all()


# ---- fused epilogues ------------------------------------------------------------------------
EPILOGUE_TYPES = (("f16", "f16"), ("bf16", "f32"), ("i8", "i32"))


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("in_t,out_t", EPILOGUE_TYPES)
@pytest.mark.parametrize("epilogue,batched", [("bias", False), ("relu", False),
                                              ("bias_relu", True)])
def test_fused_epilogue(arch, in_t, out_t, epilogue, batched):
    """bias [N] or [G, N] and relu in the accumulator type; ragged M and N, so bias
    loads past N are masked."""
    kpack = 8 if in_t != "i8" else 16
    cfg = wave_config(arch, in_t, 32, 32, 4 if in_t != "i8" else 2, kpack)
    check(arch, in_t, out_t, 2, 45, 36, 40, cfg=cfg, epilogue=epilogue, batched_bias=batched)


@pytest.mark.parametrize("arch", ARCHES)
def test_fused_epilogue_with_accumulate_and_accel_c(arch):
    """relu(A*B + C_old + bias): the order of the sum; with C in the accel layout the
    bias is zeroed in padding rows, so the padding stays zero (run_gemm checks it)."""
    cfg = wave_config(arch, "f16", 32, 32, 4, 8)
    check(arch, "f16", "f32", 2, 40, 33, 64, cfg=cfg, accumulate=True, epilogue="bias_relu")
    check(arch, "f16", "f16", 1, 45, 37, 50, cfg=cfg, c_layout="accel", epilogue="bias_relu",
          batched_bias=True)


def test_relu_clamps_and_bias_shifts():
    """Not vacuous: the relu output has zeros, and a large bias moves every element."""
    cfg = wave_config("gfx1100", "f16", 32, 32, 4, 8)
    got, ref, _ = run_gemm("gfx1100", "f16", "f32", 1, 32, 32, 32, cfg=cfg, epilogue="relu")
    assert (got == 0).mean() > 0.3 and (got > 0).any()
    plain, _, _ = run_gemm("gfx1100", "f16", "f32", 1, 32, 32, 32, cfg=cfg)
    biased, _, _ = run_gemm("gfx1100", "f16", "f32", 1, 32, 32, 32, cfg=cfg, epilogue="bias")
    assert (plain != biased).all()


@pytest.mark.parametrize("arch", ARCHES)
def test_accel_c_and_bias_in_compiled_metadata(arch):
    """Through compile_module to ISA: C's 6-D shape and layout, the bias as 4th argument,
    the relu as a max instruction."""
    from accel.api import compile_module
    c_t, bias_t = "memref<2x2x3x2x32x8xf16>", "memref<2x48xf16>"
    text = (f"func.func @f(%a: memref<2x64x32xf16>, %b: memref<2x32x48xf16>, %c: {c_t}, "
            f"%bias: {bias_t}) {{\n"
            f'  "accel.gemm"(%a, %b, %c, %bias) {{arch = "{arch}", c_layout = "accel", '
            f'epilogue = "bias_relu", perf_config = "v4:32,32,2,16,16,16,8,1,1,2,0,0,1,1"}} : '
            f"(memref<2x64x32xf16>, memref<2x32x48xf16>, {c_t}, {bias_t}) -> ()\n"
            f"  return\n}}\n")
    (kernel,) = compile_module(text).kernels
    meta = kernel.metadata
    assert kernel.symbol == f"accel_gemm_g2_m64_n48_k32_f16_f16_rrx_gbias_relu_{arch}"
    assert meta["epilogue"] == "bias_relu"
    assert [(a["name"], a["shape"], a["layout"], a["bytes"]) for a in meta["args"][2:]] == [
        ("C", [2, 2, 3, 2, 32, 8], "accel", 2 * 2 * 3 * 2 * 32 * 8 * 2),
        ("bias", [2, 48], "row", 2 * 48 * 2)]
    assert "v_max" in kernel.assembly


# ---- schedules and the perf-config fields that shape the kernel (accel-plan-kernel) ------
# Large tiles with one LDS buffer (scheduleVersion 1), 256 to 1024 threads.
SINGLE_BUFFER = {"gfx942": "v4:256,128,8,64,64,32,8,1,1,2,0,0,1,1",
                 "gfx1100": "v4:256,128,8,32,32,16,8,1,1,2,0,0,1,1",
                 "gfx1201": "v4:128,128,16,32,32,16,8,1,1,2,0,0,1,1"}


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("a_layout,b_layout", [("row", "row"), ("transposed", "accel")])
def test_single_buffer_schedule(arch, a_layout, b_layout):
    cfg = config(SINGLE_BUFFER[arch])
    ctx, module = gemm_module(arch, "f16", "f32", 1, 300, 200, 200, a_layout, b_layout, cfg)
    with ctx:
        (kernel,) = plan_and_lower(module)
    assert kernel.buffers == 1
    check(arch, "f16", "f32", 2, 300, 140, 200, a_layout=a_layout, b_layout=b_layout, cfg=cfg)


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("in_t,out_t", TYPES)
def test_grouped_grid_order_and_occupancy(arch, in_t, out_t):
    """gridGroupSize 3 over 7 M tiles (a partial last group), wavesPerEU 2; K ragged."""
    kpack = 8 if in_t != "i8" else 16
    cfg = wave_config(arch, in_t, 32, 32, 4 if in_t != "i8" else 2, kpack).replace(
        grid_group_size=3, waves_per_eu=2)
    check(arch, in_t, out_t, 2, 200, 77, 100, cfg=cfg, b_layout="transposed")


@pytest.mark.parametrize("arch", ARCHES)
def test_double_buffer_odd_k_tiles(arch):
    """scheduleVersion 2: two k-tiles per trip of the loop, the last of an odd count
    after it."""
    cfg = wave_config(arch, "bf16", 32, 64, 4, 8, sched=2)
    ctx, module = gemm_module(arch, "bf16", "f32", 1, 40, 70, 5 * 32 - 3, "row", "row", cfg)
    with ctx:
        (kernel,) = plan_and_lower(module)
    assert kernel.buffers == 2 and kernel.k_tiles == 5
    check(arch, "bf16", "f32", 1, 40, 70, 5 * 32 - 3, cfg=cfg)


# ---- register transposes by byte permutes (plan permute) ----------------------------------
@pytest.mark.parametrize("arch,cfg", [
    ("gfx942", "v4:128,128,8,64,64,32,16,1,1,2,0,0,1,1"),
    ("gfx1100", "v4:32,128,8,16,32,16,16,1,1,2,0,0,1,1"),
    ("gfx1201", "v4:32,128,8,16,32,16,16,1,1,2,0,0,1,1"),
])
def test_byte_permute_transpose_of_8_bit_rows(arch, cfg):
    """i8 B row-major with four K rows per thread: the transpose is two v_perm_b32 per
    dword (plan permute), exact on a ragged shape with two k-tiles and an edge in each
    of M, N and K."""
    ctx, module = gemm_module(arch, "i8", "i32", 1, 77, 160, 200, "row", "row", config(cfg))
    with ctx:
        PlanKernel().run(module)
        (gemm,) = [GemmOp(op) for op in module.body.operations[0].regions[0].blocks[0].operations
                   if op.operation.name == GemmOp.OP_NAME]
        b_copy = gemm.op.attributes["b_copy"]
        assert ir.BoolAttr(b_copy["permute"]).value
        assert ir.IntegerAttr(b_copy["k_chunk"]).value == 4
    check(arch, "i8", "i32", 1, 77, 160, 200, a_layout="row", b_layout="row", cfg=config(cfg))


# ---- register transposes by vector shuffles ----------------------------------------------
@pytest.mark.parametrize("in_t,out_t,cfg,n,k_chunk,vector", [
    ("f16", "f32", "v4:16,128,16,16,128,16,8,1,1,2,0,0,1,1", 160, 8, 8),
    ("bf16", "bf16", "v4:64,64,4,32,32,32,8,1,1,2,0,0,1,1", 160, 2, 8),
    ("f32", "f32", "v4:32,64,4,32,32,16,4,1,1,2,0,0,1,1", 150, 4, 2),
])
def test_shuffle_transpose_builds_columns_from_row_groups(in_t, out_t, cfg, n, k_chunk, vector):
    """gfx942 B row-major without byte permutes: each column j of the register
    transpose comes from one two-operand shuffle per group of rows (a pair, or the
    four rows of k_chunk 4 as two joined pairs) taking element j of each; the rows are
    never joined into one vector<k_chunk * vector> to pick a column from. Exact on a
    ragged shape with an edge in M, N and K."""
    m, k = 17, 3 * config(cfg).k_per_block - 5
    ctx, module = gemm_module("gfx942", in_t, out_t, 1, m, n, k, "row", "row", config(cfg))
    with ctx:
        (kernel,) = plan_and_lower(module)
        text = str(module)
    assert not kernel.b.plan.permute
    assert (kernel.b.plan.k_chunk, kernel.b.vector_width) == (k_chunk, vector)
    shuffles = [([int(i) for i in mask.split(",")], int(width)) for mask, width in
                re.findall(r"vector\.shuffle %\S+, %\S+ \[([^\]]*)\] : vector<(\d+)x", text)]
    group = 4 if k_chunk == 4 else 2
    columns = {mask[0] for mask, width in shuffles if width == group // 2 * vector
               and mask == [mask[0] + i * vector for i in range(group)]}
    assert columns == set(range(vector))
    picks = [mask for mask, width in shuffles if width == k_chunk * vector
             and mask == [mask[0] + r * vector for r in range(k_chunk)]]
    assert not picks
    check("gfx942", in_t, out_t, 1, m, n, k, a_layout="row", b_layout="row", cfg=config(cfg))


# ---- copies without slab padding, and 8-bit transposing units ---------------------------
# The selector's large f16 tiles fill the 64 KiB of LDS exactly, with no room for slab
# padding: A's K-contiguous copy goes down 8 rows first instead (plan rows_first).
LDS_FULL = {"gfx942": "v4:128,128,16,64,64,32,8,1,1,2,0,0,1,1",
            "gfx1100": "v4:128,128,16,64,32,16,8,1,1,2,0,0,1,1",
            "gfx1201": "v4:128,128,16,64,32,16,8,1,1,2,0,0,1,1"}
# 8-bit B row-major copied in 16-element units: the swizzle keyed by 16-row blocks
# (plan swizzle_shift 1) where the MMA's read groups allow it (not gfx1100).
# 4-byte K runs (k_chunk 4) take the slab padding that separates their writes (2 rows);
# a tile that fills LDS has none.
BYTE_UNITS = [("gfx942", "i8", "v4:64,64,8,32,32,32,16,1,1,2,0,0,1,1", 1, 1),
              ("gfx942", "i8", "v4:128,128,16,64,64,32,16,1,1,2,0,0,1,1", 1, 0),
              ("gfx1201", "i8", "v4:32,64,8,16,32,16,16,1,1,2,0,0,1,1", 1, 2),
              ("gfx1100", "i8", "v4:16,32,8,16,16,16,16,1,1,2,0,0,1,1", 0, 2)]


def conflict_clocks(arch, in_t, out_t, cfg, a_layout="row", b_layout="row"):
    """Simulated extra LDS clocks of one workgroup's tile over two k-tiles, and the plan."""
    m, n, k = cfg.m_per_block, cfg.n_per_block, 2 * cfg.k_per_block
    ctx, module = gemm_module(arch, in_t, out_t, 1, m, n, k, a_layout, b_layout, cfg)
    with ctx:
        (kernel,) = plan_and_lower(module)
    args = [np.zeros(op.shape, NUMPY_TYPES[op.elem]) for op in (kernel.a, kernel.b)]
    args.append(np.zeros((1, m, n), NUMPY_TYPES[out_t]))
    with ctx:
        report = run_kernel(module, kernel.symbol, grid=kernel.grid,
                            block=(kernel.block_size, 1, 1), args=args, arch=arch)
    assert report.bank_conflicts
    return sum(report.bank_conflicts.values()), kernel.plan


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("b_layout", ("row", "transposed"))
def test_rows_first_copy_where_lds_is_full(arch, b_layout):
    cfg = config(LDS_FULL[arch])
    clocks, plan = conflict_clocks(arch, "f16", "f32", cfg, b_layout=b_layout)
    assert plan.a.rows_first and plan.a.slab_pad == 0
    assert plan.b.rows_first == (b_layout == "transposed")
    assert clocks == 0
    # Ragged M and N, K not a multiple of kPerBlock, two batches.
    check(arch, "f16", "f32", 2, 131, 77, 300, "row", b_layout, cfg=cfg)


@pytest.mark.parametrize("arch,in_t,text,shift,pad", BYTE_UNITS)
def test_byte_units_swizzle(arch, in_t, text, shift, pad):
    cfg = config(text)
    clocks, plan = conflict_clocks(arch, in_t, "i32", cfg)
    assert plan.b.vector == 16 and plan.b.k_chunk > 1 and plan.b.swizzle_shift == shift
    assert plan.b.slab_pad == pad
    assert clocks == 0
    # N a multiple of 16 (16-element units) but not of the tile; M ragged; K ragged.
    check(arch, in_t, "i32", 1, 70, 80, 300, cfg=cfg)


@pytest.mark.parametrize("b", range(3))
def test_swizzle_key_is_row_key(b):
    """The planner's conflict check (transpose_writes_conflict) computes the emitter's
    row key (OperandCopy.row_key, folded on ints) for every block and shift."""
    from accel.codegen.builder import Emitter
    from accel.codegen.global_copy import OperandCopy, swizzle_key
    from accel.dialect.kernel_plan import OperandPlan
    for shift in (0, 1):
        plan = OperandPlan(vector=8, k_chunk=1, permute=False, sgpr_offset="none",
                           swizzle=True, swizzle_bit=b, slab_pad=0, ahead=False,
                           rows_first=False, swizzle_shift=shift)
        op = OperandCopy(name="A", layout="row", memref="%A", memref_type="", shape=(1, 64, 64),
                         elem="f16", d_extent=64, k_extent=64, d_per_block=64,
                         kpack_per_block=8, kpack=8, block_size=64, plan=plan)
        for block in range(64):
            assert op.row_key(Emitter(), block) == swizzle_key((block >> shift) % 8, b)
        assert sorted(swizzle_key(x, b) for x in range(8)) == list(range(8))


def test_transpose_conflict_check_agrees_with_the_simulator():
    """Where the check says a transposing copy's writes conflict, the simulator counts
    extra clocks: gfx1100 i8 16x32x128 with the default 1 row of slab padding (the
    plan takes 2)."""
    from accel.codegen.global_copy import transpose_writes_conflict
    assert transpose_writes_conflict(32, 16, 4, 1, 0, 0)
    assert not transpose_writes_conflict(32, 16, 4, 2, 0, 0)
    import accel.passes.plan_kernel as pk
    cfg = config("v4:16,32,8,16,16,16,16,1,1,2,0,0,1,1")
    original = pk.transpose_swizzle
    try:
        pk.transpose_swizzle = lambda *a: (1, 0, 0)
        clocks, plan = conflict_clocks("gfx1100", "i8", "i32", cfg)
    finally:
        pk.transpose_swizzle = original
    assert plan.b.slab_pad == 1 and clocks > 0
