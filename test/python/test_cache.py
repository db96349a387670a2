"""The kernel cache: hits are the compiled bytes, corrupt entries are misses, writes are
atomic and shared between processes, the size cap evicts the least recently used."""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
import time

import pytest

from accel.batch import compile_batch
from accel.cache import KernelCache, compiler_identity, default_cache_dir
from accel.compiled import CompiledKernel, CompileResult
from accel.tools.accel_compile import main as accel_compile

GEMMS = [{"arch": "gfx1100", "m": 32, "n": 48, "k": 32},
         {"arch": "gfx942", "m": 40, "n": 24, "k": 64, "type": "bf16", "trans_a": True},
         {"arch": "gfx1201", "m": 16, "n": 16, "k": 16, "type": "i8"}]


# Given splitKFactor 3: a unit of two kernels (partial products, reduction) and a workspace.
SPLIT_GIVEN = {"arch": "gfx1100", "m": 40, "n": 64, "k": 256,
               "perf_config": "v4:16,32,16,16,16,16,8,3,1,2,0,0,1,1"}


def fake_kernel(symbol: str, size: int = 1000, code: bytes | None = None) -> CompileResult:
    """A one-kernel unit's result, of `size` random bytes (or `code`)."""
    kernel = CompiledKernel(symbol, os.urandom(size) if code is None else code,
                            f"{symbol}:\n\ts_endpgm\n",
                            {"symbol": symbol, "grid": [1, 1, 1], "lds_bytes": 0})
    return CompileResult("gfx942", (kernel,))


def entry_files(cache: KernelCache) -> list[str]:
    return sorted(path for path, _, _ in cache.entries())


def test_a_hit_is_the_compiled_kernel(tmp_path):
    cache = KernelCache(tmp_path)
    cold = compile_batch(GEMMS, cache=cache)
    assert (cold.compiled, cold.cached) == (3, 0) and len(entry_files(cache)) == 3
    warm = compile_batch(GEMMS, cache=cache)
    assert (warm.compiled, warm.cached) == (0, 3)
    assert warm.kernels == cold.kernels and warm.entries == cold.entries
    # Key order in the metadata is part of the JSON a hit must reproduce.
    assert [json.dumps(k.metadata) for k in warm.kernels] == \
        [json.dumps(k.metadata) for k in cold.kernels]


def test_cli_outputs_from_the_cache_are_byte_identical(tmp_path):
    listing = tmp_path / "l.json"
    listing.write_text(json.dumps(GEMMS))
    outs = []
    for run in ("cold", "warm", "none"):
        out = tmp_path / run
        cache = ["--no-cache"] if run == "none" else ["--cache-dir", str(tmp_path / "c")]
        assert accel_compile(["--batch", str(listing), "-o", str(out), "-j", "1", *cache]) == 0
        outs.append({p.name: p.read_bytes() for p in out.iterdir()})
    assert outs[0] == outs[1] == outs[2] and len(outs[0]) == 7


@pytest.mark.parametrize("damage", ["flip", "truncate", "empty", "swap"])
def test_a_corrupt_entry_is_recompiled_never_returned(tmp_path, damage):
    cache = KernelCache(tmp_path)
    good = compile_batch(GEMMS[:2], cache=cache)
    paths = entry_files(cache)
    data = open(paths[0], "rb").read()
    if damage == "flip":
        i = len(data) // 2
        data = data[:i] + bytes([data[i] ^ 1]) + data[i + 1:]
    elif damage == "truncate":
        data = data[:-10]
    elif damage == "empty":
        data = b""
    else:   # a whole, valid entry filed under the other key
        data = open(paths[1], "rb").read()
    open(paths[0], "wb").write(data)
    again = compile_batch(GEMMS[:2], cache=cache)
    assert (again.compiled, again.cached) == (1, 1)
    assert again.kernels == good.kernels
    assert compile_batch(GEMMS[:2], cache=cache).cached == 2     # replaced by the recompile


def test_a_split_k_unit_is_one_entry_and_a_hit_is_both_kernels(tmp_path):
    cache = KernelCache(tmp_path)
    cold = compile_batch([SPLIT_GIVEN], cache=cache)
    assert len(cold.kernels) == 2 and len(entry_files(cache)) == 1
    warm = compile_batch([SPLIT_GIVEN], cache=cache)
    assert (warm.compiled, warm.cached) == (0, 1)
    assert warm.kernels == cold.kernels and warm.workspace == cold.workspace
    assert json.dumps(warm.metadata()) == json.dumps(cold.metadata())


@pytest.mark.parametrize("damage", ["flip_reduction", "drop_reduction", "drop_assembly_tail"])
def test_a_damaged_split_k_entry_is_recompiled_never_partly_returned(tmp_path, damage):
    cache = KernelCache(tmp_path)
    good = compile_batch([SPLIT_GIVEN], cache=cache)
    (path,) = entry_files(cache)
    data = open(path, "rb").read()
    partial, reduction = good.kernels
    tail = len(reduction.code_object) + len(reduction.assembly.encode())
    if damage == "flip_reduction":      # one bit of the reduction's code object
        i = len(data) - tail + len(reduction.code_object) // 2
        data = data[:i] + bytes([data[i] ^ 1]) + data[i + 1:]
    elif damage == "drop_reduction":    # the entry cut after the partial kernel
        data = data[:-tail]
    else:
        data = data[:-1]
    open(path, "wb").write(data)
    again = compile_batch([SPLIT_GIVEN], cache=cache)
    assert (again.compiled, again.cached) == (1, 0)
    assert again.kernels == good.kernels and again.workspace == good.workspace
    assert compile_batch([SPLIT_GIVEN], cache=cache).cached == 1   # replaced by the recompile


def test_key_covers_input_arch_and_compiler(tmp_path):
    cache = KernelCache(tmp_path)
    unit = {"gemm": {"m": 1}, "variant": 0}
    keys = {cache.key(unit, "gfx942"), cache.key(unit, "gfx1100"),
            cache.key({**unit, "variant": 1}, "gfx942"), cache.key({"gemm": {"m": 2}}, "gfx942")}
    assert len(keys) == 4
    assert cache.key(unit, "gfx942") == KernelCache(tmp_path / "other").key(dict(unit), "gfx942")
    ident = compiler_identity()
    assert ident["accel"].startswith("source ") and ident["bindings"] == "flydsl 0.4.2"
    assert "ziglang" in ident["linker"]


def test_trim_removes_least_recently_used_first(tmp_path):
    cache = KernelCache(tmp_path, max_bytes=10_000)
    for i in range(8):
        cache.put(f"{i:02x}" * 32, fake_kernel(f"k{i}", 1500))
        t = time.time() - 100 + i            # k0 oldest ... k7 newest
        os.utime(cache._path(f"{i:02x}" * 32), (t, t))
    cache.get("00" * 32)                      # a hit renews k0
    assert cache.trim() > 0
    kept = {os.path.basename(p)[:2] for p in entry_files(cache)}
    assert sum(size for _, size, _ in cache.entries()) <= 10_000 * 0.9
    assert "00" in kept and "07" in kept and "01" not in kept
    assert cache.trim() == 0


def _writer(directory: str, worker: int) -> None:
    cache = KernelCache(directory)
    for i in range(40):
        # Every worker writes the shared keys (the same bytes, as a compile would) and
        # keys of its own.
        shared = fake_kernel(f"shared{i % 5}", code=bytes(3000 + i % 5))
        cache.put(f"{i % 5:064x}", shared)
        cache.put(f"{worker + 1:032x}{i:032x}", fake_kernel(f"w{worker}_{i}", 2000))
        for j in range(5):
            got = cache.get(f"{j:064x}")
            assert got is None or got.kernels[0].code_object == bytes(3000 + j)


def test_several_processes_share_a_cache(tmp_path):
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(str(tmp_path), w)) for w in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0, 0, 0]
    cache = KernelCache(tmp_path)
    assert len(entry_files(cache)) == 5 + 3 * 40
    assert all(cache.get(f"{j:064x}").kernels[0].code_object == bytes(3000 + j)
               for j in range(5))
    leftovers = [n for _, _, files in os.walk(tmp_path) for n in files if n.startswith(".tmp")]
    assert leftovers == []


def test_an_unwritable_cache_does_not_fail_the_compile(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    cache = KernelCache(blocker / "cache")
    result = compile_batch(GEMMS[:1], cache=cache)
    assert result.ok and result.compiled == 1
    assert cache.write_error and "cannot write to the kernel cache" in cache.write_error


def test_default_location(monkeypatch, tmp_path):
    monkeypatch.delenv("ACCEL_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert default_cache_dir() == str(tmp_path / "accel" / "kernels")
    monkeypatch.setenv("ACCEL_CACHE_DIR", str(tmp_path / "x"))
    assert default_cache_dir() == str(tmp_path / "x")


def test_the_suite_never_uses_the_users_cache():
    assert os.environ["ACCEL_CACHE_DIR"] == default_cache_dir()
    assert os.path.basename(default_cache_dir()).startswith("accel-test-cache-")


def test_a_cached_batch_does_not_load_the_compiler(tmp_path):
    compile_batch(GEMMS, cache=KernelCache(tmp_path))
    probe = ("import sys\n"
             "from accel.batch import compile_batch\n"
             f"r = compile_batch({GEMMS!r}, cache={str(tmp_path)!r})\n"
             "print(r.cached, r.compiled, sorted(m for m in sys.modules if m.startswith("
             "('flydsl', 'accel.bindings', 'accel.api', 'accel.batch_compile'))))")
    p = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert p.stdout.strip() == "3 0 []", p.stderr


def test_trim_removes_what_a_dead_writer_left(tmp_path):
    cache = KernelCache(tmp_path)
    cache.put("ab" * 32, fake_kernel("k"))
    old, fresh = tmp_path / "ab" / ".tmp-old", tmp_path / "ab" / ".tmp-writing"
    old.write_bytes(b"half")
    fresh.write_bytes(b"half")
    os.utime(old, (time.time() - 7200, time.time() - 7200))
    assert cache.trim() == 0
    assert not old.exists() and fresh.exists() and len(cache.entries()) == 1


def test_a_kernel_cached_without_assembly_does_not_serve_one_with_it(tmp_path):
    cache = KernelCache(tmp_path)
    bare = compile_batch(GEMMS[:1], cache=cache, assembly=False)
    full = compile_batch(GEMMS[:1], cache=cache)
    assert bare.kernels[0].assembly == "" and full.cached == 0
    assert "\t.amdgcn_target" in full.kernels[0].assembly
    assert compile_batch(GEMMS[:1], cache=cache, assembly=False).cached == 1


@pytest.mark.parametrize("jobs", [1, 2])
def test_each_compiled_unit_is_stored_when_it_arrives(tmp_path, jobs):
    # Stored while the others still compile (not after the batch): by the time a unit
    # is reported done, its entry is on disk.
    cache = KernelCache(tmp_path)
    seen = []
    compile_batch(GEMMS, cache=cache, jobs=jobs, assembly=False,
                  progress=lambda p: seen.append((p.done, len(cache.entries()))))
    assert seen == [(1, 1), (2, 2), (3, 3)]
