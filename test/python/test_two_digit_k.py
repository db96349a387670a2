"""accel.gemm reading A (row) or B (transposed) as a rank-4 view [G, D, K1, K0]: K of
two digits, k -> (k div K0) * s1 + (k mod K0) * s0 (MIGraphX's heads merged into K by a
transpose + reshape). With K0's stride 1 the loads stay vectors that divide K0; with
another, one element per load. In the simulator, elementwise against float64 numpy, on
ragged shapes (M, N, K not multiples of the tile, G > 1), every chip.

The parent buffer holds NaN outside the view (test_strided_operands.view_of), so a load
that strays, or a padded row or k that reads a neighbour instead of 0, shows in C."""

from __future__ import annotations

import re

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
from test_strided_operands import (ARCHES, OUT, module_text, plain_type, strided_type,
                                   view_of)

PLAN = "accel-affix-perf-config, accel-plan-kernel"


def heads_view(g, d, k1, k0, s0=1, pad=0):
    """(shape, strides) of [G, D, K1, K0] with the K1 heads outermost in memory, each a
    [D, K0] block of rows K0 * s0 + pad apart: head h, row r, element e at
    h * (D * row) + r * row + e * s0, batches after all heads."""
    row = k0 * s0 + pad
    return (g, d, k1, k0), (k1 * d * row, row, d * row, s0)


def run_heads(arch, t, g, m, n, k1, k0, s0=1, pad=0, config=None, b_heads=False, seed=0):
    """C = A * B with A [G, M, K1, K0] (or, `b_heads`, B transposed [G, N, K1, K0]) a
    heads view; the other operand packed. Returns (kernel text, the gemm's op)."""
    rng = np.random.default_rng(seed)
    out = OUT[t]
    k = k1 * k0
    shape, strides = heads_view(g, n if b_heads else m, k1, k0, s0, pad)
    # The view starts 8 elements in: the parent is larger than the view (a memref the
    # simulator takes as a flat buffer), and the offset keeps 128-bit alignment.
    parent, x = view_of(rng, t, shape, strides, 8)
    x = x.reshape(shape[0], shape[1], k)                      # [G, D, K]
    other = random_operand(rng, t, (g, k, n) if not b_heads else (g, m, k))
    view_t = strided_type(shape, strides, 8, t)
    if b_heads:
        a_arg, b_arg, a, b = other, parent, other, x.transpose(0, 2, 1)
        types, layouts = (plain_type((g, m, k), t), view_t), ("row", "transposed")
    else:
        a_arg, b_arg, a, b = parent, other, x, other
        types, layouts = (view_t, plain_type((g, k, n), t)), ("row", "row")
    c = np.full((g, m, n), np.nan, dtype=NUMPY_TYPES[out])
    with new_context():
        module = ir.Module.parse(module_text(arch, t, out, *types, (g, m, n), *layouts,
                                             config))
        run_pipeline(module, PLAN)
        gemm = str(collect_ops(module, "accel.gemm")[0])
        run_pipeline(module, "accel-gemm-to-gpu")
        text = "\n".join(str(op) for op in collect_ops(module, "gpu.func"))
        run_host(module, "gemm", [a_arg, b_arg, c], arch=arch)
    ref, tol = reference(np.ascontiguousarray(a), np.ascontiguousarray(b), t, out)
    result = compare(c, ref, tol)
    assert result.ok, result.describe(c, ref)
    return text, gemm


def loads_of(text: str, arg: str) -> list[str]:
    """The result types of the buffer loads of kernel argument `arg` ("%arg0", ...)."""
    return [x for a, x in re.findall(r"= amdgpu.raw_buffer_load (\S+) .* -> (\S+)", text)
            if a.startswith(arg + "[")]


def arch_types():
    return [(arch, t) for arch in ARCHES for t in ("f16", "bf16")] + [("gfx942", "f32")]


@pytest.mark.parametrize("arch,t", arch_types())
def test_heads_merged_into_k_vector_loads(arch, t):
    """mixr-tp-reshape-dot-add's A, smaller: K = 3 heads of 32, rows 32 apart; M (37),
    N (29) and G (2) ragged or > 1. K0 = 32 holds whole vectors."""
    text, gemm = run_heads(arch, t, 2, 37, 29, 3, 32)
    widths = loads_of(text, "%arg0")
    assert widths and all(w.startswith("vector") for w in widths), widths
    assert "vector = 1 :" not in gemm.split("a_copy")[1].split("}")[0]


@pytest.mark.parametrize("arch", ARCHES)
def test_k0_not_a_multiple_of_the_k_tile(arch):
    """K0 = 20 (ragged against any k-tile, K = 60): the vector divides 20 (4 f16), and a
    k-tile crosses a head, so its origin stays out of sgprOffset (plan "none")."""
    text, gemm = run_heads(arch, "f16", 2, 19, 33, 3, 20, pad=4)
    a_plan = gemm.split("a_copy")[1].split("}")[0]
    assert 'sgpr_offset = "none"' in a_plan and "vector = 4 :" in a_plan, a_plan
    assert all(w == "vector<4xf16>" for w in loads_of(text, "%arg0"))


@pytest.mark.parametrize("arch", ARCHES)
def test_b_heads_transposed(arch):
    """B transposed [G, N, K1, K0], K0 = 16."""
    text, _ = run_heads(arch, "f16", 2, 21, 35, 4, 16, b_heads=True)
    assert all(w.startswith("vector") for w in loads_of(text, "%arg1"))


def test_inner_digit_of_stride_two_is_read_by_elements():
    """K0's own stride 2: no stride-1 side, so one element per load."""
    text, _ = run_heads("gfx942", "f16", 2, 24, 20, 2, 16, s0=2)
    assert set(loads_of(text, "%arg0")) == {"f16"}


@pytest.mark.parametrize("config", ["v4:32,32,4,16,16,16,8,1,1,2,0,0,1,1",
                                    "v4:64,64,8,32,32,32,4,1,1,2,0,0,1,1"])
def test_k_tile_origin_in_sgpr_offset(config):
    """K0 = 64, a multiple of kPerBlock (32): the k-tile's origin is (kt div q) head
    strides plus (kt mod q) * kPerBlock, q = K0 / kPerBlock, in sgprOffset."""
    text, gemm = run_heads("gfx942", "f16", 2, 70, 50, 3, 64, config=config)
    assert 'sgpr_offset = "none"' not in gemm.split("a_copy")[1].split("}")[0]
    assert "sgprOffset" in text


def test_split_k_over_heads():
    """Split-K slices of K = 4 heads of 32: a slice past K's end reads zero."""
    text, _ = run_heads("gfx942", "f16", 2, 32, 32, 4, 25, pad=3,
                        config="v4:32,32,2,16,16,16,8,3,1,2,0,0,1,1")
    assert "_reduce" in text


def test_plan_asking_a_vector_past_k0_is_refused():
    """A hand-written plan whose vector (8) does not divide K0 (20) is a one-line
    diagnostic, not a load across two heads."""
    shape, strides = heads_view(1, 32, 2, 20, pad=4)
    text = module_text("gfx942", "f16", "f32", strided_type(shape, strides, 0),
                       plain_type((1, 40, 32), "f16"), (1, 32, 32), "row", "row",
                       "v4:32,32,4,16,16,16,8,1,1,2,0,0,1,1")
    with new_context():
        module = ir.Module.parse(text)
        run_pipeline(module, PLAN)
        gemm = collect_ops(module, "accel.gemm")[0]
        wider = str(gemm.attributes["a_copy"]).replace("vector = 4 :", "vector = 8 :")
        gemm.attributes["a_copy"] = ir.Attribute.parse(wider)
        with pytest.raises(AccelError, match=r"a_copy needs its vector \(8\) to divide K0 = "
                                             r"20"):
            run_pipeline(module, "accel-gemm-to-gpu")


@pytest.mark.parametrize("shape,layout,why", [
    ((2, 16, 4, 8), "transposed", r"A in 'transposed' layout must be rank 3, got rank 4"),
    ((2, 4, 2, 8), "row", r"dimensions overlap"),
])
def test_verifier_rejects(shape, layout, why):
    """Rank 4 only where K is contiguous-last (A row, B transposed); every element
    inside the loads' bound max(n * s) (batches 8 apart overlapping rows 16 apart put
    the last element at 67, past max(2 * 8, 4 * 16, 2 * 4, 8) = 64)."""
    strides = (8, 16, 4, 1) if layout == "row" else (512, 32, 8, 1)
    a_type = strided_type(shape, strides, 0)
    text = module_text("gfx942", "f16", "f32", a_type, plain_type((2, 16, 8), "f16"),
                       (2, 4, 8), layout, "row")
    with new_context():
        module = ir.Module.parse(text)
        with pytest.raises(AccelError, match=why):
            GemmOp(collect_ops(module, "accel.gemm")[0]).verify()


def test_metadata_names_the_digits():
    """The code object's A entry is the rank-4 view: its shape [G, M, K1, K0], strides
    and the bytes its buffer must hold (to one past the last element)."""
    from accel.api import compile_module
    shape, strides = heads_view(1, 32, 3, 16, pad=8)
    text = module_text("gfx942", "f16", "f32", strided_type(shape, strides, 8),
                       plain_type((1, 48, 24), "f16"), (1, 32, 24), "row", "row")
    (kernel,) = compile_module(text, "gfx942", assembly=False).kernels
    a = kernel.metadata["args"][0]
    span = sum((n - 1) * s for n, s in zip(shape, strides)) + 1
    assert a["shape"] == [1, 32, 3, 16] and a["layout"] == "row"
    assert a["view"] == {"offset": 8, "strides": list(strides), "bytes": (8 + span) * 2}
