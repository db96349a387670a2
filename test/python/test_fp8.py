"""fp8 GEMMs: the formats' decode, the fp8 MMAs' lanes, and whole GEMMs on gfx942 (FNUZ)
and gfx1201 (OCP) checked elementwise against float64 numpy of the decoded inputs.

Three decodes meet here and must agree on all 256 codes of each format: the
simulator's bit-level one (sim/fp8.py), ml_dtypes' (what check.py's reference and the
host data use), and the formula below, written from the format definitions
(dialect/element_types.py's table) rather than from either implementation.
"""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest

from accel import compile_gemm
from accel.bindings import ir, new_context
from accel.check import (check_gemm, compare, edge_operand, fp8_codes, fp8_edge_values,
                         random_operand, reference)
from accel.diagnostics import AccelError
from accel.dialect.element_types import FP8_FORMATS, NUMPY_TYPES
from accel.dialect.gemm import GemmShape
from accel.dialect.perf_config import PerfConfig
from accel.passes.gemm_to_gpu import lower_gemms
from accel.passes.plan_kernel import PlanKernel
from accel.pipelines.textual import run_pipeline
from accel.sim import fp8 as sim_fp8
from accel.sim import run_host, run_kernel_text
from accel.target.database import get_arch
from accel.tools import accel_select
from accel.tuning import cost_model
from accel.tuning.selection import select
from accel.tuning.validity import check_config, instruction_for
from test_sim_matrix import MFMA16_D, MFMA32_D, fragments

FNUZ = ("f8E4M3FNUZ", "f8E5M2FNUZ")
OCP = ("f8E4M3FN", "f8E5M2")
PAIRS = [("gfx942", a, b) for a in FNUZ for b in FNUZ] + \
        [("gfx1201", a, b) for a in OCP for b in OCP]
ISA = {t: f.isa_name for t, f in FP8_FORMATS.items()}   # fp8 (E4M3) | bf8 (E5M2)


# ---- the formats --------------------------------------------------------------------
def formula(code: int, t: str) -> float:
    """The value of `code` read from the format definition alone."""
    f = FP8_FORMATS[t]
    m_bits, e_bits = f.mantissa_bits, f.exponent_bits
    sign = -1.0 if code >> 7 else 1.0
    e, man = (code >> m_bits) & (2**e_bits - 1), code & (2**m_bits - 1)
    if f.family == "FNUZ" and code == 0x80:
        return math.nan                       # the one NaN: the would-be -0
    if e == 2**e_bits - 1:
        if f.has_infinity:                    # f8E5M2: IEEE-style top exponent
            return sign * math.inf if man == 0 else math.nan
        if f.family == "OCP" and man == 2**m_bits - 1:
            return math.nan                   # f8E4M3FN: only S.1111.111
    scale = 2.0 ** ((e if e else 1) - f.bias - m_bits)
    return sign * scale * ((2**m_bits if e else 0) + man)


@pytest.mark.parametrize("t", sorted(FP8_FORMATS))
def test_three_decodes_agree_on_every_code(t):
    codes = np.arange(256, dtype=np.uint8)
    ours = np.array([formula(int(c), t) for c in codes])
    sim = sim_fp8.decode(codes, t)
    ml = codes.view(NUMPY_TYPES[t]).astype(np.float64)
    for name, got in (("simulator", sim), ("ml_dtypes", ml)):
        assert np.array_equal(np.isnan(got), np.isnan(ours)), name
        finite = ~np.isnan(ours)
        assert np.array_equal(got[finite], ours[finite]), name
        # The sign of zero too: OCP 0x80 is -0.
        assert np.array_equal(np.signbit(got[finite]), np.signbit(ours[finite])), name


@pytest.mark.parametrize("t, nans, infs, max_finite, min_sub", [
    ("f8E4M3FNUZ", [0x80], [], 240.0, 2.0**-10),
    ("f8E5M2FNUZ", [0x80], [], 57344.0, 2.0**-17),
    ("f8E4M3FN", [0x7F, 0xFF], [], 448.0, 2.0**-9),
    ("f8E5M2", [0x7D, 0x7E, 0x7F, 0xFD, 0xFE, 0xFF], [0x7C, 0xFC], 57344.0, 2.0**-16),
])
def test_format_facts(t, nans, infs, max_finite, min_sub):
    v = sim_fp8.TABLES[t]
    assert [int(c) for c in np.flatnonzero(np.isnan(v))] == nans
    assert [int(c) for c in np.flatnonzero(np.isinf(v))] == infs
    assert np.nanmax(v[np.isfinite(v)]) == max_finite == FP8_FORMATS[t].max_finite
    assert v[1] == min_sub
    spec = sim_fp8.SPECS[t]
    f = FP8_FORMATS[t]
    assert (spec.exponent_bits, spec.mantissa_bits, spec.bias) == \
        (f.exponent_bits, f.mantissa_bits, f.bias)


@pytest.mark.parametrize("t", sorted(FP8_FORMATS))
def test_edge_values_are_the_extremes(t):
    codes = fp8_codes(t)
    finite = codes.view(NUMPY_TYPES[t]).astype(np.float64)
    edges = fp8_edge_values(t).astype(np.float64)
    assert edges.max() == finite.max() and edges.min() == finite.min()
    pos = finite[finite > 0]
    assert pos.min() in edges                                  # smallest subnormal
    assert (np.abs(edges) == 2.0 ** (1 - FP8_FORMATS[t].bias)).any()   # smallest normal
    # The operands of the GEMM tests below (g=2, m=37, k=100) hold every edge code.
    planted = edge_operand(np.random.default_rng(3), t, (2, 37, 100)).view(np.uint8)
    assert set(fp8_edge_values(t).view(np.uint8)) <= set(planted.reshape(-1))


@pytest.mark.parametrize("arch, n", [("gfx942", 8), ("gfx1201", 4), ("gfx1100", 0)])
def test_menu_has_every_pairing_named_by_its_formats(arch, n):
    """The target database's fp8 instructions: every pairing of the chip's family, each
    mnemonic naming A's then B's format as the ISA does (fp8 = E4M3, bf8 = E5M2)."""
    fp8 = [i for i in get_arch(arch).mma if i.acc_type == "f32" and i.types[0] in FP8_FORMATS]
    assert len(fp8) == n
    for i in fp8:
        a, b = i.types
        assert FP8_FORMATS[a].family == FP8_FORMATS[b].family
        assert i.mnemonic.endswith(f"_{ISA[a]}_{ISA[b]}") and (i.a_len, i.b_len) == (8, 8)


# ---- the instructions, lane by lane --------------------------------------------------
def mma_text(op, ta, tb, a_len, c_len, waves, wave):
    va, vb, vc = f"vector<{a_len}x{ta}>", f"vector<{a_len}x{tb}>", f"vector<{c_len}xf32>"
    ma, mb = f"memref<{waves}x{wave}x{a_len}x{ta}>", f"memref<{waves}x{wave}x{a_len}x{tb}>"
    mc = f"memref<{waves}x{wave}x{c_len}xf32>"
    suffix = " blgp = none" if "mfma" in op else ""
    return f"""
module attributes {{gpu.container_module}} {{
  gpu.module @m {{
    gpu.func @mma(%A: {ma}, %B: {mb}, %C: {mc}, %D: {mc}) kernel {{
      %t = gpu.thread_id x
      %b = gpu.block_id x
      %c0 = arith.constant 0 : index
      %a = vector.load %A[%b, %t, %c0] : {ma}, {va}
      %bv = vector.load %B[%b, %t, %c0] : {mb}, {vb}
      %c = vector.load %C[%b, %t, %c0] : {mc}, {vc}
      %d = {op} %a * %bv + %c{suffix} : {va}, {vb}, {vc}
      vector.store %d, %D[%b, %t, %c0] : {mc}, {vc}
      gpu.return
    }}
  }}
}}
"""


# (arch, op, M, K, wave, c_len, A(l,e), B(l,e), D(l,e)): docs/internals.md "fp8" rows.
LANES = {
    "mfma-32x32x16": ("gfx942", "amdgpu.mfma 32x32x16", 32, 16, 64, 16,
                      lambda l, e: (l % 32, 8 * (l // 32) + e),
                      lambda l, e: (8 * (l // 32) + e, l % 32), MFMA32_D),
    "mfma-16x16x32": ("gfx942", "amdgpu.mfma 16x16x32", 16, 32, 64, 4,
                      lambda l, e: (l % 16, 8 * (l // 16) + e),
                      lambda l, e: (8 * (l // 16) + e, l % 16), MFMA16_D),
    "wmma-16x16x16": ("gfx1201", "amdgpu.wmma 16x16x16", 16, 16, 32, 8,
                      lambda l, e: (l % 16, 8 * (l // 16) + e),
                      lambda l, e: (8 * (l // 16) + e, l % 16),
                      lambda l, e: (8 * (l // 16) + e, l % 16)),
}


@pytest.mark.parametrize("shape", sorted(LANES))
@pytest.mark.parametrize("pair", range(4))
def test_fp8_mma_lanes_and_values(shape, pair):
    """Probes per wave: A one-hot at every (i, k) with B random, B one-hot at every
    (k, j), and one wave of random codes of every finite value; D must equal the float64
    product of the decoded matrices, rounded once to f32."""
    arch, op, M, K, wave, c_len, a_at, b_at, d_at = LANES[shape]
    fam = FNUZ if arch == "gfx942" else OCP
    ta, tb = fam[pair // 2], fam[pair % 2]
    rng = np.random.default_rng(pair)
    N = M
    nA, nB = M * K, K * N
    P = nA + nB + 1
    A = random_operand(rng, ta, (P, M, K)).astype(np.float64)
    B = random_operand(rng, tb, (P, K, N)).astype(np.float64)
    A[:nA] = 0
    A[np.arange(nA), np.arange(nA) // K, np.arange(nA) % K] = 1
    B[nA:nA + nB] = 0
    B[nA + np.arange(nB), np.arange(nB) // N, np.arange(nB) % N] = 1
    A[-1] = fp8_codes(ta)[rng.integers(0, fp8_codes(ta).size, (M, K))].view(
        NUMPY_TYPES[ta]).astype(np.float64)
    B[-1] = fp8_codes(tb)[rng.integers(0, fp8_codes(tb).size, (K, N))].view(
        NUMPY_TYPES[tb]).astype(np.float64)
    C = rng.integers(-50, 51, (P, M, N)).astype(np.float64)
    Af = fragments(A.astype(NUMPY_TYPES[ta]), 8, wave, a_at)
    Bf = fragments(B.astype(NUMPY_TYPES[tb]), 8, wave, b_at)
    Cf = fragments(C.astype(np.float32), c_len, wave, d_at)
    Df = np.zeros_like(Cf)
    run_kernel_text(mma_text(op, ta, tb, 8, c_len, P, wave), "mma", grid=(P, 1, 1),
                    block=(wave, 1, 1), args=[Af, Bf, Cf, Df], arch=arch)
    want = fragments((A @ B + C).astype(np.float32), c_len, wave, d_at)
    bad = np.argwhere(Df != want)
    assert bad.size == 0, f"first mismatch at probe/lane/elem {bad[0]}"


def test_fnuz_nan_code_propagates_in_the_mma():
    """0x80 is NaN in FNUZ (not -0): one in A row i poisons row i of D, nothing else."""
    arch, op, M, K, wave, c_len, a_at, b_at, d_at = LANES["mfma-16x16x32"]
    A = np.ones((1, M, K)).astype(NUMPY_TYPES["f8E4M3FNUZ"])
    A.view(np.uint8)[0, 5, 7] = 0x80
    B = np.ones((1, K, M)).astype(NUMPY_TYPES["f8E5M2FNUZ"])
    Cf = np.zeros((1, wave, c_len), np.float32)
    Df = np.zeros_like(Cf)
    run_kernel_text(mma_text(op, "f8E4M3FNUZ", "f8E5M2FNUZ", 8, c_len, 1, wave), "mma",
                    grid=(1, 1, 1), block=(wave, 1, 1),
                    args=[fragments(A, 8, wave, a_at), fragments(B, 8, wave, b_at), Cf, Df],
                    arch=arch)
    D = np.zeros((M, M))
    for l in range(wave):
        for e in range(c_len):
            D[d_at(l, e)] = Df[0, l, e]
    assert np.isnan(D[5]).all() and not np.isnan(np.delete(D, 5, axis=0)).any()
    assert (np.delete(D, 5, axis=0) == K).all()


def test_simulator_rejects_a_format_the_chip_lacks():
    text = mma_text("amdgpu.mfma 16x16x32", "f8E4M3FNUZ", "f8E4M3FN", 8, 4, 1, 64)
    z = np.zeros((1, 64, 8), np.uint8)
    c = np.zeros((1, 64, 4), np.float32)
    with pytest.raises(AccelError, match="not in docs/layouts.md"):
        run_kernel_text(text, "mma", grid=(1, 1, 1), block=(64, 1, 1),
                        args=[z.view(NUMPY_TYPES["f8E4M3FNUZ"]),
                              z.view(NUMPY_TYPES["f8E4M3FN"]), c, c.copy()], arch="gfx942")


# ---- whole GEMMs ----------------------------------------------------------------------
@pytest.mark.parametrize("arch, a, b", PAIRS)
def test_every_pairing_ragged_with_edge_values(arch, a, b):
    """G=2, ragged M and N, K not a multiple of the k-tile; each operand holds its
    format's largest finite values, subnormals and zeros."""
    r = check_gemm(arch, g=2, m=37, n=50, k=100, in_type=a, b_type=b, out_type="f32",
                   edge_values=True, seed=3)
    assert r.comparison.ok, r.comparison.describe(r.got, r.ref)
    assert r.mma.endswith(f"_{ISA[b]}_{ISA[a]}")     # C^T = B^T A^T: B is the first source


# gfx942: both MFMA shapes, both schedules, 128-bit fragment reads (kpack 16) and 8-byte
# runs (kpack 8); gfx1201: the WMMA tile with several waves and repeats.
# kpack 4 and 1 split a lane's 8-byte run into 32-bit and byte LDS reads.
CONFIGS = [
    ("gfx942", "v4:64,64,8,32,32,32,16,1,1,2,0,0,1,1"),
    ("gfx942", "v4:64,32,4,32,16,16,8,1,2,2,0,0,1,1"),
    ("gfx942", "v4:32,64,8,16,32,16,16,1,2,2,0,0,1,1"),
    ("gfx942", "v4:32,32,8,16,16,16,4,1,1,2,0,0,1,1"),
    ("gfx942", "v4:32,32,32,32,32,32,1,1,1,2,0,0,1,1"),
    ("gfx1201", "v4:64,32,8,32,16,16,16,1,1,2,0,0,1,1"),
    ("gfx1201", "v4:32,32,4,16,16,16,8,1,2,2,0,0,1,1"),
    ("gfx1201", "v4:32,32,16,16,16,16,1,1,2,2,0,0,1,1"),
]


@pytest.mark.parametrize("arch, config", CONFIGS)
def test_tiles_and_schedules(arch, config):
    """Simulated against numpy, and lowered to a code object (the Kernel IR of every
    tile shape must also get through LLVM)."""
    a, b = (FNUZ if arch == "gfx942" else OCP)
    r = check_gemm(arch, m=70, n=77, k=200, in_type=a, b_type=b, out_type="f32",
                   perf_config=config, edge_values=True, seed=5)
    assert r.perf_config == config
    assert r.comparison.ok, r.comparison.describe(r.got, r.ref)
    compiled = compile_gemm(arch, m=70, n=77, k=200, in_type=a, b_type=b,
                            perf_config=config, assembly=False)
    assert compiled.kernels[0].metadata["mma"] == r.mma


@pytest.mark.parametrize("arch", ["gfx942", "gfx1201"])
@pytest.mark.parametrize("layouts", [dict(trans_a=True), dict(trans_b=True),
                                     dict(a_layout="accel", b_layout="accel")])
def test_operand_layouts(arch, layouts):
    """A [G,K,M] / B [G,N,K] (the copy transposes in registers) and the accel layout
    (packed by a copy kernel)."""
    a, b = (FNUZ if arch == "gfx942" else OCP)
    config = "v4:32,32,4,16,16,16,8,1,1,2,0,0,1,1" if "a_layout" in layouts else None
    r = check_gemm(arch, g=2, m=45, n=33, k=72, in_type=b, b_type=a, out_type="f32",
                   perf_config=config, seed=7, **layouts)
    assert r.comparison.ok, r.comparison.describe(r.got, r.ref)


@pytest.mark.parametrize("arch, out_type", [("gfx942", "bf16"), ("gfx1201", "f16"),
                                            ("gfx942", "f16"), ("gfx1201", "bf16")])
def test_fused_epilogue_and_narrow_output(arch, out_type):
    a, b = (FNUZ if arch == "gfx942" else OCP)
    r = check_gemm(arch, g=2, m=19, n=40, k=64, in_type=a, b_type=b, out_type=out_type,
                   epilogue="bias_relu", batched_bias=True, seed=11)
    assert r.comparison.ok, r.comparison.describe(r.got, r.ref)
    assert (r.got == 0).any() and (r.got > 0).any()   # relu did clamp something


@pytest.mark.parametrize("arch, a, b", [("gfx942", "f8E4M3FNUZ", "f8E5M2FNUZ"),
                                        ("gfx1201", "f8E5M2", "f8E4M3FN")])
def test_nan_codes_poison_exactly_their_row_and_column(arch, a, b):
    """A NaN code in A[g, i, k] makes row i of C[g] NaN, one in B[g, k, j] column j; an
    FNUZ NaN is the code 0x80, which OCP reads as -0."""
    g, m, n, k = 1, 20, 24, 40
    rng = np.random.default_rng(2)
    A, B = random_operand(rng, a, (g, m, k)), random_operand(rng, b, (g, k, n))
    nan_a = 0x80 if a in FNUZ else 0x7F
    nan_b = 0x80 if b in FNUZ else 0x7F
    A.view(np.uint8)[0, 3, 9] = nan_a
    B.view(np.uint8)[0, 17, 5] = nan_b
    if a in OCP:
        A.view(np.uint8)[0, 11, 0] = 0x80           # -0 in OCP: harmless
    r = check_gemm(arch, g=g, m=m, n=n, k=k, in_type=a, b_type=b, out_type="f32",
                   operands=(A, B))
    want_nan = np.zeros((g, m, n), bool)
    want_nan[0, 3, :] = want_nan[0, :, 5] = True
    assert np.array_equal(np.isnan(r.got), want_nan)
    assert np.array_equal(np.isnan(r.ref), want_nan)
    assert compare(r.got[~want_nan], r.ref[~want_nan], r.bound[~want_nan]).ok


def test_reference_bound_catches_one_dropped_product():
    """The bound is the f32 summation's (products of fp8 values are exact), far below
    any one product term: C with its largest term dropped, what a wrong lane would do,
    fails in every element."""
    rng = np.random.default_rng(0)
    a = random_operand(rng, "f8E4M3FN", (1, 8, 256))
    b = random_operand(rng, "f8E5M2", (1, 256, 8))
    ref, tol = reference(a, b, "f8E4M3FN", "f32")
    terms = a.astype(np.float64)[0, :, :, None] * b.astype(np.float64)[0, None, :, :]
    worst = np.take_along_axis(terms, np.abs(terms).argmax(axis=1)[:, None, :], 1)[:, 0, :]
    assert (np.abs(worst) > tol[0]).all()
    assert compare(ref - worst[None], ref, tol).mismatches == ref.size


# ---- selection, validity, diagnostics --------------------------------------------------
def test_instruction_k_sets_the_k_tile_rules():
    arch = get_arch("gfx942")
    i16 = instruction_for(arch, "f8E4M3FNUZ", 16, "f8E5M2FNUZ")
    i32 = instruction_for(arch, "f8E4M3FNUZ", 32, "f8E5M2FNUZ")
    assert (i16.k, i32.k) == (32, 16)
    shape = GemmShape(1, 64, 64, 64)
    # kPerBlock 16 is too shallow for 16x16x32; fine for 32x32x16.
    assert any(e.startswith("k-per-block:") for e in check_config(
        arch, "f8E4M3FNUZ", shape, PerfConfig.parse("v4:32,32,2,16,16,16,8,1,1,2,0,0,1,1", "mfma"),
        "f8E5M2FNUZ"))
    assert not check_config(arch, "f8E4M3FNUZ", shape,
                            PerfConfig.parse("v4:64,64,2,32,32,32,8,1,1,2,0,0,1,1", "mfma"),
                            "f8E5M2FNUZ")


@pytest.mark.parametrize("arch, a, b", [("gfx942", "f8E4M3FNUZ", "f8E5M2FNUZ"),
                                        ("gfx1201", "f8E4M3FN", "f8E5M2")])
def test_ladder_reaches_deep_k_and_runs_at_the_fp8_rate(arch, a, b):
    info = get_arch(arch)
    sel = select(info, a, "f32", GemmShape(1, 4096, 4096, 4096), b_type=b)
    assert {p.config.k_per_block for p, _ in sel.scored} >= {32, 64, 128}
    assert all(p.instr.types == (a, b) for p, _ in sel.scored)
    # fp8's MMA rate is twice f16's on both chips: the same tile's compute term halves.
    rate = cost_model.params_for(info).mma_flops_per_clock
    assert rate[a] == rate[b] == 2 * rate["f16"]
    p = sel.scored[0][0]
    f16 = cost_model.config_terms(info, "f16", p.config, p.instr, p.lds, p.regs,
                                  depth=p.terms.depth)
    assert p.terms.mma_rate == 2 * f16.mma_rate


@pytest.mark.parametrize("arch, a, b, message", [
    ("gfx1100", "f8E4M3FN", None, "gfx1100 has no fp8 matrix instructions"),
    ("gfx1100", "f8E4M3FNUZ", None, "gfx1100 has no fp8 matrix instructions"),
    ("gfx942", "f8E4M3FN", None, "f8E4M3FN is an OCP fp8 format; gfx942 has the FNUZ formats"),
    ("gfx942", "f8E4M3FNUZ", "f8E5M2", "f8E5M2 is an OCP fp8 format; gfx942 has the FNUZ"),
    ("gfx1201", "f8E5M2FNUZ", None, "f8E5M2FNUZ is an FNUZ fp8 format; gfx1201 has the OCP"),
    ("gfx1201", "f8E4M3FN", "f16", "A and B element types differ: f8E4M3FN vs f16"),
])
def test_unsupported_formats_are_one_line_diagnostics(arch, a, b, message):
    with pytest.raises(AccelError) as e:
        compile_gemm(arch, m=32, n=32, k=64, in_type=a, b_type=b)
    assert message in e.value.message and "\n" not in e.value.message
    with pytest.raises(AccelError, match=message.split(";")[0]):
        select(get_arch(arch), a, "f32", GemmShape(1, 32, 32, 64), b_type=b)


def test_fp8_output_type_rules():
    with pytest.raises(AccelError, match="output type i32 is not supported"):
        compile_gemm("gfx942", m=32, n=32, k=64, in_type="f8E4M3FNUZ", out_type="i32")


def test_compile_metadata_names_both_types_and_the_issued_instruction():
    r = compile_gemm("gfx942", m=64, n=64, k=128, in_type="f8E5M2FNUZ", b_type="f8E4M3FNUZ",
                     perf_config="v4:64,64,8,32,32,32,16,1,1,2,0,0,1,1")
    meta = r.kernels[0].metadata
    assert [x["dtype"] for x in meta["args"]] == ["f8E5M2FNUZ", "f8E4M3FNUZ", "f32"]
    assert [x["bytes"] for x in meta["args"]] == [64 * 128, 128 * 64, 64 * 64 * 4]
    assert meta["mma"] == "v_mfma_f32_32x32x16_fp8_bf8"
    assert "v_mfma_f32_32x32x16_fp8_bf8" in r.kernels[0].assembly
    assert "f8E5M2FNUZ_f8E4M3FNUZ" in meta["symbol"]


# ---- packing and the tools -----------------------------------------------------------------
def _host_run(text, arch, passes, args):
    with new_context():
        module = ir.Module.parse(text)
        run_pipeline(module, passes)
        PlanKernel().run(module)
        lower_gemms(module)
        kernels = [op.attributes["sym_name"].value for op in module.body.operations
                   if op.operation.name == "gpu.module"]
        run_host(module, "f", args, arch=arch)
    return kernels


@pytest.mark.parametrize("arch, a, b", [("gfx942", "f8E5M2FNUZ", "f8E4M3FNUZ"),
                                        ("gfx1201", "f8E4M3FN", "f8E5M2")])
def test_runtime_pack_kernels_move_fp8_codes(arch, a, b):
    """accel-layout{a=accel b=accel} packs both plain fp8 operands at run time (copy
    kernels, zero-padding M, N and K) before the gemm reads them in the accel layout."""
    g, m, n, k = 2, 45, 33, 70
    text = f'''func.func @f(%a: memref<{g}x{m}x{k}x{a}>, %b: memref<{g}x{k}x{n}x{b}>, %c: memref<{g}x{m}x{n}xf32>) {{
  "accel.gemm"(%a, %b, %c) {{arch = "{arch}", perf_config = "v4:32,32,4,16,16,16,8,1,1,2,0,0,1,1"}} : (memref<{g}x{m}x{k}x{a}>, memref<{g}x{k}x{n}x{b}>, memref<{g}x{m}x{n}xf32>) -> ()
  return
}}'''
    rng = np.random.default_rng(9)
    A, B = random_operand(rng, a, (g, m, k)), random_operand(rng, b, (g, k, n))
    c = np.full((g, m, n), np.nan, np.float32)
    kernels = _host_run(text, arch, "accel-affix-perf-config, accel-layout{a=accel b=accel}, "
                        "accel-lower-pack", [A, B, c])
    assert sum("pack" in s for s in kernels) == 2
    ref, tol = reference(A, B, a, "f32")
    assert compare(c, ref, tol).ok


def test_constant_fp8_weight_is_packed_at_compile_time():
    """A constant bf8 B is read from its dense attribute (printed decimals round-trip
    fp8) and packed into a new global: no pack kernel, the same product."""
    rng = np.random.default_rng(1)
    w = random_operand(rng, "f8E5M2FNUZ", (1, 40, 48))
    rows = ", ".join("[" + ", ".join(f"{v:.7e}" for v in row) + "]"
                     for row in w[0].astype(np.float64))
    text = f'''memref.global "private" constant @w : memref<1x40x48xf8E5M2FNUZ> = dense<[[{rows}]]>
func.func @f(%a: memref<1x33x40xf8E4M3FNUZ>, %c: memref<1x33x48xf32>) {{
  %b = memref.get_global @w : memref<1x40x48xf8E5M2FNUZ>
  "accel.gemm"(%a, %b, %c) {{arch = "gfx942"}} : (memref<1x33x40xf8E4M3FNUZ>, memref<1x40x48xf8E5M2FNUZ>, memref<1x33x48xf32>) -> ()
  return
}}'''
    a = random_operand(rng, "f8E4M3FNUZ", (1, 33, 40))
    c = np.full((1, 33, 48), np.nan, np.float32)
    kernels = _host_run(text, "gfx942", "accel-affix-perf-config, accel-layout{b=accel}, "
                        "accel-lower-pack", [a, c])
    assert not any("pack" in s for s in kernels)
    ref, tol = reference(a, w, "f8E4M3FNUZ", "f32")
    assert compare(c, ref, tol).ok


def test_accel_select_takes_both_types(capsys):
    assert accel_select.main(["--arch", "gfx942", "-m", "512", "-n", "512", "-k", "1024",
                              "-t", "f8E4M3FNUZ", "--b-type", "f8E5M2FNUZ", "--json",
                              "--top", "3"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["in_type"], doc["b_type"], doc["out_type"]) == ("f8E4M3FNUZ", "f8E5M2FNUZ", "f32")
    assert len(doc["ranked"]) == 3
    assert accel_select.main(["--arch", "gfx1100", "-m", "64", "-n", "64", "-k", "64",
                              "-t", "f8E4M3FN"]) == 1
    assert "gfx1100 has no fp8 matrix instructions" in capsys.readouterr().err


@pytest.mark.parametrize("arch, a, b", [("gfx942", "f8E4M3FNUZ", "f8E5M2FNUZ"),
                                        ("gfx1201", "f8E5M2", "f8E4M3FN")])
@pytest.mark.parametrize("trans_b", [False, True])
def test_selected_fp8_kernels_do_not_spill(arch, a, b, trans_b):
    """The tile selection picks for a large GEMM (benchmarks/bench_kernel_quality.py's
    shape), with B row-major (transposed into LDS in registers) or [N, K]: no scratch."""
    r = compile_gemm(arch, m=3402, n=4096, k=1024, in_type=a, b_type=b, trans_b=trans_b)
    asm = r.kernels[0].assembly
    meta = dict(re.findall(r"^\s+\.(private_segment_fixed_size|vgpr_spill_count):\s+(\d+)",
                           asm, re.M))
    assert meta == {"private_segment_fixed_size": "0", "vgpr_spill_count": "0"}
