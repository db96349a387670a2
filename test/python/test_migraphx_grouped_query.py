"""Grouped-query attention's dot (B's batch repeats each key/value head over a group of
query heads: batch digits (G0, s) (G1, 0)) is one gemm of batch G0 and M' = G1 * M,
B read in place: no accel.copy, exact against numpy in the simulator on every chip.
When A's heads do not follow its rows, no such gemm exists and B is copied as before."""

from __future__ import annotations

import numpy as np
import pytest

from accel.bindings import ir, new_context
from accel.check import compare, random_operand, reference
from accel.dialect.copy import CopyOp
from accel.dialect.ir_helpers import collect_ops
from accel.sim import run_host

from test_migraphx_strided_views import ARCHES, lower

G0, G1, M, N, K, CACHE = 2, 3, 5, 40, 24, 48

# Q: 6 query heads of 5 rows; the keys: rows 0..40 of a 48-row cache per kv head (a
# slice: batch stride 48 * 24, not 40 * 24), each kv head shared by 3 query heads.
GQA = """
func.func @gqa(%q: !migraphx.shaped<1x6x5x24xf16, 720x120x24x1>, %kv: !migraphx.shaped<1x2x48x24xf16, 2304x1152x24x1>) -> !migraphx.shaped<1x6x5x40xf32, 1200x200x40x1> attributes {rock.arch = "##ARCH##"} {
  %ks = migraphx.slice %kv {axes = [2], starts = [0], ends = [40]} : <1x2x48x24xf16, 2304x1152x24x1> -> <1x2x40x24xf16, 2304x1152x24x1>
  %kr = migraphx.reshape %ks {dims = [1, 2, 1, 40, 24]} : <1x2x40x24xf16, 2304x1152x24x1> -> <1x2x1x40x24xf16, 2304x1152x1152x24x1>
  %kb = migraphx.multibroadcast %kr {out_lens = [1, 2, 3, 40, 24]} : <1x2x1x40x24xf16, 2304x1152x1152x24x1> -> <1x2x3x40x24xf16, 2304x1152x0x24x1>
  %k = migraphx.reshape %kb {dims = [1, 6, 40, 24]} : <1x2x3x40x24xf16, 2304x1152x0x24x1> -> <1x6x40x24xf16, 6912x1152x24x1>
  %kt = migraphx.transpose %k {permutation = [0, 1, 3, 2]} : <1x6x40x24xf16, 6912x1152x24x1> -> <1x6x24x40xf16, 6912x1152x1x24>
  %0 = migraphx.dot ##A##, %kt : <1x6x5x24xf16, ##ASTRIDES##>, <1x6x24x40xf16, 6912x1152x1x24> -> <1x6x5x40xf32, 1200x200x40x1>
  return %0 : !migraphx.shaped<1x6x5x40xf32, 1200x200x40x1>
}
"""
# Query heads whose rows follow each other: [1, 6, 5, 24] packed.
HEADS_OUTER = GQA.replace("##A##", "%q").replace("##ASTRIDES##", "720x120x24x1")
# Query heads interleaved with the rows ([1, 5, 6, 24] transposed): head h's rows are
# 6 * 24 apart, not after head h - 1's, so G1 and M do not merge.
HEADS_INNER = GQA.replace(
    "%q: !migraphx.shaped<1x6x5x24xf16, 720x120x24x1>",
    "%q: !migraphx.shaped<1x5x6x24xf16, 720x144x24x1>").replace(
    "##A##", "%qt").replace("##ASTRIDES##", "720x24x144x1").replace(
    "  %0 = ", "  %qt = migraphx.transpose %q {permutation = [0, 2, 1, 3]} : "
               "<1x5x6x24xf16, 720x144x24x1> -> <1x6x5x24xf16, 720x24x144x1>\n  %0 = ")

# With an epilogue: a scalar scale (as it is) and a full-shape add (its packed
# [G, M, N] buffer reshaped to the gemm's [G0, G1 * M, N] like C).
FUSED = HEADS_OUTER.replace(
    "%kv: !migraphx.shaped<1x2x48x24xf16, 2304x1152x24x1>)",
    "%kv: !migraphx.shaped<1x2x48x24xf16, 2304x1152x24x1>, %s: !migraphx.shaped<1xf32, 1>, "
    "%x: !migraphx.shaped<1x6x5x40xf32, 1200x200x40x1>)").replace(
    "  return %0 :", "  %sb = migraphx.multibroadcast %s {out_lens = [1, 6, 5, 40]} : "
    "<1xf32, 1> -> <1x6x5x40xf32, 0x0x0x0>\n"
    "  %1 = migraphx.mul %0, %sb : <1x6x5x40xf32, 1200x200x40x1>, <1x6x5x40xf32, 0x0x0x0> "
    "-> <1x6x5x40xf32, 1200x200x40x1>\n"
    "  %2 = migraphx.add %1, %x : <1x6x5x40xf32, 1200x200x40x1>, "
    "<1x6x5x40xf32, 1200x200x40x1> -> <1x6x5x40xf32, 1200x200x40x1>\n"
    "  return %2 :")
# A decode step: one query row per head (M = 1); the scale, broadcast over M = 1 too,
# is then an [M] operand, one value, a scalar of the grouped gemm.
DECODE = FUSED.replace("6x5x", "6x1x").replace("720x120x24x1", "144x24x24x1").replace(
    "1200x200x40x1", "240x40x40x1").replace("[1, 6, 5, 40]", "[1, 6, 1, 40]")


@pytest.mark.parametrize("arch", ARCHES)
def test_gqa_dot_is_one_taller_gemm_without_copy(arch):
    rng = np.random.default_rng(16)
    with new_context():
        module, converted = lower(HEADS_OUTER, arch)
        assert "accel.copy" not in converted
        # B: one view per kv head, its cache rows 1152 apart, read transposed.
        assert "memref<2x40x24xf16, strided<[1152, 24, 1]>>" in converted
        assert "memref<2x15x24xf16>" in converted and "memref<2x15x40xf32>" in converted
        launches = [str(op.attributes["kernel"]) for op in collect_ops(module,
                                                                         "gpu.launch_func")]
        assert len(launches) == 1 and "accel_gemm" in launches[0]
        q = random_operand(rng, "f16", (1, G0 * G1, M, K))
        kv = random_operand(rng, "f16", (1, G0, CACHE, K))
        out = np.full((1, G0 * G1, M, N), np.nan, dtype=np.float32)
        run_host(module, "gqa", [q, kv, out], arch=arch)
    keys = np.repeat(kv[0, :, :N, :], G1, axis=0)          # query head h reads kv h // 3
    ref, tol = reference(q[0], np.ascontiguousarray(keys.transpose(0, 2, 1)), "f16", "f32")
    result = compare(out[0], ref, tol)
    assert result.ok, result.describe(out[0], ref)


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("m, text", [(M, FUSED), (1, DECODE)], ids=["prefill", "decode"])
def test_gqa_dot_with_epilogue_reshapes_its_operands(arch, m, text):
    rng = np.random.default_rng(17)
    with new_context():
        module, converted = lower(text, arch)
        assert "accel.copy" not in converted
        assert 'epilogue_operands = ["", "gmn"]' in converted
        c = f"memref<{G0}x{G1 * m}x{N}xf32>"
        assert f"{c}, memref<1xf32>, {c}) -> ()" in converted   # C, the scale, %x
        q = random_operand(rng, "f16", (1, G0 * G1, m, K))
        kv = random_operand(rng, "f16", (1, G0, CACHE, K))
        scale = np.array([0.375], dtype=np.float32)
        x = random_operand(rng, "f32", (1, G0 * G1, m, N))
        out = np.full((1, G0 * G1, m, N), np.nan, dtype=np.float32)
        run_host(module, "gqa", [q, kv, scale, x, out], arch=arch)
    keys = np.repeat(kv[0, :, :N, :], G1, axis=0)
    ref, tol = reference(q[0], np.ascontiguousarray(keys.transpose(0, 2, 1)), "f16", "f32")
    # 0.375 is exact in f32; the add rounds once more (f32: 2^-24 relative).
    ref = ref * 0.375 + x[0].astype(np.float64)
    tol = tol * 0.375 + 2.0**-23 * np.abs(ref)
    result = compare(out[0], ref, tol)
    assert result.ok, result.describe(out[0], ref)


def test_heads_interleaved_with_rows_keep_the_copy():
    with new_context():
        _, converted = lower(HEADS_INNER, "gfx942")
        module = ir.Module.parse(converted)
        reasons = [CopyOp(op).reason for op in collect_ops(module, "accel.copy")]
    assert reasons == ["a dot operand B with the batch of several strides"]
    # A read in place as before; the grouped B view, built first, is not left behind.
    assert converted.count("memref.reinterpret_cast") == 1
    assert "strided<[24, 144, 1]>" in converted and "2x40x24" not in converted


# mixr-attention-gqa's form: the keys' multibroadcast raises the rank itself, [2, 2, 40,
# 24] (batch, kv head) -> [2, 2, 2, 40, 24] with the new group dimension third (stride
# 0). numpy's right alignment would read another function from the same op (batch
# index ignored, head h = kv * 2 + g reading batch kv's kv head g); the result type's
# strides place each kv head over its group, as rocMLIR reads them.
RAISED = """
func.func @gqa(%q: !migraphx.shaped<2x4x5x24xf16, 480x120x24x1>, %k: !migraphx.shaped<2x2x40x24xf16, 1920x960x24x1>) -> !migraphx.shaped<2x4x5x40xf32, 800x200x40x1> attributes {rock.arch = "##ARCH##"} {
  %kb = migraphx.multibroadcast %k {out_lens = [2, 2, 2, 40, 24]} : <2x2x40x24xf16, 1920x960x24x1> -> <2x2x2x40x24xf16, 1920x960x0x24x1>
  %kr = migraphx.reshape %kb {dims = [2, 4, 40, 24]} : <2x2x2x40x24xf16, 1920x960x0x24x1> -> <2x4x40x24xf16, 1920x960x24x1>
  %kt = migraphx.transpose %kr {permutation = [0, 1, 3, 2]} : <2x4x40x24xf16, 1920x960x24x1> -> <2x4x24x40xf16, 1920x960x1x24>
  %0 = migraphx.dot %q, %kt : <2x4x5x24xf16, 480x120x24x1>, <2x4x24x40xf16, 1920x960x1x24> -> <2x4x5x40xf32, 800x200x40x1>
  return %0 : !migraphx.shaped<2x4x5x40xf32, 800x200x40x1>
}
"""


@pytest.mark.parametrize("arch", ARCHES)
def test_rank_raising_multibroadcast_repeats_each_kv_head_over_its_group(arch):
    rng = np.random.default_rng(18)
    with new_context():
        module, converted = lower(RAISED, arch)
        assert "accel.copy" not in converted
        q = random_operand(rng, "f16", (2, 4, M, K))
        k = random_operand(rng, "f16", (2, 2, N, K))
        out = np.full((2, 4, M, N), np.nan, dtype=np.float32)
        run_host(module, "gqa", [q, k, out], arch=arch)
    keys = np.repeat(k, 2, axis=1).transpose(0, 1, 3, 2)   # head h reads kv head h // 2
    ref, tol = reference(q.reshape(8, M, K), np.ascontiguousarray(keys).reshape(8, K, N),
                         "f16", "f32")
    result = compare(out.reshape(8, M, N), ref, tol)
    assert result.ok, result.describe(out.reshape(8, M, N), ref)
