"""Upstream MLIR pass pipelines run from our passes and pipelines.

A textual segment of upstream passes (`canonicalize, gpu.module(...)`) is parsed by
MLIR's PassManager and run on a module; a parse or run failure is one AccelError.
"""

from __future__ import annotations

import os
import sys
import tempfile
import threading
from contextlib import contextmanager

from accel.bindings import ir, passmanager
from accel.diagnostics import AccelError, mlir_error


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


def run_upstream(module: ir.Module, text: str, verify: bool = True) -> None:
    """Run the upstream pipeline `text` on `module`, in place; `verify=False` skips
    MLIR's verifier after each of its passes."""
    pm = parse_upstream(text)
    pm.enable_verifier(verify)
    try:
        pm.run(module.operation)
    except ir.MLIRError as e:
        raise mlir_error(e) from None
