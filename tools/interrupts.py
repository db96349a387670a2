"""Signals as exceptions for the command-line tools, and a way to hold them off.

Ctrl-C (SIGINT), SIGTERM and SIGHUP end a tool with one line, `TOOL: interrupted`
(or `terminated`), exit 128 + the signal number (130 for Ctrl-C), and no new or
mixed output files: `run_cli` turns each signal into `Interrupted`, which unwinds
through the output writer's roll-back like any other error. Python's own SIGTERM
action kills the process on the spot, between two renames of an output set.

While an output set is renamed into place (`deferred`), a signal is held and
re-raised at the end of the block, after the writer has either rolled back or
finished: a signal can never leave half of a set in place.

This module imports nothing heavy: a tool module imports it first and wraps its
other imports in `interruptible_start`, because those (the MLIR bindings, numpy)
take ~0.4 s, and a Ctrl-C there would otherwise print a 24-line traceback. What
is left is the interpreter's own start and this import (~25 ms), where Python's
default handling applies; for that reason the guards below are plain classes:
`contextlib` and `typing` would add ~20 ms of imports to that window.
"""

from __future__ import annotations

import signal
import sys
import threading

HANDLED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Interrupted(BaseException):
    """A signal ended the run. A BaseException, like KeyboardInterrupt: no
    `except Exception` may swallow it."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return 128 + self.signum

    def describe(self) -> str:
        if self.signum == signal.SIGINT:
            return "interrupted"
        return f"terminated by {signal.Signals(self.signum).name}"


class _Held(threading.local):
    depth = 0             # nesting of `deferred` blocks
    signum: int | None = None


_held = _Held()


def _on_signal(signum, frame) -> None:
    if _held.depth and threading.current_thread() is threading.main_thread():
        if _held.signum is None:
            _held.signum = signum
        return
    raise Interrupted(signum)


class signals_as_exceptions:
    """Inside, SIGINT/SIGTERM/SIGHUP raise `Interrupted`; the previous handlers come
    back afterwards (a test runs a tool's `main` in its own process)."""

    def __enter__(self):
        self.previous = {}
        # Only the main thread may set handlers (Python runs them there only). A
        # signal the parent set to be ignored stays ignored (`nohup`, a shell's
        # background job), as Python itself leaves an ignored SIGINT alone.
        if threading.current_thread() is threading.main_thread():
            self.previous = {s: signal.signal(s, _on_signal) for s in HANDLED
                             if signal.getsignal(s) is not signal.SIG_IGN}
        return self

    def __exit__(self, *exc) -> bool:
        for s, handler in self.previous.items():
            signal.signal(s, handler)
        return False


class deferred:
    """Hold a signal that arrives inside until the block ends, then raise it.

    `take_pending()` tells the block that one came, so it can undo its work first.
    Outside `signals_as_exceptions` Python's own SIGINT handler still raises
    KeyboardInterrupt at once: a block must roll back on any exception as well."""

    def __enter__(self):
        _held.depth += 1
        return self

    def __exit__(self, kind, value, tb) -> bool:
        _held.depth -= 1
        if _held.depth == 0 and _held.signum is not None:
            signum, _held.signum = _held.signum, None
            if kind is None:
                raise Interrupted(signum)
            # else: the run already ends with the block's own exception.
        return False


def take_pending() -> int | None:
    """The signal held by the current `deferred` block, if one came (it is then
    the caller's to raise, after undoing its work)."""
    signum, _held.signum = _held.signum, None
    return signum


class interruptible_start:
    """Around a tool's imports: a signal there is held until they finish (numpy's C
    code turns a KeyboardInterrupt inside its import into an ImportError), then ends
    the tool with `prog: interrupted` and exit 130 (128 + the signal). Nothing is
    written during imports, so there is nothing to undo."""

    def __init__(self, prog: str):
        self.prog = prog
        self.signals = signals_as_exceptions()
        self.hold = deferred()

    def __enter__(self):
        self.signals.__enter__()
        self.hold.__enter__()
        return self

    def __exit__(self, kind, value, tb) -> bool:
        try:
            try:
                self.hold.__exit__(kind, value, tb)
            finally:
                self.signals.__exit__(kind, value, tb)
        except Interrupted as e:
            kind, value = Interrupted, e
        if kind is KeyboardInterrupt:
            value = Interrupted(signal.SIGINT)
        if isinstance(value, Interrupted):
            sys.stderr.write(f"{self.prog}: {value.describe()}\n")
            raise SystemExit(value.exit_code) from None
        return False
