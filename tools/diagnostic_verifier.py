"""`--verify-diagnostics`: check produced diagnostics against `expected-*` comments.

mlir-opt's conventions (MLIR docs, "Diagnostics" > "SourceMgr Diagnostic Verifier
Handler"), on one input buffer:

  // expected-error {{substring of the message}}         on this line
  // expected-warning@+1 {{...}}  /  expected-note@-2 {{...}}  relative line
  // expected-remark@below {{...}}  next line without an expected-* comment
  // expected-error@above {{...}}   previous line without an expected-* comment
  // expected-error@unknown {{...}} a diagnostic with no file location
  // expected-error-re {{literal {{regex}} literal}}     regex inside {{ }}

Every expected diagnostic must be produced exactly once and nothing else may be
produced. Problems are reported as mlir-opt words them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from accel.diagnostics import AccelError, one_line
from accel.tools.cli_common import in_file

SEVERITIES = ("error", "warning", "note", "remark")

_EXPECTED = re.compile(
    r"expected-(error|warning|note|remark)(-re)?"
    r"(?:@(above|below|unknown|[+-][0-9]+))?\s*\{\{(.*)\}\}")
_DESIGNATOR = re.compile(r"expected-(?:error|warning|note|remark)")
# MLIR adds this note to print the failing op; mlir-opt drops it when verifying.
_OP_DUMP_NOTE = "see current operation"


@dataclass(frozen=True)
class Diagnostic:
    severity: str
    message: str
    file: str | None = None
    line: int = 0
    col: int = 0

    def render(self) -> str:
        where = f"{self.file}:{self.line}:{self.col}: " if self.file else ""
        return f"{where}{self.severity}: {one_line(self.message)}"


def _severity_name(severity) -> str:
    name = str(severity).rsplit(".", 1)[-1].lower()
    return name if name in SEVERITIES else "error"


def _at(location, display_name: str, severity: str, message: str) -> Diagnostic:
    flc = in_file(location, display_name) if location is not None else None
    if isinstance(flc, tuple):
        return Diagnostic(severity, message, *flc)
    return Diagnostic(severity, message)


def from_accel_error(err: AccelError, display_name: str) -> Diagnostic:
    return _at(err.location, display_name, err.severity, err.message)


def from_mlir_diagnostic(diag, display_name: str) -> list[Diagnostic]:
    """An MLIR DiagnosticInfo and its notes, without the op-dump note."""
    out = [_at(diag.location, display_name, _severity_name(diag.severity), diag.message)]
    for note in diag.notes:
        if not note.message.startswith(_OP_DUMP_NOTE):
            out.extend(from_mlir_diagnostic(note, display_name))
    return out


@dataclass
class Expected:
    severity: str
    text: str
    regex: re.Pattern
    line: int | None        # None: expected at an unknown location
    comment_line: int
    comment_col: int
    matched: bool = False


def _pattern(text: str, is_regex: bool) -> re.Pattern:
    if not is_regex:
        return re.compile(re.escape(text))
    parts, pos = [], 0
    for m in re.finditer(r"\{\{(.*?)\}\}", text):
        parts.append(re.escape(text[pos:m.start()]))
        parts.append(f"(?:{m.group(1)})")
        pos = m.end()
    parts.append(re.escape(text[pos:]))
    return re.compile("".join(parts))


def parse_expectations(text: str, display_name: str) -> list[Expected]:
    """The expected-* comments of a buffer; line numbers are 1-based buffer lines."""
    lines = text.split("\n")
    plain = [not _DESIGNATOR.search(line) for line in lines]
    found = []
    for i, line in enumerate(lines):
        for m in _EXPECTED.finditer(line):
            severity, is_re, where, body = m.groups()
            try:
                regex = _pattern(body, bool(is_re))
            except re.error as e:
                raise AccelError(f"invalid regex in expected-{severity}-re: {e}",
                                 (display_name, i + 1, m.start() + 1)) from None
            target: int | None
            if where is None:
                target = i
            elif where == "unknown":
                target = None
            elif where == "below":
                target = next((j for j in range(i + 1, len(lines)) if plain[j]), None)
            elif where == "above":
                target = next((j for j in range(i - 1, -1, -1) if plain[j]), None)
            else:
                target = i + int(where)
            if where in ("above", "below") and target is None:
                raise AccelError(f"expected-{severity}@{where} has no line {where} it",
                                 (display_name, i + 1, m.start() + 1))
            found.append(Expected(severity, body, regex,
                                  None if target is None else target + 1,
                                  i + 1, m.start() + 1))
    return found


def check(expected: list[Expected], produced: list[Diagnostic], display_name: str) -> list[str]:
    """Match `produced` against `expected`; the problems as rendered error lines."""
    problems = []
    for d in produced:
        line = d.line if d.file == display_name else None
        hit = next((e for e in expected if not e.matched and e.severity == d.severity
                    and e.line == line and e.regex.search(d.message)), None)
        if hit is not None:
            hit.matched = True
        else:
            problems.append(Diagnostic("error", f"unexpected {d.severity}: {d.message}",
                                       d.file, d.line, d.col).render())
    for e in expected:
        if not e.matched:
            problems.append(Diagnostic(
                "error", f'expected {e.severity} "{e.text}" was not produced',
                display_name, e.comment_line, e.comment_col).render())
    return problems
