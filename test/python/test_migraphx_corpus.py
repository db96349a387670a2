"""The MIGraphX corpus (real IR from rocMLIR's and AMDMIGraphX's tests) through
accel-from-migraphx and the compiler: every dot chunk either converts or gets a one-line
diagnostic, never a traceback, a crash or a hang.

The run is benchmarks/bench_migraphx_corpus.py in a child process (a crash of the
bindings would otherwise take pytest down), converting and compiling for gfx942; the
script bounds each chunk by a timeout and names the chunk it is on, on stderr, before
each one. Skipped when the corpus folder (beside the checkout) is absent.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "benchmarks" / "bench_migraphx_corpus.py"
CORPUS_PATH = Path("shared") / "data" / "migraphx_corpus" / "inputs"
# Beside the checkout, or beside a folder holding it (a git worktree).
CORPUS = next((p / CORPUS_PATH for p in REPO.parents if (p / CORPUS_PATH).is_dir()),
              REPO.parent / CORPUS_PATH)
# Each chunk took under 1 s converted and compiled for one chip (the whole corpus ~5 s);
# 60 s is a hang, not a slow compile.
CHUNK_TIMEOUT = 60


@pytest.fixture(scope="module")
def corpus_results():
    if not CORPUS.is_dir():
        pytest.skip(f"MIGraphX corpus not found at {CORPUS}")
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--json", "--chips", "gfx942", "--corpus", str(CORPUS),
         "--timeout", str(CHUNK_TIMEOUT)],
        capture_output=True, text=True, timeout=1200)
    last = (proc.stderr.strip().splitlines() or ["(nothing)"])[-1]
    assert proc.returncode == 0, (f"corpus run died (exit {proc.returncode}) at {last}:\n"
                                  f"{proc.stderr[-2000:]}")
    return [json.loads(line) for line in proc.stdout.splitlines()]


def test_every_dot_chunk_is_run(corpus_results):
    # 103 dot chunks in 83 files (the corpus README).
    assert len(corpus_results) == 103


def test_no_traceback_crash_or_hang(corpus_results):
    bad = [f"{r['chunk']}: {r['outcome']}: {r['message']}" for r in corpus_results
           if r["outcome"] not in ("converted", "diagnosed")]
    assert not bad, "\n".join(bad)


def test_diagnostics_are_one_line(corpus_results):
    for r in corpus_results:
        if r["outcome"] == "diagnosed":
            assert r["message"] and "\n" not in r["message"], r


def test_converted_chunks_compile(corpus_results):
    """Each converted chunk becomes code objects for gfx942 (or names another chip)."""
    bad = [f"{r['chunk']}: {r['compiled']}" for r in corpus_results
           if r["outcome"] == "converted" and r["compiled"].get("gfx942") != "ok"
           and not str(r["compiled"].get("gfx942")).startswith("arch ")]
    assert not bad, "\n".join(bad)


def test_converted_chunks_leave_no_unfused_elementwise_op(corpus_results):
    """Every elementwise op of a converted chunk is in a gemm's epilogue (copies, which
    only move data into a layout, are not counted)."""
    bad = [f"{r['chunk']}: {r['unfused']}" for r in corpus_results
           if r["outcome"] == "converted" and r["unfused"]]
    assert not bad, "\n".join(bad)


def test_split_k_chunks_are_split(corpus_results):
    """rocMLIR's split-K tests (mixr-gemm-splitk) keep their splitKFactor: each of their
    gemms is split along K (and compiles, test_converted_chunks_compile)."""
    split = [r for r in corpus_results if "mixr-gemm-splitk" in r["chunk"]
             and r["outcome"] == "converted"]
    assert split and all(r["split_gemms"] == r["gemms"] for r in split), split


def test_mx_scaled_quant_dot_is_named(corpus_results):
    """The MX-scaled quant_dot form parses; a chunk whose first error it is names it."""
    assert not any("unexpected 'scaled'" in r["message"] for r in corpus_results)
    assert sum("MX-scaled 'migraphx.quant_dot'" in r["message"] for r in corpus_results) >= 11


def test_elementwise_work_is_never_the_reason_a_chunk_stops(corpus_results):
    """What no gemm epilogue takes is a kernel of its own (accel.elementwise): no chunk
    stops because an elementwise op, a reduction, softmax, (de)quantization or an int4
    unpack has no kernel (it may stop at a value no kernel takes, named as such)."""
    ops = ("reduce_sum", "reduce_max", "softmax", "quantizelinear", "dequantizelinear",
           "greater_or_equal", "unpack")
    bad = [f"{r['chunk']}: {r['message']}" for r in corpus_results
           if r["outcome"] == "diagnosed" and ("cannot fuse" in r["message"] or any(
               f"'migraphx.{o}' is not supported" in r["message"] for o in ops))]
    assert not bad, "\n".join(bad)
    assert sum(r["elementwise"] for r in corpus_results) > 0


def test_slices_and_broadcasts_feeding_a_dot_are_not_copied(corpus_results):
    """rocMLIR's gemm-layouts tests (sliced K, sliced or broadcast B, broadcast K,
    transposed A/B) and mixr-slice-dot: every view their dots and epilogues read is
    packed or one stride per dimension, so the gemm reads it in place (no accel.copy;
    all but unitdim-m, whose views are all packed, read a strided one; batch-first's A
    and B, batch stride 1 and no stride-1 side, an element per load). So do
    mixr-gemm-input-bcast's and -tp's A, a scalar broadcast to [1, 2, 3] (strides 1, 0, 0),
    and mixr-tp-reshape-dot-add's A, whose K is 12 heads of 64 ([1, 384, 12, 64])."""
    chunks = [r for r in corpus_results if "gemm-layouts" in r["chunk"]
              or "mixr-slice-dot" in r["chunk"] or "mixr-gemm-input-bcast" in r["chunk"]
              or "mixr-tp-reshape-dot-add" in r["chunk"]]
    assert len(chunks) >= 13
    for r in chunks:
        assert r["outcome"] == "converted", r
        assert r["copy_kernels"] == 0, r
        assert r["folded_views"] > 0 or "unitdim-m" in r["chunk"], r


def test_elementwise_operands_are_never_copied(corpus_results):
    """Every view an elementwise kernel reads (the int4 chunks' per-group scales and zero
    points, broadcast over their groups: N of two strides) is read in place through an
    index map: no copy gives an elementwise input as its reason, and the chunks with
    such inputs (mixr-dot-int4-f16-1645, migraphx_to_blockwise_gemm_accel, the two
    int4_unpack_dequantizelinear tests) read them so."""
    reasons = [k for r in corpus_results if r["outcome"] == "converted"
               for k in r["copy_reasons"]]
    assert not [k for k in reasons if "elementwise" in k], reasons
    mapped = {r["chunk"].split("__")[-1] for r in corpus_results if r["mapped_inputs"]}
    assert {"mixr-dot-int4-f16-1645.mlir#0", "migraphx_to_blockwise_gemm_accel.mlir#0",
            "int4_unpack_dequantizelinear.mlir#0",
            "uint4_unpack_dequantizelinear.mlir#0"} <= mapped, mapped


def test_grouped_query_dots_read_their_keys_in_place(corpus_results):
    """kv_cache_attention_seq_len_mask's two dots (4 query heads on 2 key/value heads:
    B's batch digits (2, 32) (2, 0), query rows M = 1) are gemms of batch 2 and M' = 2:
    no copy of B; nor mixr-attention-gqa's, whose rank-raising multibroadcast ([2, 2, 32,
    32] -> [2, 2, 2, 32, 32], the group dimension of stride 0 third) is placed by the
    result's strides: each key/value head repeated over its group."""
    by_chunk = {r["chunk"].split("__")[-1]: r for r in corpus_results}
    several = "a dot operand B with the batch of several strides"
    kv_cache = by_chunk["kv_cache_attention_seq_len_mask.mlir#0"]
    assert kv_cache["outcome"] == "converted" and kv_cache["copy_kernels"] == 0, kv_cache
    assert kv_cache["gemms"] == 2 and kv_cache["compiled"]["gfx942"] == "ok", kv_cache
    gqa = by_chunk["mixr-attention-gqa.mlir#0"]
    assert gqa["outcome"] == "converted" and gqa["copy_kernels"] == 0, gqa
    assert several not in gqa["copy_reasons"], gqa
