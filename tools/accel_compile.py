"""accel-compile: GEMM -> AMDGPU code objects, assembly and JSON metadata.

  accel-compile --arch gfx942 -m 128 -n 1280 -k 5120 -t f16 \\
      --a-layout accel --b-layout accel --perf-config v3:32,32,8,16,16,8,1,2,2,1,1 -o out/
  accel-compile input.mlir --arch gfx1100 -o out/     (every accel.gemm in the file)
  accel-compile --grouped --arch gfx942 --groups 120 -n 256 -k 256 --max-seq-len 7680 \
      --total-rows 921600 -t bf16 [--mode uniform|compact|auto] [--dispatch-table T.json]
                                                       (accel.grouped_gemm, seed 003)
  accel-compile --batch gemms.json -j 8 -o out/        (a JSON list of GEMMs)

Writes `<symbol>.hsaco` and `<symbol>.s` per kernel and one `<name>.json` (name: the
kernel symbol for a GEMM of the flags or a file with one kernel, else the stem of the
file or the list; `--name` overrides) into the output directory. Everything is compiled before the first file is written, so an
error leaves no output behind. Kernels are compiled in worker processes (`-j`) and
kept in a cache (`--cache-dir`, `--no-cache`); see accel/batch.py.
"""

from __future__ import annotations

from accel.tools.interrupts import interruptible_start

PROG = "accel-compile"

# Only what --help and a bad flag need is imported here (a Ctrl-C meanwhile is reported
# like one during the run): the compiler and the MLIR bindings with numpy (~0.25 s)
# load when a kernel must be compiled (accel/batch.py).
with interruptible_start(PROG):
    import json
    import os
    import sys
    from typing import Sequence

    from accel.diagnostics import AccelError
    from accel.target.database import ARCHES
    from accel.tools.cli_common import ArgumentParser, errors_in, read_input, run_cli
    from accel.tools.output_set import write_output_set
    from accel.tools.progress import TerminalProgress

# numpy's OpenBLAS starts a thread per core at import, and those threads spin waiting
# for work a compile never gives them (accel calls no BLAS): `import numpy` took
# 0.18 s CPU against 0.10 s with one thread, CPU that a second core's compile (-j, or
# a neighbour's) would have had. Set before the bindings load numpy, for this process
# and the worker processes, which inherit the environment; a value the user set stays.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

# Every element type some chip has an MMA instruction for (f16 bf16 i8 f32, the fp8s).
IN_TYPES = tuple(dict.fromkeys(i.in_type for a in ARCHES.values() for i in a.mma))


def main(argv: Sequence[str] | None = None) -> int:
    return run_cli(_main, argv, prog=PROG)


def _parser() -> ArgumentParser:
    p = ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    p.add_argument("input", nargs="?", help="an .mlir file with accel.gemm ops ('-' = stdin); "
                   "without it the GEMM is given by -m/-n/-k")
    p.add_argument("--arch", choices=tuple(ARCHES), help="target chip (default: the input's)")
    p.add_argument("-g", type=int, default=1, help="batch count G (default 1)")
    p.add_argument("-m", type=int, help="rows of A and C")
    p.add_argument("-n", type=int, help="columns of B and C")
    p.add_argument("-k", type=int, help="reduction extent")
    p.add_argument("-t", "--type", dest="in_type", choices=IN_TYPES,
                   help="element type of A, and of B unless --b-type (default f16; bf16 "
                        "with --grouped)")
    p.add_argument("--b-type", choices=IN_TYPES,
                   help="element type of B where it differs from A's (fp8 x bf8 pairings)")
    p.add_argument("--out-type", choices=("f16", "bf16", "f32", "i32"),
                   help="element type of C (default: f16/bf16 as the input, i32 for i8, f32 "
                        "for f32 and fp8)")
    p.add_argument("--trans-a", action="store_true", help="A is stored [G, K, M]")
    p.add_argument("--trans-b", action="store_true", help="B is stored [G, N, K]")
    p.add_argument("--a-layout", choices=("row", "accel"), default="row")
    p.add_argument("--b-layout", choices=("row", "accel", "stacked"),
                   help="row (default) | accel; with --grouped stacked (default) | row")
    p.add_argument("--perf-config", help="rocMLIR perf config string, v3:... or v4:...")
    p.add_argument("--accumulate", action="store_true", help="C += A * B instead of C = A * B")
    p.add_argument("--epilogue", choices=("none", "bias", "relu", "bias_relu"), default="none",
                   help="fused epilogue: C = relu?(A * B + bias?); the bias is the 4th argument")
    p.add_argument("--batched-bias", action="store_true",
                   help="the bias is [G, N] (one row per batch) instead of [N]")
    _add_grouped_flags(p)
    p.add_argument("--batch", metavar="LIST.json",
                   help="compile a JSON list of GEMMs, each an object with the keys "
                        "arch, g, m, n, k, type, b_type, out_type, trans_a, trans_b, a_layout, "
                        "b_layout, perf_config, accumulate, epilogue, batched_bias; an "
                        "omitted key takes the flag's value ('-' = stdin)")
    p.add_argument("-j", "--jobs", type=_positive_int,
                   help="compile in this many worker processes (default: the machine's cores)")
    p.add_argument("--cache-dir", help="the kernel cache's directory (default: "
                   "$ACCEL_CACHE_DIR, else $XDG_CACHE_HOME/accel/kernels)")
    p.add_argument("--no-cache", action="store_true", help="neither read nor fill the kernel cache")
    p.add_argument("--name", help="base name of the JSON file")
    p.add_argument("-o", "--output-dir", default=".", help="directory for the outputs (default .)")
    return p


def _positive_int(text: str) -> int:
    import argparse
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got '{text}'")
    return value


def _main(argv: Sequence[str] | None) -> int:
    args = _parser().parse_args(argv)
    # The JSON goes into the output directory, never beside or above it.
    if args.name is not None and (not args.name or os.sep in args.name
                                  or args.name in (os.curdir, os.pardir)):
        raise AccelError(f"--name must be a plain file name, got '{args.name}'")
    if args.grouped or _grouped_flags_given(args):
        result = _compile_grouped(args)
        write_result(result, args.output_dir, args.name or result.kernels[-1].symbol)
        return 0
    if args.no_cache and args.cache_dir is not None:
        raise AccelError("--no-cache and --cache-dir cannot be combined")
    from accel import batch
    from accel.tools import interrupts
    batch.compiler_load_guard = interrupts.deferred
    # This process compiles what -j 1 (or a one-GEMM call) does not hand to workers.
    batch.collect_for_compiling()
    cache = None
    if not args.no_cache:
        from accel.cache import KernelCache
        cache = KernelCache(args.cache_dir)
    progress = TerminalProgress(PROG)
    run = dict(jobs=args.jobs or batch.default_jobs(), cache=cache, progress=progress)
    source = "the batch"
    try:
        if args.batch is not None:
            if args.input is not None:
                raise AccelError("--batch cannot be combined with an input file")
            text, source = read_input(args.batch)
            result = batch.compile_batch(_batch_entries(text, source), defaults=_flag_values(args),
                                         **run)
            default_name = "stdin" if args.batch == "-" else input_stem(args.batch)
        elif args.input is not None:
            given = [flag for flag, v in _flag_values(args).items() if flag != "arch"]
            # The file's gemms say all this themselves: a flag here would be silently ignored.
            if given:
                raise AccelError(f"{', '.join(_FLAG_NAMES[f] for f in given)} cannot be "
                                 f"combined with an input file")
            text, display = read_input(args.input)
            with errors_in(display):
                result = batch.compile_module_batch(text, filename=display, arch=args.arch, **run)
            source = display
            default_name = "stdin" if args.input == "-" else input_stem(args.input)
        else:
            missing = [f for f, v in (("--arch", args.arch), ("-m", args.m), ("-n", args.n),
                                      ("-k", args.k)) if v is None]
            if missing:
                raise AccelError(f"give an input file, or {', '.join(missing)}")
            result = batch.compile_batch([{}], defaults=_flag_values(args), **run)
            default_name = None
    finally:
        progress.close()
    if cache is not None and cache.write_error:
        print(f"{PROG}: warning: {cache.write_error}", file=sys.stderr)
    if result.failures and args.batch is None and args.input is None:
        raise AccelError(result.failures[0].message)     # the one GEMM of the flags
    if result.failures:
        for failure in result.failures:
            line = failure.render(source)
            print(line if failure.location is not None else f"{PROG}: {line}", file=sys.stderr)
        if len(result.entries) > 1:
            print(f"{PROG}: {len(result.failures)} of {len(result.entries)} GEMMs failed; "
                  f"nothing written", file=sys.stderr)
        return 1
    if default_name is None or (args.batch is None and len(result.kernels) == 1):
        default_name = result.kernels[0].symbol
    name = args.name or default_name
    write_result(result if args.batch is not None else result.compile_result(),
                 args.output_dir, name)
    return 0


# The GEMM flags in the --batch vocabulary, and how each is spelled on the command line.
_FLAG_NAMES = {"arch": "--arch", "g": "-g", "m": "-m", "n": "-n", "k": "-k", "type": "-t",
               "b_type": "--b-type", "out_type": "--out-type", "trans_a": "--trans-a", "trans_b": "--trans-b",
               "a_layout": "--a-layout", "b_layout": "--b-layout",
               "perf_config": "--perf-config", "accumulate": "--accumulate",
               "epilogue": "--epilogue", "batched_bias": "--batched-bias"}
_FLAG_DESTS = {"type": "in_type"}


def _flag_values(args) -> dict:
    """The GEMM flags given (those that differ from their defaults), in the batch
    vocabulary: the defaults of every --batch entry, or the one GEMM."""
    from accel.batch import SPEC_DEFAULTS
    out = {}
    for key in _FLAG_NAMES:
        value = getattr(args, _FLAG_DESTS.get(key, key))
        if value is not None and value != SPEC_DEFAULTS[key]:
            out[key] = value
    return out


def _batch_entries(text: str, source: str) -> list:
    try:
        entries = json.loads(text)
    except json.JSONDecodeError as e:
        raise AccelError(f"invalid JSON: {e.msg}", (source, e.lineno, e.colno)) from None
    if not isinstance(entries, list):
        kind = {dict: "an object", str: "a string", bool: "a boolean", int: "a number",
                float: "a number", type(None): "null"}[type(entries)]
        raise AccelError(f"{source}: expected a JSON list of GEMMs, got {kind}")
    return entries


def input_stem(path: str) -> str:
    """The JSON's default name for an input file: its name without `.mlir` (or another
    extension) and without leading dots, so that `.mlir` or `.x.mlir` give no hidden
    file; "module" when nothing is left."""
    base = os.path.basename(path)
    stem = base[:-len(".mlir")] if base.endswith(".mlir") else os.path.splitext(base)[0]
    return stem.lstrip(".") or "module"


# ---- grouped GEMM (--grouped) --------------------------------------------------------------
_GROUPED_ONLY = (("--groups", "groups"), ("--max-seq-len", "max_seq_len"),
                 ("--total-rows", "total_rows"), ("--mode", "mode"),
                 ("--dispatch-table", "dispatch_table"), ("--no-bias", "no_bias"))


def _add_grouped_flags(p: ArgumentParser) -> None:
    p.add_argument("--grouped", action="store_true",
                   help="compile a grouped GEMM (accel.grouped_gemm): C[s:e] = A[s:e] @ B[g] "
                        "+ bias[g] over the rows seq_offsets gives each group on the device")
    p.add_argument("--groups", type=int, help="--grouped: the group count G")
    p.add_argument("--max-seq-len", type=int, help="--grouped: rows of the longest group")
    p.add_argument("--total-rows", type=int, help="--grouped: L_max, the rows of A and C")
    p.add_argument("--mode", choices=("auto", "uniform", "compact"),
                   help="--grouped: launch mode (default auto)")
    p.add_argument("--dispatch-table", help="--grouped: a JSON dispatch table replacing the "
                                            "shipped one")
    p.add_argument("--no-bias", action="store_true", help="--grouped: no fused bias")


def _grouped_flags_given(args) -> bool:
    return any(getattr(args, dest) not in (None, False) for _, dest in _GROUPED_ONLY)


def _compile_grouped(args):
    from accel.api import compile_grouped_gemm
    if not args.grouped:
        given = [f for f, dest in _GROUPED_ONLY if getattr(args, dest) not in (None, False)]
        raise AccelError(f"{', '.join(given)} need --grouped")
    if args.input is not None:
        raise AccelError("--grouped takes no input file (its shape is given by flags)")
    other = [f for f, v in (("-m", args.m is not None), ("-g", args.g != 1),
                            ("--trans-a", args.trans_a), ("--trans-b", args.trans_b),
                            ("--a-layout", args.a_layout != "row"),
                            ("--accumulate", args.accumulate),
                            ("--epilogue", args.epilogue != "none"),
                            ("--batched-bias", args.batched_bias),
                            ("--b-type", args.b_type is not None),
                            ("--batch", args.batch is not None)) if v]
    if other:
        raise AccelError(f"{', '.join(other)} cannot be combined with --grouped")
    missing = [f for f, v in (("--arch", args.arch), ("--groups", args.groups), ("-n", args.n),
                              ("-k", args.k), ("--max-seq-len", args.max_seq_len),
                              ("--total-rows", args.total_rows)) if v is None]
    if missing:
        raise AccelError(f"--grouped needs {', '.join(missing)}")
    return compile_grouped_gemm(
        args.arch, groups=args.groups, n=args.n, k=args.k, max_seq_len=args.max_seq_len,
        total_rows=args.total_rows, in_type=args.in_type or "bf16", out_type=args.out_type,
        b_layout=args.b_layout or "stacked", bias=not args.no_bias, mode=args.mode or "auto",
        perf_config=args.perf_config, dispatch_table=args.dispatch_table)


def write_result(result, output_dir: str, name: str) -> list[str]:
    """Write `<symbol>.hsaco` and `<symbol>.s` per kernel and `<name>.json` into
    `output_dir` (made if missing): all of them, or none (output_set)."""
    outputs: list[tuple[str, str | bytes]] = []
    for k in result.kernels:
        outputs.append((f"{k.symbol}.hsaco", k.code_object))
        outputs.append((f"{k.symbol}.s", k.assembly))
    outputs.append((f"{name}.json", json.dumps(result.metadata(), indent=2) + "\n"))
    return write_output_set(output_dir, outputs, create_directory=True)


if __name__ == "__main__":
    raise SystemExit(main())
