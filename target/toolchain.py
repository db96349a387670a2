"""The linker that `gpu-module-to-binary` needs, found or provided without user set-up.

MLIR's ROCDL serializer links the object it assembles with `$ROCM_PATH/llvm/bin/ld.lld`
(the pass's `toolkit` option is not consulted for this with the pinned bindings: tried,
"lld invocation failed"). We prefer a real ROCm install; otherwise we write a
two-line shim that runs the `ld.lld` shipped in the `ziglang` PyPI package, and point
ROCM_PATH at it for this process only. Users never set anything by hand. The shim
goes into the user's cache directory, or, where that is read-only or cannot be made,
into a private directory under the system's temporary directory; where neither can be
written, an AccelError says so.
"""

from __future__ import annotations

import errno
import hashlib
import os
import shlex
import stat
import sys
import tempfile

from accel.diagnostics import AccelError

_REAL_ROCM_CANDIDATES = ("/opt/rocm",)


def _has_lld(root: str | None) -> bool:
    return bool(root) and os.access(os.path.join(root, "llvm", "bin", "ld.lld"), os.X_OK)


def _shim_roots() -> list[str]:
    """Where the shim may live, in order: the user's cache directory, then a private
    directory in the system's temporary directory (a container often has a read-only
    or missing home, ROCM_PATH unset)."""
    cache = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(cache):  # the XDG spec: a relative path is to be ignored
        cache = os.path.join(os.path.expanduser("~"), ".cache")
    # One shim per interpreter: the shim hard-codes the python that has ziglang.
    tag = hashlib.sha256(sys.executable.encode()).hexdigest()[:12]
    private_tmp = os.path.join(tempfile.gettempdir(), f"accel-{os.getuid()}")
    return [os.path.join(cache, "accel", f"ld-shim-{tag}"),
            os.path.join(private_tmp, f"ld-shim-{tag}")]


def _zig() -> str:
    try:
        import ziglang
    except ImportError:
        raise AccelError("no ld.lld to link code objects: install ROCm (or set ROCM_PATH "
                         "to it), or the 'ziglang' package") from None
    return os.path.join(os.path.dirname(ziglang.__file__), "zig")


def _private(directory: str) -> None:
    """`directory` (under a shared /tmp) must be ours alone: anyone who could write
    there could put their own `ld.lld` in our links."""
    st = os.lstat(directory)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o022:
        raise PermissionError(errno.EPERM, "not a private directory of this user")


def _write_shim(root: str, zig: str, shared_parent: str | None) -> None:
    """Write `root`/llvm/bin/ld.lld (OSError if it cannot be)."""
    if shared_parent is not None:
        os.makedirs(shared_parent, mode=0o700, exist_ok=True)
        _private(shared_parent)
    bindir = os.path.join(root, "llvm", "bin")
    # Run ziglang's `zig` binary directly: through `python -m ziglang` every link paid
    # an interpreter start (~120 ms measured, against ~7 ms for zig itself).
    script = f'#!/bin/sh\nexec {shlex.quote(zig)} ld.lld "$@"\n'
    path = os.path.join(bindir, "ld.lld")
    try:
        with open(path) as f:
            if f.read() == script and os.access(path, os.X_OK):
                return  # already there (a read-only cache that has it is fine)
    except OSError:
        pass
    os.makedirs(bindir, exist_ok=True)
    # Atomic replace: concurrent compiles (lit runs tests in parallel) never see half a file.
    fd, tmp = tempfile.mkstemp(dir=bindir)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(script)
        os.chmod(tmp, 0o755)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def ensure_linker() -> str:
    """Make `$ROCM_PATH/llvm/bin/ld.lld` resolve; returns the ROCM_PATH in use."""
    current = os.environ.get("ROCM_PATH")
    if _has_lld(current):
        return current
    for root in _REAL_ROCM_CANDIDATES:
        if _has_lld(root):
            os.environ["ROCM_PATH"] = root
            return root
    zig = _zig()
    failures = []
    cache_root, tmp_root = _shim_roots()
    for root, shared_parent in ((cache_root, None), (tmp_root, os.path.dirname(tmp_root))):
        try:
            _write_shim(root, zig, shared_parent)
        except OSError as e:
            failures.append(f"{root}: {e.strerror or e}")
            continue
        os.environ["ROCM_PATH"] = root
        return root
    raise AccelError("no ld.lld to link code objects: cannot write the linker shim ("
                     + "; ".join(failures) + "); set ROCM_PATH to a ROCm install or "
                     "XDG_CACHE_HOME to a writable directory")
