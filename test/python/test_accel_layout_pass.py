"""accel-layout: each rewrite, each chain fold, and the chains it must leave alone.

The perf config below blocks mPB = nPB = 32, kpackPerBlock = 4, kpack = 4 (kPB = 16);
the GEMM is M=64, N=32, K=48, so A is 1x2x3x4x32x4 and B 1x1x3x4x32x4 in the layout.
"""

import ml_dtypes
import numpy as np
import pytest

from accel.bindings import ir, new_context
from accel.diagnostics import AccelError
from accel.dialect.accel_tile import AccelTile, pack
from accel.dialect.gemm import GemmOp
from accel.dialect.ir_helpers import collect_ops
from accel.passes.accel_layout import AccelLayout
from accel.passes.constant_data import dense_to_numpy

PC = "v4:32,32,4,16,16,16,4,1,1,2,0,0,1,1"
TILE = AccelTile(32, 4, 4)
A6, B6 = "1x2x3x4x32x4xf16", "1x1x3x4x32x4xf16"
# memref.transpose [0,1,4,2,3,5] of A6: strides of [1,2,3,4,32,4] are [3072,1536,512,128,4,1].
A6T = "1x2x32x3x4x4xf16, strided<[3072, 1536, 4, 512, 128, 1]>"


def gemm(a, b, c="%c", a_t="memref<1x64x48xf16>", b_t="memref<1x48x32xf16>",
         a_layout="row", b_layout="row", extra=""):
    return (f'"accel.gemm"({a}, {b}, {c}) {{arch = "gfx942", a_layout = "{a_layout}", '
            f'b_layout = "{b_layout}", c_layout = "row", perf_config = "{PC}"{extra}}} : '
            f'({a_t}, {b_t}, memref<1x64x32xf32>) -> ()')


def func(args, body, globals_=""):
    return (f"module {{\n{globals_}\nfunc.func @f({args}, %c: memref<1x64x32xf32>) {{\n"
            f"{body}\nreturn\n}}\n}}")


def run(src, **options):
    with new_context():
        module = ir.Module.parse(src)
        AccelLayout(**options).run(module)
        module.operation.verify()
        return str(module)


def gemm_line(text):
    return next(line for line in text.splitlines() if '"accel.gemm"' in line)


def ops_named(text, name):
    return [line for line in text.splitlines() if name in line]


# ---- folds -------------------------------------------------------------------------------

SEED_A_COPY = f"""
  %t = memref.transpose %a6 (g, db, kb, kq, dp, kk) -> (g, db, dp, kb, kq, kk) : memref<{A6}> to memref<{A6T}>
  %buf = memref.alloc() : memref<1x2x32x3x4x4xf16>
  memref.copy %t, %buf : memref<{A6T}> to memref<1x2x32x3x4x4xf16>
  %a = memref.collapse_shape %buf [[0], [1, 2], [3, 4, 5]] : memref<1x2x32x3x4x4xf16> into memref<1x64x48xf16>
"""

SEED_B_LINALG = f"""
  %bbuf = memref.alloc() : memref<1x1x32x3x4x4xf16>
  linalg.transpose ins(%b6 : memref<{B6}>) outs(%bbuf : memref<1x1x32x3x4x4xf16>) permutation = [0, 1, 4, 2, 3, 5]
  %bnk = memref.collapse_shape %bbuf [[0], [1, 2], [3, 4, 5]] : memref<1x1x32x3x4x4xf16> into memref<1x32x48xf16>
"""


def test_fold_memref_chain_seed_001():
    # Seed 001's graph: transpose [0,1,4,2,3,5] + reshape for A; B gets one more [0,2,1].
    body = SEED_A_COPY + SEED_B_LINALG + """
  %b = memref.alloc() : memref<1x48x32xf16>
  linalg.transpose ins(%bnk : memref<1x32x48xf16>) outs(%b : memref<1x48x32xf16>) permutation = [0, 2, 1]
""" + gemm("%a", "%b") + "\n  memref.dealloc %buf : memref<1x2x32x3x4x4xf16>"
    out = run(func(f"%a6: memref<{A6}>, %b6: memref<{B6}>", body))
    line = gemm_line(out)
    assert '"accel.gemm"(%arg0, %arg1, %arg2)' in line
    assert 'a_layout = "accel"' in line and 'b_layout = "accel"' in line
    # The copies are gone, with their buffers.
    for name in ("memref.alloc", "memref.copy", "linalg.transpose", "collapse_shape",
                 "memref.dealloc"):
        assert not ops_named(out, name), name


def test_fold_b_transposed_without_extra_transpose():
    body = SEED_B_LINALG + gemm("%a", "%bnk", b_t="memref<1x32x48xf16>", b_layout="transposed")
    out = run(func(f"%a: memref<1x64x48xf16>, %b6: memref<{B6}>", body))
    line = gemm_line(out)
    assert '"accel.gemm"(%arg0, %arg1, %arg2)' in line
    assert 'a_layout = "row"' in line and 'b_layout = "accel"' in line


def test_fold_expand_shape_and_reinterpret_cast_variants():
    # The 6-D buffer arrives flat and is expanded; the reshape back is a reinterpret_cast.
    body = f"""
  %a6 = memref.expand_shape %flat [[0, 1, 2, 3, 4, 5]] output_shape [1, 2, 3, 4, 32, 4] : memref<3072xf16> into memref<{A6}>
  %t = memref.reinterpret_cast %a6 to offset: [0], sizes: [1, 2, 32, 3, 4, 4], strides: [3072, 1536, 4, 512, 128, 1] : memref<{A6}> to memref<{A6T}>
  %buf = memref.alloc() : memref<1x2x32x3x4x4xf16>
  memref.copy %t, %buf : memref<{A6T}> to memref<1x2x32x3x4x4xf16>
  %a = memref.reinterpret_cast %buf to offset: [0], sizes: [1, 64, 48], strides: [3072, 48, 1] : memref<1x2x32x3x4x4xf16> to memref<1x64x48xf16>
""" + gemm("%a", "%b")
    out = run(func("%flat: memref<3072xf16>, %b: memref<1x48x32xf16>", body))
    line = gemm_line(out)
    assert '"accel.gemm"(%expand_shape, %arg1, %arg2)' in line and 'a_layout = "accel"' in line
    assert not ops_named(out, "memref.copy") and not ops_named(out, "memref.alloc")


def test_fold_tensor_chain():
    body = f"""
  %e = tensor.empty() : tensor<1x2x32x3x4x4xf16>
  %t = linalg.transpose ins(%a6 : tensor<{A6}>) outs(%e : tensor<1x2x32x3x4x4xf16>) permutation = [0, 1, 4, 2, 3, 5]
  %r = tensor.collapse_shape %t [[0], [1, 2], [3, 4, 5]] : tensor<1x2x32x3x4x4xf16> into tensor<1x64x48xf16>
  %a = bufferization.to_buffer %r : tensor<1x64x48xf16> to memref<1x64x48xf16>
  %eb = tensor.empty() : tensor<1x1x32x3x4x4xf16>
  %tb = linalg.transpose ins(%b6 : tensor<{B6}>) outs(%eb : tensor<1x1x32x3x4x4xf16>) permutation = [0, 1, 4, 2, 3, 5]
  %shape = arith.constant dense<[1, 32, 48]> : tensor<3xi64>
  %rb = tensor.reshape %tb(%shape) : (tensor<1x1x32x3x4x4xf16>, tensor<3xi64>) -> tensor<1x32x48xf16>
  %eb2 = tensor.empty() : tensor<1x48x32xf16>
  %tb2 = linalg.transpose ins(%rb : tensor<1x32x48xf16>) outs(%eb2 : tensor<1x48x32xf16>) permutation = [0, 2, 1]
  %b = bufferization.to_buffer %tb2 : tensor<1x48x32xf16> to memref<1x48x32xf16>
""" + gemm("%a", "%b")
    out = run(func(f"%a6: tensor<{A6}>, %b6: tensor<{B6}>", body))
    line = gemm_line(out)
    assert 'a_layout = "accel"' in line and 'b_layout = "accel"' in line
    assert f"(memref<{A6}>, memref<{B6}>, memref<1x64x32xf32>)" in line
    buffers = ops_named(out, "bufferization.to_buffer")
    assert len(buffers) == 2 and all("%arg" in b for b in buffers)
    assert not ops_named(out, "linalg.transpose") and not ops_named(out, "tensor.")


# ---- chains left alone -------------------------------------------------------------------

def test_wrong_permutation_is_not_folded():
    # [0,1,4,3,2,5] gives the same 1x64x48 shape but a different element order.
    body = f"""
  %buf = memref.alloc() : memref<1x2x32x4x3x4xf16>
  linalg.transpose ins(%a6 : memref<{A6}>) outs(%buf : memref<1x2x32x4x3x4xf16>) permutation = [0, 1, 4, 3, 2, 5]
  %a = memref.collapse_shape %buf [[0], [1, 2], [3, 4, 5]] : memref<1x2x32x4x3x4xf16> into memref<1x64x48xf16>
""" + gemm("%a", "%b")
    src = func(f"%a6: memref<{A6}>, %b: memref<1x48x32xf16>", body)
    out = run(src)
    assert 'a_layout = "row"' in gemm_line(out) and ops_named(out, "linalg.transpose")
    # Forced, the operand is packed at run time from the chain's result instead.
    forced = run(src, a="accel")
    assert '"accel.pack"(%collapse_shape, %alloc_0)' in forced
    assert 'a_layout = "accel"' in gemm_line(forced)


def test_mismatched_block_size_is_not_folded():
    # The chain blocks M by 16, the perf config by 32.
    body = """
  %buf = memref.alloc() : memref<1x4x16x3x4x4xf16>
  linalg.transpose ins(%a6 : memref<1x4x3x4x16x4xf16>) outs(%buf : memref<1x4x16x3x4x4xf16>) permutation = [0, 1, 4, 2, 3, 5]
  %a = memref.collapse_shape %buf [[0], [1, 2], [3, 4, 5]] : memref<1x4x16x3x4x4xf16> into memref<1x64x48xf16>
""" + gemm("%a", "%b")
    out = run(func("%a6: memref<1x4x3x4x16x4xf16>, %b: memref<1x48x32xf16>", body))
    assert 'a_layout = "row"' in gemm_line(out) and ops_named(out, "linalg.transpose")


def test_copy_after_the_gemm_is_not_followed():
    body = """
  %buf = memref.alloc() : memref<1x2x32x3x4x4xf16>
  %a = memref.collapse_shape %buf [[0], [1, 2], [3, 4, 5]] : memref<1x2x32x3x4x4xf16> into memref<1x64x48xf16>
""" + gemm("%a", "%b") + f"""
  linalg.transpose ins(%a6 : memref<{A6}>) outs(%buf : memref<1x2x32x3x4x4xf16>) permutation = [0, 1, 4, 2, 3, 5]
"""
    out = run(func(f"%a6: memref<{A6}>, %b: memref<1x48x32xf16>", body))
    assert 'a_layout = "row"' in gemm_line(out)


# ---- constants -------------------------------------------------------------------------

def _global_value(text, name):
    with new_context():
        module = ir.Module.parse(text)
        table = ir.SymbolTable(module.operation)
        return dense_to_numpy(table[name].attributes["initial_value"])


@pytest.mark.parametrize("dtype,mlir", [(np.float16, "f16"), (ml_dtypes.bfloat16, "bf16"),
                                        (np.int8, "i8")])
def test_constant_weight_is_packed_at_compile_time(dtype, mlir):
    # B row [1, K=40, N=20]: ragged against kPB=16 and nPB=32.
    w = (np.arange(800) % 97 - 40).astype(dtype).reshape(1, 40, 20)
    suffix = "" if mlir == "i8" else ".0"
    rows = ("[" + ", ".join(f"{v}{suffix}" for v in row) + "]" for row in w[0].astype(np.int64))
    dense = "[" + ", ".join(rows) + "]"
    acc = "i32" if mlir == "i8" else "f32"
    src = f"""module {{
  memref.global "private" constant @w : memref<40x20x{mlir}> = dense<{dense}> {{alignment = 64 : i64}}
  func.func @f(%a: memref<1x64x40x{mlir}>, %c: memref<1x64x20x{acc}>) {{
    %w2 = memref.get_global @w : memref<40x20x{mlir}>
    %w = memref.expand_shape %w2 [[0, 1], [2]] output_shape [1, 40, 20] : memref<40x20x{mlir}> into memref<1x40x20x{mlir}>
    "accel.gemm"(%a, %w, %c) {{arch = "gfx942", a_layout = "row", b_layout = "row", c_layout = "row", perf_config = "{PC}"}} : (memref<1x64x40x{mlir}>, memref<1x40x20x{mlir}>, memref<1x64x20x{acc}>) -> ()
    return
  }}
}}"""
    out = run(src)
    line = gemm_line(out)
    assert 'b_layout = "accel"' in line and 'a_layout = "row"' in line
    assert f"memref.get_global @w_accel : memref<1x1x3x4x32x4x{mlir}>" in out
    assert "@w :" not in out  # the plain global is no longer used
    assert "alignment = 64" in out
    packed = _global_value(out, "w_accel")
    assert np.array_equal(packed.view(np.uint8), pack(w, TILE, transposed=True).view(np.uint8))


def test_tensor_constant_is_packed():
    src = func("%b: memref<1x48x32xf16>", """
  %cst = arith.constant dense<2.0> : tensor<1x64x48xf16>
  %a = bufferization.to_buffer %cst : tensor<1x64x48xf16> to memref<1x64x48xf16>
""" + gemm("%a", "%b"))
    out = run(src)
    assert 'a_layout = "accel"' in gemm_line(out)
    assert "memref.get_global @accel_weight_accel : memref<1x2x3x4x32x4xf16>" in out
    assert not ops_named(out, "arith.constant")
    packed = _global_value(out, "accel_weight_accel")
    assert np.array_equal(packed, pack(np.full((1, 64, 48), 2.0, np.float16), TILE))


def test_mutable_global_is_a_runtime_operand():
    src = func("%b: memref<1x48x32xf16>", '  %a = memref.get_global @w : memref<1x64x48xf16>\n'
               + gemm("%a", "%b"),
               globals_='memref.global "private" @w : memref<1x64x48xf16> = dense<1.0>')
    assert 'a_layout = "row"' in gemm_line(run(src))


# ---- run-time packs and C ----------------------------------------------------------------

def test_forced_runtime_pack_of_transposed_operands():
    # A transposed [G,K,M] and B row [G,K,N] both have K in front: pack transposed.
    body = gemm("%a", "%b", a_t="memref<1x48x64xf16>", a_layout="transposed")
    out = run(func("%a: memref<1x48x64xf16>, %b: memref<1x48x32xf16>", body), a="accel", b="accel")
    packs = ops_named(out, '"accel.pack"')
    assert len(packs) == 2 and all("transposed = true" in p for p in packs)
    assert f"memref.alloc() : memref<{A6}>" in out and f"memref.alloc() : memref<{B6}>" in out
    assert len(ops_named(out, "memref.dealloc")) == 2
    line = gemm_line(out)
    assert 'a_layout = "accel"' in line and 'b_layout = "accel"' in line


def test_auto_leaves_runtime_operands_plain():
    src = func("%a: memref<1x64x48xf16>, %b: memref<1x48x32xf16>", gemm("%a", "%b"))
    assert gemm_line(run(src)) == gemm_line(run(src, a="row", b="row"))
    assert 'a_layout = "row"' in gemm_line(run(src))


@pytest.mark.parametrize("accumulate", [False, True])
def test_c_in_accel_layout(accumulate):
    extra = ", accumulate" if accumulate else ""
    src = func("%a: memref<1x64x48xf16>, %b: memref<1x48x32xf16>",
               gemm("%a", "%b", extra=extra))
    out = run(src, c="accel")
    lines = [ln.strip() for ln in out.splitlines()]
    start = next(i for i, ln in enumerate(lines) if "memref.alloc" in ln)
    expected = ["memref.alloc() : memref<1x2x2x4x32x4xf32>"]
    if accumulate:
        expected.append('"accel.pack"(%arg2, %alloc)')
    expected += ['"accel.gemm"(%arg0, %arg1, %alloc)', '"accel.unpack"(%alloc, %arg2)',
                 "memref.dealloc %alloc"]
    for want, got in zip(expected, lines[start:]):
        assert want in got
    assert 'c_layout = "accel"' in gemm_line(out)


# ---- errors ------------------------------------------------------------------------------

def test_missing_perf_config_is_an_error_at_the_op():
    src = func("%a: memref<1x64x48xf16>, %b: memref<1x48x32xf16>",
               gemm("%a", "%b").replace(f', perf_config = "{PC}"', ""))
    with pytest.raises(AccelError, match="needs a perf_config") as err:
        run(src)
    assert err.value.file_line_col() is not None


def test_changing_plain_layout_is_an_error():
    src = func("%a: memref<1x64x48xf16>, %b: memref<1x48x32xf16>", gemm("%a", "%b"))
    with pytest.raises(AccelError, match="cannot turn A from 'row' into 'transposed'"):
        run(src, a="transposed")


@pytest.mark.parametrize("text", ["dense<[[1.5, -2.0], [0.25, 3.0]]> : tensor<2x2xbf16>",
                                  "dense<1.5> : tensor<2x2xbf16>"])
def test_bf16_constants_are_read_exactly(text):
    with new_context():
        value = dense_to_numpy(ir.Attribute.parse(text))
    want = [[1.5, -2.0], [0.25, 3.0]] if "[" in text else [[1.5, 1.5], [1.5, 1.5]]
    assert value.dtype == ml_dtypes.bfloat16 and np.array_equal(value.astype(np.float32), want)


@pytest.mark.parametrize("c_shape,error", [
    ("1x3x4x4x32x4", None),                               # M=77 -> 96, N=50 -> 64
    ("1x2x4x4x32x4", "C accel layout holds M padded to 64"),
    ("1x5x4x4x16x4", "disagrees with perf config"),
])
def test_gemm_verifier_accepts_c_in_accel_layout(c_shape, error):
    text = (f'func.func @f(%a: memref<1x77x40xf16>, %b: memref<1x40x50xf16>, '
            f'%c: memref<{c_shape}xf32>) {{\n"accel.gemm"(%a, %b, %c) {{arch = "gfx942", '
            f'a_layout = "row", b_layout = "row", c_layout = "accel", perf_config = "{PC}"}} : '
            f'(memref<1x77x40xf16>, memref<1x40x50xf16>, memref<{c_shape}xf32>) -> ()\nreturn\n}}')
    with new_context():
        module = ir.Module.parse(text)
        gemm = GemmOp(collect_ops(module, "accel.gemm")[0])
        if error is None:
            gemm.verify()
            assert (gemm.shape().m, gemm.shape().n) == (77, 50)
        else:
            with pytest.raises(AccelError, match=error):
                gemm.verify()
