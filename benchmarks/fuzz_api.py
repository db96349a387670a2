"""Random and wrongly typed calls to every public entry point: only AccelError escapes.

Each call takes a valid set of arguments and replaces one to three of them with
values drawn from pools of every kind a caller might hold: numpy integers of each
width, bools (Python's and numpy's), floats, Fractions, Decimals, None, lists,
arrays, huge integers, strings that are near misses, text with quotes and NULs.
A call passes when it returns (with a result of the right kind, JSON that
serialises, and for numpy integers the same answer as for Python ints) or raises
an AccelError whose message is one line; anything else is a failure.

    python benchmarks/fuzz_api.py [--calls 5000] [--cli 300] [--seed 0] [--compile-share 0.05]

prints, per entry point, the calls, returns, AccelErrors and failures, then each
distinct failure with a call that gives it. `--cli` adds random command lines of the
tools (run in-process), which must end in exit 0, 1 or 2 without a traceback. The CI test (test/python/test_fuzz.py)
runs a few hundred of the same calls.
"""

from __future__ import annotations

import argparse
import collections
import decimal
import fractions
import json
import random
import sys
import time
from dataclasses import dataclass, field

import numpy as np

import accel
from accel.api import gemm_module_text
from accel.diagnostics import AccelError
from accel.dialect.gemm import GemmShape
from accel.dialect.perf_config import V4_FIELDS, PerfConfig
from accel.target.database import get_arch
from accel.tuning.selection import select
from accel.tuning.validity import check_config

CONFIG = "v4:32,32,4,16,16,16,8,1,1,2,0,0,1,1"
NUMPY_INTS = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)
# Longest one-line message we accept: diagnostics.one_line cuts at 200, messages
# quoting a perf config at ~80 characters of it.
MAX_MESSAGE = 400


def _odd_values(rng: random.Random) -> list:
    return [None, True, False, np.bool_(True), 1.0, 64.0, float("nan"), float("inf"), -1,
            0, 2**31, 2**63, 2**64, 10**5000, fractions.Fraction(64, 1), decimal.Decimal("64"),
            "64", "", "gfx942\0", "f16\"", b"f16", [64], (64,), {"m": 64}, np.array([1, 0]),
            np.array(64), np.float32(64), 3 + 0j, object(), rng.randint(-10, 10**6)]


def integer_like(rng: random.Random, good: int):
    """`good` in some integral type, or something that is not quite an integer."""
    choice = rng.random()
    if choice < 0.4:
        t = rng.choice(NUMPY_INTS)
        if np.iinfo(t).max >= good:
            return t(good)
    if choice < 0.55:
        return good
    return rng.choice(_odd_values(rng))


def string_like(rng: random.Random, good: str):
    choice = rng.random()
    if choice < 0.3:
        return np.str_(good)
    if choice < 0.45:
        return rng.choice([good.upper(), good + " ", " " + good, good[:-1], good + '"',
                           good + "\n", good * 50, "\udcff", "f16>, memref<1xf16"])
    return rng.choice(_odd_values(rng))


def bool_like(rng: random.Random, good: bool):
    return rng.choice([np.bool_(good), good, 1, 0, 1.0, "yes", "", None, [True],
                       np.array([True, False]), np.array(good)])


def perf_config_like(rng: random.Random):
    choice = rng.random()
    fields = CONFIG[3:].split(",")
    if choice < 0.3:
        i = rng.randrange(len(fields))
        fields[i] = rng.choice(["0", "-1", "1" * rng.choice([9, 11, 4400]), "x", "", "1.5",
                                "+8", "1_6", "\u0661", " 8 ", str(2**31), "64"])
        return "v4:" + ",".join(fields)
    if choice < 0.45:
        return rng.choice(["v3:" + CONFIG[3:], "v5:" + CONFIG[3:], CONFIG + ",1", "v4:",
                           ":", "v4" + CONFIG[3:], CONFIG.replace(",", ";")])
    if choice < 0.55:
        return PerfConfig.parse(CONFIG)
    return rng.choice(_odd_values(rng))


ARCHS = ("gfx942", "gfx1100", "gfx1201")


def gemm_kwargs(rng: random.Random) -> dict:
    return dict(g=rng.choice([1, 1, 2]), m=rng.choice([16, 64, 77]), n=rng.choice([16, 48, 100]),
                k=rng.choice([16, 32, 40]), in_type=rng.choice(["f16", "bf16", "i8"]),
                out_type=None, trans_a=False, trans_b=False, a_layout="row", b_layout="row",
                perf_config=None, accumulate=False, epilogue="none", batched_bias=False)


def mutate(rng: random.Random, kwargs: dict) -> dict:
    kw = dict(kwargs)
    for name in rng.sample(sorted(kw), rng.randint(1, 3)):
        good = kw[name]
        if name in ("g", "m", "n", "k"):
            kw[name] = integer_like(rng, good)
        elif name in ("trans_a", "trans_b", "accumulate", "batched_bias"):
            kw[name] = bool_like(rng, good)
        elif name == "perf_config":
            kw[name] = perf_config_like(rng)
        elif name == "out_type":
            kw[name] = string_like(rng, rng.choice(["f16", "f32", "i32", "bf16"]))
        elif name == "epilogue":
            kw[name] = string_like(rng, rng.choice(["none", "bias", "relu", "bias_relu"]))
        elif name in ("a_layout", "b_layout"):
            kw[name] = string_like(rng, rng.choice(["row", "accel"]))
        else:
            kw[name] = string_like(rng, good)
    return kw


@dataclass
class Call:
    entry: str
    fn: object
    args: tuple
    kwargs: dict
    check: object = None   # check(result) -> None, raises AssertionError when wrong

    def describe(self) -> str:
        parts = [_short(a) for a in self.args] + [f"{k}={_short(v)}" for k, v in self.kwargs.items()]
        return f"{self.entry}({', '.join(parts)})"


def _short(v) -> str:
    try:
        text = repr(v)
    except Exception:
        text = f"<{type(v).__name__}>"
    return text if len(text) < 60 else text[:57] + "..."


def _check_compiled(result) -> None:
    assert isinstance(result, accel.CompileResult)
    json.dumps(result.metadata())
    assert all(k.code_object[:4] == b"\x7fELF" for k in result.kernels)


def _plain(v):
    return int(v) if isinstance(v, (np.integer,)) else v


def _same_as_with_python_ints(arch, in_type, out_type, shape):
    """For a selection that succeeded: the same GEMM in Python ints gets the same tile."""
    def check(result):
        json.loads(result.to_json(top=3))
        plain = GemmShape(*(int(x) for x in (shape.g, shape.m, shape.n, shape.k)))
        assert str(select(arch, in_type, out_type, plain).best) == str(result.best)
    return check


def random_call(rng: random.Random, compile_share: float) -> Call:
    kind = rng.random()
    arch_name = rng.choice(ARCHS)
    if kind < compile_share:
        kw = mutate(rng, gemm_kwargs(rng)) if rng.random() < 0.7 else gemm_kwargs(rng)
        arch = string_like(rng, arch_name) if rng.random() < 0.2 else arch_name
        return Call("compile_gemm", accel.compile_gemm, (arch,), {**kw, "assembly": False},
                    _check_compiled)
    if kind < 0.35:
        kw = mutate(rng, gemm_kwargs(rng))
        arch = string_like(rng, arch_name) if rng.random() < 0.2 else arch_name
        return Call("gemm_module_text", gemm_module_text, (arch,), kw,
                    lambda r: isinstance(r, str) or _fail("not text"))
    if kind < 0.5:
        text = rng.choice(["v4:" + CONFIG[3:], "v3:32,32,8,16,16,8,1,2,2,1,1"])
        value = perf_config_like(rng) if rng.random() < 0.8 else text
        kind_arg = rng.choice(["mfma", "wmma", "mfma", None, "dot", np.str_("wmma"), 1])
        args = (value,) if kind_arg is None else (value, kind_arg)
        return Call("PerfConfig.parse", PerfConfig.parse, args, {},
                    lambda r: isinstance(r, PerfConfig) or _fail("not a PerfConfig"))
    if kind < 0.6:
        values = {f: rng.choice([16, 32, 4, 8, 1]) for f in V4_FIELDS[:7]}
        name = rng.choice(list(values))
        values[name] = integer_like(rng, values[name])
        return Call("PerfConfig", PerfConfig, (), values,
                    lambda r: json.dumps([getattr(r, f) for f in V4_FIELDS]))
    if kind < 0.8:
        extents = [rng.choice([1, 96, 333, 4096]) for _ in range(4)]
        if rng.random() < 0.7:
            i = rng.randrange(4)
            extents[i] = integer_like(rng, extents[i])
        try:
            shape = GemmShape(*extents)
        except AccelError:
            return Call("GemmShape", GemmShape, tuple(extents), {})
        in_type = rng.choice(["f16", "bf16", "i8", "f32"])
        out_type = {"i8": "i32", "f32": "f32"}.get(in_type, rng.choice([in_type, "f32"]))
        arch = get_arch(arch_name)
        args = [arch, in_type, out_type, shape]
        if rng.random() < 0.3:
            i = rng.randrange(4)
            args[i] = (string_like(rng, arch_name) if i == 0 else
                       string_like(rng, args[i]) if i < 3 else rng.choice(_odd_values(rng)))
        check = (_same_as_with_python_ints(*args) if all(
            type(a) is type(b) for a, b in zip(args, [arch, in_type, out_type, shape])) else None)
        return Call("select", select, tuple(args), {}, check)
    if kind < 0.9:
        arch = get_arch(arch_name)
        args = [arch, rng.choice(["f16", "i8"]), GemmShape(1, 64, 64, 64), PerfConfig.parse(CONFIG)]
        i = rng.randrange(4)
        args[i] = rng.choice(_odd_values(rng) + [arch_name, CONFIG])
        return Call("check_config", check_config, tuple(args), {},
                    lambda r: isinstance(r, list) or _fail("not a list"))
    if kind < 0.95:
        text = gemm_module_text(arch_name, **gemm_kwargs(rng))
        source = rng.choice([text, text[: rng.randrange(len(text))], text.replace("memref", "tensor"),
                             text.replace('"gfx', '"gfy'), rng.choice(_odd_values(rng))])
        arch = rng.choice([None, arch_name, string_like(rng, arch_name)])
        return Call("compile_module", accel.compile_module, (source, arch),
                    {"assembly": bool_like(rng, False) if rng.random() < 0.3 else False},
                    _check_compiled)
    if kind < 0.97:
        cu = integer_like(rng, 64) if rng.random() < 0.7 else None
        return Call("get_arch", get_arch, (string_like(rng, arch_name), cu), {})
    return _layout_call(rng)


def _layout_call(rng: random.Random) -> Call:
    """AccelTile, pack and unpack with odd blockings and odd arrays."""
    blocking = [integer_like(rng, v) if rng.random() < 0.3 else v
                for v in (rng.choice([16, 32]), rng.choice([2, 4]), rng.choice([4, 8]))]
    plain = np.ones((1, 20, 24), np.float16)
    array = plain if rng.random() < 0.5 else rng.choice([
        np.ones((20, 24), np.float16), [[[1, 2], [3]]], "x", None, np.ones((1, 2, 3, 4, 5, 6))])
    transposed = bool_like(rng, False) if rng.random() < 0.3 else False
    which = rng.random()
    if which < 0.3:
        return Call("AccelTile", accel.AccelTile, tuple(blocking), {})
    try:
        tile = accel.AccelTile(*blocking)
    except AccelError:
        return Call("AccelTile", accel.AccelTile, tuple(blocking), {})
    if which < 0.7:
        return Call("pack", accel.pack, (array, tile if rng.random() < 0.8 else tuple(blocking)),
                    {"transposed": transposed},
                    lambda r: r.ndim == 6 or _fail("not 6-D"))
    try:
        packed = accel.pack(np.ones((1, 20, 24), np.float16), tile)
    except AccelError:   # a blocking too large to pack: pack itself is the call
        return Call("pack", accel.pack, (np.ones((1, 20, 24), np.float16), tile), {})
    d, k = (integer_like(rng, v) if rng.random() < 0.3 else v for v in (20, 24))
    return Call("unpack", accel.unpack, (packed if rng.random() < 0.8 else array, d, k),
                {"transposed": transposed},
                lambda r: r.ndim == 3 or _fail("not 3-D"))


def _fail(why: str):
    raise AssertionError(why)


@dataclass
class Summary:
    calls: collections.Counter = field(default_factory=collections.Counter)
    returned: collections.Counter = field(default_factory=collections.Counter)
    refused: collections.Counter = field(default_factory=collections.Counter)
    failures: dict = field(default_factory=dict)   # (entry, kind) -> (count, example)

    def record_failure(self, call: Call, what: str) -> None:
        key = (call.entry, what)
        count, example = self.failures.get(key, (0, call.describe()))
        self.failures[key] = (count + 1, example)


def run_one(call: Call, summary: Summary) -> None:
    summary.calls[call.entry] += 1
    try:
        result = call.fn(*call.args, **call.kwargs)
    except AccelError as e:
        text = str(e)
        if "\n" in text or len(text) > MAX_MESSAGE:
            summary.record_failure(call, f"AccelError not one short line: {text[:120]!r}")
        else:
            summary.refused[call.entry] += 1
        return
    except Exception as e:   # what the fuzzer looks for
        summary.record_failure(call, f"{type(e).__name__}: {str(e)[:100]}")
        return
    try:
        if call.check is not None:
            call.check(result)
    except AccelError as e:
        summary.record_failure(call, f"result check raised AccelError: {str(e)[:100]}")
        return
    except Exception as e:
        summary.record_failure(call, f"wrong result: {type(e).__name__}: {str(e)[:100]}")
        return
    summary.returned[call.entry] += 1


def fuzz(calls: int, seed: int, compile_share: float) -> Summary:
    rng = random.Random(seed)
    summary = Summary()
    for _ in range(calls):
        run_one(random_call(rng, compile_share), summary)
    return summary


def report(summary: Summary, seconds: float) -> str:
    lines = [f"{'entry point':<18} {'calls':>6} {'returned':>9} {'AccelError':>11} {'failed':>7}"]
    failed = collections.Counter()
    for (entry, _), (count, _) in summary.failures.items():
        failed[entry] += count
    for entry in sorted(summary.calls):
        lines.append(f"{entry:<18} {summary.calls[entry]:>6} {summary.returned[entry]:>9} "
                     f"{summary.refused[entry]:>11} {failed[entry]:>7}")
    total = sum(summary.calls.values())
    lines.append(f"{total} calls in {seconds:.1f} s, {sum(failed.values())} failed, "
                 f"{len(summary.failures)} distinct failures")
    for (entry, what), (count, example) in sorted(summary.failures.items()):
        lines.append(f"  {entry}: {what} (x{count}), e.g. {example}")
    return "\n".join(lines)


# ---- the command-line tools, in-process --------------------------------------------
CLI_VALUES = ["64", "0", "-3", "2.5", "1e3", "x", "", "18446744073709551616", "9" * 5000,
              "gfx942", "gfx90a", "f16", "f64", "accel", "row", "bias", CONFIG, "v4:1,2",
              "v4:" + "1" * 5000 + CONFIG[5:], "\udcff", "--", "-", "/nonexistent/x.mlir"]
CLI_FLAGS = {
    "accel-compile": ["--arch", "-g", "-m", "-n", "-k", "-t", "--out-type", "--trans-a",
                      "--a-layout", "--perf-config", "--epilogue", "--name"],
    "accel-select": ["--arch", "-g", "-m", "-n", "-k", "-t", "--out-type", "--cu-count",
                     "--top", "--check", "--json"],
    "accel-run gemm": ["--arch", "-g", "-m", "-n", "-k", "-t", "--perf-config",
                       "--work-limit", "--seed"],
}
BASE = ["--arch", "gfx942", "-m", "64", "-n", "48", "-k", "32"]


def random_argv(rng: random.Random, tool: str, out_dir: str) -> list[str]:
    argv = list(BASE) if rng.random() < 0.8 else []
    for _ in range(rng.randint(1, 3)):
        argv += [rng.choice(CLI_FLAGS[tool]), rng.choice(CLI_VALUES)]
    if tool == "accel-compile":
        argv += ["-o", out_dir]
    if tool == "accel-run gemm":
        argv = ["gemm", *argv, "--work-limit", "2000000"]   # seconds, not minutes
    return argv


def fuzz_cli(runs: int, seed: int) -> Summary:
    """Random command lines: every run ends in exit 0, 1 or 2 with no traceback."""
    import contextlib
    import io
    import tempfile

    from accel.tools import accel_compile, accel_run, accel_select
    mains = {"accel-compile": accel_compile.main, "accel-select": accel_select.main,
             "accel-run gemm": accel_run.main}
    rng = random.Random(seed)
    summary = Summary()
    with tempfile.TemporaryDirectory() as out_dir:
        for _ in range(runs):
            tool = rng.choice(sorted(mains))
            argv = random_argv(rng, tool, out_dir)
            call = Call(tool, mains[tool], (argv,), {})
            summary.calls[tool] += 1
            err = io.StringIO()
            try:
                with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                    try:
                        rc = mains[tool](argv)
                    except SystemExit as e:   # argparse's usage errors
                        rc = e.code
            except Exception as e:
                summary.record_failure(call, f"{type(e).__name__} escaped main: {str(e)[:80]}")
                continue
            text = err.getvalue()
            if rc not in (0, 1, 2) or "Traceback" in text:
                summary.record_failure(call, f"exit {rc}: {text.strip()[-100:]!r}")
            elif rc:
                summary.refused[tool] += 1
            else:
                summary.returned[tool] += 1
    return summary


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=5000)
    ap.add_argument("--cli", type=int, default=0, metavar="RUNS",
                    help="also this many random command lines of accel-compile, "
                         "accel-select and accel-run gemm (in-process)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--compile-share", type=float, default=0.05,
                    help="share of calls that are compile_gemm (each ~0.1-0.3 s)")
    args = ap.parse_args()
    start = time.perf_counter()
    summary = fuzz(args.calls, args.seed, args.compile_share)
    print(report(summary, time.perf_counter() - start))
    failed = bool(summary.failures)
    if args.cli:
        start = time.perf_counter()
        cli = fuzz_cli(args.cli, args.seed)
        print(report(cli, time.perf_counter() - start).replace("entry point", "tool       "))
        failed = failed or bool(cli.failures)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
