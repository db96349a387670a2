"""Compile many GEMMs in one call: each distinct one once, named apart, cached, in parallel.

    from accel.batch import compile_batch
    result = compile_batch([{"arch": "gfx942", "m": 128, "n": 1280, "k": 5120},
                            {"arch": "gfx1100", "m": 77, "n": 64, "k": 40, "type": "bf16"}],
                           jobs=4, cache=True)
    result.kernels        # the distinct kernels, in the order the entries first need them
    result.entries        # per entry, the symbol of its (first) kernel (None if it failed)
    result.workspace      # the split-K GEMMs' partial-product buffers, or None
    result.failures       # per failed entry: its index, its GEMM, the one-line message
    result.metadata()     # the batch's JSON document

A batch is a list of entries, each a GEMM in the command-line flags' vocabulary
(`SPEC_KEYS`; an omitted key takes `defaults`, then the flags' default), or the
`accel.gemm` ops of a module (`compile_module_batch`: MLIR or MIGraphX text). Each entry
becomes a *unit*, the normalised input of one GEMM: the entry's full spec, or the
gemm's own function. Equal units compile once. A unit compiles to what compile_module
makes of its GEMM: one kernel, or with splitKFactor > 1 (given, or chosen as
compile_gemm chooses it) the partial-product and reduction kernels, in launch order,
and the workspace between them. A unit's kernels are named by the compiler (shape,
types, layouts, epilogue, arch; the reduction adds `_reduce`); two units whose first
kernels share that name but differ (one GEMM, two perf configs) are named apart with
`_v1`, `_v2`, ... in the order the entries need them, as accel-plan-kernel names them
inside a module, and two units that compile to the same kernels (two spellings of one
GEMM) share them.

Units compile in the calling process, or on `executor` (any concurrent.futures
Executor: a process pool, or a cluster's), or, with `jobs` > 1, in a local pool of
worker processes; the results are placed in entry order, so the output does not depend
on which worker finished first. With a cache (cache.py) each unit's kernels are looked
up first and stored as one entry when they arrive (while the other units still
compile); a batch found whole in the cache never loads the compiler.
A failing unit is reported with its entry and GEMM and the others go on.

Nothing here imports the MLIR bindings: the compiler side is batch_compile.py, loaded
by whichever process compiles the first unit.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import math
import os
import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Callable, Iterable, Mapping, Sequence

from accel.compiled import CompiledKernel, CompileResult
from accel.diagnostics import AccelError

# Held around loading the compiler in this process. A command-line tool sets it to hold
# its signals (tools/interrupts.deferred): a Ctrl-C raised inside the import of the MLIR
# bindings' native modules crashed the process (exit -11) or was lost in importlib.
compiler_load_guard: Callable[[], contextlib.AbstractContextManager] = contextlib.nullcontext


def _compiler():
    """accel.batch_compile, loaded under `compiler_load_guard`."""
    with compiler_load_guard():
        return importlib.import_module("accel.batch_compile")


# concurrent.futures and multiprocessing (~12 ms of imports) load when a batch first
# needs an executor: a one-GEMM compile runs in this process. The cache (with hashlib,
# ~4 ms) loads when a batch has one.
if TYPE_CHECKING:
    import concurrent.futures as cf

    from accel.cache import KernelCache

# The flags' vocabulary (accel-compile --help) and the flags' defaults; None = required.
SPEC_DEFAULTS = {
    "arch": None, "g": 1, "m": None, "n": None, "k": None, "type": "f16", "b_type": None,
    "out_type": None,
    "trans_a": False, "trans_b": False, "a_layout": "row", "b_layout": "row",
    "perf_config": None, "accumulate": False, "epilogue": "none", "batched_bias": False,
}
SPEC_KEYS = tuple(SPEC_DEFAULTS)
_OPTIONAL = ("b_type", "out_type", "perf_config")
_REQUIRED = tuple(k for k, v in SPEC_DEFAULTS.items() if v is None and k not in _OPTIONAL)
# The JSON kind of each key's value. Checked up front: a value of another kind (a list
# for a type) could not even be looked up where the values are checked.
_KINDS = {key: (int if key in ("g", "m", "n", "k") else
                bool if isinstance(default, bool) else str)
          for key, default in SPEC_DEFAULTS.items()}
_KIND_WORDS = {int: "an integer", bool: "true or false", str: "a string"}


def gemm_spec(entry, defaults: Mapping | None = None) -> dict:
    """`entry` (a mapping in the flags' vocabulary) with every key present: omitted keys
    from `defaults`, then the flags' defaults. Only the shape of the entry is checked
    here (an object, known keys, the required ones present); the values are checked
    where the GEMM is built (accel.api.gemm_module_text), and an error there names the
    entry too."""
    if not isinstance(entry, Mapping):
        raise AccelError(f"expected an object with the keys {', '.join(SPEC_KEYS)}, "
                         f"got {type(entry).__name__}")
    unknown = [key for key in entry if key not in SPEC_DEFAULTS]
    if unknown:
        raise AccelError(f"unknown key '{unknown[0]}' (known: {', '.join(SPEC_KEYS)})")
    spec = {**SPEC_DEFAULTS, **(defaults or {}), **entry}
    missing = [key for key in _REQUIRED if spec[key] is None]
    if missing:
        raise AccelError(f"'{missing[0]}' is missing")
    for key in SPEC_KEYS:
        value, kind = spec[key], _KINDS[key]
        if value is None and key in _OPTIONAL:
            continue
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise AccelError(f"'{key}' must be {_KIND_WORDS[kind]}"
                             f"{' or null' if key in _OPTIONAL else ''}, got {json.dumps(value)}")
    return {key: spec[key] for key in SPEC_KEYS}


def describe(spec: Mapping) -> str:
    """A GEMM in a few words, for diagnostics: `gfx942 g=1 m=64 n=64 k=64 f16`."""
    words = [str(spec.get("arch"))] + [f"{d}={spec.get(d)}" for d in ("g", "m", "n", "k")]
    words.append(str(spec.get("type")))
    for key in SPEC_KEYS[SPEC_KEYS.index("type") + 1:]:
        if spec.get(key) != SPEC_DEFAULTS[key]:
            words.append(f"{key}={spec[key]}")
    return " ".join(words)


# ---- units: what one GEMM's kernels are compiled from-----------------------------------------

@dataclass(frozen=True)
class Unit:
    """The normalised input of one kernel op's kernels, shipped to whichever process compiles it.

    Exactly one of `spec` (a full gemm_spec, as sorted items) and `text` (a function
    holding one kernel op, see batch_compile.gemm_units) is set. `variant` > 0 names
    the kernels `<symbol>_v<variant>` (and `<symbol>_v<variant>_reduce`)."""
    arch: str
    spec: tuple[tuple[str, object], ...] | None = None
    text: str | None = None
    variant: int = 0
    # Where a module's gemm stands in its file, (file, line, col): errors are reported
    # there, not in the unit's own text. Not part of what the unit is.
    origin: tuple[str, int, int] | None = field(default=None, compare=False)

    def identity(self) -> dict:
        """What the kernels are compiled from, as JSON: equal identities, equal kernels."""
        what = {"gemm": dict(self.spec)} if self.spec is not None else {"mlir": self.text}
        return {**what, "variant": self.variant}

    def renamed(self, variant: int) -> "Unit":
        return Unit(self.arch, self.spec, self.text, variant, self.origin)


@dataclass(frozen=True)
class UnitOutcome:
    """A unit's kernels in launch order and its workspace (as compile_module returns
    them for the unit's GEMM), or the one-line reason it has none."""
    result: CompileResult | None = None
    error: str | None = None
    location: tuple[str, int, int] | None = None


def compile_unit(unit: Unit, assembly: bool = True) -> UnitOutcome:
    """Compile one unit's kernels; what an executor runs. The compiler is imported here, in the
    process that compiles, so that the caller's process need not load it."""
    return _compiler().compile_unit(unit, assembly)


# ---- results -----------------------------------------------------------------------------

@dataclass(frozen=True)
class BatchFailure:
    index: int          # the entry (or the module's gemm, in program order)
    gemm: str           # the GEMM in a few words, or where the gemm stands in its file
    message: str
    location: tuple[str, int, int] | None = None

    def render(self, source: str = "the batch") -> str:
        """One line: `file:line:col: error: ...` for a module's gemm, else
        `error: entry 3 of list.json (gfx942 g=1 m=64 ...): ...`."""
        if self.location is not None:
            f, line, col = self.location
            return f"{f}:{line}:{col}: error: {self.message}"
        return f"error: entry {self.index} of {source} ({self.gemm}): {self.message}"


@dataclass(frozen=True)
class BatchProgress:
    done: int           # units finished (compiled, found in the cache, or failed)
    total: int          # units in the batch (distinct GEMMs to compile)
    cached: int         # of the finished, found in the cache
    failed: int


@dataclass(frozen=True)
class BatchResult:
    kernels: tuple[CompiledKernel, ...]
    arches: tuple[str, ...]                 # each kernel's arch
    # Each entry's kernel symbol (a split-K GEMM's: its first, the partial products; the
    # workspace buffer lists both in launch order); None if it failed.
    entries: tuple[str | None, ...]
    failures: tuple[BatchFailure, ...]
    compiled: int                           # units compiled (not from the cache)
    cached: int                             # units found in the cache
    # {"bytes": total, "buffers": [...]}: one buffer per distinct split-K GEMM, as
    # compile_module lists them; None when no GEMM is split.
    workspace: dict | None = None
    # A module batch's host functions and their launches (CompileResult.launches).
    launches: list | None = None

    @property
    def ok(self) -> bool:
        return not self.failures

    def metadata(self) -> dict:
        """The batch's JSON document: every kernel (with its arch) once, and which
        kernel serves each entry, with the workspace between them when a GEMM is split.
        `arch` is the batch's arch, or the list of them when it spans several."""
        arches = list(dict.fromkeys(self.arches))
        out = {"arch": arches[0] if len(arches) == 1 else arches,
               "kernels": [{"arch": a, **k.metadata} for a, k in zip(self.arches, self.kernels)]}
        if self.workspace is not None:
            out["workspace"] = self.workspace
        if self.launches is not None:
            out["launches"] = self.launches
        out["entries"] = list(self.entries)
        return out

    def compile_result(self) -> CompileResult:
        """The kernels as accel.compile_module returns them (one arch)."""
        arches = set(self.arches)
        if len(arches) > 1:
            raise AccelError(f"the batch spans {len(arches)} arches; a CompileResult has one")
        return CompileResult(self.arches[0] if self.arches else "", self.kernels,
                             self.workspace, self.launches)


# ---- the two kinds of batch -------------------------------------------------------------

def compile_batch(entries: Iterable[Mapping], *, defaults: Mapping | None = None,
                  executor: cf.Executor | None = None, jobs: int = 1,
                  cache: KernelCache | bool | str | os.PathLike | None = None,
                  assembly: bool = True,
                  progress: Callable[[BatchProgress], None] | None = None) -> BatchResult:
    """Compile a list of GEMMs in the flags' vocabulary (see the module's docstring).

    `executor`: run the compiles there (units and results are pickled). Otherwise `jobs`
    > 1 starts a local pool of that many worker processes (never more than there are
    units to compile; as with any multiprocessing pool, a script that asks for one keeps
    its top level under `if __name__ == "__main__"`). `cache`: a KernelCache, True for the default one
    (cache.default_cache_dir), a directory, or None/False for none. `progress` is called
    in this process after each unit."""
    units: list[Unit | None] = []
    failures: list[BatchFailure] = []
    for i, entry in enumerate(entries):
        try:
            spec = gemm_spec(entry, defaults)
        except AccelError as e:
            units.append(None)
            failures.append(BatchFailure(i, _describe_raw(entry, defaults), e.message))
            continue
        units.append(Unit(str(spec["arch"]), spec=tuple(sorted(spec.items()))))
    return _run(units, failures, executor=executor, jobs=jobs, cache=cache,
                assembly=assembly, progress=progress)


def compile_module_batch(text: str, *, filename: str = "<module>", arch: str | None = None,
                         executor: cf.Executor | None = None, jobs: int = 1,
                         cache: KernelCache | bool | str | os.PathLike | None = None,
                         assembly: bool = True,
                         progress: Callable[[BatchProgress], None] | None = None) -> BatchResult:
    """Compile every `accel.gemm` of a module (MLIR text, or MIGraphX text, which goes
    through accel-from-migraphx, accel-affix-perf-config and accel-layout first). The
    entries are the gemms in program order; `arch` defaults to theirs and all must agree.
    A module that does not parse, or whose front end fails, raises AccelError (at
    `filename`'s positions); a gemm that fails is a failure of its entry."""
    if executor is None and isinstance(jobs, int) and jobs > 1 and _kernel_ops_named(text) > 1:
        # Reading the module here (the compiler's import, the front end, the parse) and
        # the workers' server importing the compiler (~0.35 s) are independent: the
        # server starts first, on another core. Not for a module of one kernel op, which
        # compiles in this process.
        start_local_pool_server()
    compiler = _compiler()
    units, host = compiler.gemm_units(text, filename, arch)
    result = _run(units, [], executor=executor, jobs=jobs, cache=cache,
                  assembly=assembly, progress=progress)
    if not result.ok:
        return result
    # The units are the module's kernel ops alone; how its host functions run their
    # kernels is read from the whole module (accel/launches.py), as compile_module does.
    return replace(result, launches=compiler.module_launches(host, arch, result.kernels,
                                                             result.workspace))


_KERNEL_OP_NAME = re.compile(r"\b(?:accel|migraphx)\.\w+")


def _kernel_ops_named(text: str) -> int:
    """How many accel or MIGraphX ops the text names: more than one may be more than one
    unit (a count of the text, not of the module, which is not parsed yet)."""
    return len(_KERNEL_OP_NAME.findall(text))


# ---- the engine ----------------------------------------------------------------------------

def _run(units: Sequence[Unit | None], failures: list[BatchFailure], *, executor, jobs: int,
         cache, assembly: bool, progress) -> BatchResult:
    if not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1:
        raise AccelError(f"jobs must be a positive integer, got {jobs!r}")
    cache = _open_cache(cache)
    distinct = list(dict.fromkeys(u for u in units if u is not None))
    runner = _Runner(distinct, executor, jobs, cache, assembly, progress)
    try:
        outcomes = runner.run(distinct)
        # Units whose first kernels share a symbol but not their output are named apart,
        # in order (a reduction's symbol is its partial kernel's plus `_reduce`).
        named: dict[str, list[tuple[CompileResult, Unit]]] = {}
        serving: dict[Unit, Unit] = {}        # unit -> the unit whose kernels it uses
        renames: dict[Unit, Unit] = {}
        for unit in distinct:
            result = outcomes[unit].result
            if result is None:
                continue
            seen = named.setdefault(result.kernels[0].symbol, [])
            twin = next((u for r, u in seen if r == result), None)
            if twin is not None:
                serving[unit] = twin
                continue
            seen.append((result, unit))
            if len(seen) > 1:
                renames[unit] = unit.renamed(len(seen) - 1)
        if renames:
            renamed = runner.run(list(renames.values()), more=True)
            for unit, again in renames.items():
                outcomes[unit] = renamed[again]
        if cache is not None and runner.stored:
            cache.trim()
    finally:
        runner.close()
    kernels, arches, placed = [], [], set()
    buffers: list | None = None
    entries: list[str | None] = []
    for i, unit in enumerate(units):
        if unit is None:
            entries.append(None)
            continue
        outcome = outcomes[serving.get(unit, unit)]
        result = outcome.result
        if result is None:
            entries.append(None)
            failures.append(BatchFailure(i, _describe_unit(unit), outcome.error or "failed",
                                         outcome.location))
            continue
        symbol = result.kernels[0].symbol
        if symbol not in placed:
            # A unit's kernels are placed together, in its launch order.
            placed.add(symbol)
            kernels.extend(result.kernels)
            arches.extend([unit.arch] * len(result.kernels))
            if result.workspace is not None:
                # compile_module lists a workspace (maybe empty) when a kernel kind has one.
                buffers = (buffers or []) + result.workspace["buffers"]
        entries.append(symbol)
    failures.sort(key=lambda f: f.index)
    workspace = ({"bytes": sum(b["bytes"] for b in buffers), "buffers": buffers}
                 if buffers is not None else None)
    return BatchResult(tuple(kernels), tuple(arches), tuple(entries), tuple(failures),
                       compiled=runner.compiled, cached=runner.hits, workspace=workspace)


class _Runner:
    """Looks units up in the cache, compiles the rest, stores what it compiled."""

    def __init__(self, units, executor, jobs, cache, assembly, progress) -> None:
        self.executor, self.jobs, self.cache = executor, jobs, cache
        self.assembly, self.report = assembly, progress
        self.total, self.done, self.hits, self.failed, self.compiled = len(units), 0, 0, 0, 0
        self.stored = False
        self._pool: cf.Executor | None = None

    def run(self, units: list[Unit], more: bool = False) -> dict[Unit, UnitOutcome]:
        if more:
            self.total += len(units)
        outcomes: dict[Unit, UnitOutcome] = {}
        misses: list[tuple[Unit, str | None]] = []
        for unit in units:
            # A kernel compiled without its assembly is not the kernel asked for with it.
            key = (self.cache.key({**unit.identity(), "assembly": self.assembly}, unit.arch)
                   if self.cache else None)
            result = self.cache.get(key) if self.cache else None
            if result is not None:
                outcomes[unit] = UnitOutcome(result)
                self.hits += 1
                self._finished(outcomes[unit])
            else:
                misses.append((unit, key))
        for (unit, key), outcome in zip(misses, self._compile([u for u, _ in misses],
                                                              [k for _, k in misses])):
            outcomes[unit] = outcome
            self.compiled += outcome.result is not None
        return outcomes

    def _compile(self, units: list[Unit], keys: list[str | None]) -> list[UnitOutcome]:
        """The units' outcomes in order; each stored in the cache as it arrives."""
        executor = self.executor
        if executor is None and self.jobs > 1 and len(units) > 1:
            executor = self._local_pool(min(self.jobs, len(units)))
        if executor is None:
            out = []
            for unit, key in zip(units, keys):
                out.append(compile_unit(unit, self.assembly))
                self._finished(out[-1], key)
            return out
        import concurrent.futures as cf
        # Largest first, so that no big kernel starts last while the other workers idle:
        # a kernel's compile time follows its tile, which grows with C (the benchmark's
        # 100 GEMMs take 48-919 ms each; the 4095x4095 one alone is 7% of the batch).
        # The results are placed by index, so the order changes no output.
        order = sorted(range(len(units)), key=lambda i: -_output_elements(units[i]))
        futures = {executor.submit(compile_unit, units[i], self.assembly): i for i in order}
        out: list[UnitOutcome | None] = [None] * len(units)
        pending = set(futures)
        while pending:
            finished, pending = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
            for fut in finished:
                try:
                    outcome = fut.result()
                except Exception as e:  # the worker died, or the executor failed it
                    outcome = UnitOutcome(error=f"compile failed in the executor: "
                                                f"{type(e).__name__}: {e}".rstrip(": "))
                out[futures[fut]] = outcome
                self._finished(outcome, keys[futures[fut]])
        return out

    def _local_pool(self, workers: int) -> cf.Executor:
        if self._pool is None:
            self._pool = local_process_pool(workers)
        return self._pool

    def _finished(self, outcome: UnitOutcome, key: str | None = None) -> None:
        """Count (and report) a unit's outcome; a compiled one is stored under `key`
        now, while the other units still compile, not after the batch."""
        if key is not None and outcome.result is not None:
            self.cache.put(key, outcome.result)
            self.stored = True
        self.done += 1
        self.failed += outcome.result is None
        if self.report is not None:
            self.report(BatchProgress(self.done, self.total, self.hits, self.failed))

    def close(self) -> None:
        if self._pool is not None:
            # On an interrupt, queued units are dropped; running ones end within a compile.
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


def local_process_pool(workers: int) -> cf.ProcessPoolExecutor:
    """`workers` processes forked from a server that has imported the compiler once
    (forkserver with preload): a worker starts in milliseconds instead of the ~0.3 s the
    import takes, and no worker inherits a parent's MLIR context or its threads. Workers
    ignore Ctrl-C: the parent is interrupted, cancels what is queued, and lets each worker
    finish its one compile; they collect garbage less often (collect_for_compiling), and
    never over what they inherited."""
    context = _pool_context()
    # The server starts first: its import of the compiler then overlaps this process's
    # import of concurrent.futures and the pool's set-up (its queues, the resource
    # tracker's process), which came before the first submit started it.
    _start_server(context)
    import concurrent.futures as cf
    return cf.ProcessPoolExecutor(max_workers=workers, mp_context=context,
                                  initializer=_worker_start)


def _pool_context():
    """local_process_pool's start method: forkserver preloading the compiler, else spawn."""
    import multiprocessing
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["accel.batch_compile"])
    return ctx


def start_local_pool_server() -> None:
    """Start the server that local_process_pool's workers fork from (once a process), so
    that its import of the compiler overlaps this process's own work before the first
    unit is handed out. Nothing to start where workers are spawned."""
    _start_server(_pool_context())


def _start_server(context) -> None:
    if context.get_start_method() == "forkserver":
        from multiprocessing import forkserver
        forkserver.ensure_running()


_MEMREF = re.compile(r"%c: memref<((?:\d+x)+)")


def _output_elements(unit: Unit) -> int:
    """How many elements the unit's C has (0 if its text does not say): the estimate of
    its compile time that orders a parallel batch."""
    if unit.spec is not None:
        s = dict(unit.spec)
        return s["g"] * s["m"] * s["n"]
    found = _MEMREF.search(unit.text or "")
    return math.prod(int(d) for d in found.group(1).split("x")[:-1]) if found else 0


# The young-generation threshold of the garbage collector in a process of accel's own that
# compiles (a pool worker, accel-compile); CPython's default is 700. Over 34 of the
# benchmark's kernels, at 700: 220 young collections and 2 full ones (each over the
# compiler's ~31,000 objects), 92-143 ms of CPU, 1.2% of a worker's; at 10,000: 7 and
# none, 30-35 ms. The garbage is the same: it is collected later, in fewer passes.
COMPILE_GC_THRESHOLD = 10_000


def collect_for_compiling() -> None:
    """Set this process's garbage collector to COMPILE_GC_THRESHOLD: for processes that
    compile and nothing else, not a library caller's."""
    import gc
    gc.set_threshold(COMPILE_GC_THRESHOLD)


def _worker_start() -> None:
    import gc
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    collect_for_compiling()
    # What the worker inherited from its server (the compiler's modules) lives as long as
    # it does: frozen, no collection traverses it. Callgrind over 10 of the benchmark's
    # kernels in one process: 10.57 G instructions, 10.53 G with the threshold, 10.48 G
    # with the threshold and the freeze.
    gc.freeze()


def _open_cache(cache) -> KernelCache | None:
    if cache is None or cache is False:
        return None
    from accel.cache import KernelCache
    if cache is True:
        return KernelCache()
    if isinstance(cache, KernelCache):
        return cache
    if isinstance(cache, (str, os.PathLike)):
        return KernelCache(cache)
    raise AccelError(f"cache must be a KernelCache, a directory, True or None, "
                     f"got {type(cache).__name__}")


def _describe_unit(unit: Unit) -> str:
    if unit.spec is not None:
        return describe(dict(unit.spec))
    if unit.origin is not None:
        return "{}:{}:{}".format(*unit.origin)
    return f"the {unit.arch} gemm"


def _describe_raw(entry, defaults) -> str:
    if isinstance(entry, Mapping):
        return describe({**SPEC_DEFAULTS, **(defaults or {}), **entry})
    return json.dumps(entry)[:60] if _jsonable(entry) else type(entry).__name__


def _jsonable(x) -> bool:
    try:
        json.dumps(x)
        return True
    except (TypeError, ValueError):
        return False


def default_jobs() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1
