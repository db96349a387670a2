"""The code object contract's `launches` section (accel/launches.py), tested by running
ONLY what it says: buffers allocated from its sizes, its launches run one by one through
the simulator's per-kernel entry (sim/run.py run_kernel), compared elementwise with the
simulator's run of the host function (run_host) of the same module and with numpy; a
wrong binding or order must fail that comparison."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from accel.api import compile_grouped_gemm, compile_module, grouped_gemm_module_text
from accel.bindings import ir, new_context
from accel.diagnostics import AccelError
from accel.dialect.element_types import NUMPY_TYPES
from accel.migraphx import translate
from accel.passes.from_migraphx import FromMigraphx
from accel.pipelines.kernel import KernelPipeline
from accel.sim import run_host
from accel.sim.run import run_kernel
from accel.tools.accel_compile import main as accel_compile

ARCH = "gfx942"
CORPUS_PATH = Path("shared") / "data" / "migraphx_corpus" / "inputs"
CORPUS = next((p / CORPUS_PATH for p in Path(__file__).resolve().parents
               if (p / CORPUS_PATH).is_dir()), None)
SPLIT_K_ADD = "mlir__test__fusion__pr-e2e__mixr-gemm-splitk__f32__mixr-gemm-splitk-add.e2e.mlir"
DOT_ADD_REDUCE = ("mlir__test__Dialect__MIGraphX__integration__mixr-dot-add-reduce-sum-bf16"
                  ".e2e.mlir")

# A small batch-first-e2e (gemm-layouts/other): A a slice of a batch-innermost buffer and
# B batch-innermost, both transposed: two copy kernels into the gemm's layouts, then the gemm.
# A's and B's K are windows of merged digits (5 of 2 groups of 3, a group scale broadcast
# over its group), which the gemm's operand addressing does not take: two copy kernels
# write row-major intermediates, then the gemm reads them.
WINDOWED_OPERANDS = """
func.func @test(%arg0: !migraphx.shaped<2x3x2xf16, 6x2x1>, %arg1: !migraphx.shaped<2x2x2xf16, 4x2x1>) -> !migraphx.shaped<2x3x2xf16, 6x2x1> attributes {arch = "ARCH"} {
  %0 = migraphx.reshape %arg0 {dims = [2, 3, 2, 1]} : <2x3x2xf16, 6x2x1> -> <2x3x2x1xf16, 6x2x1x1>
  %1 = migraphx.multibroadcast %0 {out_lens = [2, 3, 2, 3]} : <2x3x2x1xf16, 6x2x1x1> -> <2x3x2x3xf16, 6x2x1x0>
  %2 = migraphx.reshape %1 {dims = [2, 3, 6]} : <2x3x2x3xf16, 6x2x1x0> -> <2x3x6xf16, 18x6x1>
  %3 = migraphx.slice %2 {axes = [2], ends = [5], starts = [0]} : <2x3x6xf16, 18x6x1> -> <2x3x5xf16, 18x6x1>
  %4 = migraphx.reshape %arg1 {dims = [2, 2, 1, 2]} : <2x2x2xf16, 4x2x1> -> <2x2x1x2xf16, 4x2x2x1>
  %5 = migraphx.multibroadcast %4 {out_lens = [2, 2, 3, 2]} : <2x2x1x2xf16, 4x2x2x1> -> <2x2x3x2xf16, 4x2x0x1>
  %6 = migraphx.reshape %5 {dims = [2, 6, 2]} : <2x2x3x2xf16, 4x2x0x1> -> <2x6x2xf16, 12x2x1>
  %7 = migraphx.slice %6 {axes = [1], ends = [5], starts = [0]} : <2x6x2xf16, 12x2x1> -> <2x5x2xf16, 12x2x1>
  %8 = migraphx.dot %3, %7 : <2x3x5xf16, 18x6x1>, <2x5x2xf16, 12x2x1> -> <2x3x2xf16, 6x2x1>
  return %8 : !migraphx.shaped<2x3x2xf16, 6x2x1>
}
"""


def corpus_text(name: str) -> str:
    if CORPUS is None:
        pytest.skip("MIGraphX corpus not found beside the checkout")
    text = (CORPUS / name).read_text(encoding="utf-8").replace("##TOKEN_ARCH##", ARCH)
    return re.sub(r'((?:rock\.)?arch\s*=\s*)""', rf'\1"{ARCH}"', text)


def accel_text(migraphx_text: str) -> str:
    """The module accel-from-migraphx makes of MIGraphX text, as text."""
    with new_context():
        module = ir.Module.parse(translate(migraphx_text, "t.mlir"))
        FromMigraphx(arch=ARCH).run(module)
        return str(module)


class Case:
    """A module's compile result (its launches section) and its Kernel IR (what both the
    host run and the replay simulate)."""

    def __init__(self, text: str, result=None):
        self.result = result if result is not None else compile_module(text, ARCH,
                                                                        assembly=False)
        self.ctx = new_context()
        with self.ctx:
            self.kernel_ir = ir.Module.parse(text)
            KernelPipeline(arch=ARCH).to_kernel_ir(self.kernel_ir)
        (self.fn,) = self.result.launches

    @classmethod
    def of_kernel_ir(cls, text: str) -> "Case":
        """A module already in Kernel IR form, its section read directly."""
        from accel.launches import host_launches
        case = cls.__new__(cls)
        case.result, case.ctx = None, new_context()
        with case.ctx:
            case.kernel_ir = ir.Module.parse(text)
            (case.fn,) = host_launches(case.kernel_ir)
        return case

    def host_run(self, inputs: list) -> list:
        arrays = [a.copy() if isinstance(a, np.ndarray) else a for a in inputs]
        run_host(self.kernel_ir, self.fn["function"], arrays, arch=ARCH)
        return arrays

    def replay(self, inputs: list, fn: dict | None = None) -> list:
        """Run only what the section says, on buffers of its sizes (never read before a
        kernel writes them: filled with NaN, or -1 for integers)."""
        fn = fn or self.fn
        arrays = [a.copy() if isinstance(a, np.ndarray) else a for a in inputs]
        for p, a in zip(fn["params"], arrays):
            if "shape" in p:
                assert a.dtype == NUMPY_TYPES[p["dtype"]] and a.nbytes == p["bytes"]
                assert list(a.shape) == p["shape"]
        roots = {"param": [a.reshape(-1) if isinstance(a, np.ndarray) else a
                           for a in arrays],
                 "buffer": [poisoned(b["dtype"], b["bytes"]) for b in fn["buffers"]],
                 "constant": [np.frombuffer(bytes.fromhex(c["data"]),
                                            NUMPY_TYPES[c["dtype"]]).copy()
                              for c in fn.get("constants", [])]}
        for launch in fn["launches"]:
            args = []
            for arg in launch["args"]:
                if "scalar" in arg:
                    args.append(arg["scalar"])
                    continue
                (kind,) = [k for k in roots if k in arg]
                args.append(roots[kind][arg[kind]])
            run_kernel(self.kernel_ir, launch["kernel"], grid=launch["grid"],
                       block=launch["block"], args=args, arch=ARCH)
        return arrays

    def results(self, arrays: list) -> list:
        return [arrays[p["index"]] for p in self.fn["params"] if p["role"] == "result"]


def poisoned(dtype: str, nbytes: int) -> np.ndarray:
    t = np.dtype(NUMPY_TYPES[dtype])
    fill = np.nan if t.kind == "f" or t == ml_dtypes.bfloat16 else -1
    return np.full(nbytes // t.itemsize, fill, dtype=t)


def same_bits(x: np.ndarray, y: np.ndarray) -> bool:
    return x.shape == y.shape and np.array_equal(x.view(np.uint8), y.view(np.uint8))


def check_replay(case: Case, inputs: list) -> list:
    """The replay's results bit for bit the host run's; returns them."""
    replayed, hosted = case.replay(inputs), case.host_run(inputs)
    for a, b in zip(case.results(replayed), case.results(hosted)):
        assert same_bits(a, b)
    return case.results(replayed)


def wrong_sections(fn: dict):
    """Sections with one wrong binding or order each: (what is wrong, the section)."""
    launches = fn["launches"]
    if len(launches) > 1:
        yield "launches reversed", {**fn, "launches": launches[::-1]}
    for li, launch in enumerate(launches):
        for ai, arg in enumerate(launch["args"]):
            if "buffer" in arg and arg["access"] == "read":
                bad = copy.deepcopy(fn)
                bad["buffers"].append({**bad["buffers"][arg["buffer"]],
                                       "index": len(bad["buffers"])})
                bad["launches"][li]["args"][ai]["buffer"] = len(bad["buffers"]) - 1
                yield f"launch {li} arg {ai} reads a buffer nothing wrote", bad
            if "constant" in arg:
                bad = copy.deepcopy(fn)
                data = bad["constants"][arg["constant"]]["data"]
                bad["constants"][arg["constant"]]["data"] = "0" * len(data)
                yield f"launch {li} arg {ai} reads zeros for its constant", bad
        params = [(ai, a) for ai, a in enumerate(launch["args"]) if "param" in a]
        for (i, x), (j, y) in zip(params, params[1:]):
            if x["dtype"] == y["dtype"] and x["shape"] == y["shape"]:
                bad = copy.deepcopy(fn)
                args = bad["launches"][li]["args"]
                args[i]["param"], args[j]["param"] = y["param"], x["param"]
                yield f"launch {li} args {i} and {j} swapped", bad


def check_mutations_fail(case: Case, inputs: list, expected: int) -> None:
    hosted = case.results(case.host_run(inputs))
    tried = 0
    for what, bad in wrong_sections(case.fn):
        try:
            got = case.results(case.replay(inputs, bad))
        except AccelError:
            tried += 1      # the simulator refused the binding: also a failure
            continue
        assert not all(same_bits(a, b) for a, b in zip(got, hosted)), what
        tried += 1
    assert tried == expected


def test_copies_then_gemm():
    """Two copy kernels write intermediates the gemm reads: the section lists both
    buffers (bytes, dtype, shape), the user's A and B as the copies' inputs and C as the
    gemm's output, in launch order."""
    text = accel_text(WINDOWED_OPERANDS.replace("ARCH", ARCH))
    case = Case(text)
    fn = case.fn
    assert [p["role"] for p in fn["params"]] == ["argument", "argument", "result"]
    assert [p["shape"] for p in fn["params"]] == [[2, 3, 2], [2, 2, 2], [2, 3, 2]]
    ops = [next(k.metadata.get("op", "gemm") for k in case.result.kernels
                if k.symbol == launch["kernel"]) for launch in fn["launches"]]
    assert ops == ["copy", "copy", "gemm"]
    assert [(b["dtype"], b["bytes"], b["kind"]) for b in fn["buffers"]] == [
        ("f16", 2 * 3 * 5 * 2, "intermediate"), ("f16", 2 * 5 * 2 * 2, "intermediate")]
    gemm = fn["launches"][2]
    assert [list(a)[0] for a in gemm["args"]] == ["buffer", "buffer", "param"]
    rng = np.random.default_rng(1)
    sa = rng.integers(-3, 4, (2, 3, 2)).astype(np.float16)
    sb = rng.integers(-3, 4, (2, 2, 2)).astype(np.float16)
    out = np.full((2, 3, 2), np.nan, np.float16)
    (c,) = check_replay(case, [sa, sb, out])
    a = np.repeat(sa.astype(np.float64), 3, axis=2)[:, :, :5]
    b = np.repeat(sb.astype(np.float64), 3, axis=1)[:, :5, :]
    assert np.array_equal(c.astype(np.float64), a @ b)     # small integers: exact
    check_mutations_fail(case, [sa, sb, out], expected=3)


def test_gemm_then_reduction_kernel():
    """mixr-dot-add-reduce-sum-bf16: the add fuses into the gemm, the reduce_sum is its
    own kernel reading the gemm's output from an intermediate buffer."""
    case = Case(accel_text(corpus_text(DOT_ADD_REDUCE)))
    fn = case.fn
    assert [(b["dtype"], b["shape"]) for b in fn["buffers"]] == [("bf16", [1, 5, 3])]
    first, second = fn["launches"]
    assert first["args"][2] == {"buffer": 0, "dtype": "bf16", "shape": [1, 5, 3],
                                "offset": 0, "byte_offset": 0, "access": "write"}
    assert second["args"][0]["buffer"] == 0 and second["args"][0]["access"] == "read"
    rng = np.random.default_rng(2)
    a, b, c = (rng.integers(-3, 4, s).astype(ml_dtypes.bfloat16)
               for s in ((1, 5, 4), (1, 4, 3), (1, 5, 3)))
    out = np.zeros((1, 5, 1), ml_dtypes.bfloat16)
    (got,) = check_replay(case, [a, b, c, out])
    want = (a.astype(np.float64) @ b.astype(np.float64) + c).sum(-1, keepdims=True)
    assert np.array_equal(got.astype(np.float64), want)    # exact
    check_mutations_fail(case, [a, b, c, out], expected=2)


def test_split_k_partials_are_the_workspace():
    """splitKFactor 4: the partial kernel writes the workspace buffer the reduction
    reads; the section marks that allocation as the top-level workspace's buffer."""
    case = Case(accel_text(corpus_text(SPLIT_K_ADD)))
    fn, workspace = case.fn, case.result.workspace
    (buf,) = fn["buffers"]
    assert buf["kind"] == "workspace" and buf["workspace"] == 0
    assert buf["bytes"] == workspace["buffers"][0]["bytes"]
    assert [l["kernel"] for l in fn["launches"]] == workspace["buffers"][0]["kernels"]
    rng = np.random.default_rng(3)
    a, b, c = (rng.uniform(-1, 1, s).astype(np.float32)
               for s in ((1, 5, 4), (1, 4, 3), (1, 5, 3)))
    out = np.full((1, 5, 3), np.nan, np.float32)
    (got,) = check_replay(case, [a, b, c, out])
    want = a.astype(np.float64) @ b.astype(np.float64) + c
    assert np.all(np.abs(got - want) <= 8 * 2.0 ** -24 * (np.abs(a) @ np.abs(b) + np.abs(c)))
    # reversed; the reduction reading fresh partials; C and the add operand swapped
    check_mutations_fail(case, [a, b, c, out], expected=3)


def test_compact_grouped_gemm_tile_list_is_the_workspace():
    """A compact grouped GEMM: the prep kernel writes the tile list (the workspace) that
    the main kernel reads; replayed against numpy per group and untouched rows."""
    shape = dict(groups=3, n=32, k=32, max_seq_len=20, total_rows=48, in_type="bf16",
                 mode="compact", perf_config="v4:16,32,4,16,16,16,8,1,1,2,0,0,1,1")
    text = grouped_gemm_module_text(ARCH, **shape)
    result = compile_grouped_gemm(ARCH, **shape, assembly=False)
    assert result.launches == compile_module(text, ARCH, assembly=False).launches
    case = Case(text, result)
    (buf,) = case.fn["buffers"]
    assert (buf["dtype"], buf["kind"], buf["workspace"]) == ("i32", "workspace", 0)
    assert [p["role"] for p in case.fn["params"]] == [
        "argument", "argument", "argument", "result", "argument"]
    rng = np.random.default_rng(4)
    a = rng.integers(-3, 4, (48, 32)).astype(ml_dtypes.bfloat16)
    b = rng.integers(-3, 4, (96, 32)).astype(ml_dtypes.bfloat16)
    seq = np.array([0, 5, 20, 38], np.int32)
    c = np.full((48, 32), 7, ml_dtypes.bfloat16)
    bias = rng.integers(-3, 4, (96,)).astype(ml_dtypes.bfloat16)
    (got,) = check_replay(case, [a, b, seq, c, bias])
    want = np.full((48, 32), 7.0)
    for g in range(3):
        s, e = seq[g], seq[g + 1]
        w = b[g * 32:(g + 1) * 32].astype(np.float64)
        want[s:e] = a[s:e].astype(np.float64) @ w.T + bias[g * 32:(g + 1) * 32]
    assert np.array_equal(got.astype(np.float64), want)    # exact in bf16: |x| <= 289
    check_mutations_fail(case, [a, b, seq, c, bias], expected=2)


# Corpus files whose function becomes several kernels (the first two, by its first kernels:
# the int4 weights' elementwise dequantization before the gemm, a gemm feeding a gemm),
# and one reading a constant weight. Other branches change how many copy kernels come
# first, so only what each file must have is pinned.
CHUNKS = {
    "ROCm-AMDMIGraphX__test__gpu__mlir.cpp__int4_unpack_dequantizelinear.mlir":
        ("elementwise", "gemm"),
    "mlir__test__fusion__pr-e2e__gemm-gemm__mixr-gemm-gemm-f16.mlir": ("gemm", "gemm"),
    "mlir__test__fusion__pr-e2e__gemm-gemm__mixr-gemm-gemm-padded-scale-bias-exp.mlir":
        ("gemm", "gemm"),
    "mlir__test__fusion__pr-e2e__mixr-gemm__mixr-gemm-const-matrix.mlir": ("gemm",),
}


@pytest.mark.parametrize("name", list(CHUNKS))
def test_corpus_chunk_replays_as_its_host_function(name):
    """Corpus functions of several kernels (and one reading a packed constant weight):
    the section alone reproduces the host function's run bit for bit, and each wrong
    binding or order does not."""
    case = Case(accel_text(corpus_text(name).split("// -----")[0]))
    ops = [next(k.metadata.get("op", "gemm") for k in case.result.kernels
                if k.symbol == launch["kernel"]) for launch in case.fn["launches"]]
    assert tuple(op for op in ops if op != "copy") == CHUNKS[name]
    if len(ops) == 1:
        assert [a for a in case.fn["launches"][0]["args"] if "constant" in a]
    rng = np.random.default_rng(5)
    inputs = []
    for p in case.fn["params"]:
        t = np.dtype(NUMPY_TYPES[p["dtype"]])
        inputs.append(poisoned(p["dtype"], p["bytes"]).reshape(p["shape"])
                      if p["role"] == "result" else
                      rng.integers(-3, 4, p["shape"]).astype(t))
    check_replay(case, inputs)
    wrong = list(wrong_sections(case.fn))
    assert len(wrong) >= len(ops) - 1
    check_mutations_fail(case, inputs, expected=len(wrong))


VIEW_AND_SCALARS = """
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @axpb(%x: memref<4xf32, strided<[2], offset: 3>>, %y: memref<4xf32>, %s: f32, %t: f32) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<4xf32, strided<[2], offset: 3>>
      %w = arith.mulf %v, %s : f32
      %z = arith.addf %w, %t : f32
      memref.store %z, %y[%i] : memref<4xf32>
      gpu.return
    }
  }
  func.func @host(%in: memref<16xf32>, %out: memref<2x2xf32>, %s: f32) {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %t = arith.constant 2.5 : f32
    %v = memref.subview %in[3] [4] [2] : memref<16xf32> to memref<4xf32, strided<[2], offset: 3>>
    %o = memref.collapse_shape %out [[0, 1]] : memref<2x2xf32> into memref<4xf32>
    gpu.launch_func @k::@axpb blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%v : memref<4xf32, strided<[2], offset: 3>>, %o : memref<4xf32>, %s : f32, %t : f32)
    return
  }
}
"""


def test_views_and_scalars_are_read_from_the_host_ir():
    """A view's offset and strides, a scalar parameter and a constant scalar come from
    the launch's operands as the host function writes them; replayed, the kernel reads
    the view through the whole buffer's start."""
    case = Case.of_kernel_ir(VIEW_AND_SCALARS)
    fn = case.fn
    (launch,) = fn["launches"]
    assert launch["grid"] == [1, 1, 1] and launch["block"] == [4, 1, 1]
    assert launch["args"] == [
        {"param": 0, "dtype": "f32", "shape": [4], "strides": [2], "offset": 3,
         "byte_offset": 12, "access": "read"},
        {"param": 1, "dtype": "f32", "shape": [4], "offset": 0, "byte_offset": 0,
         "access": "write"},
        {"param": 2, "dtype": "f32"},
        {"scalar": 2.5, "dtype": "f32"}]
    assert [p["role"] for p in fn["params"]] == ["argument", "result", "argument"]
    assert fn["params"][2] == {"index": 2, "name": "arg2", "dtype": "f32",
                               "role": "argument"}
    x = np.arange(16, dtype=np.float32)
    (out,) = check_replay(case, [x, np.full((2, 2), np.nan, np.float32), 3.0])
    assert np.array_equal(out.reshape(-1), x[3:11:2] * 3 + 2.5)
    # A host that added the offset to the pointer itself would read x[6], x[8], ...
    wrong = np.full(4, np.nan, np.float32)
    run_kernel(case.kernel_ir, "axpb", grid=[1, 1, 1], block=[4, 1, 1],
               args=[x[3:].copy(), wrong, 3.0, 2.5], arch=ARCH)
    assert not np.array_equal(wrong, out.reshape(-1))


def test_host_op_outside_the_section_is_one_diagnostic():
    text = """
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @touch(%y: memref<4xf32>) kernel {
      gpu.return
    }
  }
  func.func @host(%in: memref<4xf32>, %out: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    memref.copy %in, %out : memref<4xf32> to memref<4xf32>
    gpu.launch_func @k::@touch blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%out : memref<4xf32>)
    return
  }
}
"""
    from accel.launches import host_launches
    with new_context(), pytest.raises(AccelError, match="host op 'memref.copy' of @host"):
        host_launches(ir.Module.parse(text))


def test_accel_compile_writes_the_section_and_the_cache_keeps_it(tmp_path):
    """accel-compile on a MIGraphX file: its JSON holds the launches compile_module
    reads from the same module, and runs in worker processes (-j 2) or answered from
    the cache write the same bytes."""
    src = tmp_path / "splitk.mlir"
    src.write_text(corpus_text(SPLIT_K_ADD))
    want = compile_module(accel_text(src.read_text()), ARCH, assembly=False).launches
    outs = []
    cache = ["--cache-dir", str(tmp_path / "c")]
    for run, flags in (("fresh", ["--no-cache", "-j", "1"]), ("fill", cache + ["-j", "2"]),
                       ("hit", cache + ["-j", "1"])):
        out = tmp_path / run
        assert accel_compile([str(src), "-o", str(out), *flags]) == 0
        outs.append((out / "splitk.json").read_bytes())
    assert outs[0] == outs[1] == outs[2]
    meta = json.loads(outs[0])
    assert meta["launches"] == want
    assert [l["kernel"] for l in meta["launches"][0]["launches"]] == \
        [k["symbol"] for k in meta["kernels"]]


def test_same_module_same_section_bytes():
    text = accel_text(WINDOWED_OPERANDS.replace("ARCH", ARCH))
    one, two = (json.dumps(compile_module(text, ARCH, assembly=False).metadata())
                for _ in range(2))
    assert one == two and '"launches"' in one
