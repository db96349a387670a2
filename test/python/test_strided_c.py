"""accel.gemm writing C in place as a strided view of a larger buffer: rows or batches
further apart than they are long (N of stride 1), and C transposed (M of stride 1), in
the simulator, elementwise against float64 numpy, with and without a fused epilogue.

Every element of C's buffer outside the view holds a sentinel (NaN, or 7777 for i32)
that must survive the kernel: a masked store (a row past M, a column past N) that lands
in a gap of the view instead of past the buffer shows as a changed sentinel."""

from __future__ import annotations

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
PIPELINE = "accel-affix-perf-config, accel-plan-kernel, accel-gemm-to-gpu"
SIGMOID = "%0 = add %acc, %e0; %1 = sigmoid %0"


def strided_type(shape, strides, offset, t) -> str:
    dims = "x".join(map(str, shape))
    return f"memref<{dims}x{t}, strided<[{', '.join(map(str, strides))}], offset: {offset}>>"


def plain_type(shape, t) -> str:
    return f"memref<{'x'.join(map(str, shape))}x{t}>"


def row_wider(g, m, n, row_gap=8, batch_gap=16, offset=8):
    """N of stride 1, rows N + row_gap apart, batches batch_gap past their last row."""
    row = n + row_gap
    return (m * row + batch_gap, row, 1), offset


def transposed(g, m, n, gap=8, offset=0):
    """M of stride 1: C stored as [G, N, M], columns M + gap apart."""
    col = m + gap
    return (n * col, 1, col), offset


def module_text(arch, t, out, c_type, g, m, n, k, config=None, epilogue=None,
                accumulate=False):
    a_type, b_type = plain_type((g, m, k), t), plain_type((g, k, n), t)
    pc = f', perf_config = "{config}"' if config else ""
    acc = ", accumulate" if accumulate else ""
    ep, e_arg, e_use, e_type = "", "", "", ""
    if epilogue is not None:
        ep = f', epilogue = "{epilogue}", epilogue_operands = ["n"]'
        e_type = plain_type((n,), out)
        e_arg, e_use, e_type = f", %e: {e_type}", ", %e", f", {e_type}"
    return (f"func.func @gemm(%a: {a_type}, %b: {b_type}, %c: {c_type}{e_arg}) {{\n"
            f'  "accel.gemm"(%a, %b, %c{e_use}) {{arch = "{arch}", a_layout = "row", '
            f'b_layout = "row", c_layout = "row"{pc}{ep}{acc}}} : ({a_type}, {b_type}, '
            f"{c_type}{e_type}) -> ()\n  return\n}}\n")


def run_c_view(arch, t, out, g, m, n, k, view, config=None, epilogue=None,
               accumulate=False, seed=0):
    """Simulate C = A * B (then the epilogue: + bias [N], sigmoid) written through
    `view` = (strides, offset) of C's buffer; check the view elementwise and the rest of
    the buffer untouched. Returns the kernel's text."""
    rng = np.random.default_rng(seed)
    a, b = random_operand(rng, t, (g, m, k)), random_operand(rng, t, (g, k, n))
    strides, offset = view
    size = offset + sum((d - 1) * s for d, s in zip((g, m, n), strides)) + 1
    sentinel = 7777 if out == "i32" else np.nan
    parent = np.full(size, sentinel, dtype=NUMPY_TYPES[out])
    c_view = np.lib.stride_tricks.as_strided(parent[offset:], (g, m, n),
                                             [s * parent.itemsize for s in strides])
    c0 = None
    if accumulate:
        c0 = random_operand(rng, "f16" if out != "i32" else "i8", (g, m, n))
        c_view[...] = c0
    extra = []
    if epilogue is not None:
        bias = random_operand(rng, "f16", (n,)).astype(NUMPY_TYPES[out])
        extra = [bias]
    with new_context():
        module = ir.Module.parse(module_text(arch, t, out, strided_type(
            (g, m, n), strides, offset, out), g, m, n, k, config, epilogue, accumulate))
        run_pipeline(module, PIPELINE)
        kernel_text = "\n".join(str(op) for op in collect_ops(module, "gpu.func"))
        run_host(module, "gemm", [a, b, parent, *extra], arch=arch)
    ref, tol = reference(a, b, t, out, c0=None if c0 is None else c0.astype(np.float64))
    if epilogue is not None:
        ref = 1 / (1 + np.exp(-(ref + extra[0].astype(np.float64))))
        tol = tol / 4 + 2.0**-9     # sigmoid' <= 1/4; the output's rounding
    got = np.lib.stride_tricks.as_strided(parent[offset:], (g, m, n),
                                          [s * parent.itemsize for s in strides])
    result = compare(np.array(got), ref, tol)
    assert result.ok, result.describe(np.array(got), ref)
    inside = np.zeros(size, dtype=bool)
    np.lib.stride_tricks.as_strided(inside[offset:], (g, m, n),
                                    [s * inside.itemsize for s in strides])[...] = True
    outside = parent[~inside]
    untouched = np.isnan(outside) if out != "i32" else outside == sentinel
    assert untouched.all(), f"{(~untouched).sum()} elements outside C's view were written"
    return kernel_text


# ---- row-major C with wider rows and batches, transposed C, on every chip ---------------
TYPES = {"gfx942": (("f16", "f16"), ("i8", "i32"), ("f32", "f32")),
         "gfx1100": (("f16", "f16"), ("bf16", "bf16")),
         "gfx1201": (("f16", "f16"), ("i8", "i32"))}
CASES = [(arch, t, out) for arch in ARCHES for t, out in TYPES[arch]]


@pytest.mark.parametrize("arch,t,out", CASES)
def test_row_major_c_with_wider_strides(arch, t, out):
    """Ragged M and N (not multiples of any tile), G = 3."""
    g, m, n, k = 3, 37, 29, 40
    text = run_c_view(arch, t, out, g, m, n, k, row_wider(g, m, n))
    assert "strided<" in text


@pytest.mark.parametrize("arch,t,out", CASES)
def test_transposed_c(arch, t, out):
    """C stored [G, N, M] (M of stride 1): one element per store (codegen/epilogue.py)."""
    g, m, n, k = 2, 35, 27, 24
    text = run_c_view(arch, t, out, g, m, n, k, transposed(g, m, n))
    stores = [line for line in text.splitlines() if "raw_buffer_store" in line
              and "-> %arg2[" in line]
    assert stores and all("vector<" not in line.split("->")[0] for line in stores)


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("layout", ["row", "transposed"])
def test_fused_epilogue_into_a_strided_c(arch, layout):
    """rocMLIR's non-contiguous-strides chunks: dot, + bias, sigmoid, into a wider batch
    stride (or transposed), f16."""
    g, m, n, k = 4, 21, 26, 16
    view = row_wider(g, m, n) if layout == "row" else transposed(g, m, n)
    run_c_view(arch, "f16", "f16", g, m, n, k, view, epilogue=SIGMOID)


def test_accumulate_reads_c_through_its_view():
    g, m, n, k = 2, 20, 18, 32
    run_c_view("gfx942", "f16", "f32", g, m, n, k, transposed(g, m, n), accumulate=True)
    run_c_view("gfx942", "f16", "f32", g, m, n, k, row_wider(g, m, n), accumulate=True)


@pytest.mark.parametrize("view", ["row", "transposed"])
def test_split_k_reduction_writes_the_view(view):
    g, m, n, k = 2, 30, 34, 100      # 7 k-tiles of 16 in 3 slices
    v = row_wider(g, m, n) if view == "row" else transposed(g, m, n)
    text = run_c_view("gfx942", "f16", "f16", g, m, n, k, v,
                      config="v4:32,32,2,16,16,16,8,3,1,2,0,0,1,1", epilogue=SIGMOID)
    assert "_reduce" in text


@pytest.mark.parametrize("view", ["row", "transposed"])
def test_c_staged_through_lds(view):
    """outputSwizzle 1: the rows read back from LDS are stored through the view."""
    g, m, n, k = 2, 40, 40, 32
    v = row_wider(g, m, n) if view == "row" else transposed(g, m, n)
    run_c_view("gfx942", "f16", "f16", g, m, n, k, v,
               config="v4:32,32,4,16,16,16,8,1,1,1,0,0,1,1")


def test_batch_stride_inside_the_rows():
    """Batches interleaved between rows (C[g, i, j] at i * (G * N + 8) + g * N + j):
    the redirected index of a masked store (a column past N) is M's, the largest n * s;
    the batch's would land in the next row."""
    g, m, n, k = 3, 19, 20, 16
    run_c_view("gfx942", "f16", "f16", g, m, n, k, ((n, g * n + 8, 1), 8))


# ---- the verifier -----------------------------------------------------------------------
def verify(c_type, c_layout="row"):
    text = module_text("gfx942", "f16", "f32", c_type, 2, 4, 8, 16)
    text = text.replace('c_layout = "row"', f'c_layout = "{c_layout}"')
    with new_context():
        module = ir.Module.parse(text)
        GemmOp(collect_ops(module, "accel.gemm")[0]).verify()


@pytest.mark.parametrize("strides,offset", [((64, 16, 1), 8), ((40, 1, 4), 0),
                                            ((0, 8, 1), 0)])
def test_verifier_accepts(strides, offset):
    """A wider row and batch stride, a transposed C, and a stride 0 of a unit batch
    (which no store repeats)."""
    g = 1 if strides[0] == 0 else 2
    text = module_text("gfx942", "f16", "f32", strided_type((g, 4, 8), strides, offset, "f32"),
                       g, 4, 8, 16)
    with new_context():
        module = ir.Module.parse(text)
        GemmOp(collect_ops(module, "accel.gemm")[0]).verify()


@pytest.mark.parametrize("c_type,why", [
    (strided_type((2, 4, 8), (0, 8, 1), 0, "f32"),
     r"C has stride 0 on a dimension of 2 elements"),
    (strided_type((2, 4, 8), (16, 8, 1), 0, "f32"), r"C's strides overlap"),
    (strided_type((2, 4, 8), (64, 4, 1), 0, "f32"), r"C's strides overlap"),
    (strided_type((2, 4, 8), (64, 16, 2), 0, "f32"), r"C needs N \(row-major\) or M"),
    ("memref<2x4x8xf32, strided<[64, 16, 1], offset: ?>>", r"C must have static strides"),
])
def test_verifier_rejects_a_view_that_writes_an_address_twice(c_type, why):
    with pytest.raises(AccelError, match=why) as e:
        verify(c_type)
    assert "\n" not in e.value.message


def test_verifier_rejects_a_strided_accel_c():
    with pytest.raises(AccelError, match="must be a contiguous row-major memref"):
        verify(strided_type((2, 1, 1, 1, 4, 8), (64, 32, 32, 32, 8, 1), 0, "f32"), "accel")


def test_unaligned_c_is_a_diagnostic_not_a_wrong_store():
    """Rows 30 apart do not start at multiples of an 8-element vector store."""
    with pytest.raises(AccelError, match="C's stores of .* elements are not aligned"):
        run_c_view("gfx942", "f16", "f16", 1, 16, 24, 32, ((16 * 30, 30, 1), 0))


# ---- the code-object contract: a strided C is named in the symbol and the metadata ------
def test_two_gemms_differing_only_in_c_strides_build_two_kernels():
    """C's strides are part of the kernel (its stores): two gemms of one shape whose Cs
    differ only in strides get two symbols, and each C entry names its view."""
    from accel.api import compile_module
    g, m, n, k = 1, 24, 40, 32
    bodies = []
    for name, view in (("wide", row_wider(g, m, n)), ("tr", transposed(g, m, n))):
        text = module_text("gfx942", "f16", "f16", strided_type((g, m, n), *view, "f16"),
                           g, m, n, k)
        bodies.append(text.replace("@gemm", f"@{name}"))
    result = compile_module("\n".join(bodies), "gfx942", assembly=False)
    gemms = [k.metadata for k in result.kernels]
    assert len({md["symbol"] for md in gemms}) == 2
    views = []
    for md in gemms:
        (c,) = [a for a in md["args"] if a["name"] == "C"]
        views.append(c["view"])
    (s0, o0), (s1, o1) = row_wider(g, m, n), transposed(g, m, n)
    assert views == [
        {"offset": o0, "strides": list(s0),
         "bytes": (o0 + (m - 1) * s0[1] + (n - 1) * s0[2] + 1) * 2},
        {"offset": o1, "strides": list(s1),
         "bytes": (o1 + (m - 1) * s1[1] + (n - 1) * s1[2] + 1) * 2}]


def test_split_k_reduction_entry_names_c_view():
    from accel.api import compile_module
    g, m, n, k = 1, 24, 40, 256
    strides, offset = row_wider(g, m, n)
    text = module_text("gfx942", "f16", "f16", strided_type((g, m, n), strides, offset,
                                                             "f16"), g, m, n, k,
                       config="v4:16,16,8,16,16,16,8,4,1,2,0,0,1,1")
    kernels = [k.metadata for k in compile_module(text, "gfx942", assembly=False).kernels]
    gemm, reduce = kernels
    assert [a["name"] for a in gemm["args"]] == ["A", "B", "partials"]
    (c,) = [a for a in reduce["args"] if a["name"] == "C"]
    assert c["view"]["strides"] == list(strides) and c["view"]["offset"] == offset
