"""accel-compile: GEMM -> AMDGPU code objects, assembly and JSON metadata.

  accel-compile --arch gfx942 -m 128 -n 1280 -k 5120 -t f16 \\
      --a-layout accel --b-layout accel --perf-config v3:32,32,8,16,16,8,1,2,2,1,1 -o out/
  accel-compile input.mlir --arch gfx1100 -o out/     (every accel.gemm in the file)

Writes `<symbol>.hsaco` and `<symbol>.s` per kernel and one `<name>.json` (name: the
kernel symbol for a single GEMM, else the input file's stem; `--name` overrides) into
the output directory. Everything is compiled before the first file is written, so an
error leaves no output behind.
"""

from __future__ import annotations

from accel.tools.interrupts import interruptible_start

PROG = "accel-compile"

# The imports below (the MLIR bindings, numpy) take ~0.4 s: a Ctrl-C during them is
# reported like one during the run.
with interruptible_start(PROG):
    import json
    import os
    from typing import Sequence

    from accel.api import compile_gemm, compile_module
    from accel.dialect.ops import ACCUMULATOR
    from accel.diagnostics import AccelError
    from accel.target.database import ARCHES
    from accel.tools.cli_common import (
        ArgumentParser, errors_in, read_input, run_cli,
    )
    from accel.tools.output_set import write_output_set

IN_TYPES = tuple(ACCUMULATOR)   # f16 bf16 i8 f32 and the four fp8 formats


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
    p.add_argument("-t", "--type", dest="in_type", choices=IN_TYPES, default="f16",
                   help="element type of A, and of B unless --b-type (default f16)")
    p.add_argument("--b-type", choices=IN_TYPES,
                   help="element type of B where it differs from A's (fp8 x bf8 pairings)")
    p.add_argument("--out-type", choices=("f16", "bf16", "f32", "i32"),
                   help="element type of C (default: f16/bf16 as the input, i32 for i8, f32 "
                        "for f32 and fp8)")
    p.add_argument("--trans-a", action="store_true", help="A is stored [G, K, M]")
    p.add_argument("--trans-b", action="store_true", help="B is stored [G, N, K]")
    p.add_argument("--a-layout", choices=("row", "accel"), default="row")
    p.add_argument("--b-layout", choices=("row", "accel"), default="row")
    p.add_argument("--perf-config", help="rocMLIR perf config string, v3:... or v4:...")
    p.add_argument("--accumulate", action="store_true", help="C += A * B instead of C = A * B")
    p.add_argument("--epilogue", choices=("none", "bias", "relu", "bias_relu"), default="none",
                   help="fused epilogue: C = relu?(A * B + bias?); the bias is the 4th argument")
    p.add_argument("--batched-bias", action="store_true",
                   help="the bias is [G, N] (one row per batch) instead of [N]")
    p.add_argument("--name", help="base name of the JSON file")
    p.add_argument("-o", "--output-dir", default=".", help="directory for the outputs (default .)")
    return p


def _main(argv: Sequence[str] | None) -> int:
    args = _parser().parse_args(argv)
    # The JSON goes into the output directory, never beside or above it.
    if args.name is not None and (not args.name or os.sep in args.name
                                  or args.name in (os.curdir, os.pardir)):
        raise AccelError(f"--name must be a plain file name, got '{args.name}'")
    if args.input is not None:
        gemm_flags = [f for f, v in (("-m", args.m), ("-n", args.n), ("-k", args.k),
                                     ("--perf-config", args.perf_config)) if v is not None]
        # The file's gemms say all this themselves: a flag here would be silently ignored.
        gemm_flags += [f for f, v in (("-g", args.g != 1), ("-t", args.in_type != "f16"),
                                      ("--b-type", args.b_type is not None),
                                      ("--out-type", args.out_type is not None),
                                      ("--trans-a", args.trans_a), ("--trans-b", args.trans_b),
                                      ("--a-layout", args.a_layout != "row"),
                                      ("--b-layout", args.b_layout != "row"),
                                      ("--accumulate", args.accumulate),
                                      ("--epilogue", args.epilogue != "none"),
                                      ("--batched-bias", args.batched_bias)) if v]
        if gemm_flags:
            raise AccelError(f"{', '.join(gemm_flags)} cannot be combined with an input file")
        text, display = read_input(args.input)
        with errors_in(display):
            result = compile_module(text, args.arch)
        default_name = "stdin" if args.input == "-" else input_stem(args.input)
    else:
        missing = [f for f, v in (("--arch", args.arch), ("-m", args.m), ("-n", args.n),
                                  ("-k", args.k)) if v is None]
        if missing:
            raise AccelError(f"give an input file, or {', '.join(missing)}")
        result = compile_gemm(args.arch, g=args.g, m=args.m, n=args.n, k=args.k,
                              in_type=args.in_type, out_type=args.out_type,
                              trans_a=args.trans_a, trans_b=args.trans_b,
                              a_layout=args.a_layout, b_layout=args.b_layout,
                              perf_config=args.perf_config, accumulate=args.accumulate,
                              epilogue=args.epilogue, batched_bias=args.batched_bias,
                              b_type=args.b_type)
        default_name = None
    if default_name is None or len(result.kernels) == 1:
        default_name = result.kernels[0].symbol
    name = args.name or default_name

    write_result(result, args.output_dir, name)
    return 0


def input_stem(path: str) -> str:
    """The JSON's default name for an input file: its name without `.mlir` (or another
    extension) and without leading dots, so that `.mlir` or `.x.mlir` give no hidden
    file; "module" when nothing is left."""
    base = os.path.basename(path)
    stem = base[:-len(".mlir")] if base.endswith(".mlir") else os.path.splitext(base)[0]
    return stem.lstrip(".") or "module"


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
