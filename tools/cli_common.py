"""What every accel command-line tool shares: input, atomic output, error rendering.

The layers below tools/ raise `AccelError` and never print; a tool's `main` is run
under `run_cli`, which turns an error into mlir-opt's one line
`file:line:col: error: message` on stderr and exit code 1, never a traceback.

The MLIR parser names its buffer "-" (Module.parse takes no file name), so a tool
wraps its parsing and work in `errors_in(display_name)`: every location in "-" is then
reported in the real file.
"""

from __future__ import annotations

import argparse
import os
import sys
from contextlib import contextmanager
from typing import Callable, Iterator, Sequence

from accel.diagnostics import AccelError, mlir_error
from accel.tools import interrupts
from accel.tools.output_set import write_output_set

STDIN_NAME = "<stdin>"
# The buffer name MLIR's Python parser gives every location.
PARSER_BUFFER = "-"


class ArgumentParser(argparse.ArgumentParser):
    """argparse whose usage errors are one line, like every other diagnostic:
    `prog: error: message`, exit code 2 (argparse's code for a usage error)."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def read_input(path: str) -> tuple[str, str]:
    """(text, display name) of a file, or of stdin for "-"."""
    if path == "-":
        # Decode the bytes ourselves: the text layer may smuggle undecodable bytes
        # through as surrogates (surrogateescape), which the MLIR parser cannot take.
        stdin = getattr(sys.stdin, "buffer", None)
        if stdin is None:
            return sys.stdin.read(), STDIN_NAME
        try:
            return stdin.read().decode("utf-8"), STDIN_NAME
        except UnicodeDecodeError:
            raise AccelError("standard input is not UTF-8 text") from None
    try:
        with open(path, encoding="utf-8") as f:
            return f.read(), path
    except OSError as e:
        raise AccelError(f"cannot open input file '{path}': {e.strerror}") from None
    except UnicodeDecodeError:
        raise AccelError(f"input file '{path}' is not UTF-8 text") from None


def write_output_atomic(path: str, data: str | bytes) -> None:
    """Write `data` to `path` ("-" = stdout) so that no reader ever sees a partial file
    and a failure leaves the previous file (output_set.write_output_set)."""
    if path == "-":
        if isinstance(data, bytes):
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
        else:
            sys.stdout.write(data)
            sys.stdout.flush()
        return
    directory, name = os.path.split(path)
    if not name:
        raise AccelError(f"cannot write output file '{path}': Is a directory")
    if directory and not os.path.isdir(directory):
        raise AccelError(f"cannot write output file '{path}': No such file or directory")
    write_output_set(directory, [(name, data)])


class _NoMlirError(Exception):
    """Stands for ir.MLIRError while the bindings are not loaded: nothing raises it."""


def mlir_error_type() -> type[Exception]:
    """ir.MLIRError once the bindings are loaded. Until then no MLIR error can have been
    raised, and asking for the class must not load them: `--help` and a bad flag answer
    without the ~0.25 s import (test_batch.py checks sys.modules)."""
    bindings = sys.modules.get("accel.bindings")
    return bindings.ir.MLIRError if bindings is not None else _NoMlirError


def in_file(location, display_name: str):
    """`location` with the parser's "-" buffer replaced by `display_name`.

    Returns a (file, line, col) tuple when the location names a position, else the
    location unchanged.
    """
    flc = AccelError("", location).file_line_col()
    if flc is None:
        return location
    f, line, col = flc
    return (display_name if f == PARSER_BUFFER else f), line, col


@contextmanager
def errors_in(display_name: str) -> Iterator[None]:
    """Report AccelErrors (and MLIRErrors) raised inside at positions in `display_name`."""
    try:
        yield
    except mlir_error_type() as e:
        err = mlir_error(e)
        err.location = in_file(err.location, display_name)
        raise err from None
    except AccelError as e:
        if e.location is not None:
            e.location = in_file(e.location, display_name)
        raise


def run_cli(main_fn: Callable[[Sequence[str] | None], int], argv: Sequence[str] | None = None,
            prog: str = "accel") -> int:
    """Run `main_fn(argv)` and return its exit code; errors become one line on stderr.

    An AccelError prints `file:line:col: error: message` (or `prog: error: message`
    when its location names no position) and gives 1; Ctrl-C gives `prog: interrupted`
    and 130, SIGTERM/SIGHUP `prog: terminated by ...` and 128 + the signal (see
    interrupts); running out of memory is an error too; a closed stdout pipe
    (`tool | head`) ends quietly with 1.
    """
    try:
        with interrupts.signals_as_exceptions():
            return main_fn(argv)
    except AccelError as e:
        print(e.render() if e.file_line_col() is not None else f"{prog}: {e.render()}",
              file=sys.stderr)
        return 1
    except mlir_error_type() as e:
        err = mlir_error(e)
        print(err.render() if err.file_line_col() is not None else f"{prog}: {err.render()}",
              file=sys.stderr)
        return 1
    except interrupts.Interrupted as e:
        print(f"{prog}: {e.describe()}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except MemoryError as e:
        # numpy says how much it could not allocate ("Unable to allocate 2.00 GiB for an
        # array with shape ..."); a bare MemoryError says nothing.
        print(f"{prog}: error: out of memory{': ' + str(e) if str(e) else ''}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # Point stdout at /dev/null so the interpreter's final flush cannot fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
