"""accel-opt: parse, verify, transform and print MLIR, with mlir-opt's conventions.

  accel-opt [FILE|-] [-o OUT] [--pass-pipeline='builtin.module(...)']
            [--accel-<pass>[='opt=val ...'] ...] [--split-input-file]
            [--verify-diagnostics] [--mlir-print-ir-after-all] [--list-passes]

Our passes are Python and unknown to MLIR's pass registry, so the pass flags are
generated from `accel.passes.registry` (a pass added there gets its flag) and upstream
passes are reached through --pass-pipeline. Pass flags run in command-line order.
The accel ops are verified after parsing and after every pass.
"""

from __future__ import annotations

from accel.tools.interrupts import interruptible_start

PROG = "accel-opt"

# The imports below (the MLIR bindings, numpy) take ~0.4 s: a Ctrl-C during them is
# reported like one during the run.
with interruptible_start(PROG):
    import argparse
    import re
    import sys
    from typing import Sequence

    from accel.bindings import ir, new_context
    from accel.diagnostics import AccelError, mlir_error, take_warnings
    from accel.dialect.verify import module_errors
    from accel.passes.registry import AccelPass
    from accel.passes.upstream import parse_upstream
    from accel.pipelines import registered_passes
    from accel.pipelines.textual import (
        Step, UpstreamSegment, expand, parse_pass_element, parse_pipeline, run_steps,
        split_top_level,
    )
    from accel.tools import diagnostic_verifier as dv
    from accel.tools.cli_common import (
        ArgumentParser, errors_in, read_input, run_cli, write_output_atomic,
    )

SPLIT_MARKER = "// -----"
_SPLIT_LINE = re.compile(r"^// -----")


def main(argv: Sequence[str] | None = None) -> int:
    return run_cli(_main, argv, prog=PROG)


# ---- command line ---------------------------------------------------------------
def _pass_flags(argv: list[str], passes: dict[str, type[AccelPass]]):
    """Split off `--<pass>[=options]` flags, in order, from the other arguments.

    argparse cannot take them: an optional value would swallow the input file name
    (`--accel-foo input.mlir`), while mlir-opt only takes a pass's options after '='.
    """
    flags, rest = [], []
    for arg in argv:
        name, eq, value = arg.lstrip("-").partition("=")
        if arg.startswith("-") and name in passes:
            flags.append((name, value if eq else ""))
        else:
            rest.append(arg)
    return flags, rest


def _pass_from_flag(passes, name: str, value: str) -> AccelPass:
    _, opts = parse_pass_element(f"{name}{{{value}}}")
    return passes[name].from_options(opts)


def _arg_parser(passes: dict[str, type[AccelPass]]) -> ArgumentParser:
    pass_help = "\n".join(f"  --{n}[='opt=val ...']  {passes[n].SUMMARY}" for n in sorted(passes))
    p = ArgumentParser(
        prog=PROG, formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Parse, verify, transform and print MLIR with accel ops.",
        epilog=f"pass flags (run in command-line order; see --list-passes):\n{pass_help}")
    p.add_argument("input", nargs="?", default="-", help="input file, '-' for stdin (default)")
    p.add_argument("-o", dest="output", default="-", metavar="FILE",
                   help="output file, '-' for stdout (default); never written partially")
    p.add_argument("--pass-pipeline", metavar="PIPELINE",
                   help="a textual pipeline, e.g. 'builtin.module(accel-layout, canonicalize)'")
    p.add_argument("--split-input-file", action="store_true",
                   help=f"process each '{SPLIT_MARKER}'-separated chunk on its own")
    p.add_argument("--verify-diagnostics", action="store_true",
                   help="check diagnostics against expected-error/-warning/-note/-remark comments")
    p.add_argument("--mlir-print-ir-after-all", action="store_true",
                   help="print the IR to stderr after every pass")
    p.add_argument("--mlir-print-op-generic", action="store_true",
                   help="print every op in generic form")
    p.add_argument("--migraphx", action="store_true",
                   help="read MIGraphX syntax (detected automatically otherwise)")
    p.add_argument("--list-passes", action="store_true",
                   help="list the registered accel passes and their options")
    return p


def list_passes(passes: dict[str, type[AccelPass]]) -> str:
    out = []
    for name in sorted(passes):
        cls = passes[name]
        out.append(f"{name}: {cls.SUMMARY}")
        for f in cls.option_fields():
            typ = f.type if isinstance(f.type, str) else f.type.__name__
            choices = f.metadata.get("choices")
            extra = f" [{'|'.join(choices)}]" if choices else ""
            out.append(f"  {f.name.replace('_', '-')}=<{typ}> (default: {f.default!r}){extra}: "
                       f"{f.metadata.get('help', '')}")
    return "\n".join(out) + "\n"


def _check_upstream(steps: list[Step]) -> None:
    """Reject a bad upstream pipeline before any input is read, as mlir-opt does."""
    with new_context():
        for step in steps:
            if isinstance(step, UpstreamSegment):
                parse_upstream(step.text)


def _one_step_per_pass(steps: list[Step]) -> list[Step]:
    """Named pipelines expanded and upstream segments split, so
    --mlir-print-ir-after-all dumps after each pass."""
    out: list[Step] = []
    for step in expand(steps):
        if isinstance(step, UpstreamSegment):
            out.extend(UpstreamSegment(e) for e in split_top_level(step.text))
        else:
            out.append(step)
    return out


# ---- input ----------------------------------------------------------------------
def split_chunks(text: str) -> list[tuple[int, str]]:
    """(lines before the chunk, chunk text) for each `// -----`-separated chunk."""
    chunks, start, cur = [], 0, []
    for i, line in enumerate(text.split("\n")):
        if _SPLIT_LINE.match(line):
            chunks.append((start, "\n".join(cur)))
            start, cur = i + 1, []
        else:
            cur.append(line)
    chunks.append((start, "\n".join(cur)))
    return chunks


def _maybe_translate_migraphx(text: str, name: str, forced: bool) -> str:
    try:
        from accel.migraphx import looks_like_migraphx, translate
    except ImportError as e:
        if forced:
            raise AccelError(f"MIGraphX input needs accel.migraphx, which failed to load: {e}")
        return text
    if forced or looks_like_migraphx(text):
        return translate(text, name)
    return text


# ---- one chunk --------------------------------------------------------------------
class _ChunkFailed(Exception):
    def __init__(self, diagnostics: list[dv.Diagnostic]):
        super().__init__()
        self.diagnostics = diagnostics


def _print_module(module: ir.Module, generic: bool) -> str:
    text = module.operation.get_asm(print_generic_op_form=generic)
    return text if text.endswith("\n") else text + "\n"


def process_chunk(text: str, name: str, steps: list[Step], args) -> tuple[str | None, list[dv.Diagnostic]]:
    """Run one buffer: (printed result or None on failure, diagnostics produced).

    `text` is padded with blank lines so that its line numbers are the input file's.
    """
    produced: list[dv.Diagnostic] = []

    def on_diagnostic(d) -> bool:
        # Errors reach us through MLIRError; this sees warnings and remarks.
        produced.extend(dv.from_mlir_diagnostic(d, name))
        return True

    def failed(e: ir.MLIRError) -> _ChunkFailed:
        diags = [d for diag in e.error_diagnostics for d in dv.from_mlir_diagnostic(diag, name)]
        return _ChunkFailed(diags or [dv.from_accel_error(mlir_error(e), name)])

    def verify(module: ir.Module) -> None:
        # MLIR verifies after its own passes, not after our Python ones: do it here,
        # then the accel ops, which MLIR cannot verify.
        try:
            module.operation.verify()
        except ir.MLIRError as e:
            raise failed(e) from None
        errors = module_errors(module)
        if errors:
            raise _ChunkFailed([dv.from_accel_error(e, name) for e in errors])

    def after_each(step: Step, module: ir.Module) -> None:
        produced.extend(dv.from_accel_error(w, name) for w in take_warnings())
        if args.mlir_print_ir_after_all:
            # spec() adds the options to the name, so two runs of one pass are told apart.
            sys.stderr.write(f"// -----// IR Dump After {step.spec()} //----- //\n"
                             f"{_print_module(module, args.mlir_print_op_generic)}\n")
        verify(module)

    take_warnings()   # none left over from an earlier chunk's failure
    ctx = new_context()
    ctx.attach_diagnostic_handler(on_diagnostic)
    try:
        with ctx, ir.Location.unknown():
            with errors_in(name):
                source = _maybe_translate_migraphx(text, name, args.migraphx)
            try:
                module = ir.Module.parse(source)  # verifies the upstream ops too
            except ir.MLIRError as e:
                raise failed(e) from None
            verify(module)
            run_steps(module, steps, after_each)
            return _print_module(module, args.mlir_print_op_generic), produced
    except _ChunkFailed as f:
        return None, produced + _warnings(name) + f.diagnostics
    except AccelError as e:
        return None, produced + _warnings(name) + [dv.from_accel_error(e, name)]


def _warnings(name: str) -> list[dv.Diagnostic]:
    return [dv.from_accel_error(w, name) for w in take_warnings()]


# ---- driver -----------------------------------------------------------------------
def _main(argv: Sequence[str] | None) -> int:
    passes = registered_passes()
    flags, rest = _pass_flags(list(sys.argv[1:] if argv is None else argv), passes)
    args = _arg_parser(passes).parse_args(rest)
    if args.list_passes:
        write_output_atomic(args.output, list_passes(passes))
        return 0
    if args.pass_pipeline is not None and flags:
        raise AccelError("'--pass-pipeline' cannot be combined with individual pass flags")
    if args.pass_pipeline is not None:
        steps = parse_pipeline(args.pass_pipeline)
    else:
        steps = [_pass_from_flag(passes, n, v) for n, v in flags]
    _check_upstream(steps)
    if args.mlir_print_ir_after_all:
        steps = _one_step_per_pass(steps)

    text, name = read_input(args.input)
    chunks = split_chunks(text) if args.split_input_file else [(0, text)]
    outputs, failed = [], False
    for first_line, chunk in chunks:
        # Module.parse takes no line offset: blank lines in front put every location
        # (parser errors, op locations, expected-* comments) at its line in the file.
        padded = "\n" * first_line + chunk
        result, produced = process_chunk(padded, name, steps, args)
        if args.verify_diagnostics:
            problems = dv.check(dv.parse_expectations(padded, name), produced, name)
            for p in problems:
                print(p, file=sys.stderr)
            failed |= bool(problems)
        else:
            for d in produced:
                # A diagnostic without a position is the tool's, as in run_cli.
                print(d.render() if d.file else f"{PROG}: {d.render()}", file=sys.stderr)
            failed |= result is None
        if result is not None:
            outputs.append(result)
    # As mlir-opt: with --split-input-file every chunk that succeeded is printed (a
    # failed one prints its diagnostic only), and the run still fails at the end. An
    # output file is all or nothing: a failing run writes none.
    if failed and not (args.split_input_file and args.output == "-"):
        return 1
    write_output_atomic(args.output, f"{SPLIT_MARKER}\n".join(outputs))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
