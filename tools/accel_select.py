"""accel-select: show how a perf config is chosen for one GEMM.

  accel-select --arch gfx1100 -m 528 -n 528 -k 1024 -t f16 [-g G] [--out-type f32]
               [--cu-count N] [--top 10] [--no-rejected] [--json]
               [--check v4:...]

Prints the ranked candidates with their estimated time and the terms behind it,
then every rejected candidate with the rules it broke, then the split-K choice a
compile without a perf config makes (tuning/split_k.py; `split_k` in the JSON).
`--check` instead validates one perf config and prints the rules it breaks (exit 1 if
any), or, when it breaks none, where it ranks among the candidates and its estimate.
"""

from __future__ import annotations

from accel.tools.interrupts import interruptible_start

PROG = "accel-select"

# The imports below (the MLIR bindings, numpy) take ~0.4 s: a Ctrl-C during them is
# reported like one during the run.
with interruptible_start(PROG):
    import json
    import sys
    from typing import Sequence

    from accel.diagnostics import AccelError
    from accel.dialect.gemm import GemmShape
    from accel.dialect.gemm_types import ACCUMULATOR
    from accel.dialect.perf_config import PerfConfig
    from accel.target.database import ARCHES, get_arch
    from accel.tools.cli_common import ArgumentParser, run_cli
    from accel.tuning.selection import select
    from accel.tuning.split_k import split_choice
    from accel.tuning.validity import check_config

def _parser() -> ArgumentParser:
    p = ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    p.add_argument("--arch", required=True, choices=sorted(ARCHES))
    p.add_argument("-g", type=int, default=1, help="batch count G")
    p.add_argument("-m", type=int, required=True)
    p.add_argument("-n", type=int, required=True)
    p.add_argument("-k", type=int, required=True)
    p.add_argument("-t", "--type", dest="in_type", default="f16",
                   help="element type of A, and of B unless --b-type")
    p.add_argument("--b-type", help="element type of B where it differs from A's (fp8 x bf8)")
    p.add_argument("--out-type", help="output element type (default: the accumulator type)")
    p.add_argument("--cu-count", type=int, help="CUs of the part (default: the arch's part)")
    p.add_argument("--top", type=int, default=10, help="ranked candidates to show (0 = all)")
    p.add_argument("--no-rejected", action="store_true", help="omit the rejected candidates")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument("--check", metavar="PERF_CONFIG", help="validate this perf config instead")
    return p



def main(argv: Sequence[str] | None = None) -> int:
    return run_cli(_main, argv, prog=PROG)


def _main(argv: Sequence[str] | None) -> int:
    args = _parser().parse_args(argv)
    if args.top < 0:
        raise AccelError(f"--top must be 0 (all) or positive, got {args.top}")
    arch = get_arch(args.arch, args.cu_count)
    shape = GemmShape(args.g, args.m, args.n, args.k)
    out_type = args.out_type or ACCUMULATOR.get(args.in_type, "f32")
    if args.check:
        config = PerfConfig.parse(args.check, arch.mma_kind)
        errors = check_config(arch, args.in_type, shape, config, args.b_type)
        for e in errors:
            print(e)
        if not errors:
            print(f"{args.check}: valid; {_standing(arch, args, out_type, shape, config)}")
        return 1 if errors else 0
    sel = select(arch, args.in_type, out_type, shape, b_type=args.b_type)
    config, us, base_us = split_choice(sel)
    if args.json:
        out = json.loads(sel.to_json(top=args.top or None))
        out["split_k"] = {"perf_config": str(config), "slices": config.split_k,
                          "score_us": round(us, 6), "unsplit_us": round(base_us, 6)}
        print(json.dumps(out, indent=2))
    else:
        print(sel.explain(top=args.top or None, show_rejected=not args.no_rejected))
        # What a compile without a perf config takes (tuning/split_k.py).
        print(f"split-K: {config} ({config.split_k} slices, est. {us:.3f} us against "
              f"{base_us:.3f} unsplit)" if config.split_k > 1 else
              f"split-K: none (no split is estimated >10% faster than {base_us:.3f} us)")
    return 0


def _standing(arch, args, out_type: str, shape: GemmShape, config: PerfConfig) -> str:
    """Where a valid config ranks among the selector's candidates, and its estimate."""
    sel = select(arch, args.in_type, out_type, shape, b_type=args.b_type)
    text = str(config)
    for i, c in enumerate(sel.ranked):
        if str(c.config) == text:
            b = c.breakdown
            return (f"ranked {i + 1} of {len(sel.ranked)}: {c.score:.3f} us, bound by "
                    f"{b['bound']}, loads {'ahead' if b['pipeline_depth'] else 'not ahead'} "
                    f"(the choice, {sel.best}: {sel.ranked[0].score:.3f} us)")
    why = [r for c, r in sel.rejected if str(c) == text]
    return ("not ranked: " + "; ".join(why[0])) if why else \
        "not among the selector's candidates (outside its ladder)"


if __name__ == "__main__":
    sys.exit(main())
