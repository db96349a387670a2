"""Copy kernels (accel.copy): a view read into a row-major buffer, a value written into a
function result through its view. Run in the simulator on every chip against numpy on
ragged shapes, compiled to code objects, and met where the MIGraphX front end makes
them (a transposed result, a transposed or broadcast operand, a slice)."""

from __future__ import annotations

import numpy as np
import pytest

from accel.api import compile_module
from accel.bindings import ir, new_context
from accel.dialect.ir_helpers import collect_ops
from accel.migraphx import translate
from accel.pipelines.textual import run_pipeline
from accel.sim import run_host

ARCHES = ("gfx942", "gfx1100", "gfx1201")
NP = {"f32": np.float32, "f16": np.float16, "i8": np.int8, "i32": np.int32}


def memref(shape, elem):
    return f"memref<{'x'.join(map(str, shape))}x{elem}>"


def copy_text(arch, in_shape, out_shape, elem, shape, in_map, out_map):
    dims = ", ".join(f"d{i}" for i in range(len(shape)))
    return (f"func.func @f(%a: {memref(in_shape, elem)}, %o: {memref(out_shape, elem)}) {{\n"
            f"  \"accel.copy\"(%a, %o) {{arch = \"{arch}\", shape = array<i64: "
            f"{', '.join(map(str, shape))}>, input_map = affine_map<({dims}) -> ({in_map})>, "
            f"output_map = affine_map<({dims}) -> ({out_map})>}} : "
            f"({memref(in_shape, elem)}, {memref(out_shape, elem)}) -> ()\n  return\n}}\n")


# (name, input shape, output shape, element, copy shape, input map, output map, numpy of
# the input giving the output). Ragged: 3 x 37 x 21 = 2331 elements is 9 blocks and a
# tail of 27, so the last block's masked threads are exercised.
CASES = [
    ("transpose", (21, 3, 37), (3, 37, 21), "f16", (3, 37, 21), "d2, d0, d1", "d0, d1, d2",
     lambda x: x.transpose(1, 2, 0)),
    # A slice along the contiguous axis of a [3, 37, 64] buffer seen flat: columns 5..26
    # of rows 2..38 of a [3, 41, 64] one, the row stride 64 kept.
    ("slice_with_stride", (3 * 41 * 64,), (3, 37, 21), "i8", (3, 37, 21),
     "d0 * 2624 + d1 * 64 + d2 + 133", "d0, d1, d2",
     lambda x: x.reshape(3, 41, 64)[:, 2:39, 5:26]),
    ("broadcast", (21,), (3, 37, 21), "f32", (3, 37, 21), "d2", "d0, d1, d2",
     lambda x: np.broadcast_to(x, (3, 37, 21))),
    # A value written into a transposed function result: the output map permutes.
    ("result_transpose", (3, 37, 21), (3, 21, 37), "i32", (3, 37, 21), "d0, d1, d2",
     "d0, d2, d1", lambda x: x.transpose(0, 2, 1)),
    # A reshape that regroups: [3, 37, 21] read as the [3, 7, 3, 37] buffer's last axes.
    ("regroup", (3, 7, 3, 37), (3, 37, 21), "f16", (3, 37, 21),
     "d0, d2 floordiv 3, d2 mod 3, d1", "d0, d1, d2",
     lambda x: x.transpose(0, 3, 1, 2).reshape(3, 37, 21)),
]


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_copy_kernel_matches_numpy(arch, case):
    _, in_shape, out_shape, elem, shape, in_map, out_map, want = case
    text = copy_text(arch, in_shape, out_shape, elem, shape, in_map, out_map)
    rng = np.random.default_rng(len(in_map))
    x = rng.integers(-100, 100, in_shape).astype(NP[elem])
    out = np.full(out_shape, 77, dtype=NP[elem])
    with new_context():
        module = ir.Module.parse(text)
        run_pipeline(module, "accel-copy-to-gpu")
        assert not collect_ops(module, "accel.copy")
        report = run_host(module, "f", [x, out], arch=arch)
        assert len(report.launches) == 1
    assert np.array_equal(out, want(x))
    with new_context():   # and it is a code object on the chip, described
        result = compile_module(text, arch)
    meta = result.kernels[0].metadata
    assert meta["op"] == "copy" and meta["shape"] == list(shape)
    assert [(a["name"], a["shape"], a["dtype"]) for a in meta["args"]] == [
        ("in", list(in_shape), elem), ("out", list(out_shape), elem)]
    assert meta["grid"] == [-(-int(np.prod(shape)) // 256), 1, 1]


def test_masked_threads_write_nothing_outside():
    """A function result with gaps between its rows (rows of 24 holding 21 values, seen
    flat): the 2331 values land in their rows, the gaps and the last block's masked
    threads write nothing."""
    text = copy_text("gfx942", (3, 37, 21), (3 * 37 * 24,), "f32", (3, 37, 21),
                     "d0, d1, d2", "d0 * 888 + d1 * 24 + d2")
    x = np.arange(3 * 37 * 21, dtype=np.float32).reshape(3, 37, 21)
    out = np.full(3 * 37 * 24, -1, dtype=np.float32)
    with new_context():
        module = ir.Module.parse(text)
        run_pipeline(module, "accel-copy-to-gpu")
        run_host(module, "f", [x, out], arch="gfx942")
    rows = out.reshape(3, 37, 24)
    assert np.array_equal(rows[:, :, :21], x) and (rows[:, :, 21:] == -1).all()


def shaped(dims, elem, strides=None):
    if strides is None:
        strides, s = [], 1
        for d in reversed(dims):
            strides.insert(0, s)
            s *= d
    return f"<{'x'.join(map(str, dims))}x{elem}, {'x'.join(map(str, strides))}>"


def run_migraphx(text, arch, args, out):
    """The MIGraphX function simulated through the kernel passes (no host-only copy
    left), and compiled: its kernels in launch order."""
    with new_context():
        module = ir.Module.parse(translate(text.replace("ARCH", arch), "t.mlir"))
        run_pipeline(module, "accel-from-migraphx, accel-affix-perf-config, accel-layout, "
                             "accel-lower-pack, accel-plan-kernel, accel-gemm-to-gpu, "
                             "accel-elementwise-to-gpu, accel-copy-to-gpu")
        assert "linalg.generic" not in str(module), "no host-only copy"
        run_host(module, "f", list(args) + [out], arch=arch)
    with new_context():
        module = ir.Module.parse(translate(text.replace("ARCH", arch), "t.mlir"))
        run_pipeline(module, "accel-from-migraphx")
        return compile_module(module, arch)


@pytest.mark.parametrize("arch", ARCHES)
def test_dot_returned_transposed(arch):
    """rocMLIR's mixr-gemm-transpose, ragged: the result is C with M of stride 1, which
    the gemm writes in place (codegen/epilogue.py), no copy kernel."""
    a_t, b_t, c_t = (shaped([1, 37, 40], "f16"), shaped([1, 40, 21], "f16"),
                     shaped([1, 37, 21], "f16"))
    # Typed row-major, as in the corpus file: the transpose is a view all the same.
    r_t = shaped([1, 21, 37], "f16")
    text = (f'func.func @f(%a: !migraphx.shaped{a_t}, %b: !migraphx.shaped{b_t}) -> '
            f'!migraphx.shaped{r_t} attributes {{arch = "ARCH"}} {{\n'
            f"  %0 = migraphx.dot %a, %b : {a_t}, {b_t} -> {c_t}\n"
            f"  %1 = migraphx.transpose %0 {{permutation = [0, 2, 1]}} : {c_t} -> {r_t}\n"
            f"  return %1 : !migraphx.shaped{r_t}\n}}\n")
    rng = np.random.default_rng(5)
    a = rng.integers(-3, 4, (1, 37, 40)).astype(np.float16)
    b = rng.integers(-3, 4, (1, 40, 21)).astype(np.float16)
    out = np.full((1, 21, 37), np.nan, dtype=np.float16)
    result = run_migraphx(text, arch, [a, b], out)
    assert np.array_equal(out, (a.astype(np.float64) @ b).transpose(0, 2, 1))
    assert [k.metadata["symbol"][:10] for k in result.kernels] == ["accel_gemm"]


@pytest.mark.parametrize("arch", ARCHES)
def test_transposed_and_sliced_operands_of_an_elementwise_kernel(arch):
    """An add of a transposed argument and a slice along the contiguous axis of another:
    neither is a broadcast kind, so the elementwise kernel reads each through its index
    map of the argument's buffer, in place: one kernel, no copy."""
    x_t, xt_t = shaped([21, 37], "f32"), shaped([37, 21], "f32", [1, 37])
    y_t, ys_t = shaped([37, 30], "f32"), shaped([37, 21], "f32", [30, 1])
    o_t = shaped([37, 21], "f32")
    text = (f'func.func @f(%x: !migraphx.shaped{x_t}, %y: !migraphx.shaped{y_t}) -> '
            f'!migraphx.shaped{o_t} attributes {{arch = "ARCH"}} {{\n'
            f"  %0 = migraphx.transpose %x {{permutation = [1, 0]}} : {x_t} -> {xt_t}\n"
            f"  %1 = migraphx.slice %y {{axes = [1], starts = [4], ends = [25]}} : "
            f"{y_t} -> {ys_t}\n"
            f"  %2 = migraphx.add %0, %1 : {xt_t}, {ys_t} -> {o_t}\n"
            f"  return %2 : !migraphx.shaped{o_t}\n}}\n")
    rng = np.random.default_rng(6)
    x = rng.standard_normal((21, 37)).astype(np.float32)
    y = rng.standard_normal((37, 30)).astype(np.float32)
    out = np.full((37, 21), np.nan, dtype=np.float32)
    result = run_migraphx(text, arch, [x, y], out)
    assert np.array_equal(out, x.T + y[:, 4:25])
    ops = [k.metadata.get("op") for k in result.kernels]
    assert ops == ["elementwise"]
    args = result.kernels[0].metadata["args"]
    assert [(a["shape"], a["dtype"], a.get("index_map")) for a in args] == [
        ([21, 37], "f32", "affine_map<(d0, d1, d2) -> (d2, d1)>"),
        # A view with an offset is read from its buffer flattened.
        ([1110], "f32", "affine_map<(d0, d1, d2) -> (d1 * 30 + d2 + 4)>"),
        ([1, 37, 21], "f32", None)]
