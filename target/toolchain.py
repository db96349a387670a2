"""The linker that `gpu-module-to-binary` needs, found or provided without user set-up.

MLIR's ROCDL serializer links the object it assembles with `$ROCM_PATH/llvm/bin/ld.lld`
(the pass's `toolkit` option is not consulted for this with the pinned bindings: tried,
"lld invocation failed"). We prefer a real ROCm install; otherwise we write a
two-line shim that runs the `ld.lld` shipped in the `ziglang` PyPI package, and point
ROCM_PATH at it for this process only. Users never set anything by hand.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import sys
import tempfile

_REAL_ROCM_CANDIDATES = ("/opt/rocm",)


def _has_lld(root: str | None) -> bool:
    return bool(root) and os.access(os.path.join(root, "llvm", "bin", "ld.lld"), os.X_OK)


def _shim_root() -> str:
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    # One shim per interpreter: the shim hard-codes the python that has ziglang.
    tag = hashlib.sha256(sys.executable.encode()).hexdigest()[:12]
    return os.path.join(cache, "accel", f"ld-shim-{tag}")


def _write_shim(root: str) -> None:
    bindir = os.path.join(root, "llvm", "bin")
    os.makedirs(bindir, exist_ok=True)
    # Run ziglang's `zig` binary directly: through `python -m ziglang` every link paid
    # an interpreter start (~120 ms measured, against ~7 ms for zig itself).
    import ziglang
    zig = os.path.join(os.path.dirname(ziglang.__file__), "zig")
    script = f'#!/bin/sh\nexec {shlex.quote(zig)} ld.lld "$@"\n'
    path = os.path.join(bindir, "ld.lld")
    try:
        with open(path) as f:
            if f.read() == script:
                return
    except OSError:
        pass
    # Atomic replace: concurrent compiles (lit runs tests in parallel) never see half a file.
    fd, tmp = tempfile.mkstemp(dir=bindir)
    with os.fdopen(fd, "w") as f:
        f.write(script)
    os.chmod(tmp, 0o755)
    os.replace(tmp, path)


def ensure_linker() -> str:
    """Make `$ROCM_PATH/llvm/bin/ld.lld` resolve; returns the ROCM_PATH in use."""
    current = os.environ.get("ROCM_PATH")
    if _has_lld(current):
        return current
    for root in _REAL_ROCM_CANDIDATES:
        if _has_lld(root):
            os.environ["ROCM_PATH"] = root
            return root
    root = _shim_root()
    _write_shim(root)
    os.environ["ROCM_PATH"] = root
    return root
