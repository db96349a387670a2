"""The MIGraphX corpus, chunk by chunk: converted, diagnosed (by message), fused, compiled.

    python benchmarks/bench_migraphx_corpus.py [--corpus DIR] [--chips gfx942,...]
                                               [--timeout 60] [--json] [--verbose]

Reads `../shared/data/migraphx_corpus/inputs/*.mlir` beside the checkout (or beside a
folder above it; real MIGraphX
IR from rocMLIR's and AMDMIGraphX's tests; its README says where each file comes from),
splits every file on `// -----`, keeps the chunks that hold a `migraphx.dot` or
`migraphx.quant_dot`, fills the harness placeholders (`##TOKEN_ARCH##`, `arch = ""`,
`rock.arch = ""`) with the chip, and runs what `accel-opt --split-input-file
--accel-from-migraphx=arch=<chip>` runs on each chunk, in this process. A converted
chunk is then compiled to code objects (`accel.api.compile_module`) for that chip.

Per chunk the outcome is one of
  converted   accel-from-migraphx succeeded (then: elementwise ops it left unfused, as
              linalg.generic bodies that compute; gemms with a fused epilogue; the
              accel.elementwise kernels (row reductions among them) for what no epilogue
              took; the gemm operands read in place as strided views and the accel.copy
              kernels left, by their reason; and the compile's result per chip);
  diagnosed   a one-line diagnostic (grouped by its message, numbers and names blanked);
  crash       anything else: a Python exception that is not a diagnostic (a traceback),
  timeout     or no answer within --timeout seconds.
The conversion is judged on the first chip of --chips (gfx942 by default, the issue's
reference); the compile runs for every chip the chunk's element types allow (a chunk
whose conversion on a chip fails because the chip lacks its element type is counted as
"types not allowed", not as a failure).

--json prints one JSON object per chunk (for test/python/test_migraphx_corpus.py)
instead of the summary. Progress ("chunk <file>#<n>") goes to stderr before each chunk,
so a hard crash of the process names the chunk that caused it.

Figures (`python benchmarks/bench_migraphx_corpus.py`, 103 dot chunks):
  before issue 16's work: 31 converted, 72 diagnosed, 0 crash, 0 timeout; 19 converted
  chunks left 22 elementwise ops unfused; 0 of 40 gemms with a fused epilogue; code
  objects on gfx942 30 of 31 (split-K refused), gfx1100/gfx1201 9 of 31 (22 f32).
  after: 60 converted, 43 diagnosed, 0 crash, 0 timeout; no converted chunk leaves an
  elementwise op unfused; 44 of 74 gemms with a fused epilogue; code objects on gfx942
  59 of 60 (the other names gfx1201), gfx1100 20 and gfx1201 21 (the rest are f32,
  which WMMA lacks, or name gfx1201).
  with split-K and the MX-scaled form read: 62 converted, 41 diagnosed, 0 crash, 0
  timeout; no unfused elementwise op; 45 of 76 gemms with a fused epilogue, 7 split along
  K (rocMLIR's mixr-gemm-splitk tests, which before ran with splitKFactor 1); code
  objects on gfx942 61 of 62 (the other names gfx1201), gfx1100 22, gfx1201 23; the
  12 MX-scaled quant_dot chunks no longer stop at a parse error at 'scaled': 11 report
  the MX-scaled quant_dot, 1 (Dialect/MIGraphX/ops.mlir) a plain f4E2M1FN dot in its
  first function.
  with elementwise kernels (accel.elementwise: what no epilogue takes, quantize/
  dequantizelinear, int4 unpack, reduce_sum/max and softmax over the last axis) and
  tosa.const read as a literal: 75 converted, 28 diagnosed, 0 crash, 0 timeout; no
  unfused elementwise op; 93 gemms, 51 with a fused epilogue, 8 split along K; 23
  elementwise kernels in 11 chunks, 10 of them row reductions; code objects on gfx942 74
  of 75 (the other names gfx1201), gfx1100 28, gfx1201 29. Still on the host: 50
  copying linalg.generic in 26 converted chunks (a slice along the contiguous axis, a
  transposed or broadcast-K operand, a transposed result: views the gemm's packed
  addressing does not take), which compile_module's kernels leave to the caller.
  with copy kernels (accel.copy): 0 copies on the host; 50 accel.copy kernels in those
  26 chunks; otherwise as above (75 converted, 93 gemms, code objects on gfx942 74,
  gfx1100 28, gfx1201 29, now with the copy kernels among them).
  with strided operands (a slice, batch stride, broadcast batch or wider rows read in
  place by the gemm, A, B and gmn epilogue operands): 24 accel.copy kernels in 13
  chunks (from 50 in 26), 26 gemm operands read as strided views in 14 chunks; the
  copies left, by reason: 8 an elementwise kernel's input no broadcast kind names, 4 a
  slice regrouping dimensions of several strides (int4 unpack chunks), 4 a dot operand
  B whose batch has two strides (grouped-query attention's KV heads), 3 a dot operand
  A with no contiguous side (batch-first, inner stride 2; a scalar broadcast) and 1 B
  likewise, 1 A whose K has two strides (mixr-tp-reshape-dot-add's heads), 3 results
  returned through a view; otherwise as above (75 converted, 93 gemms, code objects on
  gfx942 74, gfx1100 28, gfx1201 29).
  with elementwise inputs read through index maps (accel.elementwise `input_maps`): 16
  accel.copy kernels in 11 chunks (from 24 in 13); 8 elementwise inputs in 4 chunks read
  in place (the int4 chunks' group scales and zero points broadcast over their groups:
  N of two strides); the 8 copies of the same, by reason, as above but for those 8;
  otherwise as above (75 converted, 0 unfused, 93 gemms, code objects on gfx942 74,
  gfx1100 28, gfx1201 29).
  with grouped-query attention's dot as one taller gemm (B's batch (G0, s) (G1, 0), A's
  group rows following each other: batch G0, M' = G1 * M): 14 accel.copy kernels in 10
  chunks (from 16 in 11): kv_cache_attention_seq_len_mask's two B copies are gone;
  mixr-attention-gqa's two stay (its rank-raising multibroadcast is read aligned right,
  which repeats the outer batch, (2, 0) (4, 1024), no group of a key/value head);
  otherwise as above (75 converted, 0 unfused, 93 gemms, code objects on gfx942 74,
  gfx1100 28, gfx1201 29).
  with a multibroadcast placed by its result's stride-0 dimensions (rocMLIR's reading;
  numpy's right alignment read mixr-attention-gqa as another function): 12 accel.copy
  kernels in 9 chunks, mixr-attention-gqa's two B copies gone; the copies left: 4 a
  slice regrouping dimensions, 3 A with no stride-1 side, 3 results returned through a
  view, 1 A whose K has two strides, 1 B with no stride-1 side; otherwise as above.
  Three changes, each measured alone against those 12 copies in 9 chunks:
  with a slice inside a dimension's digits read as a window of it (the int4 chunks'
  group scales and zero points, K = 5 of 2 groups of 3, read by the dequantize kernel's
  index maps): 8 accel.copy kernels in 7 chunks (from 12 in 9), no slice copied;
  otherwise as above (75 converted, 0 unfused, code objects on gfx942 74, gfx1100 28,
  gfx1201 29).
  with gemm operands read an element per load where no side has stride 1 (batch-first's
  A and B, mixr-gemm-input-bcast's scalar per batch) and K of two digits read as a
  rank-4 [G, D, K1, K0] view (mixr-tp-reshape-dot-add's 12 heads of 64): 7 accel.copy
  kernels in 5 chunks (from 12 in 9), 31 gemm operands read as strided views in 17
  chunks; the copies left: 4 a slice regrouping dimensions, 3 results returned through
  a view; otherwise as above (75 converted, 0 unfused, 93 gemms, code objects on gfx942
  74, gfx1100 28, gfx1201 29).
  with C written through a strided view of the out-parameter (a result returned with a
  wider batch stride, or transposed: non-contiguous-strides #0 and #1,
  mixr-gemm-transpose): 9 accel.copy kernels in 6 chunks, the 3 "a returned value that
  no kernel wrote into its result in place" gone; 29 views in place by a gemm in 17
  chunks (the 3 Cs among them); otherwise as above (75 converted, 0 unfused, code
  objects on gfx942 74, gfx1100 28, gfx1201 29).
  all three together: 0 accel.copy kernels; 34 views in place by a gemm in 20 chunks
  and 8 by an elementwise kernel in 4; otherwise as above (75 converted, 0 unfused,
  93 gemms, code objects on gfx942 74, gfx1100 28, gfx1201 29).
"""

from __future__ import annotations

import argparse
import json
import re
import signal
import sys
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import SimpleNamespace

from accel.api import compile_module
from accel.bindings import ir, new_context
from accel.diagnostics import AccelError, mlir_error
from accel.dialect.copy import CopyOp
from accel.dialect.elementwise import ElementwiseOp
from accel.dialect.gemm import GemmOp
from accel.passes.from_migraphx import FromMigraphx
from accel.tools.accel_opt import process_chunk, split_chunks

REPO = Path(__file__).resolve().parent.parent
CORPUS_PATH = Path("shared") / "data" / "migraphx_corpus" / "inputs"
# Beside the checkout, or beside a folder holding it (a git worktree under work/wt/).
DEFAULT_CORPUS = next((p / CORPUS_PATH for p in REPO.parents if (p / CORPUS_PATH).is_dir()),
                      REPO.parent / CORPUS_PATH)
CHIPS = ("gfx942", "gfx1100", "gfx1201")
_DOT = re.compile(r"migraphx\.(quant_)?dot\b")
# A conversion that fails on a chip for want of the element type there (f32 has no
# WMMA on gfx11/12): the chunk's types do not allow that chip.
_TYPE_NOT_ON_CHIP = re.compile(r"element type \S+ is not supported on gfx")


@dataclass
class ChunkResult:
    chunk: str                 # <file>#<index of the chunk in the file>
    outcome: str               # converted | diagnosed | crash | timeout
    message: str = ""          # the diagnostic, or the exception for a crash
    unfused: int = 0           # elementwise linalg.generic left beside the gemms
    gemms: int = 0
    fused_gemms: int = 0       # gemms with an epilogue
    split_gemms: int = 0       # gemms split along K (splitKFactor > 1)
    elementwise: int = 0       # accel.elementwise kernels (what no epilogue took)
    reductions: int = 0        # of which row reductions (reduce_sum/max, softmax)
    host_copies: int = 0       # copying linalg.generic left on the host (a view no
                               # kernel's addressing takes: compile_module omits them)
    copy_kernels: int = 0      # accel.copy kernels (such views, copied on the GPU)
    copy_reasons: dict = field(default_factory=dict)   # the copies' `reason` -> count
    folded_views: int = 0      # gemm operands read in place as a strided view
                               # (memref.reinterpret_cast of the buffer underneath)
    mapped_inputs: int = 0     # accel.elementwise inputs read in place through an index map
    compiled: dict = field(default_factory=dict)   # chip -> ok | types | <message>


class _Timeout(Exception):
    pass


def _on_alarm(signum, frame):
    raise _Timeout()


def fill_placeholders(text: str, arch: str) -> str:
    """The harness's substitutions: the token and empty arch attributes get the chip."""
    text = text.replace("##TOKEN_ARCH##", arch)
    return re.sub(r'((?:rock\.)?arch\s*=\s*)""', rf'\1"{arch}"', text)


def dot_chunks(corpus: Path) -> list[tuple[str, int, str]]:
    """(chunk name, lines before it, text) of every chunk holding a dot."""
    out = []
    for path in sorted(corpus.glob("*.mlir")):
        text = path.read_text(encoding="utf-8")
        for i, (first_line, chunk) in enumerate(split_chunks(text)):
            if _DOT.search(chunk):
                out.append((f"{path.name}#{i}", first_line, chunk))
    return out


def convert(text: str, name: str, arch: str) -> tuple[str | None, str]:
    """(converted module text or None, first diagnostic) as accel-opt makes them."""
    args = SimpleNamespace(migraphx=False, mlir_print_ir_after_all=False,
                           mlir_print_op_generic=False)
    result, diags = process_chunk(text, name, [FromMigraphx(arch=arch)], args)
    errors = [d for d in diags if d.severity == "error"]
    return result, (errors[0].message if errors else "")


def _computes(generic: ir.Operation) -> bool:
    """A linalg.generic whose body does more than yield an input (a copy)."""
    body = generic.regions[0].blocks[0]
    return any(op.name != "linalg.yield" for op in body.operations)


def _fixed_arch(module_text: str) -> str | None:
    """The chip the converted gemms name, when the input fixed it (not a placeholder)."""
    m = re.search(r'"accel.gemm".*?arch = "([^"]+)"', module_text)
    return m.group(1) if m else None


def inspect(module_text: str) -> tuple:
    """(unfused elementwise generics, gemms, gemms with an epilogue, split-K gemms,
    elementwise kernels, row reductions among them, host copies, copy kernels, the
    copy kernels' reasons counted, gemm operands that are strided views, elementwise
    inputs read through an index map)."""
    with new_context():
        module = ir.Module.parse(module_text)
        unfused = gemms = fused = split = elementwise = reductions = copies = kernels = 0
        folded, mapped, reasons = 0, 0, Counter()
        ops = []
        module.operation.walk(lambda op: ops.append(op.operation) or ir.WalkResult.ADVANCE)
        for op in ops:
            if op.name == "linalg.generic":
                if _computes(op):
                    unfused += 1
                else:
                    copies += 1
            elif op.name == "accel.gemm":
                gemms += 1
                fused += "epilogue" in op.attributes
                config = GemmOp(op).perf_config
                split += config is not None and config.split_k > 1
                folded += sum(not isinstance(v.owner, ir.Block) and
                              v.owner.name == "memref.reinterpret_cast" for v in op.operands)
            elif op.name == "accel.elementwise":
                elementwise += 1
                reductions += "reduce" in op.attributes
                mapped += sum(m is not None for m in ElementwiseOp(op).index_maps())
            elif op.name == "accel.copy":
                kernels += 1
                reasons[CopyOp(op).reason or "(none given)"] += 1
        return (unfused, gemms, fused, split, elementwise, reductions, copies, kernels,
                dict(reasons), folded, mapped)


def run_chunk(name: str, first_line: int, chunk: str, chips, timeout: int) -> ChunkResult:
    padded = "\n" * first_line + chunk
    res = ChunkResult(name, "diagnosed")
    signal.signal(signal.SIGALRM, _on_alarm)
    signal.alarm(timeout)
    try:
        for i, chip in enumerate(chips):
            text, message = convert(fill_placeholders(padded, chip), name, chip)
            if i == 0:
                if text is None:
                    res.message = message
                    return res
                res.outcome = "converted"
                (res.unfused, res.gemms, res.fused_gemms, res.split_gemms, res.elementwise,
                 res.reductions, res.host_copies, res.copy_kernels, res.copy_reasons,
                 res.folded_views, res.mapped_inputs) = inspect(text)
            if text is None:
                res.compiled[chip] = "types" if _TYPE_NOT_ON_CHIP.search(message) else message
                continue
            fixed = _fixed_arch(text)
            if fixed not in (None, chip):
                res.compiled[chip] = f"arch {fixed}"   # the input names its own chip
                continue
            try:
                result = compile_module(text, chip, assembly=False)
                res.compiled[chip] = "ok" if result.kernels else "no kernels"
            except AccelError as e:
                res.compiled[chip] = e.message
            except ir.MLIRError as e:
                res.compiled[chip] = mlir_error(e).message
    except _Timeout:
        res.outcome, res.message = "timeout", f"no answer within {timeout} s"
    except Exception as e:  # noqa: BLE001 - a traceback is what this run looks for
        res.outcome, res.message = "crash", f"{type(e).__name__}: {e}"
    finally:
        signal.alarm(0)
    return res


def message_kind(message: str) -> str:
    """A diagnostic with its sizes, types and quoted values blanked, for grouping; op
    names and arch names stay (they are what the message is about)."""
    m = re.sub(r"'[^']*'", lambda q: "'_'" if re.search(r"[,<\[ ]", q[0]) else q[0], message)
    m = re.sub(r"!migraphx\.shaped<[^>]*>|tensor<[^>]*>|<[^<>]*>", "<_>", m)
    m = re.sub(r"\[[^\]]*\]", "[_]", m)
    return re.sub(r"(?<![\w.])\d+\b", "N", m)


def summary(results: list[ChunkResult], chips) -> str:
    lines = []
    outcomes = Counter(r.outcome for r in results)
    conv = [r for r in results if r.outcome == "converted"]
    lines.append(f"dot chunks: {len(results)}  converted: {outcomes['converted']}  "
                 f"diagnosed: {outcomes['diagnosed']}  crash: {outcomes['crash']}  "
                 f"timeout: {outcomes['timeout']}")
    left = [r for r in conv if r.unfused]
    lines.append(f"converted chunks with unfused elementwise ops: {len(left)} "
                 f"({sum(r.unfused for r in left)} ops); gemms: {sum(r.gemms for r in conv)}, "
                 f"with a fused epilogue: {sum(r.fused_gemms for r in conv)}, split along K: "
                 f"{sum(r.split_gemms for r in conv)}")
    lines.append(f"elementwise kernels: {sum(r.elementwise for r in conv)} in "
                 f"{sum(1 for r in conv if r.elementwise)} chunks, of which row reductions: "
                 f"{sum(r.reductions for r in conv)}")
    copied = [r for r in conv if r.host_copies]
    lines.append(f"converted chunks with host copies (views no kernel addressing takes): "
                 f"{len(copied)} ({sum(r.host_copies for r in copied)} copies); copy kernels "
                 f"(accel.copy): {sum(r.copy_kernels for r in conv)} in "
                 f"{sum(1 for r in conv if r.copy_kernels)} chunks")
    lines.append(f"views read or written in place by a gemm (strided A, B, C or epilogue operand): "
                 f"{sum(r.folded_views for r in conv)} in "
                 f"{sum(1 for r in conv if r.folded_views)} chunks; by an elementwise kernel "
                 f"(through an index map): {sum(r.mapped_inputs for r in conv)} in "
                 f"{sum(1 for r in conv if r.mapped_inputs)} chunks; copies left, by reason:")
    reasons = Counter()
    for r in conv:
        reasons.update(r.copy_reasons)
    for reason, n in sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0])):
        lines.append(f"  {n:3d}  {reason}")
    for chip in chips:
        states = Counter("ok" if r.compiled.get(chip) == "ok" else
                         "types" if r.compiled.get(chip) == "types" else
                         "fixed" if str(r.compiled.get(chip)).startswith("arch ") else
                         "failed" for r in conv)
        lines.append(f"code objects on {chip}: {states['ok']} ok, {states['types']} types "
                     f"not on the chip, {states['fixed']} for another chip the input "
                     f"names, {states['failed']} failed")
        for r in conv:
            if r.compiled.get(chip) not in ("ok", "types") and \
                    not str(r.compiled.get(chip)).startswith("arch "):
                lines.append(f"    {r.chunk}: {r.compiled.get(chip)}")
    lines.append("diagnostics by message:")
    kinds = Counter(message_kind(r.message) for r in results if r.outcome == "diagnosed")
    for kind, n in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0])):
        lines.append(f"  {n:3d}  {kind}")
    for r in results:
        if r.outcome in ("crash", "timeout"):
            lines.append(f"{r.outcome}: {r.chunk}: {r.message}")
    return "\n".join(lines)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    p.add_argument("--chips", default=",".join(CHIPS),
                   help="comma-separated; the first judges the conversion")
    p.add_argument("--timeout", type=int, default=60, help="seconds per chunk")
    p.add_argument("--json", action="store_true", help="one JSON object per chunk")
    p.add_argument("--verbose", action="store_true", help="also list every chunk")
    args = p.parse_args()
    if not args.corpus.is_dir():
        print(f"corpus folder {args.corpus} not found", file=sys.stderr)
        return 2
    chips = [c for c in args.chips.split(",") if c]
    results = []
    for name, first_line, chunk in dot_chunks(args.corpus):
        print(f"chunk {name}", file=sys.stderr, flush=True)
        r = run_chunk(name, first_line, chunk, chips, args.timeout)
        results.append(r)
        if args.json:
            print(json.dumps(asdict(r)), flush=True)
    if not args.json:
        if args.verbose:
            for r in results:
                print(f"{r.chunk}: {r.outcome} {r.message or ''} unfused={r.unfused} "
                      f"gemms={r.gemms} fused={r.fused_gemms} {r.compiled}")
        print(summary(results, chips))
    return 0


if __name__ == "__main__":
    sys.exit(main())
