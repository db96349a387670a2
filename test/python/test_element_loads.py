"""accel.gemm reading A or B in place through a strided view with no stride-1 side (a
batch-first operand, a broadcast scalar of stride 0): its copy loads one element per
buffer load (plan vector 1) into the same LDS layout. In the simulator, elementwise
against float64 numpy, on ragged shapes (M, N, K not multiples of the tile, G > 1).

The harness (test_strided_operands.run_views) fills every element of the parent buffer
outside the view with NaN, so a load that strays outside the view, or a padded row or
column that reads a neighbour instead of 0, shows in C."""

from __future__ import annotations

import re

import pytest

from accel.bindings import ir, new_context
from accel.dialect.ir_helpers import collect_ops
from accel.diagnostics import AccelError
from accel.pipelines.textual import run_pipeline
from test_strided_operands import (ARCHES, module_text, plain_type, run_views,
                                   strided_type)


def arch_types():
    """f16 and bf16 on every chip, f32 where an MMA takes it (gfx942)."""
    return [(arch, t) for arch in ARCHES for t in ("f16", "bf16")] + [("gfx942", "f32")]


def element_loads(kernel_text: str, name: str, t: str) -> tuple[int, int]:
    """(scalar, vector) buffer loads of operand `name` ("A" or "B": the kernel's first or
    second argument) in a kernel's text."""
    arg = "%arg0[" if name == "A" else "%arg1["
    loads = re.findall(r"= amdgpu.raw_buffer_load (\S+) .* -> (\S+)", kernel_text)
    loads = [x for a, x in loads if a.startswith(arg)]
    return sum(x == t for x in loads), sum(x.startswith("vector") for x in loads)


@pytest.mark.parametrize("arch,t", arch_types())
def test_batch_first_a_and_b(arch, t):
    """batch-first-e2e's operands, smaller and ragged: A [G, M, K] of strides (1, G * K',
    G) and B [G, K, N] of strides (1, G, G * K'') (the batch innermost in memory, rows
    wider than the view: a slice), neither with a stride-1 side."""
    g, m, n, k = 2, 37, 29, 40
    text = run_views(arch, t, g, m, n, k, a_view=((1, g * (k + 3), g), 0),
                     b_view=((1, g, g * (k + 5)), 2 * g), b_layout="transposed")
    scalar, vector = element_loads(text, "A", t)
    assert scalar > 0 and vector == 0
    scalar, vector = element_loads(text, "B", t)
    assert scalar > 0 and vector == 0


@pytest.mark.parametrize("arch,t", arch_types())
def test_broadcast_scalar_per_batch(arch, t):
    """mixr-gemm-input-bcast's A: one value per batch (strides (1, 0, 0)), every M and K
    reading it; B row-major packed, loaded in vectors as before."""
    g, m, n, k = 3, 21, 36, 24     # N = 36: B's loads are 4-element vectors
    text = run_views(arch, t, g, m, n, k, a_view=((1, 0, 0), 0))
    scalar, vector = element_loads(text, "A", t)
    assert scalar > 0 and vector == 0
    _, vector = element_loads(text, "B", t)
    assert vector > 0


def test_broadcast_scalar_of_one_batch_corpus_shape():
    """The corpus chunk's own shape: A <1x2x3xf32, strides 1x0x0> against B 1x3x4."""
    run_views("gfx942", "f32", 1, 2, 4, 3, a_view=((1, 0, 0), 0))


@pytest.mark.parametrize("config", ["v4:32,32,4,16,16,16,8,1,1,2,0,0,1,1",
                                    "v4:64,64,8,32,32,32,4,1,1,2,0,0,1,1"])
def test_explicit_configs(config):
    """Tile origins (sgprOffset) and the edge masks scale by the view's strides with
    element loads too, K (70) ragged against both k-tiles, M and N against the tiles."""
    g, m, n, k = 2, 70, 50, 70
    run_views("gfx942", "f16", g, m, n, k, a_view=((1, 2 * k + 4, 2), 0), config=config)


def test_split_k_with_element_loads():
    """A split-K slice past K reads zero through the view's own out-of-range index."""
    g, m, n, k = 2, 32, 32, 100
    text = run_views("gfx942", "f16", g, m, n, k, a_view=((1, g * k + 4, g), 0),
                     config="v4:32,32,2,16,16,16,8,3,1,2,0,0,1,1")
    assert "_reduce" in text


def test_a_wider_vector_on_a_non_contiguous_view_is_refused():
    """A hand-written plan asking vector loads along a stride-2 inner dimension is a
    one-line diagnostic, not a wrong load."""
    a_type = strided_type((2, 32, 32), (1, 64, 2), 0)
    text = module_text("gfx942", "f16", "f32", a_type, plain_type((2, 32, 32), "f16"),
                       (2, 32, 32), "row", "row", "v4:32,32,4,16,16,16,8,1,1,2,0,0,1,1")
    with new_context():
        module = ir.Module.parse(text)
        run_pipeline(module, "accel-affix-perf-config, accel-plan-kernel")
        gemm = collect_ops(module, "accel.gemm")[0]
        plan = gemm.attributes["a_copy"]
        assert ir.IntegerAttr(plan["vector"]).value == 1
        wider = str(plan).replace("vector = 1 :", "vector = 8 :")
        gemm.attributes["a_copy"] = ir.Attribute.parse(wider)
        with pytest.raises(AccelError, match=r"a_copy.vector is 8, but A's inner dimension "
                                             r"has stride 2: its loads must be of 1 element"):
            run_pipeline(module, "accel-gemm-to-gpu")


@pytest.mark.parametrize("arch", ARCHES)
def test_transposing_element_copy(arch):
    """B row-major [G, K, N] with no stride-1 side (as a hand-written gemm may give it;
    the MIGraphX front end orients such a view K-innermost): its copy joins k_chunk
    single-element K rows into kpack runs, the transposing path with vector 1."""
    g, m, n, k = 2, 19, 37, 45
    text = run_views(arch, "f16", g, m, n, k, b_view=((1, g * (n + 3), g), 0))
    scalar, vector = element_loads(text, "B", "f16")
    assert scalar > 0 and vector == 0
