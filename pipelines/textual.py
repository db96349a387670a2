"""Textual pipelines that mix our Python passes with upstream MLIR passes.

`builtin.module(accel-affix-perf-config{cu-count=96}, canonicalize, gpu.module(...))`
is split at top-level commas. Elements named like a registered accel pass become
that pass; a named pipeline (a `PipelinePass`, e.g. accel-kernel-pipeline) becomes the
steps it stands for, so `--mlir-print-ir-after-all` shows each of them; runs of other
elements are handed, as one segment, to `PassManager.parse("builtin.module(...)")`.
The outer `builtin.module(...)` is optional.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Union

from accel.bindings import ir
from accel.diagnostics import AccelError
from accel.passes.registry import AccelPass
from accel.passes.upstream import run_upstream
from accel.pipelines import registered_passes
from accel.target.toolchain import ensure_linker


@dataclass(frozen=True)
class UpstreamSegment:
    """Consecutive upstream pass elements, run by one MLIR PassManager.

    `verify=False` skips MLIR's verification after each of its passes: for the kernel
    lowering, whose input is verified Kernel IR and whose passes are upstream's own,
    where verifying was 40% of the time to the LLVM dialect (3-4 ms a kernel)."""
    text: str
    verify: bool = True

    def spec(self) -> str:
        return self.text

    @property
    def NAME(self) -> str:  # noqa: N802 - mirrors AccelPass.NAME for printing
        return self.text


Step = Union[AccelPass, UpstreamSegment]


@dataclass(frozen=True)
class PipelinePass(AccelPass):
    """A named pipeline: registered and named like a pass, it stands for `steps()`."""

    def steps(self) -> list[Step]:
        raise NotImplementedError

    def run(self, module: ir.Module) -> None:
        run_steps(module, self.steps())


def expand(steps: list[Step]) -> list[Step]:
    """Named pipelines replaced, recursively, by the steps they stand for."""
    out: list[Step] = []
    for step in steps:
        out.extend(expand(step.steps()) if isinstance(step, PipelinePass) else [step])
    return out


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
    # Only a pipeline naming an accel pass loads them all: importing every pass module
    # (the MIGraphX front end with its grammar) was ~0.2 s of a one-GEMM compile in a
    # fresh process.
    if any(name.startswith("accel-") for name, _, _ in elements):
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
    return expand(steps)


def run_steps(module: ir.Module, steps: list[Step],
              after_each: Callable[[Step, ir.Module], None] | None = None) -> None:
    """Run steps in order on `module`, in place. `after_each` sees the IR after each."""
    for step in expand(steps):
        if isinstance(step, UpstreamSegment):
            if "gpu-module-to-binary" in step.text:
                ensure_linker()   # the serializer links each code object with ld.lld
            run_upstream(module, step.text, verify=step.verify)
        else:
            step.run(module)
        if after_each is not None:
            after_each(step, module)


def run_pipeline(module: ir.Module, text: str, **kw) -> None:
    run_steps(module, parse_pipeline(text), **kw)
