"""Textual pipelines that mix our Python passes with upstream MLIR passes.

`builtin.module(accel-affix-perf-config{cu-count=96}, canonicalize, gpu.module(...))`
is split at top-level commas. Elements named like a registered accel pass become
that pass; runs of other elements are handed, as one segment, to
`PassManager.parse("builtin.module(...)")`. The outer `builtin.module(...)` is optional.
"""

from __future__ import annotations

import os
import sys
import tempfile
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable, Union

from accel.bindings import ir, passmanager
from accel.diagnostics import AccelError
from accel.passes.registry import AccelPass


@dataclass(frozen=True)
class UpstreamSegment:
    """Consecutive upstream pass elements, run by one MLIR PassManager."""
    text: str

    def spec(self) -> str:
        return self.text

    @property
    def NAME(self) -> str:  # noqa: N802 - mirrors AccelPass.NAME for printing
        return self.text


Step = Union[AccelPass, UpstreamSegment]


def split_top_level(text: str, sep: str = ",") -> list[str]:
    """Split at `sep` outside (), {} and quotes."""
    parts, depth, cur, quote = [], 0, [], False
    for ch in text:
        if ch == '"':
            quote = not quote
        elif not quote and ch in "({[":
            depth += 1
        elif not quote and ch in ")}]":
            depth -= 1
            if depth < 0:
                raise AccelError(f"unbalanced '{ch}' in pipeline '{text}'")
        if ch == sep and depth == 0 and not quote:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if depth != 0 or quote:
        raise AccelError(f"unbalanced brackets or quotes in pipeline '{text}'")
    last = "".join(cur).strip()
    if last:
        parts.append(last)
    return [p for p in parts if p]


def parse_pass_element(element: str) -> tuple[str, dict[str, str]]:
    """`name{a=1 b=x}` -> ("name", {"a": "1", "b": "x"})."""
    element = element.strip()
    if "{" not in element or "(" in element.split("{", 1)[0]:  # nested pipeline: upstream
        return element, {}
    if not element.endswith("}"):
        raise AccelError(f"malformed pass element '{element}'")
    name, body = element[:-1].split("{", 1)
    opts: dict[str, str] = {}
    for item in split_top_level(body, " "):
        key, eq, value = item.partition("=")
        opts[key.strip()] = value.strip().strip('"') if eq else "true"
    return name.strip(), opts


def parse_pipeline(text: str) -> list[Step]:
    text = text.strip()
    for wrapper in ("builtin.module(", "any("):
        if text.startswith(wrapper) and text.endswith(")"):
            text = text[len(wrapper):-1]
            break
    elements = [parse_pass_element(e) + (e,) for e in split_top_level(text)]
    passes = {}
    # Only a pipeline naming an accel pass loads them all: the library's lowering is
    # upstream passes only, and importing every pass module (the MIGraphX front end with
    # its grammar) was ~0.2 s of a one-GEMM compile in a fresh process.
    if any(name.startswith("accel-") for name, _, _ in elements):
        from accel.pipelines import registered_passes  # lazy: kernel.py imports this module
        passes = registered_passes()
    steps: list[Step] = []
    upstream: list[str] = []
    for name, opts, element in elements:
        if name in passes:
            if upstream:
                steps.append(UpstreamSegment(", ".join(upstream)))
                upstream = []
            steps.append(passes[name].from_options(opts))
        elif name.startswith("accel-"):
            raise AccelError(f"unknown pass '{name}' (see accel-opt --list-passes)")
        else:
            upstream.append(element)
    if upstream:
        steps.append(UpstreamSegment(", ".join(upstream)))
    return steps


def _upstream_error(err: Exception) -> AccelError:
    """Turn an MLIRError from PassManager.run into one AccelError at its location."""
    diags = getattr(err, "error_diagnostics", None) or []
    if diags:
        d = diags[0]
        return AccelError(d.message, d.location)
    return AccelError(str(err).strip().splitlines()[0] if str(err).strip() else repr(err))


# File descriptor 2 is one per process: two threads swapping it at once could leave it
# pointing at the other's (deleted) temporary file. Reentrant: a capture may run a
# pipeline whose parse captures too.
_FD2_LOCK = threading.RLock()


@contextmanager
def fd2_captured(into: list[str]):
    """Collect what native code writes to file descriptor 2 (not sys.stderr) meanwhile."""
    with _FD2_LOCK, tempfile.TemporaryFile() as tmp:
        sys.stderr.flush()
        saved = os.dup(2)
        os.dup2(tmp.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            into.append(tmp.read().decode(errors="replace"))


def parse_upstream(text: str) -> passmanager.PassManager:
    """The PassManager of an upstream segment; AccelError (one line) if it does not parse.

    LLVM's option parser writes why an option value is bad (`for the --max-iterations
    option: 'x' value invalid ...`) straight to file descriptor 2, apart from the
    exception: it is caught there and made part of the one diagnostic.
    """
    native: list[str] = []
    try:
        with fd2_captured(native):
            return passmanager.PassManager.parse(f"builtin.module({text})")
    except (ValueError, RuntimeError) as e:
        lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
        reason = next((ln.split("error: ", 1)[1] for ln in lines if "error: " in ln),
                      lines[0] if lines else "parse error")
        detail = " ".join(native).strip().lstrip(":").strip()
        raise AccelError(f"invalid pass pipeline '{text}': {reason}"
                         + (f" ({detail})" if detail else "")) from None


def run_steps(module: ir.Module, steps: list[Step],
              after_each: Callable[[Step, ir.Module], None] | None = None,
              verify_each: bool = True) -> None:
    """Run steps in order on `module`, in place. `after_each` sees the IR after each.

    `verify_each=False` skips MLIR's verification after every upstream pass: for the
    kernel lowering, whose input is verified Kernel IR and whose passes are upstream's
    own, where verifying was 40% of the time to the LLVM dialect (3-4 ms a kernel)."""
    for step in steps:
        if isinstance(step, UpstreamSegment):
            pm = parse_upstream(step.text)
            pm.enable_verifier(verify_each)
            try:
                pm.run(module.operation)
            except ir.MLIRError as e:
                raise _upstream_error(e) from None
        else:
            step.run(module)
        if after_each is not None:
            after_each(step, module)


def run_pipeline(module: ir.Module, text: str, **kw) -> None:
    run_steps(module, parse_pipeline(text), **kw)
