"""A persistent, content-addressed cache of compiled kernels, shared between processes.

An entry is what one unit compiles to: its kernels in launch order (code object,
assembly, metadata each; two for a split-K GEMM) and its workspace, filed under the
SHA-256 of what it was compiled from (the normalised input a batch hands its worker, batch.py)
together with everything else that decides the bytes: accel's version (a digest of its
source), the bindings' (flydsl) version, the linker, and the arch. A changed
compiler therefore never meets an old entry; nothing is ever invalidated by hand.

Safe to share: an entry is written to a temporary file in its directory and renamed
into place (atomic on POSIX), so a reader sees a whole entry or none; two processes
writing one key write the same bytes. Every entry carries one checksum over all of
its kernels and its own key: a truncated, corrupted or misplaced file, or one missing a
kernel, is a miss (and is removed), never a result. `trim` keeps the directory under its size cap by removing the least
recently used entries (a hit renews an entry's time); a reader whose entry is removed
meanwhile still reads it through its open file, or misses.

Default location: `$ACCEL_CACHE_DIR`, else `$XDG_CACHE_HOME/accel/kernels`, else
`~/.cache/accel/kernels`. Nothing here imports the MLIR bindings: a batch whose
kernels are all cached is answered without loading them.
"""

from __future__ import annotations

import functools
import glob
import hashlib
import importlib.util
import json
import os
import tempfile
import time

from accel.compiled import CompiledKernel, CompileResult

# Bumped when the entry layout or the key's material changes.
CACHE_FORMAT = 2
# A kernel is 20-150 KB (code object plus assembly); 1 GiB holds ~10,000 of them.
DEFAULT_MAX_BYTES = 1 << 30
_MAGIC = b"accel-kernel-cache %d\n" % CACHE_FORMAT
_SUFFIX = ".kernel"
_TMP_PREFIX = ".tmp-"
# A temporary file this old was left by a process that died mid-write.
_STALE_TMP_SECONDS = 3600
# Trimming stops below this fraction of the cap, so that the next few writes do not
# each rescan the directory.
_TRIM_TO = 0.9


def default_cache_dir() -> str:
    explicit = os.environ.get("ACCEL_CACHE_DIR")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "accel", "kernels")


class KernelCache:
    """Kernels on disk under `directory`, at most about `max_bytes` of them."""

    def __init__(self, directory: str | os.PathLike | None = None,
                 max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        if not isinstance(max_bytes, int) or isinstance(max_bytes, bool) or max_bytes <= 0:
            raise ValueError(f"max_bytes must be a positive integer, got {max_bytes!r}")
        self.directory = os.fspath(directory) if directory is not None else default_cache_dir()
        self.max_bytes = max_bytes
        # Why the last write failed (an unwritable directory, a full disk): the compile
        # goes on without caching, and a tool may say so.
        self.write_error: str | None = None

    def key(self, unit: dict, arch: str) -> str:
        """The entry key of a kernel compiled from `unit` (JSON-able, canonical) for `arch`."""
        material = {"format": CACHE_FORMAT, "compiler": compiler_identity(), "arch": arch,
                    "unit": unit}
        text = json.dumps(material, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    def _path(self, key: str) -> str:
        return os.path.join(self.directory, key[:2], key + _SUFFIX)

    def get(self, key: str) -> CompileResult | None:
        """The unit's kernels stored under `key`, or None (absent, unreadable or corrupt)."""
        path = self._path(key)
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            return None
        result = _decode(data, key)
        if result is None:
            _remove_quietly(path)    # corrupt: the recompiled kernel will replace it
            return None
        try:
            os.utime(path)           # recently used: trimmed last
        except OSError:
            pass
        return result

    def put(self, key: str, result: CompileResult) -> None:
        """Store `result` (all its kernels, one file) under `key` atomically; a failure
        only records `write_error`."""
        path = self._path(key)
        tmp = None
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=_TMP_PREFIX, dir=os.path.dirname(path))
            with os.fdopen(fd, "wb") as f:
                f.write(_encode(key, result))
            os.replace(tmp, path)
            tmp = None
        except OSError as e:
            self.write_error = f"cannot write to the kernel cache '{self.directory}': " \
                               f"{e.strerror or e}"
        finally:
            if tmp is not None:
                _remove_quietly(tmp)

    def entries(self) -> list[tuple[str, int, float]]:
        """(path, bytes, last use) of every entry."""
        return self._scan()[0]

    def _scan(self) -> tuple[list[tuple[str, int, float]], list[str]]:
        """The entries, and the temporary files left by writers that died."""
        found, stale = [], []
        now = time.time()
        for sub in _scandir(self.directory):
            if not sub.is_dir(follow_symlinks=False):
                continue
            for e in _scandir(sub.path):
                try:
                    st = e.stat(follow_symlinks=False)
                except OSError:
                    continue
                if e.name.endswith(_SUFFIX):
                    found.append((e.path, st.st_size, st.st_mtime))
                elif e.name.startswith(_TMP_PREFIX) and now - st.st_mtime > _STALE_TMP_SECONDS:
                    stale.append(e.path)
        return found, stale

    def trim(self) -> int:
        """Remove least recently used entries until the cache is under its cap (and the
        temporary files of writers that died); returns how many entries were removed."""
        entries, stale = self._scan()
        for path in stale:
            _remove_quietly(path)
        total = sum(size for _, size, _ in entries)
        if total <= self.max_bytes:
            return 0
        removed = 0
        # Oldest use first; the path breaks ties so that every process agrees.
        for path, size, _ in sorted(entries, key=lambda e: (e[2], e[0])):
            if total <= self.max_bytes * _TRIM_TO:
                break
            _remove_quietly(path)
            total -= size
            removed += 1
        return removed


def _encode(key: str, result: CompileResult) -> bytes:
    kernels, payload = [], []
    for kernel in result.kernels:
        asm = kernel.assembly.encode("utf-8")
        # Not sort_keys: the metadata's key order is part of the JSON a hit must reproduce.
        kernels.append({"symbol": kernel.symbol, "metadata": kernel.metadata,
                        "code_object_bytes": len(kernel.code_object), "assembly_bytes": len(asm)})
        payload += [kernel.code_object, asm]
    header = json.dumps({"key": key, "arch": result.arch, "kernels": kernels,
                         "workspace": result.workspace}).encode()
    body = header + b"\n" + b"".join(payload)
    return _MAGIC + hashlib.sha256(body).hexdigest().encode() + b"\n" + body


def _decode(data: bytes, key: str) -> CompileResult | None:
    if not data.startswith(_MAGIC):
        return None
    digest, sep, body = data[len(_MAGIC):].partition(b"\n")
    if not sep or hashlib.sha256(body).hexdigest().encode() != digest:
        return None
    header_text, sep, payload = body.partition(b"\n")
    try:
        header = json.loads(header_text)
        listed = header["kernels"]
        if header["key"] != key or not listed or \
                len(payload) != sum(k["code_object_bytes"] + k["assembly_bytes"] for k in listed):
            return None
        kernels, at = [], 0
        for k in listed:
            n_obj, n_asm = k["code_object_bytes"], k["assembly_bytes"]
            kernels.append(CompiledKernel(k["symbol"], payload[at:at + n_obj],
                                          payload[at + n_obj:at + n_obj + n_asm].decode("utf-8"),
                                          k["metadata"]))
            at += n_obj + n_asm
        return CompileResult(header["arch"], tuple(kernels), header["workspace"])
    except (ValueError, KeyError, TypeError):
        return None


@functools.cache
def compiler_identity() -> dict:
    """Everything besides the input that decides a kernel's bytes."""
    from accel.target.toolchain import ensure_linker
    return {"accel": f"source {_source_digest()}",
            "bindings": f"flydsl {_distribution_version('flydsl')}",
            "linker": f"{ensure_linker()} (ziglang {_distribution_version('ziglang')})"}


def _distribution_version(name: str) -> str:
    """An installed distribution's version, read from its .dist-info directory name
    beside the package: importlib.metadata scans every path entry (~25 ms each)."""
    spec = importlib.util.find_spec(name)
    if spec is not None and spec.submodule_search_locations:
        site = os.path.dirname(os.path.abspath(list(spec.submodule_search_locations)[0]))
        found = sorted(glob.glob(os.path.join(site, f"{name}-*.dist-info")))
        if len(found) == 1:
            return os.path.basename(found[0])[len(name) + 1:-len(".dist-info")]
    from importlib import metadata
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "unknown"


def _source_digest() -> str:
    """accel's version, as a digest of its sources: the package version does not change
    when the compiler does (a working tree, an editable install), and a stale hit would
    be a wrong kernel. Reading and hashing them takes ~2 ms."""
    root = os.path.dirname(os.path.abspath(__file__))
    skip = {"test", "benchmarks", "docs", "scripts", "build"}
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in skip
                             and d != "__pycache__")
        for name in sorted(filenames):
            if name.endswith(".py"):
                path = os.path.join(dirpath, name)
                h.update(os.path.relpath(path, root).encode() + b"\0")
                with open(path, "rb") as f:
                    h.update(f.read())
    return h.hexdigest()[:16]


def _scandir(path: str) -> list[os.DirEntry]:
    try:
        with os.scandir(path) as it:
            return list(it)
    except OSError:
        return []


def _remove_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
