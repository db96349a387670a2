"""accel.gemm reading A or B in place as a strided view of a larger buffer (a slice, a
batch stride, 0 for a broadcast batch, rows further apart than they are long), in the
simulator, elementwise against float64 numpy.

Every element of the parent buffer outside the view holds NaN (floats) or a large
integer (i8), so a load that strays outside the view, or a padded row or column that
reads a neighbour instead of 0, shows in C."""

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
OUT = {"f16": "f32", "bf16": "bf16", "i8": "i32", "f32": "f32", "f8E4M3FNUZ": "f32",
       "f8E4M3FN": "f32"}
# i8 data is in [-8, 8): a stray 100 changes a product by far more than 0.
OUTSIDE = {"i8": 100}


def strided_type(shape, strides, offset, t="f16") -> str:
    dims = "x".join(map(str, shape))
    return f"memref<{dims}x{t}, strided<[{', '.join(map(str, strides))}], offset: {offset}>>"


def plain_type(shape, t) -> str:
    return f"memref<{'x'.join(map(str, shape))}x{t}>"


def layout_shape(name, layout, g, d, k):
    """The memref shape of operand `name` in `layout` (dialect/gemm.py)."""
    d_first = (name == "A") == (layout == "row")
    return (g, d, k) if d_first else (g, k, d)


def view_of(rng, t, shape, strides, offset):
    """(parent buffer, the view's logical values): the view's elements random, every
    other element of the parent NaN / OUTSIDE."""
    # No slack after the view's last element: a load past it is a simulator memory fault.
    size = offset + sum((n - 1) * s for n, s in zip(shape, strides)) + 1
    fill = OUTSIDE.get(t, np.nan)
    parent = np.full(size, fill, dtype=NUMPY_TYPES[t])
    values = random_operand(rng, t, shape)
    view = np.lib.stride_tricks.as_strided(parent[offset:], shape,
                                           [s * parent.itemsize for s in strides])
    view[...] = values      # a broadcast view (stride 0) keeps the last write: re-read
    return parent, np.array(view)


def module_text(arch, t, out, a_type, b_type, c_shape, a_layout, b_layout, config=None,
                e_type=None):
    """One accel.gemm; with `e_type`, the epilogue C = A * B + E, E of kind gmn."""
    pc = f', perf_config = "{config}"' if config else ""
    c_type = plain_type(c_shape, out)
    ep, e_arg, e_use = "", "", ""
    if e_type is not None:
        ep = ', epilogue = "%0 = add %acc, %e0", epilogue_operands = ["gmn"]'
        e_arg, e_use, e_type = f", %e: {e_type}", ", %e", f", {e_type}"
    return (f"func.func @gemm(%a: {a_type}, %b: {b_type}, %c: {c_type}{e_arg}) {{\n"
            f'  "accel.gemm"(%a, %b, %c{e_use}) {{arch = "{arch}", a_layout = "{a_layout}", '
            f'b_layout = "{b_layout}", c_layout = "row"{pc}{ep}}} : ({a_type}, {b_type}, '
            f"{c_type}{e_type or ''}) -> ()\n  return\n}}\n")


def run_views(arch, t, g, m, n, k, a_view=None, b_view=None, a_layout="row",
              b_layout="row", config=None, seed=0, e_view=None):
    """Simulate C = A * B with A and/or B given as (strides, offset) views of their
    layout's shape (None: packed), and with `e_view` C = A * B + E, E a view of [G, M, N]
    in C's type; check C elementwise. Returns the kernel's text."""
    rng = np.random.default_rng(seed)
    out = OUT[t]
    args, logical, types = [], [], []
    for name, layout, view, d in (("A", a_layout, a_view, m), ("B", b_layout, b_view, n)):
        shape = layout_shape(name, layout, g, d, k)
        if view is None:
            x = random_operand(rng, t, shape)
            args.append(x)
            types.append(plain_type(shape, t))
        else:
            strides, offset = view
            parent, x = view_of(rng, t, shape, strides, offset)
            args.append(parent)
            types.append(strided_type(shape, strides, offset, t))
        logical.append(x.transpose(0, 2, 1) if layout == "transposed" else x)
    c = np.full((g, m, n), 7777 if out == "i32" else np.nan, dtype=NUMPY_TYPES[out])
    e_type, extra = None, []
    if e_view is not None:
        strides, offset = e_view
        e_parent, e = view_of(rng, "i8" if out == "i32" else out, (g, m, n), strides, offset)
        e_parent = e_parent.astype(NUMPY_TYPES[out])
        e_type, extra = strided_type((g, m, n), strides, offset, out), [e_parent]
    with new_context():
        module = ir.Module.parse(module_text(arch, t, out, *types, (g, m, n), a_layout,
                                             b_layout, config, e_type))
        run_pipeline(module, PIPELINE)
        kernel_text = "\n".join(str(op) for op in collect_ops(module, "gpu.func"))
        run_host(module, "gemm", [*args, c, *extra], arch=arch)
    ref, tol = reference(np.ascontiguousarray(logical[0]), np.ascontiguousarray(logical[1]),
                         t, out)
    if e_view is not None:   # one more f32 addition, then the output's rounding
        ref = ref + e.astype(np.float64)
        tol = tol + np.abs(ref) * (0 if out == "i32" else 2.0**-8)
    result = compare(c, ref, tol)
    assert result.ok, result.describe(c, ref)
    return kernel_text


# ---- the views the MIGraphX corpus feeds a dot, each on every chip ----------------------
TYPES = {"gfx942": ("f16", "bf16", "i8", "f32", "f8E4M3FNUZ"),
         "gfx1100": ("f16", "bf16", "i8"), "gfx1201": ("f16", "bf16", "i8", "f8E4M3FN")}


def arch_types():
    return [(arch, t) for arch in ARCHES for t in TYPES[arch]]


@pytest.mark.parametrize("arch,t", arch_types())
def test_k_slice_of_wider_rows(arch, t):
    """A row [G, M, K] with its rows 2K + 8 apart (a slice along K of a wider buffer),
    ragged M, N, K."""
    g, m, n, k = 2, 37, 29, 40
    run_views(arch, t, g, m, n, k, a_view=((m * (2 * k + 8) + 16, 2 * k + 8, 1), 8))


@pytest.mark.parametrize("arch,t", arch_types())
def test_broadcast_batch_and_transposed_slice(arch, t):
    """B shared by every batch (batch stride 0), transposed [G, N, K] with rows K + 8
    apart, starting at an offset; A sliced along M out of a taller batch."""
    g, m, n, k = 3, 21, 35, 24
    run_views(arch, t, g, m, n, k, a_view=((64 * k, k, 1), 16 * k),
              b_view=((0, k + 8, 1), 24), b_layout="transposed")


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("axis", ["g", "d", "k"])
def test_slice_along_each_axis(arch, axis):
    """One slice [start, start + extent) along G, D or K of a packed parent, on A
    transposed ([G, K, M]: D contiguous) and B row-major ([G, K, N])."""
    g, m, n, k = 2, 19, 24, 33
    parent = {"g": (5, k, m), "d": (g, k, m + 16), "k": (g, k + 8, m)}[axis]
    start = {"g": 2, "d": 8, "k": 8}[axis]
    strides = (parent[1] * parent[2], parent[2], 1)
    offset = {"g": start * strides[0], "d": start, "k": start * strides[1]}[axis]
    run_views(arch, "f16", g, m, n, k, a_view=(strides, offset), a_layout="transposed",
              b_view=((0, n, 1), 0))


@pytest.mark.parametrize("arch", ARCHES)
def test_interleaved_batches(arch):
    """mixr-slice-dot's head split: 12 batches of 64 columns side by side in rows of
    2304 (batch stride 64), A row-major and B transposed at offset 768."""
    g, m, n, k = 4, 48, 40, 64
    row = 3 * g * k
    run_views(arch, "f16", g, m, n, k, a_view=((k, row, 1), 0),
              b_view=((k, row, 1), g * k), b_layout="transposed")


def test_broadcast_k_row_stride_zero():
    """A transposed [G, K, M] whose K repeats one row (row stride 0): broadcasted-k."""
    run_views("gfx942", "f16", 2, 40, 24, 20, a_view=((64, 0, 1), 0), a_layout="transposed")


@pytest.mark.parametrize("config", ["v4:32,32,4,16,16,16,8,1,1,2,0,0,1,1",
                                    "v4:64,64,8,32,32,32,4,1,1,2,0,0,1,1"])
def test_explicit_configs(config):
    """Tile origins in sgprOffset scale by the view's strides, not the packed ones."""
    g, m, n, k = 2, 70, 50, 72
    run_views("gfx942", "f16", g, m, n, k, a_view=((m * 128, 128, 1), 32),
              b_view=((0, n + 8, 1), 8), config=config)


def test_split_k_slices_past_k_read_zero_through_a_broadcast_batch():
    """A split-K slice past K's last tile sends the batch index to G, which a broadcast
    batch (stride 0) does not put out of range: the view's own out-of-range index does."""
    g, m, n, k = 2, 32, 32, 100     # 7 k-tiles of 16 in 3 slices of 3
    text = run_views("gfx942", "f16", g, m, n, k, a_view=((0, 112, 1), 0),
                     b_view=((0, n, 1), 0), config="v4:32,32,2,16,16,16,8,3,1,2,0,0,1,1")
    assert "_reduce" in text


@pytest.mark.parametrize("arch,t", arch_types())
def test_epilogue_operand_broadcast_over_the_batch(arch, t):
    """An epilogue operand [G, M, N] that is one [M, N] matrix (rows N + 8 apart) for
    every batch, batch stride 0: the sliced-k / broadcasted-b corpus chunks' add."""
    g, m, n, k = 3, 37, 27, 20
    run_views(arch, t, g, m, n, k, e_view=((0, 48, 1), 16))


def test_epilogue_operand_view_under_split_k():
    """The split-K reduction kernel reads the epilogue operand through the same view."""
    g, m, n, k = 2, 32, 32, 100
    text = run_views("gfx942", "f16", g, m, n, k, e_view=((0, 40, 1), 8),
                     config="v4:32,32,2,16,16,16,8,3,1,2,0,0,1,1")
    assert "_reduce" in text


# ---- the verifier -----------------------------------------------------------------------
def verify(a_type, layout="row", t="f16"):
    b_type = plain_type((2, 16, 8), t)
    text = module_text("gfx942", t, "f32", a_type, b_type, (2, 4, 8), layout, "row")
    with new_context():
        module = ir.Module.parse(text)
        GemmOp(collect_ops(module, "accel.gemm")[0]).verify()


def test_verifier_accepts_a_strided_view():
    verify(strided_type((2, 4, 16), (0, 40, 1), 8))


def test_verifier_accepts_a_view_with_no_contiguous_side():
    """A and B are read an element per load there (test_element_loads.py)."""
    verify(strided_type((2, 4, 16), (1, 64, 2), 0))


@pytest.mark.parametrize("a_type,layout,why", [
    (strided_type((2, 4, 16), (0, 0, 0), 4), "row", "dimensions overlap"),
    (strided_type((2, 4, 16), (8, 16, 1), 0), "row", "dimensions overlap"),
    ("memref<2x4x16xf16, strided<[64, 16, 1], offset: ?>>", "row", "static strides"),
])
def test_verifier_rejects(a_type, layout, why):
    with pytest.raises(AccelError, match=why):
        verify(a_type, layout)


def test_unaligned_view_is_a_diagnostic_not_a_wrong_load():
    with pytest.raises(AccelError, match="not aligned in its strided view"):
        run_views("gfx942", "f16", 1, 16, 16, 32, a_view=((0, 35, 1), 3))


# ---- the code object contract ---------------------------------------------------------
def test_metadata_names_the_view():
    """A strided argument's entry says where its buffer starts (offset), how the view
    steps through it (strides) and how many bytes it must hold; a packed one has none."""
    from accel.api import compile_module
    a_type = strided_type((2, 16, 32), (0, 40, 1), 8)
    text = module_text("gfx942", "f16", "f32", a_type, plain_type((2, 32, 24), "f16"),
                       (2, 16, 24), "row", "row")
    (kernel,) = compile_module(text, "gfx942", assembly=False).kernels
    a, b = kernel.metadata["args"][:2]
    assert a["view"] == {"offset": 8, "strides": [0, 40, 1],
                         "bytes": (8 + 15 * 40 + 31 + 1) * 2}
    assert "view" not in b


def test_packing_a_view_at_run_time_is_a_located_diagnostic():
    """accel-layout's run-time pack reads its plain operand row-major: a strided view
    is refused at the gemm's line, not misread."""
    a_type = strided_type((2, 64, 256), (20480, 320, 1), 64)
    text = module_text("gfx942", "f16", "f32", a_type, plain_type((2, 256, 48), "f16"),
                       (2, 64, 48), "row", "row", "v4:32,16,4,16,16,16,8,1,1,2,0,0,1,1")
    with new_context():
        module = ir.Module.parse(text)
        with pytest.raises(AccelError, match=r"^-?.*:2:3: error: plain operand must be a "
                                             r"contiguous row-major memref"):
            run_pipeline(module, "accel-layout{a=accel}, accel-lower-pack")
