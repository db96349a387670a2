"""A batch's progress on the terminal: one line on stderr, rewritten in place.

Shown only when stderr is a terminal (a log or a pipe gets nothing) and only once the
batch has run for DELAY seconds, so that a quick compile prints nothing; the last state
stays on screen when the batch ends.
"""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the batch engine itself loads only once something is compiled
    from accel.batch import BatchProgress


class TerminalProgress:
    # A one-GEMM compile takes ~0.4 s and a cached batch less: no line for those.
    DELAY = 1.0
    # Redraws at most this often; a cached batch finishes units every few microseconds.
    INTERVAL = 0.1

    def __init__(self, prog: str, stream=None) -> None:
        self.prog = prog
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = bool(getattr(self.stream, "isatty", lambda: False)())
        self.start = time.monotonic()
        self._drawn = 0.0
        self._last: BatchProgress | None = None
        self._shown = False

    def __call__(self, p: BatchProgress) -> None:
        self._last = p
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.start < self.DELAY or now - self._drawn < self.INTERVAL:
            return
        self._draw(p)
        self._drawn = now

    def _draw(self, p: BatchProgress) -> None:
        line = f"{self.prog}: {p.done}/{p.total} GEMMs, {p.cached} from the cache"
        if p.failed:
            line += f", {p.failed} failed"
        # \r returns to the line's start, \033[K clears what a longer line left.
        self.stream.write(f"\r{line}\033[K")
        self.stream.flush()
        self._shown = True

    def close(self) -> None:
        """End the line (with the final counts) if one was shown."""
        if self._shown:
            self._draw(self._last)
            self.stream.write("\n")
            self.stream.flush()
