"""Op locations for messages raised at run time.

Locations are turned into (file, line, col) tuples at compile time, so an error raised
while simulating does not need the MLIR context that parsed the kernel.
"""

from __future__ import annotations

from accel.diagnostics import AccelError


def where(op) -> tuple[str, int, int] | None:
    return AccelError("", location=op.location).file_line_col()


def describe(op) -> str:
    flc = where(op)
    at = f" at {flc[0]}:{flc[1]}:{flc[2]}" if flc else ""
    return f"{op.operation.name}{at}"
