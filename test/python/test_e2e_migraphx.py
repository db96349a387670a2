"""End to end from MIGraphX IR: accel-from-migraphx -> affix -> layout -> lower-pack ->
gemm-to-gpu, then the whole host function in the simulator, checked elementwise.

Seed 001's two modules are regenerated at a smaller M, N, K with the same structure
and perf config (the generator reproduces the seed files byte for byte at the seed's
sizes). The reference applies the MIGraphX ops literally with numpy (transpose,
reshape, dot, then the output's strides), independently of accel's pack/unpack.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from accel.bindings import ir, new_context
from accel.check import OUT_EPS, compare, random_operand, reference
from accel.dialect.ir_helpers import collect_ops
from accel.migraphx import translate
from accel.pipelines.textual import run_pipeline
from accel.sim import run_host

INPUTS = Path(__file__).parents[1] / "lit" / "from-migraphx" / "Inputs"
PIPELINE = ("accel-from-migraphx, accel-affix-perf-config, accel-layout, accel-lower-pack, "
            "accel-plan-kernel, accel-gemm-to-gpu, accel-copy-to-gpu")
ARCHES = ("gfx942", "gfx1100", "gfx1201")
SEED_CONFIG = "v3:32,32,8,16,16,8,1,2,2,1,1"
D_PER_BLOCK, KPACK_PER_BLOCK, KPACK = 32, 8, 8     # the blocking SEED_CONFIG implies
K_PER_BLOCK = KPACK_PER_BLOCK * KPACK


def strides(dims):
    out, s = [], 1
    for d in reversed(dims):
        out.append(s)
        s *= d
    return out[::-1]


def shaped(dims, st, bang=True):
    x = "x".join(map(str, dims))
    return f"{'!migraphx.shaped' if bang else ''}<{x}xf16, {'x'.join(map(str, st))}>"


def permute(xs, perm):
    return [xs[p] for p in perm]


def seed001(m: int, n: int, k: int, accel_output: bool) -> str:
    """Seed 001's module (`seed001_accel_output.mlir` or `seed001_gemm.mlir`) for M, N, K."""
    p6 = [0, 1, 4, 2, 3, 5]
    a6 = [1, m // D_PER_BLOCK, k // K_PER_BLOCK, KPACK_PER_BLOCK, D_PER_BLOCK, KPACK]
    b6 = [1, n // D_PER_BLOCK, k // K_PER_BLOCK, KPACK_PER_BLOCK, D_PER_BLOCK, KPACK]
    # The seed writes the transposes' result strides as [s0, s4, s1, s2, s3, s5] of the
    # input's (not the permuted strides); reproduced as written.
    quirk = [0, 4, 1, 2, 3, 5]
    a_t = shaped(permute(a6, p6), permute(strides(a6), quirk), False)
    b_t = shaped(permute(b6, p6), permute(strides(b6), quirk), False)
    a_arg, b_arg = shaped(a6, strides(a6)), shaped(b6, strides(b6))
    a_r = shaped([1, m, k], strides([1, m, k]))
    b_r = shaped([1, n, k], strides([1, n, k]))
    b_t2 = shaped([1, k, n], [n * k, 1, k])
    c = shaped([1, m, n], strides([1, m, n]), False)
    o6 = [1, m // D_PER_BLOCK, D_PER_BLOCK, n // K_PER_BLOCK, KPACK_PER_BLOCK, KPACK]
    po = [0, 1, 3, 4, 2, 5]
    o_t = shaped(permute(o6, po), permute(strides(o6), po))
    result = o_t if accel_output else "!" + "migraphx.shaped" + c
    lines = [
        "module {",
        f"  func.func @mfma_layout(%a: {a_arg}, %b: {b_arg}) -> {result} attributes"
        '{kernel, arch = "##TOKEN_ARCH##"} {',
        f"    %aTranspose = migraphx.transpose %a {{permutation = [0, 1, 4, 2, 3, 5]}} : "
        f"{a_arg} -> !migraphx.shaped{a_t}",
        f"    %bTranspose = migraphx.transpose %b {{permutation = [0, 1, 4, 2, 3, 5]}} : "
        f"{b_arg} -> !migraphx.shaped{b_t}",
        f"    %aReshaped = migraphx.reshape %aTranspose {{dims = [1, {m}, {k}]}} : {a_t} -> {a_r}",
        f"    %bReshaped = migraphx.reshape %bTranspose {{dims = [1, {n}, {k}]}} : {b_t} -> {b_r}",
        f"    %bTranspose2 = migraphx.transpose %bReshaped {{permutation = [0, 2, 1]}} : "
        f"{b_r} -> {b_t2}",
        f'    %0 = migraphx.dot %aReshaped, %bTranspose2 {{perf_config="{SEED_CONFIG}"}} : '
        f"{a_r[16:]}, {b_t2[16:]} -> {c}",
    ]
    if accel_output:
        o6_text = shaped(o6, strides(o6))
        lines += [
            f"    // 1x{m}x{n} -> {'x'.join(map(str, permute(o6, po)))}",
            f"    %outReshaped = migraphx.reshape %0 {{dims = [{', '.join(map(str, o6))}]}} : "
            f"{c} -> {o6_text}",
            f"    %outTranspose = migraphx.transpose %outReshaped {{permutation = "
            f"[0, 1, 3, 4, 2, 5]}} : {o6_text} -> {o_t}",
            f"    return %outTranspose : {o_t}",
        ]
    else:
        lines.append(f"    return %0 : {result}")
    return "\n".join(lines + ["  }", "}", ""])


@pytest.mark.parametrize("accel_output,name", [(False, "seed001_gemm.mlir"),
                                               (True, "seed001_accel_output.mlir")])
def test_generator_reproduces_the_seed(accel_output, name):
    assert seed001(128, 1280, 5120, accel_output) == (INPUTS / name).read_text()


def compile_migraphx(text: str, arch: str) -> ir.Module:
    generic = translate(text.replace("##TOKEN_ARCH##", arch), "input.mlir")
    module = ir.Module.parse(generic)
    run_pipeline(module, PIPELINE)
    return module


def strided_store(values: np.ndarray, dims, st, size: int) -> np.ndarray:
    """The flat buffer in which a result of `dims` with element strides `st` holds
    `values` (what the MIGraphX result type says about memory)."""
    flat = np.zeros(size, dtype=values.dtype)
    it = flat.itemsize
    np.lib.stride_tricks.as_strided(flat, dims, [s * it for s in st])[...] = values
    return flat


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("accel_output", [False, True])
def test_seed001_scaled(arch, accel_output):
    m, n, k = 64, 128, 128
    text = seed001(m, n, k, accel_output)
    rng = np.random.default_rng(1)
    with new_context():
        module = compile_migraphx(text, arch)
        a6 = random_operand(rng, "f16", (1, m // 32, k // 64, 8, 32, 8))
        b6 = random_operand(rng, "f16", (1, n // 32, k // 64, 8, 32, 8))
        (f,) = [op for op in module.body.operations if op.operation.name == "func.func"]
        out_type = ir.MemRefType(f.type.inputs[2])
        out = np.full(list(out_type.shape), np.nan, dtype=np.float16)
        report = run_host(module, "mfma_layout", [a6, b6, out], arch=arch)
    assert [launch.kernel.split("::")[1].startswith("accel_gemm") for launch in report.launches] \
        == [True], "the accel chains fold: one gemm, no pack kernel"
    # The MIGraphX ops, literally.
    a = a6.transpose(0, 1, 4, 2, 3, 5).reshape(1, m, k)
    b = b6.transpose(0, 1, 4, 2, 3, 5).reshape(1, n, k).transpose(0, 2, 1)
    ref, tol = reference(a, b, "f16", "f16")
    if accel_output:
        o6 = (1, m // 32, 32, n // 64, 8, 8)
        dims = (1, m // 32, n // 64, 8, 32, 8)
        st = permute(strides(list(o6)), [0, 1, 3, 4, 2, 5])
        ref = strided_store(ref.reshape(o6).transpose(0, 1, 3, 4, 2, 5), dims, st, ref.size)
        tol = strided_store(tol.reshape(o6).transpose(0, 1, 3, 4, 2, 5), dims, st, tol.size)
    got = out.reshape(-1)
    result = compare(got, ref.reshape(-1), tol.reshape(-1))
    assert result.ok, result.describe(got, ref.reshape(-1))


# Seed 001's dot followed by a bias add, relu and a convert to f16: all three fuse into
# the GEMM's epilogue (the convert is C's own conversion), one kernel, nothing on the host.
# B's strides put it in memory as [G, N, K] (a transposed operand); no perf config, so
# one is selected.
EPILOGUE = """
func.func @bias_relu(%a: !migraphx.shaped<2x48x40xf16, 1920x40x1>, %b: !migraphx.shaped<2x40x36xf16, 1440x1x40>, %bias: !migraphx.shaped<36xf32, 1>) -> !migraphx.shaped<2x48x36xf16, 1728x36x1> attributes {kernel, arch = "##TOKEN_ARCH##"} {
  %0 = migraphx.dot %a, %b : <2x48x40xf16, 1920x40x1>, <2x40x36xf16, 1440x1x40> -> <2x48x36xf32, 1728x36x1>
  %1 = migraphx.multibroadcast %bias {out_dyn_dims = [], out_lens = [2, 48, 36]} : <36xf32, 1> -> <2x48x36xf32, 0x0x1>
  %2 = migraphx.add %0, %1 : <2x48x36xf32, 1728x36x1>, <2x48x36xf32, 0x0x1> -> <2x48x36xf32, 1728x36x1>
  %3 = migraphx.relu %2 : <2x48x36xf32, 1728x36x1> -> <2x48x36xf32, 1728x36x1>
  %4 = migraphx.convert %3 : <2x48x36xf32, 1728x36x1> -> <2x48x36xf16, 1728x36x1>
  return %4 : !migraphx.shaped<2x48x36xf16, 1728x36x1>
}
"""


@pytest.mark.parametrize("arch", ARCHES)
def test_fused_bias_relu_then_convert_is_one_kernel(arch):
    rng = np.random.default_rng(2)
    with new_context():
        module = compile_migraphx(EPILOGUE, arch)
        (launch,) = collect_ops(module, "gpu.launch_func")
        assert "_ep_add_relu_" in str(launch.attributes["kernel"])
        assert "linalg.generic" not in str(module)
        a = random_operand(rng, "f16", (2, 48, 40))
        b_nk = random_operand(rng, "f16", (2, 36, 40))     # memory order of B
        bias = random_operand(rng, "f32", (36,))
        out = np.full((2, 48, 36), np.nan, dtype=np.float16)
        report = run_host(module, "bias_relu", [a, b_nk, bias, out], arch=arch)
    assert len(report.launches) == 1
    ref, tol = reference(a, b_nk.transpose(0, 2, 1), "f16", "f32", bias=bias, relu=True)
    # relu and the f16 rounding are monotone: the f32 bound carries through, plus one
    # f16 rounding of the converted value.
    tol = tol + OUT_EPS["f16"] * ref + 2.0**-24
    result = compare(out, ref, tol)
    assert result.ok, result.describe(out, ref)
    assert (out >= 0).all() and (out == 0).any(), "relu clamps some elements"


# dot + per-batch bias ([G, 1, N], broadcast over rows) + relu on i8, ragged M and N, the
# result returned directly: ONE kernel, no linalg.generic, exact against numpy.
I8_BIAS_RELU = """
func.func @i8_bias_relu(%a: !migraphx.shaped<3x37x50xsi8, 1850x50x1>, %b: !migraphx.shaped<3x50x21xsi8, 1050x21x1>, %bias: !migraphx.shaped<3x1x21xsi32, 21x21x1>) -> !migraphx.shaped<3x37x21xsi32, 777x21x1> attributes {kernel, arch = "##TOKEN_ARCH##"} {
  %0 = migraphx.dot %a, %b : <3x37x50xsi8, 1850x50x1>, <3x50x21xsi8, 1050x21x1> -> <3x37x21xsi32, 777x21x1>
  %1 = migraphx.multibroadcast %bias {out_dyn_dims = [], out_lens = [3, 37, 21]} : <3x1x21xsi32, 21x21x1> -> <3x37x21xsi32, 21x0x1>
  %2 = migraphx.add %1, %0 : <3x37x21xsi32, 21x0x1>, <3x37x21xsi32, 777x21x1> -> <3x37x21xsi32, 777x21x1>
  %3 = migraphx.relu %2 : <3x37x21xsi32, 777x21x1> -> <3x37x21xsi32, 777x21x1>
  return %3 : !migraphx.shaped<3x37x21xsi32, 777x21x1>
}
"""


@pytest.mark.parametrize("arch", ARCHES)
def test_fused_i8_batch_bias_relu_is_one_kernel(arch):
    rng = np.random.default_rng(4)
    with new_context():
        module = compile_migraphx(I8_BIAS_RELU, arch)
        assert "linalg.generic" not in str(module)
        a = random_operand(rng, "i8", (3, 37, 50))
        b = random_operand(rng, "i8", (3, 50, 21))
        bias = rng.integers(-200, 200, size=(3, 1, 21)).astype(np.int32)
        out = np.full((3, 37, 21), -777, dtype=np.int32)
        report = run_host(module, "i8_bias_relu", [a, b, bias, out], arch=arch)
    assert len(report.launches) == 1
    want = np.maximum(a.astype(np.int64) @ b.astype(np.int64) + bias, 0)
    assert (out == want).all(), np.argwhere(out != want)[:3]
    assert (out == 0).any() and (out > 0).any()


def test_materialised_operand_copy_runs_as_a_kernel():
    """A B chain blocked unlike the perf config is copied by an accel.copy kernel into a
    row-major buffer before the GEMM (affine maps with floordiv/mod)."""
    m, n, k = 64, 64, 128
    text = seed001(m, n, k, False).replace(SEED_CONFIG, "v3:32,64,8,16,16,8,1,2,2,1,1")
    rng = np.random.default_rng(3)
    with new_context():
        module = compile_migraphx(text, "gfx942")
        assert "linalg.generic" not in str(module) and "accel.copy" not in str(module)
        assert "gpu.module @accel_copy_" in str(module)
        a6 = random_operand(rng, "f16", (1, m // 32, k // 64, 8, 32, 8))
        b6 = random_operand(rng, "f16", (1, n // 32, k // 64, 8, 32, 8))
        out = np.full((1, m, n), np.nan, dtype=np.float16)
        run_host(module, "mfma_layout", [a6, b6, out], arch="gfx942")
    a = a6.transpose(0, 1, 4, 2, 3, 5).reshape(1, m, k)
    b = b6.transpose(0, 1, 4, 2, 3, 5).reshape(1, n, k).transpose(0, 2, 1)
    ref, tol = reference(a, b, "f16", "f16")
    result = compare(out, ref, tol)
    assert result.ok, result.describe(out, ref)



@pytest.mark.parametrize("arch, a_t, b_t, out_t", [
    ("gfx942", "i8", "i8", "i32"), ("gfx1100", "i8", "i8", "i32"),
    ("gfx942", "f8E4M3FNUZ", "f8E5M2FNUZ", "f32"), ("gfx942", "f8E5M2FNUZ", "f8E5M2FNUZ", "f32"),
    ("gfx1201", "f8E5M2", "f8E4M3FN", "f32"), ("gfx1201", "f8E4M3FN", "f8E4M3FN", "f32")])
def test_quant_dot_runs_on_host(arch, a_t, b_t, out_t):
    """migraphx.quant_dot with a transposed B and a batch: the host function's GEMM
    matches the float64 (exact for i8) product of the decoded inputs."""
    g, m, n, k = 2, 40, 24, 72
    a_s, b_s, c_s = [g, m, k], [g, n, k], [g, m, n]

    def ty(dims, t, st=None):
        return f"<{'x'.join(map(str, dims))}x{t}, {'x'.join(map(str, st or strides(dims)))}>"
    text = (
        f"func.func @q(%a: !migraphx.shaped{ty(a_s, a_t)}, %b: !migraphx.shaped{ty(b_s, b_t)})"
        f" -> !migraphx.shaped{ty(c_s, out_t)} attributes {{kernel, arch = \"{arch}\"}} {{\n"
        f"  %bt = migraphx.transpose %b {{permutation = [0, 2, 1]}} : {ty(b_s, b_t)} -> "
        f"{ty([g, k, n], b_t, [n * k, 1, k])}\n"
        f"  %0 = migraphx.quant_dot %a, %bt : {ty(a_s, a_t)}, {ty([g, k, n], b_t, [n * k, 1, k])}"
        f" -> {ty(c_s, out_t)}\n"
        f"  return %0 : !migraphx.shaped{ty(c_s, out_t)}\n}}\n")
    rng = np.random.default_rng(4)
    a, b = random_operand(rng, a_t, a_s), random_operand(rng, b_t, [g, k, n])
    b_nk = np.ascontiguousarray(b.transpose(0, 2, 1))
    with new_context():
        module = compile_migraphx(text, arch)
        out = np.full(c_s, np.nan if out_t == "f32" else -7, dtype=np.float32 if out_t == "f32"
                      else np.int32)
        run_host(module, "q", [a, b_nk, out], arch=arch)
    ref, tol = reference(a, b, a_t, out_t)
    assert compare(out, ref, tol).ok


# Slices as views: A is rows 3..40 and columns 5..45 of a 48x64 buffer (an offset and a
# row stride), B is a [1, 40, 24] slice (K rows 8..48) of B's [1, 56, 24] through a
# broadcast batch, and the second argument arrives with row gaps (strides 2*24): the
# copies read each through its view, the GEMM is exact against numpy on every chip.
SLICED = """
func.func @sliced(%a: !migraphx.shaped<1x48x64xf16, 3072x64x1>, %b: !migraphx.shaped<56x24xf16, 48x1>) -> !migraphx.shaped<1x37x24xf32, 888x24x1> attributes {rock.arch = ""} {
  %as = migraphx.slice %a {axes = [1, 2], starts = [3, 5], ends = [40, 45]} : <1x48x64xf16, 3072x64x1> -> <1x37x40xf16, 3072x64x1>
  %bs = migraphx.slice %b {axes = [0], starts = [8], ends = [48]} : <56x24xf16, 48x1> -> <40x24xf16, 48x1>
  %bb = migraphx.broadcast %bs {axis = 1 : i64, out_lens = [1, 40, 24]} : <40x24xf16, 48x1> -> <1x40x24xf16, 0x48x1>
  %0 = migraphx.dot %as, %bb : <1x37x40xf16, 3072x64x1>, <1x40x24xf16, 0x48x1> -> <1x37x24xf32, 888x24x1>
  return %0 : !migraphx.shaped<1x37x24xf32, 888x24x1>
}
"""


@pytest.mark.parametrize("arch", ARCHES)
def test_slices_and_gapped_argument_are_read_through_views(arch):
    rng = np.random.default_rng(5)
    with new_context():
        module = compile_migraphx(SLICED.replace('rock.arch = ""', f'rock.arch = "{arch}"'),
                                  arch)
        a = random_operand(rng, "f16", (1, 48, 64))
        # The gapped B buffer: 56 rows of 24 at a stride of 48 elements.
        b_buf = random_operand(rng, "f16", (55 * 48 + 24,))
        out = np.full((1, 37, 24), np.nan, dtype=np.float32)
        run_host(module, "sliced", [a, b_buf, out], arch=arch)
    b = np.lib.stride_tricks.as_strided(b_buf, (56, 24), (48 * 2, 2))
    ref, tol = reference(a[:, 3:40, 5:45], b[None, 8:48, :], "f16", "f32")
    result = compare(out, ref, tol)
    assert result.ok, result.describe(out, ref)


# The chain goes through views (rocMLIR's gemm-layouts tests): dot -> reshape ->
# transpose -> add of a tensor in the permuted coordinates. The add fuses (its operand
# mapped back to the dot's [G, M, N] through the inverse views: here a copy, as its
# permuted view is no buffer of the dot's shape); the result, the views undone, is C with
# M of stride 1 in the out-parameter, which the gemm writes in place: two kernels, the
# operand's copy and the gemm.
VIEW_CHAIN = """
func.func @view_chain(%a: !migraphx.shaped<2x12x40xf16, 480x40x1>, %b: !migraphx.shaped<2x40x21xf16, 840x21x1>, %x: !migraphx.shaped<2x21x4x3xf16, 252x12x3x1>) -> !migraphx.shaped<2x21x4x3xf16, 252x12x3x1> attributes {rock.arch = "##TOKEN_ARCH##"} {
  %0 = migraphx.dot %a, %b : <2x12x40xf16, 480x40x1>, <2x40x21xf16, 840x21x1> -> <2x12x21xf16, 252x21x1>
  %1 = migraphx.reshape %0 {dims = [2, 4, 3, 21]} : <2x12x21xf16, 252x21x1> -> <2x4x3x21xf16, 252x63x21x1>
  %2 = migraphx.transpose %1 {permutation = [0, 3, 1, 2]} : <2x4x3x21xf16, 252x63x21x1> -> <2x21x4x3xf16, 252x1x63x21>
  %3 = migraphx.add %2, %x : <2x21x4x3xf16, 252x1x63x21>, <2x21x4x3xf16, 252x12x3x1> -> <2x21x4x3xf16, 252x12x3x1>
  return %3 : !migraphx.shaped<2x21x4x3xf16, 252x12x3x1>
}
"""


@pytest.mark.parametrize("arch", ARCHES)
def test_chain_through_views_fuses(arch):
    rng = np.random.default_rng(6)
    with new_context():
        module = compile_migraphx(VIEW_CHAIN, arch)
        kernels = [str(op.attributes["kernel"])
                   for op in collect_ops(module, "gpu.launch_func")]
        assert len(kernels) == 2 and "_ep_add_" in kernels[1]
        assert "@accel_copy_" in kernels[0]
        a = random_operand(rng, "f16", (2, 12, 40))
        b = random_operand(rng, "f16", (2, 40, 21))
        x = random_operand(rng, "f16", (2, 21, 4, 3))
        out = np.full((2, 21, 4, 3), np.nan, dtype=np.float16)
        report = run_host(module, "view_chain", [a, b, x, out], arch=arch)
    assert len(report.launches) == 2
    ref, tol = reference(a, b, "f16", "f32")
    permute4 = lambda y: y.reshape(2, 4, 3, 21).transpose(0, 3, 1, 2)  # noqa: E731
    ref = permute4(ref) + x.astype(np.float64)
    tol = permute4(tol) + OUT_EPS["f16"] * np.abs(ref) + 2.0**-24
    result = compare(out, ref, tol)
    assert result.ok, result.describe(out, ref)


# An operand computed by elementwise ops of its own (rocMLIR's split-K div test): the
# add that makes the divisor becomes steps on the extra operands it reads, so the
# divide, its divisor and a relu are all in the one kernel.
OPERAND_TREE = """
func.func @tree(%a: !migraphx.shaped<1x37x40xf16, 1480x40x1>, %b: !migraphx.shaped<1x40x21xf16, 840x21x1>, %d: !migraphx.shaped<1x37x21xf16, 777x21x1>) -> !migraphx.shaped<1x37x21xf16, 777x21x1> attributes {rock.arch = "##TOKEN_ARCH##"} {
  %0 = migraphx.dot %a, %b : <1x37x40xf16, 1480x40x1>, <1x40x21xf16, 840x21x1> -> <1x37x21xf16, 777x21x1>
  %c = migraphx.literal(dense<2.0> : tensor<1xf16>) : <1xf16, 1>
  %cb = migraphx.multibroadcast %c {out_dyn_dims = [], out_lens = [1, 37, 21]} : <1xf16, 1> -> <1x37x21xf16, 0x0x0>
  %1 = migraphx.add %d, %cb : <1x37x21xf16, 777x21x1>, <1x37x21xf16, 0x0x0> -> <1x37x21xf16, 777x21x1>
  %2 = migraphx.div %0, %1 : <1x37x21xf16, 777x21x1>, <1x37x21xf16, 777x21x1> -> <1x37x21xf16, 777x21x1>
  %3 = migraphx.relu %2 : <1x37x21xf16, 777x21x1> -> <1x37x21xf16, 777x21x1>
  return %3 : !migraphx.shaped<1x37x21xf16, 777x21x1>
}
"""


@pytest.mark.parametrize("arch", ARCHES)
def test_operand_tree_fuses(arch):
    rng = np.random.default_rng(7)
    with new_context():
        module = compile_migraphx(OPERAND_TREE, arch)
        assert "linalg.generic" not in str(module)
        a = random_operand(rng, "f16", (1, 37, 40))
        b = random_operand(rng, "f16", (1, 40, 21))
        d = rng.uniform(0, 1, (1, 37, 21)).astype(np.float16)   # divisor in [2, 3)
        out = np.full((1, 37, 21), np.nan, dtype=np.float16)
        report = run_host(module, "tree", [a, b, d, out], arch=arch)
    assert len(report.launches) == 1
    ref, tol = reference(a, b, "f16", "f32")
    div = d.astype(np.float64) + 2.0
    ref = np.maximum(ref / div, 0)
    # Dividing by at least 2 halves the bound; then one f16 rounding of the result.
    tol = tol / 2 + OUT_EPS["f16"] * np.abs(ref) + 2.0**-24
    result = compare(out, ref, tol)
    assert result.ok, result.describe(out, ref)
    assert (out == 0).any() and (out > 0).any()


# The dot's value feeds two elementwise ops (rocMLIR's split-K linear test:
# x * (d + 3) + (x + e)): the region after the dot, with its operand tree, is one op
# list reading %acc twice; one kernel, nothing on the host.
REGION = """
func.func @region(%a: !migraphx.shaped<2x37x40xf16, 1480x40x1>, %b: !migraphx.shaped<2x40x21xf16, 840x21x1>, %d: !migraphx.shaped<2x37x21xf16, 777x21x1>, %e: !migraphx.shaped<2x37x21xf16, 777x21x1>) -> !migraphx.shaped<2x37x21xf16, 777x21x1> attributes {rock.arch = "##TOKEN_ARCH##"} {
  %0 = migraphx.dot %a, %b : <2x37x40xf16, 1480x40x1>, <2x40x21xf16, 840x21x1> -> <2x37x21xf16, 777x21x1>
  %cst = migraphx.literal(dense<3.000000e+00> : tensor<2x37x21xf16>) : <2x37x21xf16, 0x0x0>
  %1 = migraphx.add %d, %cst : <2x37x21xf16, 777x21x1>, <2x37x21xf16, 0x0x0> -> <2x37x21xf16, 777x21x1>
  %2 = migraphx.mul %0, %1 : <2x37x21xf16, 777x21x1>, <2x37x21xf16, 777x21x1> -> <2x37x21xf16, 777x21x1>
  %3 = migraphx.add %0, %e : <2x37x21xf16, 777x21x1>, <2x37x21xf16, 777x21x1> -> <2x37x21xf16, 777x21x1>
  %4 = migraphx.add %2, %3 : <2x37x21xf16, 777x21x1>, <2x37x21xf16, 777x21x1> -> <2x37x21xf16, 777x21x1>
  return %4 : !migraphx.shaped<2x37x21xf16, 777x21x1>
}
"""


@pytest.mark.parametrize("arch", ARCHES)
def test_region_reading_the_product_twice_fuses(arch):
    rng = np.random.default_rng(8)
    with new_context():
        module = compile_migraphx(REGION, arch)
        assert "linalg.generic" not in str(module)
        a = random_operand(rng, "f16", (2, 37, 40))
        b = random_operand(rng, "f16", (2, 40, 21))
        d = random_operand(rng, "f16", (2, 37, 21))
        e = random_operand(rng, "f16", (2, 37, 21))
        out = np.full((2, 37, 21), np.nan, dtype=np.float16)
        report = run_host(module, "region", [a, b, d, e, out], arch=arch)
    assert len(report.launches) == 1
    x, tol = reference(a, b, "f16", "f32")
    s = d.astype(np.float64) + 3.0
    ref = x * s + (x + e.astype(np.float64))
    # |d + 3| <= 4: the product's bound scales by at most 5, then one f16 rounding.
    tol = tol * (np.abs(s) + 1) + OUT_EPS["f16"] * np.abs(ref) + 2.0**-24
    result = compare(out, ref, tol)
    assert result.ok, result.describe(out, ref)


# A later value of the chain read twice (s = x + b; relu(s) + s, a gated-linear form).
SHARED = """
func.func @shared(%a: !migraphx.shaped<1x37x40xf16, 1480x40x1>, %b: !migraphx.shaped<1x40x21xf16, 840x21x1>, %bias: !migraphx.shaped<21xf32, 1>) -> !migraphx.shaped<1x37x21xf32, 777x21x1> attributes {rock.arch = "##TOKEN_ARCH##"} {
  %0 = migraphx.dot %a, %b : <1x37x40xf16, 1480x40x1>, <1x40x21xf16, 840x21x1> -> <1x37x21xf32, 777x21x1>
  %1 = migraphx.multibroadcast %bias {out_dyn_dims = [], out_lens = [1, 37, 21]} : <21xf32, 1> -> <1x37x21xf32, 0x0x1>
  %2 = migraphx.add %0, %1 : <1x37x21xf32, 777x21x1>, <1x37x21xf32, 0x0x1> -> <1x37x21xf32, 777x21x1>
  %3 = migraphx.relu %2 : <1x37x21xf32, 777x21x1> -> <1x37x21xf32, 777x21x1>
  %4 = migraphx.add %3, %2 : <1x37x21xf32, 777x21x1>, <1x37x21xf32, 777x21x1> -> <1x37x21xf32, 777x21x1>
  return %4 : !migraphx.shaped<1x37x21xf32, 777x21x1>
}
"""


@pytest.mark.parametrize("arch", ARCHES)
def test_chain_value_read_twice_fuses(arch):
    rng = np.random.default_rng(9)
    with new_context():
        module = compile_migraphx(SHARED, arch)
        assert "linalg.generic" not in str(module)
        a = random_operand(rng, "f16", (1, 37, 40))
        b = random_operand(rng, "f16", (1, 40, 21))
        bias = random_operand(rng, "f32", (21,))
        out = np.full((1, 37, 21), np.nan, dtype=np.float32)
        run_host(module, "shared", [a, b, bias, out], arch=arch)
    s, tol = reference(a, b, "f16", "f32", bias=bias)
    ref = np.maximum(s, 0) + s
    result = compare(out, ref, 2 * tol)
    assert result.ok, result.describe(out, ref)
