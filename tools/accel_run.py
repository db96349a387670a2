"""accel-run: run kernels on the CPU simulator (accel.sim).

    accel-run kernel FILE.mlir --kernel NAME [--grid X,Y,Z] [--block X,Y,Z] [--arch gfx942]
              [--seed N] [--scalar V ...] [--allow-races] [--work-limit N]
    accel-run FILE.mlir ...            (same as `accel-run kernel FILE.mlir ...`)
    accel-run host FILE.mlir --func NAME [--arch A] [--seed N] [--allow-races] [--work-limit N]
    accel-run gemm --arch A -g G -m M -n N -k K -t f16|bf16|i8|f32|<fp8> [--b-type T]
              [--out-type T] [--trans-a] [--trans-b] [--a-layout row|accel]
              [--b-layout row|accel] [--perf-config S] [--seed N] [--edge-values]
              [--work-limit N]
    accel-run grouped --arch A (--lengths L0,L1,.. | --groups G --distribution
              uniform|skew|empty) -n N -k K --max-seq-len S [--total-rows L] [-t bf16|f16]
              [--out-type T] [--b-layout stacked|row] [--no-bias] [--mode M]
              [--perf-config S] [--dispatch-table T.json] [--seed N]

`kernel` fills each memref argument with random values (shapes from the argument
types), runs the kernel, and prints what it wrote and the LDS race / bank-conflict
report. `host` does the same for a host function (after the accel passes, before
gpu-to-llvm): its launches run in the simulator. `gemm` compiles a GEMM through the
pass pipeline, simulates it and compares C elementwise with a float64 numpy product
(accel.check); it exits 1 when an element is outside its bound. `grouped` does the same
for a grouped GEMM (accel.grouped_gemm): its kernels run in launch order, the main
kernel reading the tile list the prep kernel wrote in simulated device memory.

A kernel's grid and block are checked against its known_grid_size/known_block_size
(and default to them). A run estimated above --work-limit wave-instructions is
refused before it starts, with a smaller shape to try; a run longer than a few
seconds shows its progress on a terminal.
"""

from __future__ import annotations

from accel.tools.interrupts import interruptible_start

PROG = "accel-run"

# The imports below (the MLIR bindings, numpy) take ~0.4 s: a Ctrl-C during them is
# reported like one during the run.
with interruptible_start(PROG):
    import argparse
    import sys
    import time

    import numpy as np

    from accel.api import default_out_type
    from accel.check import check_gemm, check_grouped_gemm, group_lengths
    from accel.dialect.gemm_types import ACCUMULATOR
    from accel.diagnostics import AccelError
    from accel.sim import compile_kernel, find_kernel, parse_module, run_compiled, run_host
    from accel.sim.arch import ARCHS, sim_arch
    from accel.sim.host import find_symbol
    from accel.sim.run import WorkLimitError
    from accel.sim.types import is_float, memref_info, mlir_name
    from accel.tools.cli_common import ArgumentParser, errors_in, run_cli

# Estimated wave-instructions (accel.sim.run.SimKernel.wave_instructions) a run
# may take without --work-limit: about 70 s at the ~2.8e5 per second measured on an
# idle core (512^3 f16 on gfx942: 1.6e6 in 5.9 s; 4096^3: 1.5e8 in 566 s), 3 minutes
# at the ~1.1e5 of a loaded one (benchmarks/bench_sim_work.py). 1024^3 passes (1.3e7
# on gfx942), 2048^3 (4.3e7) needs the flag.
DEFAULT_WORK_LIMIT = 20_000_000


class Progress:
    """One progress line on stderr for a run longer than SHOW_AFTER seconds, redrawn at
    most every EVERY seconds; a terminal only (a log or a pipe gets nothing)."""

    SHOW_AFTER = 3.0
    EVERY = 0.5

    def __init__(self, stream=None):
        self.stream = stream or sys.stderr
        self.enabled = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.start = time.monotonic()
        self.drawn = 0.0
        self.launch = None   # (kernel, total, its first report's time and count)

    def __call__(self, kernel: str, done: int, total: int) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if self.launch is None or self.launch[:2] != (kernel, total) or done < self.launch[3]:
            self.launch = (kernel, total, now, done)   # a new launch: its own rate
        elapsed = now - self.start
        if elapsed < self.SHOW_AFTER or now - self.drawn < self.EVERY:
            return
        self.drawn = now
        _, _, since, first = self.launch
        rate = (done - first) / (now - since) if done > first and now > since else 0.0
        left = f"about {(total - done) / rate:.0f} s" if rate else "some time"
        # One terminal line, or \r cannot redraw it: a kernel symbol is ~50 characters.
        name = kernel if len(kernel) <= 40 else kernel[:37] + "..."
        self.stream.write(f"\r{PROG}: {name}: {done}/{total} workgroups ({done / total:.0%}),"
                          f" {elapsed:.0f} s, {left} of this launch left\033[K")
        self.stream.flush()

    def finish(self) -> None:
        if self.drawn:
            self.stream.write("\r\033[K")
            self.stream.flush()


def _work_limit(opts) -> int | None:
    return opts.work_limit or None


def _too_much(e: WorkLimitError, smaller: str, located: bool = True) -> AccelError:
    return AccelError(f"{e.message}; {smaller}, or raise --work-limit (0 = none) to run it "
                      f"anyway", e.location if located else None)


def smaller_gemm(g: int, m: int, n: int, k: int, estimate: int, limit: int) -> tuple[int, ...]:
    """A (g, m, n, k) within `limit` wave-instructions when (g, m, n, k) has `estimate`.

    Work grows more slowly than M*N*K: a smaller GEMM gets a smaller tile, with more
    work per multiply-add (gfx942 2048^3 -> 1472^3 is 0.37x the multiply-adds but 0.51x
    the estimate; the exponent measured between ladder sizes 256..4096 is 0.57 to 1).
    So each extent above 16 shrinks as if the exponent were 0.5, to a multiple of 16;
    with none above 16, G shrinks. It aims at 80% of the limit: the smaller GEMM's own
    tile choice can put it a few percent either side of that rule (gfx942 2048^3 ->
    1856^3 came out at the limit itself)."""
    big = [d for d in (m, n, k) if d > 16]
    ratio = 0.8 * limit / estimate
    if not big:
        return (max(1, int(g * ratio)), m, n, k)
    factor = ratio ** (2 / len(big))
    return (g, *(max(16, int(d * factor) // 16 * 16) if d > 16 else d for d in (m, n, k)))


def _triple(text: str) -> tuple[int, int, int]:
    parts = text.split(",")
    try:
        vals = [int(p) for p in parts]
    except ValueError:
        vals = []
    if not 1 <= len(vals) <= 3 or min(vals) < 1:
        raise argparse.ArgumentTypeError(f"expected X[,Y[,Z]] positive integers, got '{text}'")
    return tuple(vals + [1] * (3 - len(vals)))


def _seed(text: str) -> int:
    # numpy's generators take only non-negative seeds.
    try:
        v = int(text)
    except ValueError:
        v = -1
    if v < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got '{text}'")
    return v


def _scalar(text: str, dtype, i: int):
    try:
        return float(text) if is_float(dtype) else int(text, 0)
    except ValueError:
        raise AccelError(f"--scalar for kernel argument #{i}: '{text}' is not "
                         f"{'a number' if is_float(dtype) else 'an integer'}") from None


def _random_arg(rng, info):
    """Random contents for a memref argument: the memref's shape when it is a plain
    row-major array, else a flat array covering the view."""
    size = (info.offset or 0) + info.extent
    row_major = (info.offset or 0) == 0 and size == info.num_elements
    shape = info.shape if row_major else (size,)
    if is_float(info.dtype):
        return rng.uniform(-1.0, 1.0, shape).astype(info.dtype)
    if info.dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    return rng.integers(-8, 8, shape).astype(info.dtype)


def _summary(i, info, before, after) -> str:
    bits = np.dtype(f"u{after.itemsize}")   # compare bits: NaN == NaN, -0 != +0
    changed = int(np.count_nonzero(before.view(bits) != after.view(bits)))
    head = f"argument #{i} ({'x'.join(map(str, after.shape))}x{mlir_name(after.dtype)})"
    if changed:
        wide = after.astype(np.float64)
        first = np.array2string(after.reshape(-1)[:6], precision=4, separator=", ")
        return (f"{head}: {changed} elements changed; checksum sum={wide.sum():.6g} "
                f"sum|x|={np.abs(wide).sum():.6g}; first {first}")
    return f"{head}: unchanged"


def run_kernel_command(opts) -> int:
    _check_readable(opts.file)
    module = parse_module(path=opts.file)
    with module.context:
        kernel = compile_kernel(find_kernel(module, opts.kernel), sim_arch(opts.arch))
    rng = np.random.default_rng(opts.seed)
    scalars = list(opts.scalar)
    args, mems = [], []
    for i, t in enumerate(kernel.arg_types):
        if hasattr(t, "strides"):
            a = _random_arg(rng, t)
            args.append(a)
            mems.append((i, t, a.copy(), a))
        else:
            if not scalars:
                raise AccelError(f"kernel argument #{i} is a scalar: pass its value "
                                 "with --scalar")
            args.append(_scalar(scalars.pop(0), t.dtype, i))
    grid = opts.grid or kernel.known_grid or (1, 1, 1)
    block = opts.block or kernel.known_block
    if block is None:
        raise AccelError(f"kernel '{kernel.name}' has no known_block_size: give --block")
    progress = Progress()
    try:
        report = run_compiled(kernel, grid, block, args, opts.arch,
                              strict_races=not opts.allow_races, work_limit=_work_limit(opts),
                              progress=lambda done, total: progress(kernel.name, done, total))
    except WorkLimitError as e:
        raise _too_much(e, "give a smaller --grid") from None
    finally:
        progress.finish()
    print(f"kernel {kernel.name} on {opts.arch}: grid {grid}, block {block}, "
          f"LDS {report.lds_bytes} bytes, simulated in {report.seconds:.3f} s")
    for i, t, before, after in mems:
        print(_summary(i, t, before, after))
    _print_lds_report(report)
    return 0


def _print_lds_report(report):
    print(f"LDS races: {len(report.races)}")
    for r in report.races:
        print(f"  {r}")
    conflicted = {k: v for k, v in report.bank_conflicts.items() if v}
    print(f"LDS bank conflicts: {sum(conflicted.values())} extra cycles "
          f"over {len(report.bank_conflicts)} LDS ops")
    for k, v in conflicted.items():
        print(f"  {k}: {v}")


def run_host_command(opts) -> int:
    _check_readable(opts.file)
    module = parse_module(path=opts.file)
    with module.context:
        f = find_symbol(module, opts.func)
        arch = opts.arch or (f.attributes["arch"].value.split(":")[0]
                             if "arch" in f.attributes else "gfx942")
        types = list(f.attributes["function_type"].value.inputs)
        if any(not str(t).startswith("memref<") for t in types):
            raise AccelError(f"@{opts.func} takes a scalar argument: accel-run host runs "
                             "functions of memrefs only", location=f.location)
        infos = [memref_info(t, f.location) for t in types]
    rng = np.random.default_rng(opts.seed)
    args, mems = [], []
    for i, info in enumerate(infos):
        a = _random_arg(rng, info)
        args.append(a)
        mems.append((i, info, a.copy(), a))
    progress = Progress()
    try:
        report = run_host(module, opts.func, args, arch=arch, strict_races=not opts.allow_races,
                          work_limit=_work_limit(opts), progress=progress)
    except WorkLimitError as e:
        raise _too_much(e, "give the function smaller operands") from None
    finally:
        progress.finish()
    print(f"host function @{opts.func} on {arch}: {len(report.launches)} kernel launches, "
          f"simulated in {report.seconds:.3f} s")
    for launch in report.launches:
        print(f"  {launch.kernel}: grid {launch.grid}, block {launch.block}, "
              f"LDS {launch.report.lds_bytes} bytes")
    for i, t, before, after in mems:
        print(_summary(i, t, before, after))
    print(f"LDS races: {len(report.races)}")
    for r in report.races:
        print(f"  {r}")
    return 0


def run_gemm_command(opts) -> int:
    progress = Progress()
    try:
        r = check_gemm(opts.arch, g=opts.g, m=opts.m, n=opts.n, k=opts.k, in_type=opts.type,
                       out_type=opts.out_type, trans_a=opts.trans_a, trans_b=opts.trans_b,
                       a_layout=opts.a_layout, b_layout=opts.b_layout,
                       perf_config=opts.perf_config, seed=opts.seed, epilogue=opts.epilogue,
                       batched_bias=opts.batched_bias, b_type=opts.b_type,
                       edge_values=opts.edge_values, work_limit=_work_limit(opts),
                       progress=progress)
    except WorkLimitError as e:
        g, m, n, k = smaller_gemm(opts.g, opts.m, opts.n, opts.k, e.estimate, e.limit)
        shape = (f"-g {g} " if g != opts.g else "") + f"-m {m} -n {n} -k {k}"
        # The module is made from the flags: a position in its text means nothing.
        raise _too_much(e, f"try {shape}", located=False) from None
    finally:
        progress.finish()
    cmp = r.comparison
    a = "transposed" if opts.trans_a else opts.a_layout
    b = "transposed" if opts.trans_b else opts.b_layout
    print(f"gemm on {opts.arch}: G={opts.g} M={opts.m} N={opts.n} K={opts.k}, "
          f"{opts.type}" + (f" x {opts.b_type}" if opts.b_type not in (None, opts.type) else "")
          + f" -> {opts.out_type or default_out_type(opts.type)}, A {a}, B {b}"
          + (f", epilogue {opts.epilogue}" if opts.epilogue != "none" else ""))
    print(f"perf config {r.perf_config}")
    print(f"tile {r.tile[0]}x{r.tile[1]}x{r.tile[2]}, grid {r.grid}, block {r.block}, "
          f"LDS {r.lds_bytes} bytes, MMA {r.mma}")
    for launch in r.launches:
        print(f"  launch {launch.kernel}: grid {launch.grid}, block {launch.block}")
    print(f"simulated in {r.seconds:.3f} s")
    print(f"max abs error {cmp.max_abs_error:.6g} (bound there {cmp.bound_at_max:.6g}), "
          f"mismatches {cmp.mismatches} of {cmp.total}")
    if not cmp.ok:
        print(cmp.describe(r.got, r.ref))
    print("PASS" if cmp.ok else "FAIL")
    return 0 if cmp.ok else 1


def _lengths(text: str) -> list[int]:
    try:
        vals = [int(x) for x in text.split(",")]
    except ValueError:
        vals = [-1]
    if min(vals) < 0:
        raise argparse.ArgumentTypeError(f"expected non-negative row counts L0,L1,..., "
                                         f"got '{text}'")
    return vals


def run_grouped_command(opts) -> int:
    if (opts.lengths is None) == (opts.groups is None):
        raise AccelError("give --lengths, or --groups with --distribution")
    lengths = opts.lengths or group_lengths(opts.distribution, opts.groups, opts.max_seq_len,
                                            opts.seed)
    total_rows = opts.total_rows or max(sum(lengths), opts.max_seq_len)
    r = check_grouped_gemm(opts.arch, lengths=lengths, n=opts.n, k=opts.k,
                           max_seq_len=opts.max_seq_len, total_rows=total_rows,
                           in_type=opts.type, out_type=opts.out_type, b_layout=opts.b_layout,
                           bias=not opts.no_bias, mode=opts.mode, perf_config=opts.perf_config,
                           dispatch_table=opts.dispatch_table, seed=opts.seed)
    cmp = r.comparison
    print(f"grouped gemm on {opts.arch}: G={len(lengths)} rows={sum(lengths)} "
          f"L_max={total_rows} max_seq_len={opts.max_seq_len} N={opts.n} K={opts.k}, "
          f"{opts.type} -> {opts.out_type or opts.type}, B {opts.b_layout}"
          + ("" if opts.no_bias else ", bias"))
    print(f"mode {r.mode}, perf config {r.perf_config} ({r.config_source})")
    for launch in r.launches:
        print(f"  launch {launch.kernel.split('::')[-1]}: grid {launch.grid}, "
              f"block {launch.block}")
    loads = ", ".join(f"{k} {v}" for k, v in r.loading_workgroups.items())
    print(f"tiles occupied {r.tiles_occupied}; main-kernel workgroups {r.main_workgroups}, "
          f"of which loading {loads}; running MMAs {r.mma_workgroups}")
    print(f"simulated in {r.seconds:.3f} s")
    print(f"max abs error {cmp.max_abs_error:.6g} (bound there {cmp.bound_at_max:.6g}), "
          f"mismatches {cmp.mismatches} of {cmp.total}; rows outside the groups "
          f"{'untouched' if r.untouched_rows_kept else 'WRITTEN'}")
    ok = cmp.ok and r.untouched_rows_kept
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


def _add_grouped_args(p):
    p.add_argument("--arch", choices=sorted(ARCHS), required=True)
    p.add_argument("--lengths", type=_lengths, help="each group's row count, L0,L1,...")
    p.add_argument("--groups", type=int, help="group count G, with --distribution")
    p.add_argument("--distribution", choices=("uniform", "skew", "empty"), default="skew",
                   help="row counts for --groups (skew: seed 003's, ~20%% empty)")
    p.add_argument("-n", type=int, required=True)
    p.add_argument("-k", type=int, required=True)
    p.add_argument("--max-seq-len", type=int, required=True)
    p.add_argument("--total-rows", type=int, help="L_max (default: the rows the groups hold)")
    p.add_argument("-t", "--type", choices=("bf16", "f16"), default="bf16")
    p.add_argument("--out-type", choices=("bf16", "f16", "f32"), default=None)
    p.add_argument("--b-layout", choices=("stacked", "row"), default="stacked")
    p.add_argument("--no-bias", action="store_true")
    p.add_argument("--mode", choices=("auto", "uniform", "compact"), default="auto")
    p.add_argument("--perf-config", default=None, help="e.g. v4:... (default: dispatched)")
    p.add_argument("--dispatch-table", default=None, help="a JSON dispatch table")
    p.add_argument("--seed", type=_seed, default=0)


def _work_limit_arg(p):
    p.add_argument("--work-limit", type=_seed, default=DEFAULT_WORK_LIMIT, metavar="N",
                   help="refuse runs estimated above N wave-instructions "
                        f"(default {DEFAULT_WORK_LIMIT:.0e}, a minute or more; 0 = no limit)")


def _add_kernel_args(p):
    _work_limit_arg(p)
    p.add_argument("file", help="MLIR file with a gpu.module")
    p.add_argument("--kernel", required=True, help="symbol or gpu_module::symbol")
    p.add_argument("--grid", type=_triple, default=None,
                   help="workgroups X,Y,Z (default: the kernel's known_grid_size, else 1,1,1)")
    p.add_argument("--block", type=_triple, default=None,
                   help="threads X,Y,Z (default: the kernel's known_block_size)")
    p.add_argument("--arch", choices=sorted(ARCHS), default="gfx942")
    p.add_argument("--seed", type=_seed, default=0)
    p.add_argument("--scalar", action="append", default=[],
                   help="value of the next scalar argument (repeat in order)")
    p.add_argument("--allow-races", action="store_true",
                   help="report LDS races instead of stopping at the first")


def _add_host_args(p):
    _work_limit_arg(p)
    p.add_argument("file", help="MLIR file with a host func.func and its gpu.modules")
    p.add_argument("--func", required=True, help="host function symbol")
    p.add_argument("--arch", choices=sorted(ARCHS), default=None,
                   help="default: the function's 'arch' attribute, else gfx942")
    p.add_argument("--seed", type=_seed, default=0)
    p.add_argument("--allow-races", action="store_true",
                   help="report LDS races instead of stopping at the first")


def _add_gemm_args(p):
    _work_limit_arg(p)
    p.add_argument("--arch", choices=sorted(ARCHS), required=True)
    # Extents are checked by the compiler, with the same message as accel-compile's.
    for flag in ("g", "m", "n", "k"):
        p.add_argument(f"-{flag}", type=int, required=flag != "g", default=1)
    p.add_argument("-t", "--type", choices=tuple(ACCUMULATOR), default="f16",
                   help="element type of A, and of B unless --b-type")
    p.add_argument("--b-type", choices=tuple(ACCUMULATOR), default=None,
                   help="element type of B where it differs from A's (fp8 x bf8 pairings)")
    p.add_argument("--edge-values", action="store_true",
                   help="plant each fp8 format's edge values (largest finite, subnormals, "
                        "+-0) in the operands")
    p.add_argument("--out-type", choices=("f16", "bf16", "f32", "i32"), default=None)
    p.add_argument("--trans-a", action="store_true", help="A stored as [G, K, M]")
    p.add_argument("--trans-b", action="store_true", help="B stored as [G, N, K]")
    p.add_argument("--a-layout", choices=("row", "accel"), default="row")
    p.add_argument("--b-layout", choices=("row", "accel"), default="row")
    p.add_argument("--perf-config", default=None, help="e.g. v4:... (default: selected)")
    p.add_argument("--epilogue", choices=("none", "bias", "relu", "bias_relu"), default="none",
                   help="fused epilogue: C = relu?(A * B + bias?)")
    p.add_argument("--batched-bias", action="store_true", help="the bias is [G, N], not [N]")
    p.add_argument("--seed", type=_seed, default=0)


# name -> (help, argument builder, runner)
COMMANDS = {
    "kernel": ("run one kernel on random inputs", _add_kernel_args, run_kernel_command),
    "host": ("run a host function (and its kernel launches) on random inputs",
             _add_host_args, run_host_command),
    "gemm": ("compile a GEMM, simulate it and compare with numpy", _add_gemm_args,
             run_gemm_command),
    "grouped": ("compile a grouped GEMM, simulate its kernels and compare with numpy",
                _add_grouped_args, run_grouped_command),
}


def _check_readable(path: str):
    try:
        with open(path, encoding="utf-8"):
            pass
    except OSError as e:
        raise AccelError(f"cannot read '{path}': {e.strerror}") from None


def main(argv=None) -> int:
    return run_cli(_main, argv, prog=PROG)


def _main(argv) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] not in COMMANDS and argv[0] not in ("-h", "--help"):
        argv.insert(0, "kernel")
    ap = ArgumentParser(prog=PROG, description="Run kernels on the accel CPU simulator.")
    sub = ap.add_subparsers(dest="command", required=True)
    for name, (help_text, add_args, _) in COMMANDS.items():
        add_args(sub.add_parser(name, help=help_text))
    opts = ap.parse_args(argv)
    file = getattr(opts, "file", None)
    if file is None:
        return COMMANDS[opts.command][2](opts)
    with errors_in(file):
        return COMMANDS[opts.command][2](opts)


if __name__ == "__main__":
    sys.exit(main())
