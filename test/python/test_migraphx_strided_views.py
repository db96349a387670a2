"""MIGraphX view ops (slice, transpose, broadcast / multibroadcast) feeding a dot or its
epilogue are read in place by the gemm kernel as strided views (with no stride-1 side,
or K of two digits, too): no accel.copy, one kernel launch, exact against numpy in the
simulator on every chip. A view the gemm
cannot read (an unaligned slice) is still copied, and the copy says why."""

from __future__ import annotations

import numpy as np
import pytest

from accel.bindings import ir, new_context
from accel.check import OUT_EPS, compare, random_operand, reference
from accel.dialect.copy import CopyOp
from accel.dialect.ir_helpers import collect_ops
from accel.migraphx import translate
from accel.pipelines.textual import run_pipeline
from accel.sim import run_host

ARCHES = ("gfx942", "gfx1100", "gfx1201")
FRONT = "accel-from-migraphx"
REST = ("accel-affix-perf-config, accel-layout, accel-lower-pack, accel-plan-kernel, "
        "accel-gemm-to-gpu, accel-copy-to-gpu")


def lower(text: str, arch: str) -> tuple[ir.Module, str]:
    """(the compiled module, the text accel-from-migraphx made)."""
    module = ir.Module.parse(translate(text.replace("##ARCH##", arch), "input.mlir"))
    run_pipeline(module, FRONT)
    converted = str(module)
    run_pipeline(module, REST)
    return module, converted


def kernels(module) -> list[str]:
    return [str(op.attributes["kernel"]) for op in collect_ops(module, "gpu.launch_func")]


def check_plus(out, product, tol, x, t: str) -> None:
    """`out` elementwise against `product` + `x` (a fused add), the bound widened by the
    rounding of the sum to `t`."""
    ref = product + x.astype(np.float64)
    result = compare(out, ref, tol + OUT_EPS[t] * np.abs(ref) + 2.0**-24)
    assert result.ok, result.describe(out, ref)


# mixr-slice-dot's pattern, smaller: Q and K are column blocks of one [S, 3 * H * D]
# buffer, split into H heads by reshape + transpose; K's block starts at column H * D.
HEADS = """
func.func @heads(%qkv: !migraphx.shaped<1x40x192xf16, 7680x192x1>) -> !migraphx.shaped<1x4x40x40xf32, 6400x1600x40x1> attributes {rock.arch = "##ARCH##"} {
  %q = migraphx.slice %qkv {axes = [2], starts = [0], ends = [64]} : <1x40x192xf16, 7680x192x1> -> <1x40x64xf16, 7680x192x1>
  %k = migraphx.slice %qkv {axes = [2], starts = [64], ends = [128]} : <1x40x192xf16, 7680x192x1> -> <1x40x64xf16, 7680x192x1>
  %qr = migraphx.reshape %q {dims = [1, 40, 4, 16]} : <1x40x64xf16, 7680x192x1> -> <1x40x4x16xf16, 7680x192x16x1>
  %kr = migraphx.reshape %k {dims = [1, 40, 4, 16]} : <1x40x64xf16, 7680x192x1> -> <1x40x4x16xf16, 7680x192x16x1>
  %qt = migraphx.transpose %qr {permutation = [0, 2, 1, 3]} : <1x40x4x16xf16, 7680x192x16x1> -> <1x4x40x16xf16, 7680x16x192x1>
  %kt = migraphx.transpose %kr {permutation = [0, 2, 3, 1]} : <1x40x4x16xf16, 7680x192x16x1> -> <1x4x16x40xf16, 7680x16x1x192>
  %0 = migraphx.dot %qt, %kt : <1x4x40x16xf16, 7680x16x192x1>, <1x4x16x40xf16, 7680x16x1x192> -> <1x4x40x40xf32, 6400x1600x40x1>
  return %0 : !migraphx.shaped<1x4x40x40xf32, 6400x1600x40x1>
}
"""


@pytest.mark.parametrize("arch", ARCHES)
def test_head_split_slices_are_read_in_place(arch):
    rng = np.random.default_rng(1)
    with new_context():
        module, converted = lower(HEADS, arch)
        assert "accel.copy" not in converted
        assert converted.count("memref.reinterpret_cast") == 2
        assert "strided<[16, 192, 1], offset: 64>" in converted   # K: B transposed
        assert kernels(module) == [k for k in kernels(module) if "accel_gemm" in k]
        qkv = random_operand(rng, "f16", (1, 40, 192))
        out = np.full((1, 4, 40, 40), np.nan, dtype=np.float32)
        run_host(module, "heads", [qkv, out], arch=arch)
    q = qkv[0, :, :64].reshape(40, 4, 16).transpose(1, 0, 2)
    k = qkv[0, :, 64:128].reshape(40, 4, 16).transpose(1, 2, 0)
    ref, tol = reference(np.ascontiguousarray(q), np.ascontiguousarray(k), "f16", "f32")
    result = compare(out[0], ref, tol)
    assert result.ok, result.describe(out[0], ref)


# rocMLIR's gemm-layouts sliced-k / broadcasted-b: A's K is a slice of wider rows, B
# one [K, N] matrix for both batches, and the add's operand one [M, N] matrix for both
# batches (multibroadcast, batch stride 0), fused into the gemm's epilogue.
BROADCASTS = """
func.func @bcast(%a: !migraphx.shaped<2x24x48xf16, 1152x48x1>, %b: !migraphx.shaped<32x40xf16, 40x1>, %x: !migraphx.shaped<24x40xf16, 40x1>) -> !migraphx.shaped<2x24x40xf16, 960x40x1> attributes {rock.arch = "##ARCH##"} {
  %as = migraphx.slice %a {axes = [2], starts = [8], ends = [40]} : <2x24x48xf16, 1152x48x1> -> <2x24x32xf16, 1152x48x1>
  %bb = migraphx.multibroadcast %b {out_lens = [2, 32, 40]} : <32x40xf16, 40x1> -> <2x32x40xf16, 0x40x1>
  %xb = migraphx.multibroadcast %x {out_lens = [2, 24, 40]} : <24x40xf16, 40x1> -> <2x24x40xf16, 0x40x1>
  %0 = migraphx.dot %as, %bb : <2x24x32xf16, 1152x48x1>, <2x32x40xf16, 0x40x1> -> <2x24x40xf16, 960x40x1>
  %1 = migraphx.add %0, %xb : <2x24x40xf16, 960x40x1>, <2x24x40xf16, 0x40x1> -> <2x24x40xf16, 960x40x1>
  return %1 : !migraphx.shaped<2x24x40xf16, 960x40x1>
}
"""


@pytest.mark.parametrize("arch", ARCHES)
def test_slice_and_broadcasts_are_read_in_place(arch):
    rng = np.random.default_rng(2)
    with new_context():
        module, converted = lower(BROADCASTS, arch)
        assert "accel.copy" not in converted
        assert "strided<[0, 40, 1]>" in converted     # B and the epilogue operand
        (launch,) = kernels(module)
        assert "_ep_add_" in launch
        a = random_operand(rng, "f16", (2, 24, 48))
        b = random_operand(rng, "f16", (32, 40))
        x = random_operand(rng, "f16", (24, 40))
        out = np.full((2, 24, 40), np.nan, dtype=np.float16)
        run_host(module, "bcast", [a, b, x, out], arch=arch)
    ref, tol = reference(np.ascontiguousarray(a[:, :, 8:40]), np.stack([b, b]), "f16", "f32")
    ref = ref + x.astype(np.float64)
    tol = tol + OUT_EPS["f16"] * np.abs(ref) + 2.0**-24
    result = compare(out, ref, tol)
    assert result.ok, result.describe(out, ref)


UNALIGNED = """
func.func @unaligned(%a: !migraphx.shaped<1x16x40xf16, 640x40x1>, %b: !migraphx.shaped<1x32x16xf16, 512x16x1>) -> !migraphx.shaped<1x16x16xf32, 256x16x1> attributes {rock.arch = "gfx942"} {
  %as = migraphx.slice %a {axes = [2], starts = [3], ends = [35]} : <1x16x40xf16, 640x40x1> -> <1x16x32xf16, 640x40x1>
  %0 = migraphx.dot %as, %b : <1x16x32xf16, 640x40x1>, <1x32x16xf16, 512x16x1> -> <1x16x16xf32, 256x16x1>
  return %0 : !migraphx.shaped<1x16x16xf32, 256x16x1>
}
"""


def test_unaligned_slice_is_copied_with_its_reason():
    """Columns 3..35: an offset of 6 bytes, no 16-byte multiple; the copy names it."""
    with new_context():
        module = ir.Module.parse(translate(UNALIGNED, "input.mlir"))
        run_pipeline(module, FRONT)
        (copy,) = [CopyOp(op) for op in collect_ops(module, "accel.copy")]
        assert copy.reason == ("a dot operand A with offset or strides not multiples of "
                               "16 bytes")
        assert "memref.reinterpret_cast" not in str(module)


# rocMLIR's batch-first-e2e, smaller and ragged: the batch innermost in memory (stride
# 1), so A (a slice along K of [2, 24, 37]) and B have no stride-1 side; each is read
# in place an element per load (K-innermost: A row, B transposed), not copied.
BATCH_FIRST = """
func.func @bf(%a: !migraphx.shaped<2x24x37xf16, 1x2x48>, %b: !migraphx.shaped<2x29x12xf16, 1x2x58>) -> !migraphx.shaped<2x37x29xf16, 1073x29x1> attributes {rock.arch = "##ARCH##"} {
  %as = migraphx.slice %a {axes = [1], starts = [0], ends = [12]} : <2x24x37xf16, 1x2x48> -> <2x12x37xf16, 1x2x48>
  %at = migraphx.transpose %as {permutation = [0, 2, 1]} : <2x12x37xf16, 1x2x48> -> <2x37x12xf16, 1x48x2>
  %bt = migraphx.transpose %b {permutation = [0, 2, 1]} : <2x29x12xf16, 1x2x58> -> <2x12x29xf16, 1x58x2>
  %0 = migraphx.dot %at, %bt : <2x37x12xf16, 1x48x2>, <2x12x29xf16, 1x58x2> -> <2x37x29xf16, 1073x29x1>
  return %0 : !migraphx.shaped<2x37x29xf16, 1073x29x1>
}
"""


@pytest.mark.parametrize("arch", ARCHES)
def test_batch_first_operands_are_read_in_place(arch):
    rng = np.random.default_rng(3)
    with new_context():
        module, converted = lower(BATCH_FIRST, arch)
        assert "accel.copy" not in converted
        assert "strided<[1, 48, 2]>" in converted and "strided<[1, 2, 58]>" in converted
        (launch,) = kernels(module)
        assert "accel_gemm" in launch
        a = random_operand(rng, "f16", (37, 24, 2))     # the buffers in memory order
        b = random_operand(rng, "f16", (12, 29, 2))
        out = np.full((2, 37, 29), np.nan, dtype=np.float16)
        run_host(module, "bf", [a, b, out], arch=arch)
    a_logical = a.transpose(2, 0, 1)[:, :, :12]          # [G, M, K]
    b_logical = b.transpose(2, 0, 1)                     # [G, K, N]
    ref, tol = reference(np.ascontiguousarray(a_logical), np.ascontiguousarray(b_logical),
                         "f16", "f32")
    tol = tol + OUT_EPS["f16"] * np.abs(ref) + 2.0**-24
    result = compare(out, ref, tol)
    assert result.ok, result.describe(out, ref)


# mixr-gemm-input-bcast's A, with G > 1 and ragged: one value per batch multibroadcast to
# [G, M, K] (strides 1, 0, 0), read in place an element per load; the add fused.
SCALAR_A = """
func.func @sa(%s: !migraphx.shaped<3x1x1x##T##, 1x1x1>, %b: !migraphx.shaped<3x24x35x##T##, 840x35x1>, %x: !migraphx.shaped<3x21x35x##T##, 735x35x1>) -> !migraphx.shaped<3x21x35x##T##, 735x35x1> attributes {rock.arch = "##ARCH##"} {
  %a = migraphx.multibroadcast %s {out_lens = [3, 21, 24]} : <3x1x1x##T##, 1x1x1> -> <3x21x24x##T##, 1x0x0>
  %0 = migraphx.dot %a, %b : <3x21x24x##T##, 1x0x0>, <3x24x35x##T##, 840x35x1> -> <3x21x35x##T##, 735x35x1>
  %1 = migraphx.add %0, %x : <3x21x35x##T##, 735x35x1>, <3x21x35x##T##, 735x35x1> -> <3x21x35x##T##, 735x35x1>
  return %1 : !migraphx.shaped<3x21x35x##T##, 735x35x1>
}
"""


@pytest.mark.parametrize("arch,t", [(a, "f16") for a in ARCHES] + [("gfx942", "f32")])
def test_broadcast_scalar_operand_is_read_in_place(arch, t):
    rng = np.random.default_rng(4)
    with new_context():
        module, converted = lower(SCALAR_A.replace("##T##", t), arch)
        assert "accel.copy" not in converted
        assert "strided<[1, 0, 0]>" in converted
        (launch,) = kernels(module)
        assert "_ep_add_" in launch
        s = random_operand(rng, t, (3, 1, 1))
        b = random_operand(rng, t, (3, 24, 35))
        x = random_operand(rng, t, (3, 21, 35))
        out = np.full((3, 21, 35), np.nan, dtype=s.dtype)
        run_host(module, "sa", [s, b, x, out], arch=arch)
    a = np.ascontiguousarray(np.broadcast_to(s, (3, 21, 24)))
    ref, tol = reference(a, b, t, "f32")
    check_plus(out, ref, tol, x, t)


# mixr-tp-reshape-dot-add, smaller and ragged: heads [1, H, S, D] transposed to
# [1, S, H, D] and reshaped to [1, S, H * D]: K = H heads of stride S * D times D of
# stride 1, M = S of stride D. A is read in place as [1, S, H, D] (K of two digits),
# its loads vectors inside a head's D.
TP_RESHAPE = """
func.func @tp(%x: !migraphx.shaped<1x37x48x##T##, 1776x48x1>, %h: !migraphx.shaped<1x3x37x16x##T##, 1776x592x16x1>, %w: !migraphx.shaped<1x48x48x##T##, 2304x48x1>) -> !migraphx.shaped<1x37x48x##T##, 1776x48x1> attributes {rock.arch = "##ARCH##"} {
  %t = migraphx.transpose %h {permutation = [0, 2, 1, 3]} : <1x3x37x16x##T##, 1776x592x16x1> -> <1x37x3x16x##T##, 1776x16x592x1>
  %a = migraphx.reshape %t {dims = [1, 37, 48]} : <1x37x3x16x##T##, 1776x16x592x1> -> <1x37x48x##T##, 1776x48x1>
  %0 = migraphx.dot %a, %w : <1x37x48x##T##, 1776x48x1>, <1x48x48x##T##, 2304x48x1> -> <1x37x48x##T##, 1776x48x1>
  %1 = migraphx.add %0, %x : <1x37x48x##T##, 1776x48x1>, <1x37x48x##T##, 1776x48x1> -> <1x37x48x##T##, 1776x48x1>
  return %1 : !migraphx.shaped<1x37x48x##T##, 1776x48x1>
}
"""


@pytest.mark.parametrize("arch,t", [(a, "f16") for a in ARCHES] + [("gfx942", "f32")])
def test_heads_merged_into_k_are_read_in_place(arch, t):
    rng = np.random.default_rng(5)
    with new_context():
        module, converted = lower(TP_RESHAPE.replace("##T##", t), arch)
        assert "accel.copy" not in converted
        assert f"memref<1x37x3x16x{t}, strided<[1776, 16, 592, 1]>>" in converted
        (launch,) = kernels(module)
        assert "_ep_add_" in launch
        x = random_operand(rng, t, (1, 37, 48))
        h = random_operand(rng, t, (1, 3, 37, 16))
        w = random_operand(rng, t, (1, 48, 48))
        out = np.full((1, 37, 48), np.nan, dtype=x.dtype)
        run_host(module, "tp", [x, h, w, out], arch=arch)
    a = np.ascontiguousarray(h.transpose(0, 2, 1, 3).reshape(1, 37, 48))
    ref, tol = reference(a, w, t, "f32")
    check_plus(out, ref, tol, x, t)
