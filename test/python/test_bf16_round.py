"""The epilogue's f32 -> bf16 rounding in i32 ops (the plan's bf16_round = "i32",
codegen/epilogue.py `_bf16_words`, C's pairs packed by llvm.amdgcn.perm) against
arith.truncf ("truncf", LLVM's expansion), both simulated, bit by bit.

The i32 form is the sequence LLVM expands truncf to on all three chips (v_bfe_u32 lsb,
v_add3_u32 + 0x7fff, v_or_b32 0x400000, v_cmp_u_f32, v_cndmask_b32), so every input
gives the bits the hardware gave before. The simulator's truncf is ml_dtypes', which
rounds every non-NaN alike but returns a NaN as 0x7fc0 with its sign; the hardware
keeps the payload's top bits, (x | 0x400000) >> 16, and so does the i32 form."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from accel.bindings import ir, new_context
from accel.check import compare, random_operand, reference
from accel.dialect.element_types import NUMPY_TYPES
from accel.dialect.gemm import GemmOp
from accel.dialect.ir_helpers import collect_ops
from accel.diagnostics import AccelError
from accel.pipelines.textual import run_pipeline
from accel.sim import run_host

ARCHES = ("gfx942", "gfx1100", "gfx1201")
# C = e0 wherever the accumulator is 0 (A is 0 below): the f32 inputs reach the
# rounding bit for bit (a select moves bits; an add would quiet a signalling NaN).
PASS_THROUGH = "%0 = where %acc, %acc, %e0"

EDGES = np.array([
    0x3F808000, 0x3F818000, 0xBF808000, 0xBF818000,   # ties: to even 0x3f80, 0x3f82
    0x3F807FFF, 0x3F808001, 0x3F80FFFF,               # below, above a tie; a carry
    0x7F800001, 0xFF800001, 0x7FBFFFFF, 0xFFA12345,   # signalling NaNs, payloads
    0x7FC00000, 0xFFC00000, 0x7FC00001, 0x7FFFFFFF, 0xFFFFFFFF, 0x7FE54321,  # quiet
    0x7F800000, 0xFF800000,                           # +-inf stay inf
    0x7F7FFFFF, 0xFF7FFFFF, 0x7F7F8000, 0x7F7F7FFF,   # max finite -> inf; a tie; below
    0x00000001, 0x00007FFF, 0x00008000, 0x00018000, 0x00008001,   # denormals, the
    0x807FFFFF, 0x80008000, 0x00800000, 0x80018000,   # smallest normal
    0x00000000, 0x80000000,                           # +-0
], dtype=np.uint32)


def hardware_bits(x: np.ndarray) -> np.ndarray:
    """LLVM's truncf expansion on the three chips (read from their assembly), in numpy:
    the reference the i32 form must equal for every input."""
    x = x.astype(np.uint64)
    rounded = x + 0x7FFF + ((x >> 16) & 1)
    nan = (x & 0x7FFFFFFF) > 0x7F800000
    return (np.where(nan, x | 0x400000, rounded) >> 16).astype(np.uint16)


def module_text(arch, g, m, n, k, in_t, out_t, epilogue="none", operands=(), config=None,
                accumulate=False):
    ts = {"a": ((g, m, k), in_t), "b": ((g, k, n), in_t), "c": ((g, m, n), out_t)}
    ts.update({f"e{i}": (shape, t) for i, (shape, t, _) in enumerate(operands)})

    def mt(name):
        shape, t = ts[name]
        return f"memref<{'x'.join(map(str, shape))}x{t}>"
    names = list(ts)
    attrs = f'arch = "{arch}"'
    if epilogue != "none":
        attrs += f', epilogue = "{epilogue}"'
    if "=" in epilogue:
        attrs += ", epilogue_operands = [" + ", ".join(f'"{kind}"' for *_, kind in operands) + "]"
    if config:
        attrs += f', perf_config = "{config}"'
    if accumulate:
        attrs += ", accumulate"
    args = ", ".join(f"%{x}: {mt(x)}" for x in names)
    return (f"func.func @gemm({args}) {{\n"
            f'  "accel.gemm"({", ".join("%" + x for x in names)}) {{{attrs}}} : '
            f"({', '.join(mt(x) for x in names)}) -> ()\n  return\n}}\n")


def run(text, way, args):
    """Plan the module, set every gemm's bf16_round to `way`, lower and simulate it
    (C written in place in args[2]); the kernels' text."""
    with new_context():
        module = ir.Module.parse(text)
        run_pipeline(module, "accel-affix-perf-config, accel-plan-kernel")
        for op in collect_ops(module, GemmOp.OP_NAME):
            assert "bf16_round" in op.attributes, "the plan decides every bf16 rounding"
            op.attributes["bf16_round"] = ir.StringAttr.get(way)
        run_pipeline(module, "accel-gemm-to-gpu")
        kernels = "\n".join(str(op) for op in collect_ops(module, "gpu.func"))
        run_host(module, "gemm", args, arch=module_arch(text))
    return kernels


def module_arch(text):
    return text.split('arch = "', 1)[1].split('"', 1)[0]


def both_ways(text, make_args):
    """C's bits from the i32 form and from truncf, fresh arguments for each."""
    out = {}
    for way in ("i32", "truncf"):
        args = make_args()
        kernels = run(text, way, args)
        # The kernels follow the plan: LLVM's truncf, or none and the NaN test's quiet bit.
        assert ("arith.truncf" in kernels) == (way == "truncf")
        assert ("dense<4194304>" in kernels or "4194304 : i32" in kernels) == (way == "i32")
        out[way] = args[2].view(np.uint16).copy() if args[2].dtype.itemsize == 2 else args[2]
    return out


def special_inputs(count: int, seed: int = 0) -> np.ndarray:
    """f32 bit patterns: EDGES, then every high half with a low half cycling through the
    tie classes (0, below, tie, above, all ones) and random ones."""
    rng = np.random.default_rng(seed)
    high = np.arange(count, dtype=np.uint32) % 0x10000
    lows = np.array([0x0000, 0x7FFF, 0x8000, 0x8001, 0xFFFF], np.uint32)
    low = np.where(np.arange(count) % 6 < 5, lows[np.arange(count) % 5],
                   rng.integers(0, 0x10000, count, dtype=np.uint32))
    x = (high * 0x10000 + low).astype(np.uint32)
    x[:len(EDGES)] = EDGES
    return x


@pytest.mark.parametrize("arch", ARCHES)
def test_every_class_of_input_rounds_as_the_hardware(arch):
    """256 x 256 values: every f32 sign, exponent and top mantissa byte pair, each tie
    class, NaNs of both kinds, signs and payloads, inf, max finite, denormals, +-0."""
    g, m, n, k = 1, 256, 256, 16
    x = special_inputs(g * m * n).reshape(g, m, n)
    text = module_text(arch, g, m, n, k, "bf16", "bf16", PASS_THROUGH,
                       [((g, m, n), "f32", "gmn")])

    def make_args():
        zero = np.zeros((g, m, k), ml_dtypes.bfloat16)
        return [zero, np.ones((g, k, n), ml_dtypes.bfloat16),
                np.full((g, m, n), 0x1234, np.uint16).view(ml_dtypes.bfloat16), x.view(np.float32)]
    bits = both_ways(text, make_args)
    assert (bits["i32"] == hardware_bits(x)).all()
    nan = np.isnan(x.view(np.float32))
    # Away from NaNs the simulator's truncf (ml_dtypes) is the same rounding...
    assert (bits["i32"][~nan] == bits["truncf"][~nan]).all()
    assert (bits["i32"][~nan] == x.view(np.float32)[~nan].astype(ml_dtypes.bfloat16)
            .view(np.uint16)).all()
    # ... and a NaN is one of the same sign both ways, quiet.
    assert ((bits["i32"][nan] & 0x7FC0) == 0x7FC0).all()
    assert ((bits["i32"][nan] ^ bits["truncf"][nan]) & 0x8000 == 0).all()
    # The inputs did hold what the docstring says: some of each class.
    f = x.view(np.float32)
    assert nan.sum() > 100 and np.isinf(f).sum() >= 2 and (np.abs(f) < 2**-126).sum() > 100


def bf16_gemm(arch, g, m, n, k, epilogue="none", operands=(), config=None, seed=0,
              accumulate=False):
    """C = epilogue(A B (+ C_old)) in bf16 both ways, from bf16 A and B, and the float64
    reference of A B."""
    rng = np.random.default_rng(seed)
    a = random_operand(rng, "bf16", (g, m, k))
    b = random_operand(rng, "bf16", (g, k, n))
    extras = [random_operand(rng, "f16", shape).astype(NUMPY_TYPES[t])
              for shape, t, _ in operands]
    c_old = random_operand(rng, "bf16", (g, m, n))
    text = module_text(arch, g, m, n, k, "bf16", "bf16", epilogue, operands, config,
                       accumulate)

    def make_args():
        c = c_old.copy() if accumulate else np.full((g, m, n), np.nan, ml_dtypes.bfloat16)
        return [a, b, c, *extras]
    return both_ways(text, make_args), a, b, extras


# A ragged shape per chip, with the selector's tile and one more of each chip's.
RAGGED = [("gfx942", 1, 77, 50, 40, None), ("gfx942", 2, 33, 130, 72,
                                             "v4:32,64,8,32,32,16,8,1,1,2,0,0,1,1"),
          ("gfx1100", 1, 77, 50, 40, None), ("gfx1100", 2, 48, 77, 100,
                                              "v4:64,32,8,32,32,16,8,1,1,2,0,0,1,1"),
          ("gfx1201", 1, 77, 50, 40, None), ("gfx1201", 2, 3, 98, 36,
                                              "v4:16,32,8,16,16,16,8,1,1,2,0,0,1,1")]


@pytest.mark.parametrize("arch,g,m,n,k,config", RAGGED)
def test_ragged_gemm_bits_match_truncf(arch, g, m, n, k, config):
    bits, a, b, _ = bf16_gemm(arch, g, m, n, k, config=config)
    assert (bits["i32"] == bits["truncf"]).all()
    got = bits["i32"].view(ml_dtypes.bfloat16)
    ref, tol = reference(a, b, "bf16", "bf16")
    result = compare(got, ref, tol)
    assert result.ok, result.describe(got.astype(np.float64), ref)


@pytest.mark.parametrize("arch", ARCHES)
def test_bias_epilogue_bits_match_truncf(arch):
    bits, *_ = bf16_gemm(arch, 1, 45, 70, 64, "bias", [((70,), "bf16", "n")], seed=1)
    assert (bits["i32"] == bits["truncf"]).all()


@pytest.mark.parametrize("arch", ARCHES)
def test_chain_with_a_bf16_convert_inside_matches_truncf(arch):
    """convert_bf16 inside the op list (`_round`: the i32 form's high half) and C's
    rounding; the f32 operand makes the rounding before the multiply matter."""
    chain = "%0 = add %acc, %e0; %1 = convert_bf16 %0; %2 = mul %1, %e0; %3 = tanh %2"
    bits, *_ = bf16_gemm(arch, 1, 37, 66, 48, chain, [((1, 37, 66), "f32", "gmn")], seed=2)
    assert (bits["i32"] == bits["truncf"]).all()


@pytest.mark.parametrize("arch", ARCHES)
def test_split_k_reduction_rounds_the_same(arch):
    """splitKFactor 3: the reduction kernel narrows the sums."""
    cfg = {"gfx942": "v4:32,32,8,16,16,16,8,3,1,2,0,0,1,1",
           "gfx1100": "v4:32,32,8,16,16,16,8,3,1,2,0,0,1,1",
           "gfx1201": "v4:32,32,8,16,16,16,8,3,1,2,0,0,1,1"}[arch]
    bits, a, b, _ = bf16_gemm(arch, 1, 40, 36, 200, config=cfg, seed=3)
    assert (bits["i32"] == bits["truncf"]).all()
    ref, tol = reference(a, b, "bf16", "bf16")
    result = compare(bits["i32"].view(ml_dtypes.bfloat16), ref, tol)
    assert result.ok


# C through LDS (outputSwizzle 1: the rounded vectors are staged), and C_old added first.
@pytest.mark.parametrize("arch,config", [
    ("gfx942", "v4:64,64,4,32,32,32,8,1,1,1,0,0,1,1"),
    ("gfx1100", "v4:64,64,4,32,32,16,8,1,1,1,0,0,1,1"),
    ("gfx1201", "v4:32,32,4,16,16,16,8,1,1,1,0,0,1,1")])
def test_staged_c_bits_match_truncf(arch, config):
    bits, *_ = bf16_gemm(arch, 2, 50, 72, 40, config=config, seed=5)
    assert (bits["i32"] == bits["truncf"]).all()
    with new_context():
        module = ir.Module.parse(module_text(arch, 2, 50, 72, 40, "bf16", "bf16",
                                             config=config))
        run_pipeline(module, "accel-affix-perf-config, accel-plan-kernel")
        assert "c_staging" in str(module), "the plan stages C"


@pytest.mark.parametrize("arch", ARCHES)
def test_accumulate_bits_match_truncf(arch):
    bits, *_ = bf16_gemm(arch, 1, 29, 40, 24, accumulate=True, seed=6)
    assert (bits["i32"] == bits["truncf"]).all()


def test_f32_c_with_a_bf16_convert_matches_truncf():
    """C in f32: only the op list's convert_bf16 rounds (`_round`)."""
    g, m, n, k = 1, 20, 24, 32
    rng = np.random.default_rng(4)
    a, b = random_operand(rng, "bf16", (g, m, k)), random_operand(rng, "bf16", (g, k, n))
    text = module_text("gfx942", g, m, n, k, "bf16", "f32", "%0 = convert_bf16 %acc")
    out = {}
    for way in ("i32", "truncf"):
        c = np.full((g, m, n), np.nan, np.float32)
        run(text, way, [a, b, c])
        out[way] = c.view(np.uint32)
    assert (out["i32"] == out["truncf"]).all()
    assert (out["i32"] & 0xFFFF == 0).all()


def test_unknown_bf16_round_is_a_diagnostic():
    text = module_text("gfx1201", 1, 16, 16, 16, "bf16", "bf16")
    with pytest.raises(AccelError, match="'bf16_round' must be one of 'truncf', 'i32'"):
        run(text, "fast", [np.zeros((1, 16, 16), ml_dtypes.bfloat16)] * 3)
