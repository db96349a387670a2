"""Elementwise kernels (accel.elementwise): what no gemm epilogue takes, as kernels of
their own, run in the simulator on every chip and compared elementwise with numpy on
ragged shapes; and the MIGraphX ops that become them (quantizelinear, dequantizelinear,
reduce_sum / reduce_max and softmax over the last axis, unfused elementwise ops).
"""

from __future__ import annotations

import re
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from accel.api import compile_module
from accel.bindings import ir, new_context
from accel.diagnostics import AccelError
from accel.dialect.ir_helpers import collect_ops
from accel.migraphx import translate
from accel.pipelines.textual import run_pipeline
from accel.sim import run_host

ARCHES = ("gfx942", "gfx1100", "gfx1201")
KERNEL_STEPS = "accel-elementwise-to-gpu"
MIGRAPHX_STEPS = ("accel-from-migraphx, accel-affix-perf-config, accel-layout, "
                  "accel-lower-pack, accel-plan-kernel, accel-gemm-to-gpu, "
                  "accel-elementwise-to-gpu, accel-copy-to-gpu")
NP = {"f32": np.float32, "f16": np.float16, "i32": np.int32, "i8": np.int8}
G, M, N = 2, 37, 21     # ragged: no power of two, N odd (one-element vectors)


def memref(shape, elem):
    return f"memref<{'x'.join(map(str, shape))}x{elem}>"


def kind_shape(kind, g, m, n):
    return [{"g": g, "m": m, "n": n}[c] for c in kind] or [1]


def broadcast(x, kind, g, m, n):
    """An input of `kind` as the [G, M, N] values the kernel reads."""
    shape = [g if "g" in kind else 1, m if "m" in kind else 1, n if "n" in kind else 1]
    return np.broadcast_to(x.reshape(shape), (g, m, n)).astype(np.float64)


def run_kernel(arch, inputs, kinds, program, out_elem, reduce="none", shape=(G, M, N)):
    """One accel.elementwise over `inputs` (numpy arrays), simulated; its output."""
    g, m, n = shape
    out_shape = (g, m, 1) if reduce != "none" else (g, m, n)
    types = [memref(x.shape, str(x.dtype).replace("int", "i").replace("float", "f")
                    .replace("uint", "ui")) for x in inputs] + [memref(out_shape, out_elem)]
    args = ", ".join(f"%a{i}: {t}" for i, t in enumerate(types))
    names = ", ".join(f"%a{i}" for i in range(len(types)))
    attrs = [f'arch = "{arch}"', f'program = "{program}"',
             "operands = [" + ", ".join(f'"{k}"' for k in kinds) + "]"]
    if reduce != "none":
        attrs += [f'reduce = "{reduce}"', f"n = {n}"]
    text = (f"func.func @f({args}) {{\n  \"accel.elementwise\"({names}) {{{', '.join(attrs)}}}"
            f" : ({', '.join(types)}) -> ()\n  return\n}}\n")
    out = np.full(out_shape, -77, dtype=NP[out_elem])
    with new_context():
        module = ir.Module.parse(text)
        run_pipeline(module, KERNEL_STEPS)
        assert not collect_ops(module, "accel.elementwise")
        run_host(module, "f", list(inputs) + [out], arch=arch)
    with new_context():   # and it is a code object on the chip
        result = compile_module(text, arch)
        assert [k.metadata["op"] for k in result.kernels] == [
            "elementwise" if reduce == "none" else "reduce"]
        meta = result.kernels[0].metadata
        assert [a["name"] for a in meta["args"]] == [f"e{i}" for i in range(len(inputs))] + ["out"]
        assert [a["broadcast"] for a in meta["args"][:-1]] == list(kinds)
        assert meta["args"][-1]["shape"] == list(out_shape)
        assert meta["args"][-1]["dtype"] == out_elem
    return out


def assert_close(got, want, rtol):
    bad = np.argwhere(~(np.abs(got.astype(np.float64) - want) <= rtol * (1 + np.abs(want))))
    assert bad.size == 0, [(tuple(i), got[tuple(i)], want[tuple(i)]) for i in bad[:5]]


@pytest.mark.parametrize("arch", ARCHES)
def test_broadcast_kinds_map_to_f16(arch):
    """Every broadcast kind, mixed input types, a transcendental, f16 out."""
    rng = np.random.default_rng(1)
    kinds = ["gmn", "n", "m", "gm", "gn", ""]
    xs = [rng.uniform(-2, 2, kind_shape(k, G, M, N)).astype(t)
          for k, t in zip(kinds, (np.float16, np.float32, np.float32, np.int8, np.float32,
                                  np.float32))]
    xs[3] = rng.integers(-3, 4, (G, M)).astype(np.int8)
    program = ("%0 = mul %e0, %e1; %1 = add %0, %e2; %2 = sub %1, %e3; %3 = sigmoid %2; "
               "%4 = mul %3, %e4; %5 = max %4, %e5")
    got = run_kernel(arch, xs, kinds, program, "f16")
    v = [broadcast(x, k, G, M, N) for x, k in zip(xs, kinds)]
    want = np.maximum(1 / (1 + np.exp(-(v[0] * v[1] + v[2] - v[3]))) * v[4], v[5])
    assert_close(got, want, 2.0 ** -10)


@pytest.mark.parametrize("arch", ARCHES)
def test_integer_chain_is_exact_and_narrows_to_i8(arch):
    """All-integer values compute in i32; the i8 result keeps the low byte (trunci)."""
    rng = np.random.default_rng(2)
    a = rng.integers(-100, 100, (G, M, N)).astype(np.int32)
    b = rng.integers(-128, 128, (N,)).astype(np.int8)
    got = run_kernel(arch, [a, b], ["gmn", "n"], "%0 = mul %e0, %e1; %1 = add %0, 3", "i8")
    want = (a.astype(np.int64) * b + 3).astype(np.int8)   # wraps, as trunci does
    assert (got == want).all(), np.argwhere(got != want)[:5]


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("reduce", ["sum", "max"])
def test_row_reduction(arch, reduce):
    """exp(x - m) folded over N (the softmax's middle kernel), N = 21 and N = 64."""
    rng = np.random.default_rng(3)
    for n in (N, 64):
        x = rng.uniform(-3, 3, (G, M, n)).astype(np.float16)
        mx = rng.uniform(-1, 1, (G, M)).astype(np.float32)
        got = run_kernel(arch, [x, mx], ["gmn", "gm"], "%0 = sub %e0, %e1; %1 = exp %0",
                         "f32", reduce, (G, M, n))
        e = np.exp(x.astype(np.float64) - mx[..., None])
        want = (e.sum(-1) if reduce == "sum" else e.max(-1))[..., None]
        assert_close(got, want, n * 2.0 ** -22 if reduce == "sum" else 2.0 ** -21)


@pytest.mark.parametrize("arch", ARCHES)
def test_integer_max_starts_at_the_smallest_i32(arch):
    a = -np.abs(np.random.default_rng(4).integers(1, 2 ** 30, (G, M, N))).astype(np.int32)
    got = run_kernel(arch, [a], ["gmn"], "", "i32", "max")
    assert (got == a.max(-1, keepdims=True)).all()


# ---- from MIGraphX ------------------------------------------------------------------------
def shaped(dims, elem):
    st, s = [], 1
    for d in reversed(dims):
        st.append(s)
        s *= d
    return f"<{'x'.join(map(str, dims))}x{elem}, {'x'.join(map(str, st[::-1]))}>"


def run_migraphx(text, arch, args, out):
    with new_context():
        module = ir.Module.parse(translate(text.replace("ARCH", arch), "t.mlir"))
        run_pipeline(module, MIGRAPHX_STEPS)
        assert "linalg.generic" not in str(module), "no host-only compute"
        run_host(module, "f", list(args) + [out], arch=arch)
    with new_context():   # every kernel is a code object on the chip, in launch order
        module = ir.Module.parse(translate(text.replace("ARCH", arch), "t.mlir"))
        run_pipeline(module, "accel-from-migraphx")
        return compile_module(module, arch)


def _f(sig, body, result):
    return (f'func.func @f({sig}) -> !migraphx.shaped{result} attributes {{arch = "ARCH"}} {{\n'
            f"{body}\n}}\n")


@pytest.mark.parametrize("arch", ARCHES)
def test_dot_add_reduce_sum(arch):
    """rocMLIR's mixr-dot-add-reduce-sum: the add fuses, reduce_sum is a row kernel."""
    m, k, n = 45, 40, 23
    a_t, b_t, c_t, r_t = (shaped([1, m, k], "f16"), shaped([1, k, n], "f16"),
                          shaped([1, m, n], "f16"), shaped([1, m, 1], "f16"))
    text = _f(f"%a: !migraphx.shaped{a_t}, %b: !migraphx.shaped{b_t}, "
              f"%c: !migraphx.shaped{c_t}",
              f"  %0 = migraphx.dot %a, %b : {a_t}, {b_t} -> {c_t}\n"
              f"  %1 = migraphx.add %0, %c : {c_t}, {c_t} -> {c_t}\n"
              f"  %2 = migraphx.reduce_sum %1 {{axes = [2 : i64]}} : {c_t} -> {r_t}\n"
              f"  return %2 : !migraphx.shaped{r_t}", r_t)
    rng = np.random.default_rng(5)
    a, b, c = (rng.integers(-3, 4, s).astype(np.float16)
               for s in ((1, m, k), (1, k, n), (1, m, n)))
    out = np.full((1, m, 1), np.nan, dtype=np.float16)
    result = run_migraphx(text, arch, [a, b, c], out)
    assert [kk.metadata.get("op", "gemm") for kk in result.kernels] == ["gemm", "reduce"]
    want = (a.astype(np.float64) @ b + c).sum(-1, keepdims=True)   # exact in f16 C
    assert_close(out, want, 2.0 ** -10)


@pytest.mark.parametrize("arch", ARCHES)
def test_softmax_between_dots(arch):
    """Attention's core: dot, scale, softmax over the last axis, dot (three softmax
    kernels between the gemms, in launch order)."""
    g, m, k, n, d = 2, 19, 16, 33, 16
    q_t, kt_t, s_t = shaped([g, m, k], "f16"), shaped([g, k, n], "f16"), shaped([g, m, n], "f16")
    v_t, o_t = shaped([g, n, d], "f16"), shaped([g, m, d], "f16")
    text = _f(f"%q: !migraphx.shaped{q_t}, %kt: !migraphx.shaped{kt_t}, "
              f"%v: !migraphx.shaped{v_t}",
              f"  %0 = migraphx.dot %q, %kt : {q_t}, {kt_t} -> {s_t}\n"
              f"  %1 = migraphx.softmax %0 {{axis = 2 : i64}} : {s_t} -> {s_t}\n"
              f"  %2 = migraphx.dot %1, %v : {s_t}, {v_t} -> {o_t}\n"
              f"  return %2 : !migraphx.shaped{o_t}", o_t)
    rng = np.random.default_rng(6)
    q, kt, v = (rng.uniform(-1, 1, s).astype(np.float16)
                for s in ((g, m, k), (g, k, n), (g, n, d)))
    out = np.full((g, m, d), np.nan, dtype=np.float16)
    result = run_migraphx(text, arch, [q, kt, v], out)
    assert [kk.metadata.get("op", "gemm") for kk in result.kernels] == [
        "gemm", "reduce", "reduce", "elementwise", "gemm"]
    s = (q.astype(np.float64) @ kt).astype(np.float16).astype(np.float64)
    p = np.exp(s - s.max(-1, keepdims=True))
    p = (p / p.sum(-1, keepdims=True)).astype(np.float16).astype(np.float64)
    want = p @ v
    assert_close(out, want, 2.0 ** -9)


@pytest.mark.parametrize("arch", ARCHES)
def test_quantizelinear_then_quant_dot(arch):
    """rocMLIR's mixr-quant-quant-dot-bias: quantizelinear (round half to even, zero
    point, saturation) as a kernel before the i8 gemm; exact."""
    m, k, n = 13, 24, 18
    x_t, q_t, b_t, o_t = (shaped([m, k], "f32"), shaped([m, k], "si8"), shaped([k, n], "si8"),
                          shaped([m, n], "si32"))
    text = _f(f"%x: !migraphx.shaped{x_t}, %s: !migraphx.shaped{x_t}, "
              f"%z: !migraphx.shaped{q_t}, %b: !migraphx.shaped{b_t}",
              f"  %0 = migraphx.quantizelinear %x, %s, %z : {x_t}, {x_t}, {q_t} -> {q_t}\n"
              f"  %1 = migraphx.quant_dot %0, %b : {q_t}, {b_t} -> {o_t}\n"
              f"  return %1 : !migraphx.shaped{o_t}", o_t)
    rng = np.random.default_rng(7)
    s = rng.choice([0.5, 0.25, 2.0], (m, k)).astype(np.float32)
    # Halves (ties, rounded to even), values far past the i8 range (saturation).
    x = (rng.integers(-600, 600, (m, k)) / 4).astype(np.float32) * s
    z = rng.integers(-5, 6, (m, k)).astype(np.int8)
    b = rng.integers(-3, 4, (k, n)).astype(np.int8)
    out = np.full((m, n), -7, dtype=np.int32)
    run_migraphx(text, arch, [x, s, z, b], out)
    qx = np.clip(np.rint(x.astype(np.float64) / s) + z, -128, 127)
    assert (np.abs(x / s - np.trunc(x / s)) == 0.5).any(), "the data holds ties"
    want = qx.astype(np.int64) @ b
    assert (out == want).all(), np.argwhere(out != want)[:5]


@pytest.mark.parametrize("arch", ["gfx942"])
def test_dequantizelinear_after_quant_dot(arch):
    """rocMLIR's attention-first-gemm-i8: an i32 product dequantized by a scalar scale
    (broadcast implicitly) plus a bias, in f32: one kernel after the i8 gemm (the add
    reads the dequantized value only, so both are one op list)."""
    m, k, n = 21, 32, 27
    a_t, b_t, p_t, f_t, s_t = (shaped([1, m, k], "si8"), shaped([1, k, n], "si8"),
                               shaped([1, m, n], "si32"), shaped([1, m, n], "f32"),
                               shaped([1, 1, 1], "f32"))
    text = _f(f"%a: !migraphx.shaped{a_t}, %b: !migraphx.shaped{b_t}, "
              f"%s: !migraphx.shaped{s_t}, %c: !migraphx.shaped{f_t}",
              f"  %0 = migraphx.quant_dot %a, %b : {a_t}, {b_t} -> {p_t}\n"
              f"  %1 = migraphx.dequantizelinear %0, %s : {p_t}, {s_t} -> {f_t}\n"
              f"  %2 = migraphx.add %1, %c : {f_t}, {f_t} -> {f_t}\n"
              f"  return %2 : !migraphx.shaped{f_t}", f_t)
    rng = np.random.default_rng(8)
    a = rng.integers(-100, 100, (1, m, k)).astype(np.int8)
    b = rng.integers(-100, 100, (1, k, n)).astype(np.int8)
    s = np.array([[[0.0625]]], dtype=np.float32)
    c = rng.uniform(-1, 1, (1, m, n)).astype(np.float32)
    out = np.full((1, m, n), np.nan, dtype=np.float32)
    result = run_migraphx(text, arch, [a, b, s, c], out)
    assert [kk.metadata.get("op", "gemm") for kk in result.kernels] == ["gemm", "elementwise"]
    assert result.kernels[1].metadata["program"] == "%0 = mul %e0, %e1; %1 = add %0, %e2"
    want = (a.astype(np.float64) @ b) * 0.0625 + c
    assert_close(out, want, 2.0 ** -23)


def test_unfusable_elementwise_op_is_a_kernel_with_its_reason():
    """An f16 gemm's value converted to i8 (no gemm writes i8): a kernel after it."""
    a_t, b_t, c_t, o_t = (shaped([1, 8, 16], "f16"), shaped([1, 16, 8], "f16"),
                          shaped([1, 8, 8], "f16"), shaped([1, 8, 8], "si8"))
    text = _f(f"%a: !migraphx.shaped{a_t}, %b: !migraphx.shaped{b_t}",
              f"  %0 = migraphx.dot %a, %b : {a_t}, {b_t} -> {c_t}\n"
              f"  %1 = migraphx.convert %0 : {c_t} to {o_t}\n"
              f"  return %1 : !migraphx.shaped{o_t}", o_t)
    rng = np.random.default_rng(9)
    a = rng.integers(-3, 4, (1, 8, 16)).astype(np.float16)
    b = rng.integers(-3, 4, (1, 16, 8)).astype(np.float16)
    out = np.zeros((1, 8, 8), dtype=np.int8)
    result = run_migraphx(text, "gfx1100", [a, b], out)
    assert (out == (a.astype(np.float64) @ b).astype(np.int8)).all()
    assert result.kernels[1].metadata["op"] == "elementwise"
    assert result.kernels[1].metadata["args"][0]["dtype"] == "f16"


@pytest.mark.parametrize("body, message", [
    ("%1 = migraphx.reduce_sum %0 {axes = [1 : i64]} : <1x8x8xf16, 64x8x1> -> "
     "<1x1x8xf16, 8x8x1>", "'migraphx.reduce_sum' over axes [1]: accel reduces over the "
     "last axis only"),
    ("%1 = migraphx.convert %0 : <1x8x8xf16, 64x8x1> to <1x8x8xui8, 64x8x1>",
     "'migraphx.convert' on ui8 values: accel's kernels compute on signed and float values"),
])
def test_what_no_kernel_computes_is_one_diagnostic(body, message):
    out_t = body.rsplit("-> " if "->" in body else "to ", 1)[1]
    text = _f("%a: !migraphx.shaped<1x8x16xf16, 128x16x1>, "
              "%b: !migraphx.shaped<1x16x8xf16, 128x8x1>",
              "  %0 = migraphx.dot %a, %b : <1x8x16xf16, 128x16x1>, <1x16x8xf16, 128x8x1> "
              f"-> <1x8x8xf16, 64x8x1>\n  {body}\n  return %1 : !migraphx.shaped{out_t}",
              out_t)
    with new_context():
        module = ir.Module.parse(translate(text.replace("ARCH", "gfx942"), "t.mlir"))
        with pytest.raises(AccelError, match=message.replace("[", r"\[").replace("]", r"\]")):
            run_pipeline(module, "accel-from-migraphx")


@pytest.mark.parametrize("arch", ARCHES)
def test_wide_epilogue_operand_beside_narrow_c(arch):
    """An i32 operand varying with N beside an f16 C (the kv-cache attention's mask):
    the epilogue loads it as wide as C's stores, so those stay within 128 bits."""
    g, m, n, k = 2, 9, 24, 16
    text = (f"func.func @f(%a: {memref((g, m, k), 'f16')}, %b: {memref((g, k, n), 'f16')}, "
            f"%c: {memref((g, m, n), 'f16')}, %mask: {memref((n,), 'i32')}) {{\n"
            f'  "accel.gemm"(%a, %b, %c, %mask) {{arch = "{arch}", epilogue_operands = ["n"], '
            f'epilogue = "%0 = where %e0, %acc, -1"}} : ({memref((g, m, k), "f16")}, '
            f"{memref((g, k, n), 'f16')}, {memref((g, m, n), 'f16')}, {memref((n,), 'i32')})"
            f" -> ()\n  return\n}}\n")
    rng = np.random.default_rng(10)
    a = rng.integers(-3, 4, (g, m, k)).astype(np.float16)
    b = rng.integers(-3, 4, (g, k, n)).astype(np.float16)
    mask = rng.integers(0, 2, (n,)).astype(np.int32)
    out = np.full((g, m, n), np.nan, dtype=np.float16)
    with new_context():
        module = ir.Module.parse(text)
        run_pipeline(module, MIGRAPHX_STEPS.replace("accel-from-migraphx, ", ""))
        run_host(module, "f", [a, b, out, mask], arch=arch)
    with new_context():
        compile_module(text, arch)
    want = np.where(mask != 0, a.astype(np.float64) @ b, -1)
    assert (out == want).all()


# ---- real MIGraphX IR (the corpus beside the checkout) -------------------------------------
CORPUS_PATH = Path("shared") / "data" / "migraphx_corpus" / "inputs"
CORPUS = next((p / CORPUS_PATH for p in Path(__file__).resolve().parents
               if (p / CORPUS_PATH).is_dir()), None)


def corpus_text(name: str, arch: str) -> str:
    if CORPUS is None:
        pytest.skip("MIGraphX corpus not found beside the checkout")
    text = (CORPUS / name).read_text(encoding="utf-8").replace("##TOKEN_ARCH##", arch)
    return re.sub(r'((?:rock\.)?arch\s*=\s*)""', rf'\1"{arch}"', text)


def run_corpus(name, arch, args, out):
    text = corpus_text(name, arch)
    with new_context():
        module = ir.Module.parse(translate(text, name))
        run_pipeline(module, MIGRAPHX_STEPS.replace("accel-from-migraphx",
                                                    f"accel-from-migraphx{{arch={arch}}}"))
        func = next(op for op in module.body.operations if op.operation.name == "func.func")
        run_host(module, func.attributes["sym_name"].value, list(args) + [out], arch=arch)


@pytest.mark.parametrize("arch", ARCHES)
def test_corpus_kv_cache_attention(arch):
    """AMDMIGraphX's kv_cache_attention_seq_len_mask as MIGraphX dumps it: dot, scale,
    a sequence-length mask (where -inf), softmax spelled out (reduce_max, sub, exp,
    reduce_sum, div), dot, transpose; against numpy."""
    rng = np.random.default_rng(11)
    k = rng.uniform(-1, 1, (1, 2, 8, 4)).astype(np.float16)
    q = rng.uniform(-1, 1, (1, 4, 1, 4)).astype(np.float16)
    v = rng.uniform(-1, 1, (1, 2, 8, 4)).astype(np.float16)
    seq = np.array([4], dtype=np.int32)
    out = np.full((1, 1, 16), np.nan, dtype=np.float16)
    run_corpus("ROCm-AMDMIGraphX__test__gpu__mlir.cpp__kv_cache_attention_seq_len_mask.mlir",
               arch, [k, q, seq, v], out)
    heads = [h // 2 for h in range(4)]                  # two query heads per kv head
    s = np.stack([q[0, h, 0].astype(np.float64) @ k[0, kv].T.astype(np.float64)
                  for h, kv in enumerate(heads)]) * 0.125
    s = np.where(np.arange(8) > seq[0], -np.inf, s)     # positions past the length
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    o = np.stack([p[h] @ v[0, kv].astype(np.float64) for h, kv in enumerate(heads)])
    assert_close(out.reshape(4, 4), o, 2.0 ** -7)


@pytest.mark.parametrize("arch", ARCHES)
def test_corpus_dot_add_reduce_sum_bf16(arch):
    rng = np.random.default_rng(12)
    a, b, c = (rng.integers(-3, 4, s).astype(ml_dtypes.bfloat16)
               for s in ((1, 5, 4), (1, 4, 3), (1, 5, 3)))
    out = np.zeros((1, 5, 1), dtype=ml_dtypes.bfloat16)
    run_corpus("mlir__test__Dialect__MIGraphX__integration__mixr-dot-add-reduce-sum-bf16.e2e.mlir",
               arch, [a, b, c], out)
    want = (a.astype(np.float64) @ b.astype(np.float64) + c).sum(-1, keepdims=True)
    assert (out.astype(np.float64) == want).all(), (out.ravel(), want.ravel())   # exact


def unpack_int4(packed: np.ndarray, signed: bool) -> np.ndarray:
    """MIGraphX's unpack along the last axis: the low nibble first."""
    b = packed.astype(np.int64) & 0xFF
    low, high = b & 15, b >> 4
    if signed:
        low, high = np.where(low > 7, low - 16, low), np.where(high > 7, high - 16, high)
    return np.stack([low, high], axis=-1).reshape(*packed.shape[:-1], 2 * packed.shape[-1])


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("elem", ["si8", "ui8"])
def test_int4_weights_unpacked_and_dequantized(arch, elem):
    """MIGraphX's int4 GEMM (AMDMIGraphX's int4/uint4_unpack_dequantizelinear, rocMLIR's
    mixr-dot-int4): B's int4 pairs unpacked and dequantized by per-element scales and
    zero points of B's byte type (ui8 ones past 127, read unsigned) in one kernel (the
    unpack folded into it), then an f16 dot; N = 38 (even, not a multiple of 4: two
    values, one byte, a thread)."""
    m, k, n = 9, 12, 38
    w_t, u_t = shaped([k, n // 2], elem), shaped([k, n], elem)
    s_t, z_t, a_t, o_t = (shaped([k, n], "f16"), shaped([k, n], elem), shaped([m, k], "f16"),
                          shaped([m, n], "f16"))
    text = _f(f"%a: !migraphx.shaped{a_t}, %w: !migraphx.shaped{w_t}, "
              f"%s: !migraphx.shaped{s_t}, %z: !migraphx.shaped{z_t}",
              f"  %0 = migraphx.unpack %w {{axis = 1 : i64}} : {w_t} -> {u_t}\n"
              f"  %1 = migraphx.dequantizelinear %0, %s, %z : {u_t}, {s_t}, {z_t} -> {s_t}\n"
              f"  %2 = migraphx.dot %a, %1 : {a_t}, {s_t} -> {o_t}\n"
              f"  return %2 : !migraphx.shaped{o_t}", o_t)
    rng = np.random.default_rng(13)
    w = rng.integers(-128, 128, (k, n // 2)).astype(np.int8)
    s = rng.choice([0.25, 0.5, 1.0], (k, n)).astype(np.float16)
    z = (rng.integers(-2, 3, (k, n)) if elem == "si8" else
         rng.integers(120, 140, (k, n))).astype(np.uint8 if elem == "ui8" else np.int8)
    a = rng.integers(-2, 3, (m, k)).astype(np.float16)
    out = np.full((m, n), np.nan, dtype=np.float16)
    result = run_migraphx(text, arch, [a, w, s, z.view(np.int8)], out)
    assert [kk.metadata.get("op", "gemm") for kk in result.kernels] == ["elementwise", "gemm"]
    args = result.kernels[0].metadata["args"]
    assert args[0]["shape"] == [1, k, n // 2] and args[0]["packing"] == (
        "s4" if elem == "si8" else "u4")
    assert args[2].get("packing") == (None if elem == "si8" else "u8")
    b = (unpack_int4(w, elem == "si8") - z.astype(np.float64)) * s
    want = a.astype(np.float64) @ b
    assert_close(out, want, 2.0 ** -10)


def test_same_module_same_bytes():
    """Kernel names and code objects depend on the input only (a digest of what each
    kernel computes, not on order of creation or addresses)."""
    text = corpus_text("ROCm-AMDMIGraphX__test__gpu__mlir.cpp__kv_cache_attention_seq_len_mask"
                       ".mlir", "gfx942")
    results = []
    for _ in range(2):
        with new_context():
            module = ir.Module.parse(translate(text, "kv.mlir"))
            run_pipeline(module, "accel-from-migraphx")
            results.append(compile_module(module, "gfx942"))
    assert [k.code_object for k in results[0].kernels] == [k.code_object
                                                          for k in results[1].kernels]
    assert results[0].metadata() == results[1].metadata()
    assert sum(k.metadata.get("op") in ("elementwise", "reduce")
               for k in results[0].kernels) == 4


@pytest.mark.parametrize("arch", ARCHES)
def test_group_scaled_int4_weights_read_in_place(arch):
    """rocMLIR's mixr-dot-int4-f16-1645 (and migraphx_to_blockwise_gemm_accel), ragged:
    int4 weights dequantized by per-group scales and zero points (each broadcast over a
    group of 4 columns: N of two strides, (9, 1) and (4, 0)), transposed into the dot's
    A. The dequantize kernel reads both broadcasts through index maps of their [32, 9]
    buffers, in place: an elementwise kernel and the gemm, no copy."""
    r, groups, size, n = 32, 9, 4, 21
    c = groups * size
    w_t, q_t = shaped([r, c // 2], "si8"), shaped([r, c], "si8")
    g_t, gz_t = shaped([r, groups, 1], "f16"), shaped([r, groups, 1], "si8")
    bg_t = f"<{r}x{groups}x{size}xf16, {groups}x1x0>"
    bz_t = f"<{r}x{groups}x{size}xsi8, {groups}x1x0>"
    s_t, z_t, d_t = shaped([r, c], "f16"), shaped([r, c], "si8"), shaped([r, c], "f16")
    a_t, b_t, o_t = f"<{c}x{r}xf16, 1x{c}>", shaped([r, n], "f16"), shaped([c, n], "f16")
    text = _f(f"%w: !migraphx.shaped{w_t}, %s: !migraphx.shaped{g_t}, "
              f"%z: !migraphx.shaped{gz_t}, %b: !migraphx.shaped{b_t}",
              f"  %0 = migraphx.unpack %w {{axis = 1 : i64}} : {w_t} -> {q_t}\n"
              f"  %1 = migraphx.multibroadcast %s {{out_lens = [{r}, {groups}, {size}]}} : "
              f"{g_t} -> {bg_t}\n"
              f"  %2 = migraphx.reshape %1 {{dims = [{r}, {c}]}} : {bg_t} -> {s_t}\n"
              f"  %3 = migraphx.multibroadcast %z {{out_lens = [{r}, {groups}, {size}]}} : "
              f"{gz_t} -> {bz_t}\n"
              f"  %4 = migraphx.reshape %3 {{dims = [{r}, {c}]}} : {bz_t} -> {z_t}\n"
              f"  %5 = migraphx.dequantizelinear %0, %2, %4 : {q_t}, {s_t}, !migraphx.shaped{z_t}"
              f" -> {d_t}\n"
              f"  %6 = migraphx.transpose %5 {{permutation = [1, 0]}} : {d_t} -> {a_t}\n"
              f"  %7 = migraphx.dot %6, %b : {a_t}, {b_t} -> {o_t}\n"
              f"  return %7 : !migraphx.shaped{o_t}", o_t)
    rng = np.random.default_rng(16)
    vals = rng.integers(-8, 8, (r, c))
    packed = ((vals[:, 0::2] & 15) | (vals[:, 1::2] << 4)).astype(np.uint8).view(np.int8)
    # Scales of 0.5 or 1 and products of at most 15 * 2 over K = 32: every value a
    # multiple of 0.5 below 1024, exact in f16.
    s = rng.choice([0.5, 1.0], (r, groups, 1)).astype(np.float16)
    z = rng.integers(-4, 4, (r, groups, 1)).astype(np.int8)
    b = rng.integers(-2, 3, (r, n)).astype(np.float16)
    out = np.full((c, n), np.nan, dtype=np.float16)
    with new_context():
        module = ir.Module.parse(translate(text.replace("ARCH", arch), "t.mlir"))
        run_pipeline(module, "accel-from-migraphx")
        assert not collect_ops(module, "accel.copy")
        assert "input_maps" in str(module)
    result = run_migraphx(text, arch, [packed, s, z, b], out)
    assert [k.metadata.get("op", "gemm") for k in result.kernels] == ["elementwise", "gemm"]
    maps = [a.get("index_map") for a in result.kernels[0].metadata["args"]]
    assert maps[0] is None and all(maps[1:3]), maps
    deq = (vals - np.repeat(z[:, :, 0], size, axis=1)) * np.repeat(
        s[:, :, 0].astype(np.float64), size, axis=1)
    assert np.array_equal(out.astype(np.float64), deq.T @ b.astype(np.float64))
