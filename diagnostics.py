"""Diagnostics: the one error type every layer below tools/ raises.

Nothing below tools/ prints or exits; it raises `AccelError`, which carries an MLIR
location when it has one. The tools render it as `file:line:col: error: message`
(mlir-opt's format) and exit 1.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
import threading

# str(ir.Location) looks like  loc("file.mlir":12:5)  or  loc(unknown) or
# loc(callsite(...)) / loc(fused[...]); we take the first file:line:col in it.
_FILE_LINE_COL = re.compile(r'"([^"]*)":(\d+):(\d+)')
# How much of a flattened multi-line message is kept.
_ONE_LINE_CHARS = 200


def one_line(message: str) -> str:
    """`message` as one line: some MLIR messages end in an op dump with its regions
    ("block with no terminator, has <op>..."); its lines are joined and cut short."""
    if "\n" not in message:
        return message
    flat = " ".join(message.split())
    return flat if len(flat) <= _ONE_LINE_CHARS else flat[:_ONE_LINE_CHARS] + " ..."


class AccelError(Exception):
    """A user-facing error: bad input, an unsupported configuration, a failed rule."""

    def __init__(self, message: str, location=None, severity: str = "error"):
        super().__init__(message)
        self.message = message
        self.location = location  # an ir.Location, a (file, line, col) tuple, or None
        self.severity = severity

    def file_line_col(self) -> tuple[str, int, int] | None:
        loc = self.location
        if loc is None:
            return None
        if isinstance(loc, tuple):
            return loc
        m = _FILE_LINE_COL.search(str(loc))
        if not m:
            return None
        return m.group(1), int(m.group(2)), int(m.group(3))

    def render(self, filename: str | None = None) -> str:
        """`file:line:col: error: message`; `filename` replaces the parser's "-"."""
        flc = self.file_line_col()
        if flc is None:
            where = f"{filename}: " if filename else ""
            return f"{where}{self.severity}: {one_line(self.message)}"
        f, line, col = flc
        if filename and f in ("-", "", "<stdin>"):
            f = filename
        return f"{f}:{line}:{col}: {self.severity}: {one_line(self.message)}"

    def __str__(self) -> str:
        return self.render()


@contextmanager
def located(location):
    """An AccelError raised inside without a location of its own is placed at `location`
    (the op whose checking raised it)."""
    try:
        yield
    except AccelError as e:
        if e.location is None:
            e.location = location
        raise


def mlir_error(err: Exception) -> AccelError:
    """An `ir.MLIRError` as one AccelError: its first error diagnostic at that
    diagnostic's location, else the last line of its text (the message; the lines
    before it are MLIR's preamble)."""
    diags = list(getattr(err, "error_diagnostics", None) or [])
    if diags:
        return AccelError(diags[0].message, diags[0].location)
    text = str(err).strip()
    return AccelError(text.splitlines()[-1] if text else "MLIR error")


class _Warnings(threading.local):
    def __init__(self) -> None:
        self.items: list[AccelError] = []


_warnings = _Warnings()


def warn(message: str, location=None) -> None:
    """Report a warning: something was ignored or replaced and the work goes on. The
    bindings cannot emit an MLIR warning from Python, so warnings wait here (per thread)
    until a tool takes them (`take_warnings`) and shows them with its diagnostics."""
    _warnings.items.append(AccelError(message, location, "warning"))


def take_warnings() -> list[AccelError]:
    """The warnings reported since the last call, oldest first."""
    items, _warnings.items = _warnings.items, []
    return items
