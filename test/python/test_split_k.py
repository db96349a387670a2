"""Split-K (codegen/k_slices.py, codegen/split_k_reduce.py): partial products over K
slices, summed by a second kernel that applies the epilogue once, checked elementwise
against float64 numpy in the simulator on ragged shapes on every chip; and its choice
(tuning/split_k.py) against the cost model's own estimates."""

from __future__ import annotations

import numpy as np
import pytest

from accel.api import compile_gemm, compile_grouped_gemm
from accel.batch import compile_batch
from accel.bindings import func, ir, new_context
from accel.check import random_operand, reference
from accel.dialect.accel_tile import AccelTile, pack, unpack
from accel.dialect.element_types import NUMPY_TYPES
from accel.dialect.gemm import GemmOp, GemmShape
from accel.dialect.ir_helpers import collect_ops
from accel.dialect.perf_config import PerfConfig
from accel.diagnostics import AccelError
from accel.migraphx import translate
from accel.pipelines.kernel import KernelPipeline
from accel.pipelines.textual import run_pipeline
from accel.sim import run_host
from accel.target.database import get_arch
from accel.tools import accel_select
from accel.tuning import cost_model
from accel.tuning.selection import TIE, select
from accel.tuning.split_k import GAIN, SLICES, choose_split_k, split_candidates, split_cost_us

ARCHES = ("gfx942", "gfx1100", "gfx1201")
ELEM = {"f16": ir.F16Type.get, "bf16": ir.BF16Type.get, "f32": ir.F32Type.get,
        "i8": lambda: ir.IntegerType.get_signless(8),
        "i32": lambda: ir.IntegerType.get_signless(32)}


def tile_config(arch: str, in_t: str, out_t: str, shape: GemmShape, slices: int) -> PerfConfig:
    """The selector's tile for `shape` with splitKFactor `slices`."""
    return select(get_arch(arch), in_t, out_t, shape).best.replace(split_k=slices)


def run(arch, in_t, out_t, g, m, n, k, slices, *, a_layout="row", b_layout="row",
        c_layout="row", accumulate=False, epilogue="none", seed=0, cfg=None):
    """Compile and simulate one split-K gemm (the selector's tile unless `cfg`); (C,
    float64 reference, bound, launches)."""
    cfg = cfg or tile_config(arch, in_t, out_t, GemmShape(g, m, n, k), slices)
    tiles = {"A": AccelTile(cfg.m_per_block, cfg.kpack_per_block, cfg.kpack),
             "B": AccelTile(cfg.n_per_block, cfg.kpack_per_block, cfg.kpack),
             "C": AccelTile(cfg.m_per_block, cfg.kpack_per_block, cfg.kpack)}
    shapes = {"A": {"row": (g, m, k), "transposed": (g, k, m),
                    "accel": tiles["A"].shape(g, m, k)}[a_layout],
              "B": {"row": (g, k, n), "transposed": (g, n, k),
                    "accel": tiles["B"].shape(g, n, k)}[b_layout],
              "C": {"row": (g, m, n), "accel": tiles["C"].shape(g, m, n)}[c_layout]}
    bias = epilogue in ("bias", "bias_relu")
    types = [(shapes["A"], in_t), (shapes["B"], in_t), (shapes["C"], out_t)]
    if bias:
        types.append(((n,), out_t))
    with new_context(), ir.Location.unknown():
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            f = func.FuncOp("gemm", ([ir.MemRefType.get(list(s), ELEM[t]()) for s, t in types],
                                     []))
            with ir.InsertionPoint(f.add_entry_block()):
                args = list(f.entry_block.arguments)
                GemmOp.build(*args[:3], arch=arch, a_layout=a_layout, b_layout=b_layout,
                             c_layout=c_layout, perf_config=cfg, accumulate=accumulate,
                             bias=args[3] if bias else None, epilogue=epilogue)
                func.ReturnOp([])
        (kernel,) = KernelPipeline(arch=arch).to_kernel_ir(module).gemms
        assert (kernel.split_k.slices if kernel.split_k else 1) == slices
        rng = np.random.default_rng(seed)
        a = random_operand(rng, in_t, (g, m, k))
        b = random_operand(rng, in_t, (g, k, n))
        a_arg = {"row": a, "transposed": np.ascontiguousarray(a.transpose(0, 2, 1)),
                 "accel": pack(a, tiles["A"])}[a_layout]
        b_arg = {"row": b, "transposed": np.ascontiguousarray(b.transpose(0, 2, 1)),
                 "accel": pack(b, tiles["B"], transposed=True)}[b_layout]
        small = "i8" if out_t == "i32" else "f16"
        c0 = random_operand(rng, small, (g, m, n)).astype(NUMPY_TYPES[out_t]) \
            if accumulate else None
        if c_layout == "accel":
            c = pack(c0 if accumulate else np.zeros((g, m, n), NUMPY_TYPES[out_t]), tiles["C"])
            if not accumulate:
                c[...] = np.nan if out_t != "i32" else -7   # every element must be written
        else:
            c = c0.copy() if accumulate else np.full(
                (g, m, n), np.nan if out_t != "i32" else -7, NUMPY_TYPES[out_t])
        bias_v = random_operand(rng, small, (n,)).astype(NUMPY_TYPES[out_t]) if bias else None
        report = run_host(module, "gemm", [a_arg, b_arg, c] + ([bias_v] if bias else []),
                          arch=arch)
        launches = [l.kernel.split("::")[-1] for l in report.launches]
    if c_layout == "accel":
        padding = c.copy()
        padding[pack(np.ones((g, m, n), np.int8), tiles["C"]).astype(bool)] = 0
        assert (padding == 0).all(), "C's accel-layout padding is not zero"
    got = unpack(c, m, n) if c_layout == "accel" else c
    ref, tol = reference(a, b, in_t, out_t, c0=c0, bias=bias_v,
                         relu=epilogue in ("relu", "bias_relu"))
    return got.astype(np.float64), ref, tol, launches, kernel


def assert_close(got, ref, tol):
    bad = np.argwhere(~(np.abs(got - ref) <= tol))
    assert bad.size == 0, (f"{len(bad)} wrong elements, first at {tuple(bad[0])}: "
                           f"got {got[tuple(bad[0])]}, want {ref[tuple(bad[0])]}")


# Ragged M and N, K not a multiple of the k-tile; slices that divide K's k-tiles and
# ones that leave the last slices past K (they must add exact zeros).
@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("in_t,out_t,g,m,n,k,slices", [
    ("f16", "f16", 2, 37, 45, 200, 3),
    ("bf16", "f32", 1, 3, 77, 520, 4),
    ("i8", "i32", 2, 48, 21, 300, 5),
    ("f16", "f32", 1, 1, 40, 64, 16),      # more slices than k-tiles
])
def test_split_k_matches_numpy(arch, in_t, out_t, g, m, n, k, slices):
    got, ref, tol, launches, kernel = run(arch, in_t, out_t, g, m, n, k, slices)
    assert_close(got, ref, tol)
    assert launches == [kernel.symbol, kernel.reduction.symbol]
    assert kernel.grid[2] == g * slices


@pytest.mark.parametrize("arch", ARCHES)
def test_output_state_and_epilogue_are_applied_once_after_the_sum(arch):
    """accumulate (C_old read once, by the reduction) and bias + relu (relu of the
    whole sum, not of each partial)."""
    got, ref, tol, _, _ = run(arch, "f16", "f16", 2, 33, 70, 160, 4, accumulate=True,
                              epilogue="bias_relu")
    assert_close(got, ref, tol)
    assert (got == 0).any(), "relu of the whole sum clamps some elements"


@pytest.mark.parametrize("arch", ARCHES)
def test_layouts(arch):
    """A and B in the accel layout (its padded K: the zero tiles past K come from the
    batch redirect), B transposed, C in the accel layout (padding written as zeros).
    N = 56 with the selector's 16- or 32-wide tile and kPerBlock 128: C's padding
    reaches past the tile grid's columns (codegen/epilogue.py)."""
    for n in (120, 56):
        for a_layout, b_layout, c_layout in (("accel", "accel", "row"),
                                             ("transposed", "transposed", "accel")):
            got, ref, tol, _, _ = run(arch, "f16", "f32", 1, 40, n, 200, 3, a_layout=a_layout,
                                      b_layout=b_layout, c_layout=c_layout)
            assert_close(got, ref, tol)


# (nPerBlock, kpackPerBlock): C pads N to kPB = kpackPB * 8, the grid to nPB.
ACCEL_C_N_TILES = {"kPB 128 > nPB 16": (16, 16), "kPB 16 < nPB 64": (64, 2)}


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("tile", list(ACCEL_C_N_TILES), ids=list(ACCEL_C_N_TILES))
@pytest.mark.parametrize("n", [1, 17, 56, 100])
def test_accel_c_padding_past_the_grid(arch, tile, n):
    """The reduction writes C's padding past the tile grid's columns (kPB > nPB) and
    drops the last tile's columns past it (kPB < nPB): every padding element exactly 0
    (run checks it; C starts as NaN), G = 2, ragged M, plain and through bias + relu."""
    n_pb, kpack_pb = ACCEL_C_N_TILES[tile]
    cfg = PerfConfig(m_per_block=32, n_per_block=n_pb, kpack_per_block=kpack_pb,
                     m_per_wave=16, n_per_wave=16, mn_per_xdl=16, kpack=8, split_k=3)
    for epilogue in ("none", "bias_relu"):
        got, ref, tol, _, kernel = run(arch, "f16", "f16", 2, 45, n, 300, 3,
                                       b_layout="transposed", c_layout="accel",
                                       epilogue=epilogue, cfg=cfg)
        assert_close(got, ref, tol)
        assert kernel.reduction.grid[0] == -(-n // n_pb)


def test_same_inputs_same_bits():
    """The partials are summed in slice order: two runs give identical bytes."""
    first = run("gfx942", "f16", "f32", 1, 37, 45, 500, 4, seed=3)[0]
    second = run("gfx942", "f16", "f32", 1, 37, 45, 500, 4, seed=3)[0]
    assert first.tobytes() == second.tobytes()


# ---- the choice (tuning/split_k.py) ---------------------------------------------------
SKINNY = [GemmShape(1, 48, 4096, 4096), GemmShape(1, 16, 4096, 8192),
          GemmShape(1, 48, 1024, 16384), GemmShape(1, 64, 64, 8192)]
FILLED = [GemmShape(1, 4096, 4096, 4096), GemmShape(1, 512, 512, 512),
          GemmShape(1, 77, 1000, 320), GemmShape(4, 1024, 1024, 256)]


def test_skinny_deep_gemm_on_gfx942_is_split():
    """48x4096x4096 on MI300X: the selector's tile leaves most of 304 CUs idle or walks
    all of K; the estimate with split-K is lower by more than GAIN."""
    sel = select(get_arch("gfx942"), "f16", "f16", SKINNY[0])
    chosen = choose_split_k(sel)
    assert chosen.split_k > 1
    prep, launch = sel.scored[0]
    base = cost_model.estimate_us(prep.terms, "f16", launch)
    tile = next((p, lc) for p, lc in sel.scored if p.config == chosen.replace(split_k=1))
    assert split_cost_us(tile[0].terms, "f16", "f16", SKINNY[0], tile[1],
                         chosen.split_k) < (1 - GAIN) * base


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("shape", FILLED)
def test_gemms_that_fill_the_chip_are_not_split(arch, shape):
    assert choose_split_k(select(get_arch(arch), "f16", "f16", shape)).split_k == 1


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("shape", SKINNY + FILLED)
def test_choice_is_the_cheapest_estimate(arch, shape):
    """Property on unmeasured shapes: the choice is never estimated slower than the
    unsplit best, a split beats it by more than GAIN and is the cheapest (tile size, S)
    up to a TIE, reading no more LDS bytes per flop than the cheapest, and S never
    exceeds K's k-tiles."""
    sel = select(get_arch(arch), "f16", "f16", shape)
    chosen = choose_split_k(sel)
    prep, launch = sel.scored[0]
    base = cost_model.estimate_us(prep.terms, "f16", launch)
    costs = {(str(p.config), s): split_cost_us(p.terms, "f16", "f16", shape, lc, s)
             for p, lc in split_candidates(sel) for s in SLICES
             if s <= -(-shape.k // p.config.k_per_block)}
    if chosen.split_k == 1:
        assert chosen == sel.best
        assert not costs or min(costs.values()) >= (1 - GAIN) * base
    else:
        mine = next((p, lc) for p, lc in sel.scored if p.config == chosen.replace(split_k=1))
        got = split_cost_us(mine[0].terms, "f16", "f16", shape, mine[1], chosen.split_k)
        cheapest = min(costs, key=costs.get)
        assert got <= costs[cheapest] * (1 + TIE) and got < (1 - GAIN) * base
        first = next(p for p, _ in split_candidates(sel) if str(p.config) == cheapest[0])
        assert mine[0].terms.lds_traffic / mine[0].terms.flops <= \
            first.terms.lds_traffic / first.terms.flops
        assert chosen.split_k <= -(-shape.k // chosen.k_per_block)


def test_candidates_are_one_per_tile_size_first_ranked():
    sel = select(get_arch("gfx942"), "f16", "f16", GemmShape(1, 4096, 4096, 4096))
    got = split_candidates(sel)
    sizes = [(p.config.m_per_block, p.config.n_per_block, p.config.k_per_block)
             for p, _ in got]
    assert len(sizes) == len(set(sizes)) and got[0] == sel.scored[0]
    ranked = [p.config for p, _ in sel.scored]
    for p, _ in got:   # nothing of its size ranks before it
        first = next(c for c in ranked if (c.m_per_block, c.n_per_block, c.k_per_block) ==
                     (p.config.m_per_block, p.config.n_per_block, p.config.k_per_block))
        assert first == p.config


def test_library_compiles_the_split_with_its_workspace():
    """compile_gemm on a skinny deep shape: two kernels in launch order, the partials
    buffer named in the metadata's workspace with both kernels."""
    result = compile_gemm("gfx942", m=48, n=4096, k=4096, assembly=False)
    meta = result.metadata()
    partial, reduction = meta["kernels"]
    assert partial["split_k"] == reduction["split_k"] > 1
    assert reduction["op"] == "split_k_reduce"
    (buf,) = meta["workspace"]["buffers"]
    assert buf["kernels"] == [partial["symbol"], reduction["symbol"]]
    assert buf["shape"] == [partial["split_k"], 48, 4096] and buf["dtype"] == "f32"
    assert partial["args"][2]["kind"] == reduction["args"][0]["kind"] == "workspace"
    assert partial["grid"][2] == partial["split_k"]


# ---- from MIGraphX (rocMLIR's split-K e2e tests, on ragged shapes) ----------------------
LINEAR = """
func.func @dot_splitk_linear(%a: !migraphx.shaped<1x{M}x{K}xf16, {MK}x{K}x1>, %b: !migraphx.shaped<1x{K}x{N}xf16, {KN}x{N}x1>, %x: !migraphx.shaped<1x{M}x{N}xf32, {MN}x{N}x1>, %y: !migraphx.shaped<1x{M}x{N}xf32, {MN}x{N}x1>) -> !migraphx.shaped<1x{M}x{N}xf32, {MN}x{N}x1> attributes {{rock.arch = "{ARCH}"}} {{
  %0 = migraphx.dot %a, %b {{perf_config = "{CONFIG}"}} : <1x{M}x{K}xf16, {MK}x{K}x1>, <1x{K}x{N}xf16, {KN}x{N}x1> -> <1x{M}x{N}xf32, {MN}x{N}x1>
  %cst = migraphx.literal(dense<3.000000e+00> : tensor<1xf32>) : <1xf32, 1>
  %c = migraphx.multibroadcast %cst {{out_dyn_dims = [], out_lens = [1, {M}, {N}]}} : <1xf32, 1> -> <1x{M}x{N}xf32, 0x0x0>
  %1 = migraphx.add %x, %c : <1x{M}x{N}xf32, {MN}x{N}x1>, <1x{M}x{N}xf32, 0x0x0> -> <1x{M}x{N}xf32, {MN}x{N}x1>
  %2 = migraphx.mul %0, %1 : <1x{M}x{N}xf32, {MN}x{N}x1>, <1x{M}x{N}xf32, {MN}x{N}x1> -> <1x{M}x{N}xf32, {MN}x{N}x1>
  %3 = migraphx.add %0, %y : <1x{M}x{N}xf32, {MN}x{N}x1>, <1x{M}x{N}xf32, {MN}x{N}x1> -> <1x{M}x{N}xf32, {MN}x{N}x1>
  %4 = migraphx.add %2, %3 : <1x{M}x{N}xf32, {MN}x{N}x1>, <1x{M}x{N}xf32, {MN}x{N}x1> -> <1x{M}x{N}xf32, {MN}x{N}x1>
  return %4 : !migraphx.shaped<1x{M}x{N}xf32, {MN}x{N}x1>
}}
"""


@pytest.mark.parametrize("arch", ARCHES)
def test_migraphx_split_k_chain(arch):
    """The dot's value read twice, an operand computed by its own add: the whole chain
    is the reduction's epilogue, applied once to the summed product (x*(p+3) + p + y
    with p the full product, not per partial)."""
    m, n, k = 37, 21, 300
    cfg = tile_config(arch, "f16", "f32", GemmShape(1, m, n, k), 4)
    text = LINEAR.format(M=m, N=n, K=k, MK=m * k, KN=k * n, MN=m * n, ARCH=arch, CONFIG=cfg)
    rng = np.random.default_rng(1)
    a = rng.integers(-3, 4, (1, m, k)).astype(np.float16)
    b = rng.integers(-3, 4, (1, k, n)).astype(np.float16)
    x = rng.uniform(-1, 1, (1, m, n)).astype(np.float32)
    y = rng.uniform(-1, 1, (1, m, n)).astype(np.float32)
    out = np.full((1, m, n), np.nan, np.float32)
    with new_context():
        module = ir.Module.parse(translate(text, "linear.mlir"))
        run_pipeline(module, "accel-from-migraphx, accel-affix-perf-config, accel-layout, "
                             "accel-lower-pack, accel-plan-kernel, accel-gemm-to-gpu, "
                             "accel-copy-to-gpu")
        assert "linalg.generic" not in str(module)
        assert len(collect_ops(module, "gpu.launch_func")) == 2
        run_host(module, "dot_splitk_linear", [a, b, x, y, out], arch=arch)
    p = a.astype(np.float64) @ b.astype(np.float64)   # exact: small integers
    want = p * (x.astype(np.float64) + 3) + p + y
    # f32 arithmetic on |values| < 3000: a few ulp of the largest term.
    assert np.all(np.abs(out - want) <= 4 * 2.0**-23 * (np.abs(p) * 4 + 2)), \
        np.max(np.abs(out - want))


def test_a_batch_splits_as_compile_gemm_does():
    """compile_batch (accel-compile's engine) chooses the split compile_gemm chooses and
    takes a given splitKFactor: both kernels, in launch order, and the workspace."""
    shape = {"arch": "gfx942", "m": 48, "n": 4096, "k": 4096}
    chosen = compile_batch([shape], assembly=False)
    direct = compile_gemm("gfx942", m=48, n=4096, k=4096, assembly=False)
    assert chosen.ok and chosen.compile_result() == direct
    assert [k.metadata.get("op") for k in chosen.kernels] == [None, "split_k_reduce"]
    split = str(choose_split_k(select(get_arch("gfx942"), "f16", "f16",
                                      GemmShape(1, 48, 4096, 4096))))
    given = compile_batch([{**shape, "perf_config": split}], assembly=False)
    assert given.compile_result() == direct and given.metadata()["workspace"] == \
        direct.workspace


def test_a_grouped_gemm_is_not_split():
    with pytest.raises(AccelError, match="a grouped GEMM has no split-K"):
        compile_grouped_gemm("gfx942", groups=2, n=32, k=64, max_seq_len=16, total_rows=32,
                             perf_config="v4:16,32,4,16,16,16,8,2,1,2,0,0,1,1",
                             mode="uniform", assembly=False)


def test_accel_select_reports_the_split(capsys):
    assert accel_select.main(["--arch", "gfx942", "-m", "48", "-n", "4096", "-k", "4096",
                              "--top", "1", "--no-rejected"]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    want = choose_split_k(select(get_arch("gfx942"), "f16", "f32",
                                 GemmShape(1, 48, 4096, 4096)))
    assert last.startswith(f"split-K: {want} ({want.split_k} slices")
