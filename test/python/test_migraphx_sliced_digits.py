"""Slices inside a dimension's digits (windows, accel.migraphx.view) read in place by
the elementwise kernel that consumes them: AMDMIGraphX's int4/uint4 GEMMs, whose group
scales and zero points are repeated along K, regrouped and sliced to K rows, run in the
simulator against float64 numpy (the two corpus chunks on gfx942, where their f32 dot
runs; a ragged f16 variant on every chip; a window among the dimensions merged into
an elementwise kernel's batch) and compiled to code objects; and, as a gemm epilogue's
operand (one stride per dimension), copied first by a copy that names why."""

from __future__ import annotations

import numpy as np
import pytest

from accel.api import compile_module
from accel.bindings import ir, new_context
from accel.dialect.ir_helpers import collect_ops
from accel.migraphx import translate
from accel.pipelines.textual import run_pipeline
from accel.sim import run_host

from test_migraphx_elementwise import (
    ARCHES, MIGRAPHX_STEPS, corpus_text, shaped, unpack_int4,
)

CHUNKS = {"si8": "ROCm-AMDMIGraphX__test__gpu__mlir.cpp__int4_unpack_dequantizelinear.mlir",
          "ui8": "ROCm-AMDMIGraphX__test__gpu__mlir.cpp__uint4_unpack_dequantizelinear.mlir"}


def convert_and_run(text: str, arch: str, args, out) -> list:
    """`text` through accel-from-migraphx on `arch`: checks that it leaves no copy kernel
    and reads the windows through input maps, runs it in the simulator (into `out`),
    compiles it; returns the code objects' kernels."""
    with new_context():
        module = ir.Module.parse(translate(text, "t.mlir"))
        run_pipeline(module, f"accel-from-migraphx{{arch={arch}}}")
        assert not collect_ops(module, "accel.copy"), str(module)
        maps = [str(op.attributes["input_maps"]) for op in collect_ops(module, "accel.elementwise")]
        assert len(maps) == 1 and "floordiv 3" in maps[0], maps
        kernels = compile_module(module, arch).kernels
    with new_context():
        module = ir.Module.parse(translate(text, "t.mlir"))
        run_pipeline(module, MIGRAPHX_STEPS.replace("accel-from-migraphx",
                                                    f"accel-from-migraphx{{arch={arch}}}"))
        func = next(op for op in module.body.operations if op.operation.name == "func.func")
        run_host(module, func.attributes["sym_name"].value, list(args) + [out], arch=arch)
    return kernels


def group_rows(x: np.ndarray, size: int, start: int, rows: int) -> np.ndarray:
    """[G, groups, N] repeated `size` times along axis 1, rows [start, start + rows)."""
    return np.repeat(x, size, axis=1)[:, start:start + rows]


@pytest.mark.parametrize("elem", ["si8", "ui8"])
def test_corpus_int4_group_scales_read_in_place(elem):
    """The corpus chunks as MIGraphX dumps them: scales [2, 2, 2] f32 and zero points
    (of B's byte type) repeated 3 times along K and sliced to K = 5; one dequantize
    kernel (the unpack folded into it) and the gemm, no copy."""
    signed = elem == "si8"
    rng = np.random.default_rng(21)
    a = rng.integers(-3, 4, (2, 3, 5)).astype(np.float32)
    w = rng.integers(-128, 128, (2, 5, 1)).astype(np.int8)
    s = rng.choice([0.25, 0.5, 2.0], (2, 2, 2)).astype(np.float32)
    z = (rng.integers(-3, 4, (2, 2, 2)) if signed else
         rng.integers(120, 140, (2, 2, 2))).astype(np.int8 if signed else np.uint8)
    out = np.full((2, 3, 2), np.nan, dtype=np.float32)
    kernels = convert_and_run(corpus_text(CHUNKS[elem], "gfx942"), "gfx942",
                              [a, w, s, z.view(np.int8)], out)
    assert [k.metadata.get("op", "gemm") for k in kernels] == ["elementwise", "gemm"]
    deq = (unpack_int4(w, signed) - group_rows(z.astype(np.float64), 3, 0, 5)) * \
        group_rows(s.astype(np.float64), 3, 0, 5)
    np.testing.assert_array_equal(out.astype(np.float64), a.astype(np.float64) @ deq)


def ragged_text(arch: str, g: int, m: int, k: int, n: int, groups: int, size: int,
                start: int) -> str:
    """The corpus chain in f16 on ragged shapes: scales and zero points [g, groups, n]
    repeated `size` times along K (groups * size rows) and sliced to rows
    [start, start + k)."""
    rows = groups * size
    w_t, q_t = shaped([g, k, n // 2], "si8"), shaped([g, k, n], "si8")
    gs_t, gz_t = shaped([g, groups, n], "f16"), shaped([g, groups, n], "si8")
    u_s, u_z = shaped([g, groups, 1, n], "f16"), shaped([g, groups, 1, n], "si8")
    st = f"{groups * n}x{n}x0x1"
    b_s, b_z = f"<{g}x{groups}x{size}x{n}xf16, {st}>", f"<{g}x{groups}x{size}x{n}xsi8, {st}>"
    r_s, r_z = shaped([g, rows, n], "f16"), shaped([g, rows, n], "si8")
    x_s = f"<{g}x{k}x{n}xf16, {rows * n}x{n}x1>"
    x_z = f"<{g}x{k}x{n}xsi8, {rows * n}x{n}x1>"
    a_t, d_t, o_t = shaped([g, m, k], "f16"), shaped([g, k, n], "f16"), shaped([g, m, n], "f16")

    def chain(src, u_t, b_t, r_t, x_t, tag):
        return (f"  %{tag}0 = migraphx.reshape %{src} {{dims = [{g}, {groups}, 1, {n}]}} : "
                f"{gs_t if tag == 's' else gz_t} -> {u_t}\n"
                f"  %{tag}1 = migraphx.multibroadcast %{tag}0 {{out_lens = [{g}, {groups}, "
                f"{size}, {n}]}} : {u_t} -> {b_t}\n"
                f"  %{tag}2 = migraphx.reshape %{tag}1 {{dims = [{g}, {rows}, {n}]}} : "
                f"{b_t} -> {r_t}\n"
                f"  %{tag}3 = migraphx.slice %{tag}2 {{axes = [1], starts = [{start}], "
                f"ends = [{start + k}]}} : {r_t} -> {x_t}\n")
    return (f"func.func @f(%a: !migraphx.shaped{a_t}, %w: !migraphx.shaped{w_t}, "
            f"%s: !migraphx.shaped{gs_t}, %z: !migraphx.shaped{gz_t}) -> "
            f"!migraphx.shaped{o_t} attributes {{arch = \"{arch}\"}} {{\n"
            + chain("s", u_s, b_s, r_s, x_s, "s") + chain("z", u_z, b_z, r_z, x_z, "z") +
            f"  %q = migraphx.unpack %w {{axis = 2 : i64}} : {w_t} -> {q_t}\n"
            f"  %d = migraphx.dequantizelinear %q, %s3, %z3 : {q_t}, {x_s}, "
            f"!migraphx.shaped{x_z} -> {d_t}\n"
            f"  %o = migraphx.dot %a, %d : {a_t}, {d_t} -> {o_t}\n"
            f"  return %o : !migraphx.shaped{o_t}\n}}\n")


@pytest.mark.parametrize("arch", ARCHES)
def test_ragged_window_read_in_place(arch):
    """K = 37 rows from row 1 of 13 groups of 3 (39 rows: neither end on a group's
    edge), N = 22, M = 9, two batches; the dequantized B is exact in f16 (scales 0.5 or
    1, |B| <= 11, |A| <= 2: every sum a multiple of 0.5 below 1024)."""
    g, m, k, n, groups, size, start = 2, 9, 37, 22, 13, 3, 1
    rng = np.random.default_rng(22)
    vals = rng.integers(-8, 8, (g, k, n))
    w = ((vals[..., 0::2] & 15) | (vals[..., 1::2] << 4)).astype(np.uint8).view(np.int8)
    s = rng.choice([0.5, 1.0], (g, groups, n)).astype(np.float16)
    z = rng.integers(-3, 4, (g, groups, n)).astype(np.int8)
    a = rng.integers(-2, 3, (g, m, k)).astype(np.float16)
    out = np.full((g, m, n), np.nan, dtype=np.float16)
    text = ragged_text(arch, g, m, k, n, groups, size, start)
    kernels = convert_and_run(text, arch, [a, w, s, z], out)
    assert [kk.metadata.get("op", "gemm") for kk in kernels] == ["elementwise", "gemm"]
    deq = (vals - group_rows(z.astype(np.float64), size, start, k)) * \
        group_rows(s.astype(np.float64), size, start, k)
    np.testing.assert_array_equal(out.astype(np.float64), a.astype(np.float64) @ deq)


def front_end_copies(text: str) -> list[tuple[str, str]]:
    """(reason, input map) of each accel.copy the MIGraphX front end makes of `text`."""
    with new_context():
        module = ir.Module.parse(translate(text, "t.mlir"))
        run_pipeline(module, "accel-from-migraphx")
        return [(str(op.attributes["reason"]), str(op.attributes["input_map"]))
                for op in collect_ops(module, "accel.copy")]


def run_converted(text: str, arch: str, args) -> None:
    """`text` through the whole MIGraphX pipeline, run on the simulator (results in args)."""
    with new_context():
        module = ir.Module.parse(translate(text, "t.mlir"))
        run_pipeline(module, MIGRAPHX_STEPS)
        run_host(module, "f", args, arch=arch)


@pytest.mark.parametrize("arch", ARCHES)
def test_window_in_the_batch(arch):
    """A window among the dimensions an elementwise kernel merges into G ([3, 9, 5, 7]:
    G = 27 over the batch and the window's 9 rows, from row 2 of 4 groups of 3): the
    index map splits G back (no copy); against numpy, every chip."""
    x_t, s_t, o_t = shaped([3, 9, 5, 7], "f32"), shaped([3, 4, 7], "f32"), \
        shaped([3, 9, 5, 7], "f32")
    text = (f"func.func @f(%x: !migraphx.shaped{x_t}, %s: !migraphx.shaped{s_t}) -> "
            f"!migraphx.shaped{o_t} attributes {{arch = \"{arch}\"}} {{\n"
            f"  %0 = migraphx.reshape %s {{dims = [3, 4, 1, 7]}} : {s_t} -> "
            f"<3x4x1x7xf32, 28x7x7x1>\n"
            f"  %1 = migraphx.multibroadcast %0 {{out_lens = [3, 4, 3, 7]}} : "
            f"<3x4x1x7xf32, 28x7x7x1> -> <3x4x3x7xf32, 28x7x0x1>\n"
            f"  %2 = migraphx.reshape %1 {{dims = [3, 12, 7]}} : <3x4x3x7xf32, 28x7x0x1> -> "
            f"<3x12x7xf32, 84x7x1>\n"
            f"  %3 = migraphx.slice %2 {{axes = [1], starts = [2], ends = [11]}} : "
            f"<3x12x7xf32, 84x7x1> -> <3x9x7xf32, 84x7x1>\n"
            f"  %4 = migraphx.reshape %3 {{dims = [3, 9, 1, 7]}} : <3x9x7xf32, 84x7x1> -> "
            f"<3x9x1x7xf32, 63x7x7x1>\n"
            f"  %5 = migraphx.multibroadcast %4 {{out_lens = [3, 9, 5, 7]}} : "
            f"<3x9x1x7xf32, 63x7x7x1> -> <3x9x5x7xf32, 63x7x0x1>\n"
            f"  %6 = migraphx.dequantizelinear %x, %5 : {x_t}, <3x9x5x7xf32, 63x7x0x1> -> "
            f"{o_t}\n"
            f"  return %6 : !migraphx.shaped{o_t}\n}}\n")
    rng = np.random.default_rng(23)
    x = rng.uniform(-4, 4, (3, 9, 5, 7)).astype(np.float32)
    s = rng.uniform(-2, 2, (3, 4, 7)).astype(np.float32)
    out = np.full((3, 9, 5, 7), np.nan, dtype=np.float32)
    with new_context():
        module = ir.Module.parse(translate(text, "t.mlir"))
        run_pipeline(module, "accel-from-migraphx")
        assert not collect_ops(module, "accel.copy"), str(module)
        assert "d0 floordiv 9" in str(module)
        assert [k.metadata.get("op") for k in compile_module(module, arch).kernels] == [
            "elementwise"]
    run_converted(text, arch, [x, s, out])
    scale = group_rows(s.astype(np.float64), 3, 2, 9)[:, :, None, :]
    np.testing.assert_allclose(out, x.astype(np.float64) * scale, rtol=2.0 ** -23)


EPILOGUE_OPERAND = """\
func.func @f(%a: !migraphx.shaped<2x5x4xf16, 20x4x1>, %b: !migraphx.shaped<2x4x2xf16, 8x2x1>, %s: !migraphx.shaped<2x2x2xf16, 4x2x1>) -> !migraphx.shaped<2x5x2xf16, 10x2x1> attributes {arch = "ARCH"} {
  %0 = migraphx.reshape %s {dims = [2, 2, 1, 2]} : <2x2x2xf16, 4x2x1> -> <2x2x1x2xf16, 4x2x2x1>
  %1 = migraphx.multibroadcast %0 {out_lens = [2, 2, 3, 2]} : <2x2x1x2xf16, 4x2x2x1> -> <2x2x3x2xf16, 4x2x0x1>
  %2 = migraphx.reshape %1 {dims = [2, 6, 2]} : <2x2x3x2xf16, 4x2x0x1> -> <2x6x2xf16, 12x2x1>
  %3 = migraphx.slice %2 {axes = [1], ends = [6], starts = [1]} : <2x6x2xf16, 12x2x1> -> <2x5x2xf16, 12x2x1>
  %4 = migraphx.dot %a, %b : <2x5x4xf16, 20x4x1>, <2x4x2xf16, 8x2x1> -> <2x5x2xf16, 10x2x1>
  %5 = migraphx.add %4, %3 : <2x5x2xf16, 10x2x1>, <2x5x2xf16, 12x2x1> -> <2x5x2xf16, 10x2x1>
  return %5 : !migraphx.shaped<2x5x2xf16, 10x2x1>
}
"""


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_window_as_epilogue_operand_is_copied(arch):
    """A gemm epilogue's operand needs one stride per dimension: the window (rows 1..6
    of groups of 3) is copied row-major first, by a copy that reads it through the
    window's map and names why; the fused add then matches numpy."""
    text = EPILOGUE_OPERAND.replace("ARCH", arch)
    copies = front_end_copies(text)
    assert [reason for reason, _ in copies] == [
        '"an epilogue operand with M of several strides"'], copies
    assert "(d1 + 1) floordiv 3" in copies[0][1]
    rng = np.random.default_rng(24)
    a = rng.integers(-2, 3, (2, 5, 4)).astype(np.float16)
    b = rng.integers(-2, 3, (2, 4, 2)).astype(np.float16)
    s = rng.integers(-8, 8, (2, 2, 2)).astype(np.float16)
    out = np.full((2, 5, 2), np.nan, dtype=np.float16)
    run_converted(text, arch, [a, b, s, out])
    want = a.astype(np.float64) @ b.astype(np.float64) + group_rows(s.astype(np.float64), 3, 1, 5)
    np.testing.assert_array_equal(out.astype(np.float64), want)


GEMM_OPERAND = """
func.func @f(%a: !migraphx.shaped<2x3x5xf16, 15x5x1>, %s: !migraphx.shaped<2x2x2xf16, 4x2x1>) -> !migraphx.shaped<2x3x2xf16, 6x2x1> attributes {arch = "ARCH"} {
  %0 = migraphx.reshape %s {dims = [2, 2, 1, 2]} : <2x2x2xf16, 4x2x1> -> <2x2x1x2xf16, 4x2x2x1>
  %1 = migraphx.multibroadcast %0 {out_lens = [2, 2, 3, 2]} : <2x2x1x2xf16, 4x2x2x1> -> <2x2x3x2xf16, 4x2x0x1>
  %2 = migraphx.reshape %1 {dims = [2, 6, 2]} : <2x2x3x2xf16, 4x2x0x1> -> <2x6x2xf16, 12x2x1>
  %3 = migraphx.slice %2 {axes = [1], ends = [5], starts = [0]} : <2x6x2xf16, 12x2x1> -> <2x5x2xf16, 12x2x1>
  %4 = migraphx.dot %a, %3 : <2x3x5xf16, 15x5x1>, <2x5x2xf16, 12x2x1> -> <2x3x2xf16, 6x2x1>
  return %4 : !migraphx.shaped<2x3x2xf16, 6x2x1>
}
"""


@pytest.mark.parametrize("arch", ["gfx942", "gfx1201"])
def test_window_as_gemm_operand_is_copied(arch):
    """B's K is a window of two digits (rows 0..5 of groups of 3): the gemm's operand
    addressing takes one stride per dimension or K of two whole digits, never a window,
    so B is copied row-major first (K stays 5, not the digits' 6), then the product
    matches numpy."""
    text = GEMM_OPERAND.replace("ARCH", arch)
    assert [reason for reason, _ in front_end_copies(text)] == [
        '"a dot operand B with K of several strides"']
    rng = np.random.default_rng(25)
    a = rng.integers(-2, 3, (2, 3, 5)).astype(np.float16)
    s = rng.integers(-8, 8, (2, 2, 2)).astype(np.float16)
    out = np.full((2, 3, 2), np.nan, dtype=np.float16)
    run_converted(text, arch, [a, s, out])
    want = a.astype(np.float64) @ group_rows(s.astype(np.float64), 3, 0, 5)
    np.testing.assert_array_equal(out.astype(np.float64), want)
