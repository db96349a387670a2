"""Batches: accel-compile --batch / a module's gemms, each distinct kernel once, named
apart, in worker processes or on any Executor, with identical bytes either way."""

from __future__ import annotations

import concurrent.futures as cf
import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import accel.batch as batch_mod
from accel.api import compile_gemm, compile_module
from accel.batch import (
    SPEC_KEYS, BatchProgress, compile_batch, compile_module_batch, gemm_spec,
)
from accel.diagnostics import AccelError
from accel.tools.accel_compile import main as accel_compile
from accel.tools.progress import TerminalProgress
from test_e2e_migraphx import seed001

SMALL = {"arch": "gfx1100", "m": 32, "n": 48, "k": 32}
CONFIG_B = "v4:16,16,4,16,16,16,8,1,1,2,0,0,1,1"
# Tiles that can all serve SMALL on gfx1100.
VALID_CONFIGS = ("v4:32,32,4,16,16,16,8,1,1,2,0,0,1,1", CONFIG_B,
                 "v4:32,16,4,16,16,16,8,1,1,2,0,0,1,1", "v4:16,16,2,16,16,16,8,1,1,2,0,0,1,1")
TWO_GEMMS = (
    "func.func @two(%a: memref<2x77x50xbf16>, %b: memref<2x40x50xbf16>, %c: memref<2x77x40xf32>,\n"
    "               %x: memref<1x16x16xi8>, %y: memref<1x16x16xi8>, %z: memref<1x16x16xi32>) {\n"
    '  "accel.gemm"(%a, %b, %c) {arch = "gfx1201", b_layout = "transposed"}\n'
    "      : (memref<2x77x50xbf16>, memref<2x40x50xbf16>, memref<2x77x40xf32>) -> ()\n"
    '  "accel.gemm"(%x, %y, %z) {arch = "gfx1201", accumulate}\n'
    "      : (memref<1x16x16xi8>, memref<1x16x16xi8>, memref<1x16x16xi32>) -> ()\n"
    '  "accel.gemm"(%a, %b, %c) {b_layout = "transposed", arch = "gfx1201"}\n'
    "      : (memref<2x77x50xbf16>, memref<2x40x50xbf16>, memref<2x77x40xf32>) -> ()\n"
    "  return\n}\n")


def files_in(d: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(d.iterdir())}


def batch_outputs_by_jobs(tmp_path: Path, entries: list[dict]) -> list[dict[str, bytes]]:
    """The files `accel-compile --batch` writes for `entries` with -j 1 and with -j 2,
    checked to be the same bytes."""
    listing = tmp_path / "list.json"
    listing.write_text(json.dumps(entries))
    outs = []
    for jobs in ("1", "2"):
        out = tmp_path / f"j{jobs}"
        assert accel_compile(["--batch", str(listing), "-j", jobs, "--no-cache",
                              "-o", str(out)]) == 0
        outs.append(files_in(out))
    assert outs[0] == outs[1]
    return outs


# ---- the spec vocabulary ------------------------------------------------------------------

def test_spec_takes_defaults_then_flag_defaults():
    spec = gemm_spec({"m": 8, "n": 9, "k": 10}, defaults={"arch": "gfx942", "type": "bf16"})
    assert tuple(spec) == SPEC_KEYS
    assert spec["arch"] == "gfx942" and spec["type"] == "bf16" and spec["g"] == 1
    assert gemm_spec({**SMALL, "type": "i8"}, {"type": "bf16"})["type"] == "i8"


@pytest.mark.parametrize("entry,message", [
    ({"arch": "gfx942", "m": 1, "n": 1}, "'k' is missing"),
    ({**SMALL, "mm": 3}, "unknown key 'mm'"),
    ({**SMALL, "m": "64"}, "'m' must be an integer, got \"64\""),
    ({**SMALL, "m": True}, "'m' must be an integer, got true"),
    ({**SMALL, "type": ["f16"]}, "'type' must be a string, got [\"f16\"]"),
    ({**SMALL, "trans_a": 1}, "'trans_a' must be true or false, got 1"),
    ({**SMALL, "perf_config": 3}, "'perf_config' must be a string or null"),
    (7, "expected an object"),
])
def test_spec_errors(entry, message):
    with pytest.raises(AccelError, match=None) as e:
        gemm_spec(entry)
    assert message in e.value.message


# ---- naming, deduplication, failures ---------------------------------------------------------

def test_identical_gemms_compile_once_and_variants_are_named_apart():
    chosen = compile_gemm("gfx1100", m=32, n=48, k=32).kernels[0]
    others = [c for c in VALID_CONFIGS if c != chosen.metadata["perf_config"]][:2]
    entries = [SMALL, dict(SMALL), {**SMALL, "perf_config": others[0]},
               {**SMALL, "perf_config": chosen.metadata["perf_config"]},
               {**SMALL, "arch": "gfx942"}, {**SMALL, "perf_config": others[0]},
               {**SMALL, "perf_config": others[1]}]
    progress: list[BatchProgress] = []
    result = compile_batch(entries, progress=progress.append)
    base = "accel_gemm_g1_m32_n48_k32_f16_f16_gfx1100"
    # Names in the order the entries first need them; the explicitly spelled choice is
    # the chosen kernel itself.
    assert result.entries == (base, base, base + "_v1", base,
                              "accel_gemm_g1_m32_n48_k32_f16_f16_gfx942", base + "_v1",
                              base + "_v2")
    assert [k.symbol for k in result.kernels] == list(dict.fromkeys(result.entries))
    assert result.kernels[0] == chosen
    meta = {k.symbol: k.metadata for k in result.kernels}
    assert [meta[base + v]["perf_config"] for v in ("_v1", "_v2")] == others
    assert meta[base + "_v2"]["symbol"] == base + "_v2"
    assert (base + "_v2").encode() in result.kernels[-1].code_object
    assert f"{base}_v2:" in result.kernels[-1].assembly
    # Five distinct units (equal entries are one); a renamed unit compiles twice.
    assert progress[-1].total == result.compiled == 7
    assert [p.done for p in progress] == list(range(1, len(progress) + 1))


def test_two_spellings_of_one_gemm_share_a_kernel():
    result = compile_batch([{**SMALL, "type": "i8"}, {**SMALL, "type": "i8", "out_type": "i32"}])
    assert len(result.kernels) == 1 and result.entries[0] == result.entries[1]


def test_a_failing_entry_is_reported_and_the_others_compile():
    entries = [SMALL, {**SMALL, "m": 0}, {**SMALL, "bogus": 1},
               {**SMALL, "perf_config": "v4:1,2"}, {**SMALL, "n": 64}]
    result = compile_batch(entries)
    assert not result.ok
    assert [f.index for f in result.failures] == [1, 2, 3]
    assert result.entries[0] and result.entries[4] and result.entries[1:4] == (None,) * 3
    lines = [f.render("list.json") for f in result.failures]
    assert lines[0] == ("error: entry 1 of list.json (gfx1100 g=1 m=0 n=48 k=32 f16): "
                        "m must be a positive integer, got 0")
    assert "entry 2 of list.json" in lines[1] and "unknown key 'bogus'" in lines[1]
    assert "entry 3 of list.json" in lines[2] and "perf_config=v4:1,2" in lines[2]
    assert all("\n" not in line for line in lines)


def test_module_batch_is_compile_module():
    batch = compile_module_batch(TWO_GEMMS, filename="two.mlir")
    whole = compile_module(TWO_GEMMS)
    assert batch.compile_result() == whole
    assert batch.entries == (whole.kernels[0].symbol, whole.kernels[1].symbol,
                             whole.kernels[0].symbol)
    assert batch.compiled == 2     # the third gemm equals the first (attributes in any order)


def mixed_module() -> str:
    """A function holding the other kernel kinds: two equal elementwise ops, a grouped
    gemm and a copy (gfx942)."""
    t = ("memref<2x37x21xf16>", "memref<37xf32>")
    ew = ('"accel.elementwise"(%x, %s, %o) {arch = "gfx942", operands = ["gmn", "m"], '
          f'program = "%0 = mul %e0, %e1"}} : ({t[0]}, {t[1]}, {t[0]}) -> ()\n')
    gg = ("memref<60x96xbf16>", "memref<96x96xbf16>", "memref<4xi32>", "memref<60x32xbf16>")
    text = (f"func.func @f(%x: {t[0]}, %s: {t[1]}, %o: {t[0]}, %ga: {gg[0]}, %gb: {gg[1]}, "
            f"%gs: {gg[2]}, %gc: {gg[3]}) {{\n" + ew
            + f'"accel.grouped_gemm"(%ga, %gb, %gs, %gc) {{arch = "gfx942", max_seq_len = 20 '
              f': i64}} : ({", ".join(gg)}) -> ()\n' + ew
            + '"accel.copy"(%x, %t) {arch = "gfx942", shape = array<i64: 2, 21, 37>, '
              'input_map = affine_map<(d0, d1, d2) -> (d0, d2, d1)>, output_map = '
              'affine_map<(d0, d1, d2) -> (d0, d1, d2)>} : '
              f'({t[0]}, memref<2x21x37xf16>) -> ()\n' + "return\n}\n")
    return text.replace("%gc: memref<60x32xbf16>",
                        "%gc: memref<60x32xbf16>, %t: memref<2x21x37xf16>")


def test_module_batch_takes_elementwise_copy_and_grouped_ops_as_units():
    # A MIGraphX chain that cannot fuse lowers to accel.elementwise, a view no kernel
    # addresses to accel.copy; a grouped gemm is one op too: each is a unit (the equal
    # elementwise op compiles once), with the kernels compile_module makes of the
    # module, in its launch order.
    text = mixed_module()
    batch = compile_module_batch(text, filename="mixed.mlir")
    whole = compile_module(text)
    assert batch.compile_result() == whole
    assert batch.compiled == 3 and len(batch.entries) == 4
    assert [k.metadata.get("op") for k in whole.kernels][-1] == "copy"
    assert [k.metadata.get("op") for k in whole.kernels][0] == "elementwise"


def test_two_grouped_gemms_of_one_shape_and_two_configs_are_one_line_failure():
    # A grouped gemm's kernel is named by its shape alone, so the batch cannot name the
    # second apart: the unit fails with a one-line message, the first compiles.
    t = "memref<60x96xbf16>, memref<96x96xbf16>, memref<4xi32>, memref<60x32xbf16>"
    op = ('"accel.grouped_gemm"(%a, %b, %s, %c) {{arch = "gfx942", max_seq_len = 20 : i64'
          '{}}} : ({}) -> ()\n')
    text = ("func.func @f(%a: memref<60x96xbf16>, %b: memref<96x96xbf16>, %s: memref<4xi32>, "
            "%c: memref<60x32xbf16>) {\n" + op.format("", t)
            + op.format(', perf_config = "v4:32,32,8,16,16,16,8,1,1,2,0,0,1,1"', t)
            + "return\n}\n")
    result = compile_module_batch(text, filename="g.mlir")
    (failure,) = result.failures
    assert failure.index == 1 and failure.location == ("g.mlir", 3, 1)
    assert "not compiled in one batch" in failure.render() and "\n" not in failure.render()
    assert result.entries[0] is not None


def test_module_batch_names_one_shape_with_two_configs_as_the_pass_does():
    t = ("memref<1x40x32xf16>", "memref<1x32x48xf16>", "memref<1x40x48xf32>")
    gemm = ('"accel.gemm"(%a, %b, %c) {{arch = "gfx942", perf_config = "{}"}} : '
            f'({", ".join(t)}) -> ()\n')
    text = (f"func.func @g(%a: {t[0]}, %b: {t[1]}, %c: {t[2]}) {{\n"
            + gemm.format("v4:32,32,4,32,32,32,8,1,1,2,0,0,1,1")
            + gemm.format("v4:16,16,2,16,16,16,8,1,1,2,0,0,1,1") + "return\n}\n")
    assert compile_module_batch(text).compile_result() == compile_module(text)


def test_module_gemm_failure_is_at_its_position():
    # A tile the i8 WMMA cannot take: the module verifies, the gemm's kernel fails.
    bad = "v4:32,32,4,32,32,32,8,2,1,2,0,0,1,1"
    text = TWO_GEMMS.replace('{arch = "gfx1201", accumulate}',
                             f'{{arch = "gfx1201", accumulate, perf_config = "{bad}"}}')
    result = compile_module_batch(text, filename="two.mlir")
    (failure,) = result.failures
    assert failure.index == 1 and failure.location == ("two.mlir", 5, 3)
    assert failure.render().startswith(f"two.mlir:5:3: error: invalid perf config '{bad}': "
                                       "mma-tile: mnPerXdl 32 is not a usable WMMA tile for "
                                       "i8 on gfx1201")
    assert result.entries[0] == result.entries[2] is not None


def test_migraphx_file_with_several_functions(tmp_path):
    # Seed 001's function at two sizes, one module; and the first size again.
    funcs = [seed001(m, n, k, accel_output=False).split("\n", 1)[1].rsplit("}", 1)[0]
             .replace("@mfma_layout", f"@f{i}")
             for i, (m, n, k) in enumerate([(128, 1280, 5120), (64, 128, 256), (128, 1280, 5120)])]
    src = tmp_path / "model.mlir"
    src.write_text(("module {\n" + "".join(funcs) + "}\n").replace("##TOKEN_ARCH##", "gfx942"))
    assert accel_compile([str(src), "-o", str(tmp_path / "out"), "-j", "1"]) == 0
    meta = json.loads((tmp_path / "out" / "model.json").read_text())
    assert [k["symbol"] for k in meta["kernels"]] == [
        "accel_gemm_g1_m128_n1280_k5120_f16_f16_xx_gfx942",
        "accel_gemm_g1_m64_n128_k256_f16_f16_xx_gfx942"]
    assert meta["kernels"][0]["perf_config"] == "v4:32,32,8,16,16,16,8,1,2,2,0,0,1,1"


def test_migraphx_functions_without_an_arch_take_the_flag(tmp_path):
    # rock.arch = "" (as the MIGraphX corpus writes it): --arch reaches the units' front
    # end as it reaches the launches', and the outputs are the named arch's.
    funcs = [seed001(m, n, k, accel_output=False).split("\n", 1)[1].rsplit("}", 1)[0]
             .replace("@mfma_layout", f"@f{i}")
             for i, (m, n, k) in enumerate([(128, 1280, 5120), (64, 128, 256)])]
    text = "module {\n" + "".join(funcs) + "}\n"
    outs = []
    for name, source, flags in (("named", text.replace("##TOKEN_ARCH##", "gfx942"), []),
                                ("unnamed", text.replace('arch = "##TOKEN_ARCH##"',
                                                         'rock.arch = ""'), ["--arch", "gfx942"])):
        src = tmp_path / name / "model.mlir"
        src.parent.mkdir()
        src.write_text(source)
        assert accel_compile([str(src), "-o", str(src.parent / "out"), "-j", "1", "--no-cache",
                              *flags]) == 0
        outs.append(files_in(src.parent / "out"))
    assert outs[0] == outs[1] and len(outs[0]) == 5


# ---- parallel: processes, any Executor, identical bytes --------------------------------------

class CountingExecutor(cf.Executor):
    """An Executor accel knows nothing about (as a cluster's would be)."""

    def __init__(self) -> None:
        self.inner = cf.ThreadPoolExecutor(2)
        self.submitted = 0

    def submit(self, fn, /, *args, **kwargs):
        self.submitted += 1
        return self.inner.submit(fn, *args, **kwargs)

    def shutdown(self, wait=True, **kw):
        self.inner.shutdown(wait)


ENTRIES = [SMALL, {**SMALL, "arch": "gfx1201", "type": "bf16"}, {**SMALL, "perf_config": CONFIG_B},
           {**SMALL, "arch": "gfx942", "trans_b": True, "epilogue": "bias_relu"}, SMALL]


def test_any_executor_gives_the_serial_result():
    serial = compile_batch(ENTRIES)
    ex = CountingExecutor()
    with ex:
        on_executor = compile_batch(ENTRIES, executor=ex)
    assert ex.submitted >= 4
    assert on_executor == serial


class RecordingExecutor(CountingExecutor):
    """Runs what it is given one at a time, in the order given, and records that order."""

    def __init__(self) -> None:
        self.inner = cf.ThreadPoolExecutor(1)
        self.submitted = 0
        self.units = []

    def submit(self, fn, /, *args, **kwargs):
        self.units.append(args[0])
        return super().submit(fn, *args, **kwargs)


def test_an_executor_gets_the_largest_output_first_and_the_order_changes_nothing():
    sizes = [(1, 16, 16), (2, 32, 48), (1, 64, 32), (1, 16, 40)]
    entries = [{"arch": "gfx1100", "g": g, "m": m, "n": n, "k": 32} for g, m, n in sizes]
    ex = RecordingExecutor()
    with ex:
        on_executor = compile_batch(entries, executor=ex, assembly=False)
    submitted = [(dict(u.spec)["g"], dict(u.spec)["m"], dict(u.spec)["n"]) for u in ex.units]
    assert submitted == [(2, 32, 48), (1, 64, 32), (1, 16, 40), (1, 16, 16)]
    # Kernels and entries in the entries' order, as compiled one by one in order.
    assert on_executor == compile_batch(entries, assembly=False)


def test_a_module_batch_on_an_executor_gets_its_largest_gemm_first():
    ex = RecordingExecutor()
    with ex:
        on_executor = compile_module_batch(TWO_GEMMS, executor=ex, assembly=False)
    assert ["2x77x40xf32" in u.text for u in ex.units] == [True, False]
    assert on_executor == compile_module_batch(TWO_GEMMS, assembly=False)


def test_worker_processes_give_the_serial_result():
    serial = compile_batch(ENTRIES, assembly=False)
    assert compile_batch(ENTRIES, jobs=2, assembly=False) == serial


def _gc_state() -> tuple[int, int]:
    import gc
    return gc.get_threshold()[0], gc.get_freeze_count()


def test_local_pool_workers_collect_garbage_at_the_compile_threshold():
    pool = batch_mod.local_process_pool(1)
    try:
        threshold, frozen = pool.submit(_gc_state).result()
        assert threshold == batch_mod.COMPILE_GC_THRESHOLD
        assert frozen > 10_000          # the compiler's modules, inherited from the server
    finally:
        pool.shutdown()


def test_a_module_batch_on_worker_processes_gives_the_serial_result(monkeypatch):
    started = []
    real = batch_mod.start_local_pool_server
    monkeypatch.setattr(batch_mod, "start_local_pool_server",
                        lambda: (started.append(True), real())[1])
    serial = compile_module_batch(TWO_GEMMS, assembly=False)
    assert started == []
    # Its workers' server starts before the module is read: three gemms may be two units.
    assert compile_module_batch(TWO_GEMMS, jobs=2, assembly=False) == serial
    assert started == [True]


def test_a_module_of_one_gemm_starts_no_worker_server(monkeypatch):
    started = []
    monkeypatch.setattr(batch_mod, "start_local_pool_server", lambda: started.append(True))
    one = TWO_GEMMS.split('  "accel.gemm"(%x')[0] + "  return\n}\n"
    result = compile_module_batch(one, jobs=2, assembly=False)
    assert len(result.kernels) == 1 and started == []


def test_cli_jobs_output_is_identical(tmp_path):
    outs = batch_outputs_by_jobs(tmp_path, ENTRIES)
    meta = json.loads(outs[0]["list.json"])
    assert meta["arch"] == ["gfx1100", "gfx1201", "gfx942"]
    assert [k["symbol"] for k in meta["kernels"]] == list(dict.fromkeys(meta["entries"]))
    assert [k["arch"] for k in meta["kernels"]] == [
        re.search(r"_(gfx\d+)(_v\d+)?$", k["symbol"]).group(1) for k in meta["kernels"]]
    assert len(meta["entries"]) == 5 and meta["entries"][0] == meta["entries"][4]
    for k in meta["kernels"]:
        assert outs[0][k["code_object"]][:4] == b"\x7fELF"
        assert f"{k['symbol']}:" in outs[0][k["symbol"] + ".s"].decode()


# ---- split-K: one GEMM, two kernels and a workspace ------------------------------------------

# Chosen: compile_gemm without a perf config splits this one (tuning/split_k.py).
SPLIT_CHOSEN = {"arch": "gfx942", "m": 48, "n": 4096, "k": 4096}
# Given: splitKFactor 3 on a tile that serves this shape on gfx1100.
SPLIT_GIVEN = {"arch": "gfx1100", "m": 40, "n": 64, "k": 256,
               "perf_config": "v4:16,32,16,16,16,16,8,3,1,2,0,0,1,1"}
SPLIT_ENTRIES = [SMALL, SPLIT_CHOSEN, SPLIT_GIVEN, dict(SPLIT_CHOSEN),
                 {**SPLIT_GIVEN, "epilogue": "relu"}]


def gemm_of(entry, assembly=True):
    e = {**entry}
    return compile_gemm(e.pop("arch"), in_type=e.pop("type", "f16"), assembly=assembly, **e)


def test_a_split_k_gemm_is_the_kernels_compile_gemm_makes():
    result = compile_batch(SPLIT_ENTRIES)
    assert result.ok and result.compiled == 4      # the repeated GEMM compiles once
    direct = [gemm_of(e) for e in (SMALL, SPLIT_CHOSEN, SPLIT_GIVEN, SPLIT_ENTRIES[4])]
    assert [len(d.kernels) for d in direct] == [1, 2, 2, 2]
    # Each GEMM's kernels byte for byte, together and in launch order.
    assert result.kernels == tuple(k for d in direct for k in d.kernels)
    assert result.entries == tuple(direct[i].kernels[0].symbol for i in (0, 1, 2, 1, 3))
    buffers = [b for d in direct[1:] for b in d.workspace["buffers"]]
    assert result.workspace == {"bytes": sum(b["bytes"] for b in buffers), "buffers": buffers}
    meta = result.metadata()
    assert list(meta) == ["arch", "kernels", "workspace", "entries"]
    assert [k["arch"] for k in meta["kernels"]] == ["gfx1100", "gfx942", "gfx942"] + \
        ["gfx1100"] * 4
    assert all(b["kind"] == "workspace" for b in meta["workspace"]["buffers"])


def test_one_shape_split_and_unsplit_is_named_as_in_a_module():
    """The unsplit kernel and the split pair of one shape: `_v1` goes to whichever the
    entries need second, its reduction `_v1_reduce`, as accel-plan-kernel names them."""
    unsplit = {k: v for k, v in SPLIT_GIVEN.items() if k != "perf_config"}
    base = "accel_gemm_g1_m40_n64_k256_f16_f16_gfx1100"
    split_first = compile_batch([SPLIT_GIVEN, unsplit])
    assert [k.symbol for k in split_first.kernels] == [base, base + "_reduce", base + "_v1"]
    unsplit_first = compile_batch([unsplit, SPLIT_GIVEN])
    assert [k.symbol for k in unsplit_first.kernels] == [base, base + "_v1",
                                                         base + "_v1_reduce"]
    assert unsplit_first.entries == (base, base + "_v1")
    (buf,) = unsplit_first.workspace["buffers"]
    assert buf["kernels"] == [base + "_v1", base + "_v1_reduce"]
    assert f"{base}_v1_reduce:" in unsplit_first.kernels[2].assembly
    # A module holding both gemms, in both orders: what compile_module makes of it.
    t = ("memref<1x40x256xf16>", "memref<1x256x64xf16>", "memref<1x40x64xf16>")
    gemm = ('"accel.gemm"(%a, %b, %c) {{arch = "gfx1100"{}}} : '
            f'({", ".join(t)}) -> ()\n')
    given = gemm.format(f', perf_config = "{SPLIT_GIVEN["perf_config"]}"')
    for body in (given + gemm.format(""), gemm.format("") + given):
        text = f"func.func @g(%a: {t[0]}, %b: {t[1]}, %c: {t[2]}) {{\n{body}return\n}}\n"
        assert compile_module_batch(text).compile_result() == compile_module(text)


def test_cli_split_k_batch_jobs_and_files(tmp_path):
    outs = batch_outputs_by_jobs(tmp_path, SPLIT_ENTRIES)
    direct = gemm_of(SPLIT_CHOSEN)
    for k in direct.kernels:
        assert outs[0][f"{k.symbol}.hsaco"] == k.code_object
        assert outs[0][f"{k.symbol}.s"].decode() == k.assembly
    meta = json.loads(outs[0]["list.json"])
    assert meta["workspace"]["buffers"][0] == direct.workspace["buffers"][0]
    assert len(outs[0]) == 2 * 7 + 1


def test_cli_one_split_k_gemm_writes_compile_gemms_json(tmp_path):
    assert accel_compile(["--arch", "gfx942", "-m", "48", "-n", "4096", "-k", "4096",
                          "--no-cache", "-o", str(tmp_path)]) == 0
    direct = gemm_of(SPLIT_CHOSEN)
    name = direct.kernels[0].symbol
    assert json.loads((tmp_path / f"{name}.json").read_text()) == direct.metadata()


# ---- the command line -------------------------------------------------------------------------

def test_cli_batch_flags_are_defaults(tmp_path):
    listing = tmp_path / "l.json"
    listing.write_text(json.dumps([{"m": 32, "n": 48, "k": 32}, {"m": 16, "n": 16, "k": 16,
                                                                "type": "i8"}]))
    assert accel_compile(["--batch", str(listing), "--arch", "gfx1201", "-t", "bf16",
                          "-o", str(tmp_path)]) == 0
    meta = json.loads((tmp_path / "l.json").read_text())
    assert meta["entries"] == ["accel_gemm_g1_m32_n48_k32_bf16_bf16_gfx1201",
                               "accel_gemm_g1_m16_n16_k16_i8_i32_gfx1201"]


def test_cli_batch_failure_names_the_entry_and_writes_nothing(tmp_path, capsys):
    listing = tmp_path / "l.json"
    listing.write_text(json.dumps([SMALL, {**SMALL, "m": -3}, {**SMALL, "epilogue": "gelu"}]))
    out = tmp_path / "out"
    assert accel_compile(["--batch", str(listing), "-o", str(out)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"accel-compile: error: entry 1 of {listing} (gfx1100 g=1 m=-3 n=48 k=32 f16): "
        "m must be a positive integer, got -3",
        f"accel-compile: error: entry 2 of {listing} (gfx1100 g=1 m=32 n=48 k=32 f16 "
        "epilogue=gelu): epilogue must be one of none, bias, relu, bias_relu, got 'gelu'",
        "accel-compile: 2 of 3 GEMMs failed; nothing written"]
    assert not out.exists()


@pytest.mark.parametrize("text,message", [
    ("[{]", "l.json:1:3: error: invalid JSON"),
    ('{"m": 1}', "accel-compile: error: l.json: expected a JSON list of GEMMs, got an object"),
])
def test_cli_batch_file_errors(tmp_path, capsys, monkeypatch, text, message):
    (tmp_path / "l.json").write_text(text)
    monkeypatch.chdir(tmp_path)
    assert accel_compile(["--batch", "l.json", "-o", "out"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(message) and len(err.strip().splitlines()) == 1


def test_cli_batch_does_not_take_an_input_file(tmp_path, capsys):
    assert accel_compile(["x.mlir", "--batch", "l.json"]) == 1
    assert "--batch cannot be combined with an input file" in capsys.readouterr().err


# ---- progress ------------------------------------------------------------------------------------

class FakeTerminal:
    def __init__(self, tty: bool) -> None:
        self.tty, self.text = tty, ""

    def isatty(self) -> bool:
        return self.tty

    def write(self, s: str) -> None:
        self.text += s

    def flush(self) -> None:
        pass


def test_progress_on_a_terminal_after_the_delay(monkeypatch):
    term = FakeTerminal(tty=True)
    bar = TerminalProgress("accel-compile", term)
    bar(BatchProgress(1, 10, 0, 0))
    assert term.text == ""                       # before DELAY: quiet
    monkeypatch.setattr(TerminalProgress, "DELAY", 0.0)
    monkeypatch.setattr(TerminalProgress, "INTERVAL", 0.0)
    bar(BatchProgress(2, 10, 1, 0))
    bar(BatchProgress(3, 10, 1, 1))
    bar.close()
    assert term.text == ("\raccel-compile: 2/10 GEMMs, 1 from the cache\033[K"
                         "\raccel-compile: 3/10 GEMMs, 1 from the cache, 1 failed\033[K"
                         "\raccel-compile: 3/10 GEMMs, 1 from the cache, 1 failed\033[K\n")


def test_progress_is_quiet_off_a_terminal(monkeypatch):
    monkeypatch.setattr(TerminalProgress, "DELAY", 0.0)
    term = FakeTerminal(tty=False)
    bar = TerminalProgress("accel-compile", term)
    bar(BatchProgress(1, 2, 0, 0))
    bar.close()
    assert term.text == ""


# ---- cold start -------------------------------------------------------------------------------------

def run_python(code: str) -> str:
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return p.stdout.strip()


@pytest.mark.parametrize("argv,code", [
    (["--help"], 0), (["-j", "0"], 2), (["--arch", "gfx90a"], 2), (["-m", "3"], 1),
    (["--no-cache", "--cache-dir", "d", "-m", "1"], 1), (["x.mlir", "--batch", "l.json"], 1),
])
def test_help_and_argument_errors_do_not_load_the_bindings(argv, code):
    probe = ("import io, sys, contextlib\n"
             "from accel.tools.accel_compile import main\n"
             "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
             "    try:\n"
             f"        rc = main({argv!r})\n"
             "    except SystemExit as e:\n"
             "        rc = e.code\n"
             "print(rc, sorted(m for m in sys.modules if m.startswith(('flydsl', 'accel.bindings', "
             "'accel.api', 'numpy'))))")
    assert run_python(probe) == f"{code} []"


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_first_compile_loads_only_what_one_gemm_needs(arch):
    # The front ends (MIGraphX's grammar) and unused dialect classes stay unloaded (on a
    # WMMA chip too, whose accel-wmma-banks reads and writes the rocdl target as text:
    # the rocdl module costs 70 ms); the kernel pipeline's own steps (accel-layout,
    # accel-lower-pack: ~8 ms of imports) are part of every compile.
    probe = ("import sys\n"
             "from accel.api import compile_gemm\n"
             f"compile_gemm('{arch}', m=64, n=64, k=64)\n"
             "print(sorted(m for m in sys.modules if m.startswith(('lark', 'accel.migraphx', "
             "'accel.passes.from_', 'numpy', 'ml_dtypes', "
             "'flydsl._mlir.dialects.rocdl', 'flydsl._mlir.dialects.llvm'))))")
    assert run_python(probe) == "[]"


# What a one-GEMM compile does not use: the other kernel kinds' codegen and lowerings
# (grouped gemm, elementwise and reduction, copy), the grouped gemm's dispatch, the host
# launches (a GEMM of the flags has no launches section), the cache under --no-cache, and
# flydsl's autotuner (its package body); on an MFMA chip, accel-wmma-banks.
UNUSED_BY_ONE_GEMM = ("accel.codegen.grouped", "accel.codegen.tile_list",
                      "accel.codegen.elementwise", "accel.codegen.copy",
                      "accel.codegen.index_map", "accel.passes.grouped_gemm_to_gpu",
                      "accel.passes.elementwise_to_gpu", "accel.passes.copy_to_gpu",
                      "accel.passes.kernel_launch", "accel.tuning.grouped_dispatch",
                      "accel.tuning.grouped_launch", "accel.launches", "accel.cache",
                      "flydsl.autotune")
WMMA_ONLY = ("accel.passes.wmma_banks", "accel.passes.vgpr_values")


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_the_tool_compiles_one_gemm_without_the_other_kernel_kinds(arch, tmp_path):
    # ... and a later module of those kinds in the same process loads them and compiles
    # to the bytes a process that had them all along makes (this one).
    probe = ("import hashlib, json, sys\n"
             "from accel.tools.accel_compile import main\n"
             f"assert main(['--arch', '{arch}', '-m', '64', '-n', '64', '-k', '64', "
             f"'--no-cache', '-o', {str(tmp_path)!r}]) == 0\n"
             f"print(sorted(m for m in {UNUSED_BY_ONE_GEMM + WMMA_ONLY!r} if m in sys.modules))\n"
             "from accel.api import compile_module\n"
             f"r = compile_module({mixed_module()!r})\n"
             "print(json.dumps([[k.symbol, hashlib.sha256(k.code_object).hexdigest(), "
             "k.metadata] for k in r.kernels]))\n"
             "import flydsl\n"
             "print(flydsl.__version__, flydsl.Config.__module__)")
    loaded, kernels, package = run_python(probe).splitlines()
    assert loaded == str(sorted(WMMA_ONLY) if arch == "gfx1100" else [])
    whole = compile_module(mixed_module())
    assert json.loads(kernels) == [[k.symbol, hashlib.sha256(k.code_object).hexdigest(),
                                    k.metadata] for k in whole.kernels]
    assert {k.metadata["op"] for k in whole.kernels} >= {"elementwise", "grouped_gemm", "copy"}
    assert package.split() == [flydsl_version(), "flydsl.autotune"]


def flydsl_version() -> str:
    from importlib import metadata
    return metadata.version("flydsl")


def test_numpy_imports_after_a_compile_that_did_not_need_it():
    # accel.bindings hides numpy while the bindings import (their optional numpy
    # builders are unused); afterwards numpy, the host types and the simulator work in
    # the same process, a constant weight is packed, a product checked elementwise.
    probe = ("import sys\n"
             "from accel.api import compile_gemm\n"
             "compile_gemm('gfx942', m=64, n=64, k=64)\n"
             "assert 'numpy' not in sys.modules\n"
             "from accel.check import check_gemm\n"
             "from accel.dialect.element_types import NUMPY_TYPES\n"
             "print(NUMPY_TYPES['bf16'].__name__, NUMPY_TYPES['f8E4M3FNUZ'].__name__, "
             "check_gemm('gfx942', m=17, n=24, k=40).comparison.ok)")
    assert run_python(probe) == "bfloat16 float8_e4m3fnuz True"


@pytest.mark.parametrize("given,expected", [(None, "1"), ("3", "3")])
def test_the_tool_gives_blas_one_thread_unless_told(given, expected):
    # OpenBLAS's idle threads spin at numpy's import; a compile makes no BLAS call.
    probe = ("import os\n"
             + (f"os.environ['OPENBLAS_NUM_THREADS'] = {given!r}\n" if given else
                "os.environ.pop('OPENBLAS_NUM_THREADS', None)\n")
             + "import accel.tools.accel_compile\n"
               "print(os.environ['OPENBLAS_NUM_THREADS'])")
    assert run_python(probe) == expected


def test_cli_batch_from_stdin(tmp_path):
    p = subprocess.run([sys.executable, "-m", "accel.tools.accel_compile", "--batch", "-",
                        "-j", "1", "-o", str(tmp_path)], input=json.dumps([SMALL]),
                       capture_output=True, text=True)
    assert p.returncode == 0 and p.stderr == "", p.stderr
    meta = json.loads((tmp_path / "stdin.json").read_text())
    assert meta["entries"] == ["accel_gemm_g1_m32_n48_k32_f16_f16_gfx1100"]
