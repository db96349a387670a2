"""accel-compile: GEMM -> AMDGPU code objects, assembly and JSON metadata.

  accel-compile --arch gfx942 -m 128 -n 1280 -k 5120 -t f16 \\
      --a-layout accel --b-layout accel --perf-config v3:32,32,8,16,16,8,1,2,2,1,1 -o out/
  accel-compile input.mlir --arch gfx1100 -o out/     (every accel.gemm in the file)
  accel-compile --grouped --arch gfx942 --groups 120 -n 256 -k 256 --max-seq-len 7680 \
      --total-rows 921600 -t bf16 [--mode uniform|compact|auto] [--dispatch-table T.json]
                                                       (accel.grouped_gemm, seed 003)

Writes `<symbol>.hsaco` and `<symbol>.s` per kernel and one `<name>.json` (name: the
kernel symbol for a single GEMM, else the input file's stem; `--name` overrides) into
the output directory. Everything is compiled before the first file is written, so an
error leaves no output behind.
"""

from __future__ import annotations

import json
import os
from typing import Sequence

from accel.api import compile_gemm, compile_grouped_gemm, compile_module
from accel.diagnostics import AccelError
from accel.target.database import ARCHES
from accel.tools.cli_common import (
    ArgumentParser, errors_in, read_input, run_cli, write_outputs_atomic,
)

PROG = "accel-compile"
IN_TYPES = ("f16", "bf16", "i8", "f32")


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
                   help="element type of A and B (default f16; bf16 with --grouped)")
    p.add_argument("--out-type", choices=("f16", "bf16", "f32", "i32"),
                   help="element type of C (default: f16/bf16 as the input, i32 for i8, f32 for f32)")
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
    p.add_argument("--name", help="base name of the JSON file")
    p.add_argument("-o", "--output-dir", default=".", help="directory for the outputs (default .)")
    return p


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
    if args.input is not None:
        gemm_flags = [f for f, v in (("-m", args.m), ("-n", args.n), ("-k", args.k),
                                     ("--perf-config", args.perf_config)) if v is not None]
        # The file's gemms say all this themselves: a flag here would be silently ignored.
        gemm_flags += [f for f, v in (("-g", args.g != 1), ("-t", args.in_type is not None),
                                      ("--out-type", args.out_type is not None),
                                      ("--trans-a", args.trans_a), ("--trans-b", args.trans_b),
                                      ("--a-layout", args.a_layout != "row"),
                                      ("--b-layout", args.b_layout is not None),
                                      ("--accumulate", args.accumulate),
                                      ("--epilogue", args.epilogue != "none"),
                                      ("--batched-bias", args.batched_bias)) if v]
        if gemm_flags:
            raise AccelError(f"{', '.join(gemm_flags)} cannot be combined with an input file")
        text, display = read_input(args.input)
        with errors_in(display):
            result = compile_module(text, args.arch)
        default_name = "stdin" if args.input == "-" else os.path.splitext(
            os.path.basename(args.input))[0]
    else:
        missing = [f for f, v in (("--arch", args.arch), ("-m", args.m), ("-n", args.n),
                                  ("-k", args.k)) if v is None]
        if missing:
            raise AccelError(f"give an input file, or {', '.join(missing)}")
        result = compile_gemm(args.arch, g=args.g, m=args.m, n=args.n, k=args.k,
                              in_type=args.in_type or "f16", out_type=args.out_type,
                              trans_a=args.trans_a, trans_b=args.trans_b,
                              a_layout=args.a_layout, b_layout=args.b_layout or "row",
                              perf_config=args.perf_config, accumulate=args.accumulate,
                              epilogue=args.epilogue, batched_bias=args.batched_bias)
        default_name = None
    if default_name is None or len(result.kernels) == 1:
        default_name = result.kernels[0].symbol
    name = args.name or default_name

    write_result(result, args.output_dir, name)
    return 0


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
                            ("--batched-bias", args.batched_bias)) if v]
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
    """Write `<symbol>.hsaco` and `<symbol>.s` per kernel and `<name>.json`; all or nothing."""
    outputs: list[tuple[str, str | bytes]] = []
    for k in result.kernels:
        outputs.append((f"{k.symbol}.hsaco", k.code_object))
        outputs.append((f"{k.symbol}.s", k.assembly))
    outputs.append((f"{name}.json", json.dumps(result.metadata(), indent=2) + "\n"))
    try:
        os.makedirs(output_dir, exist_ok=True)
    except OSError as e:
        raise AccelError(f"cannot create output directory '{output_dir}': {e.strerror}") from None
    files = [(os.path.join(output_dir, fname), data) for fname, data in outputs]
    write_outputs_atomic(files)
    return [path for path, _ in files]


if __name__ == "__main__":
    raise SystemExit(main())
