"""Write a set of output files all or nothing: every file appears, or none changes.

A compile's outputs belong together: `<symbol>.hsaco`, `<symbol>.s` and the JSON that
describes their tile and grid. Renaming them one by one over an earlier compile's
files leaves a mixed set when the second rename fails (EIO, a full quota) or a
signal ends the process between two renames: a new code object beside an old JSON
that describes another kernel.

So `write_output_set`:
  1. writes every file into a fresh temporary directory inside the target directory
     (same file system, so the renames below are atomic; under the file's own name,
     so any name that fits the target directory fits there too);
  2. with signals held (interrupts.deferred), keeps a hard link to each file it is
     about to replace, then renames each new file over its target;
  3. if a rename fails or a signal arrived meanwhile, puts every old file back and
     removes every new one (roll back) before raising;
  4. removes the temporary directory, whatever happened.
Steps 2-3 hold a lock on the directory, so concurrent runs commit one after another.
A reader of any one file never sees it partly written. Output directories the
writer had to create are removed again when it fails.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
from typing import Sequence

from accel.diagnostics import AccelError
from accel.tools import interrupts

# Short, so that the staging directory's name never limits the outputs' names.
STAGING_PREFIX = ".accel-"


def write_output_set(directory: str, files: Sequence[tuple[str, str | bytes]], *,
                     create_directory: bool = False) -> list[str]:
    """Write `(name, data)` files into `directory` all or nothing; their paths.

    `name` is a plain file name; text is written as UTF-8. `create_directory` makes
    `directory` (and its missing parents) first. Raises AccelError naming the file
    that could not be written, or `Interrupted`, with every earlier file as it was.
    """
    directory = directory or os.curdir
    names = [name for name, _ in files]
    for name in names:
        if not name or os.sep in name or name in (os.curdir, os.pardir):
            raise AccelError(f"output file name must be a plain file name, got '{name}'")
    if len(set(names)) != len(names):
        raise AccelError(f"output file '{_first_repeat(names)}' is written twice")
    for name in names:
        if os.path.isdir(os.path.join(directory, name)):
            raise AccelError(f"cannot write output file '{os.path.join(directory, name)}': "
                             f"Is a directory")
    created: list[str] = []
    stage = None
    try:
        if create_directory:
            with interrupts.deferred():
                created.extend(_make_directories(directory))
        stage = _mkdtemp(directory, names[0] if names else directory)
        for sub in ("new", "old"):
            os.mkdir(os.path.join(stage, sub))
        for name, data in files:
            _write(os.path.join(stage, "new", name), data, os.path.join(directory, name))
        _commit(directory, stage, names)
    except BaseException:
        with interrupts.deferred():
            if stage is not None:
                shutil.rmtree(stage, ignore_errors=True)
                stage = None
            for path in reversed(created):
                _rmdir_quietly(path)
        raise
    finally:
        if stage is not None:
            with interrupts.deferred():
                shutil.rmtree(stage, ignore_errors=True)
    return [os.path.join(directory, name) for name in names]


def _commit(directory: str, stage: str, names: list[str]) -> None:
    """Rename the staged files into place; on any failure or signal, undo them all."""
    done: list[tuple[str, bool]] = []   # (name, an old file was kept in stage/old)
    with interrupts.deferred(), _DirectoryLock(directory):
        try:
            for name in names:
                target = os.path.join(directory, name)
                old = os.path.join(stage, "old", name)
                kept = os.path.lexists(target)
                if kept:
                    _keep_old(target, old)
                done.append((name, kept))
                try:
                    os.replace(os.path.join(stage, "new", name), target)
                except OSError as e:
                    raise AccelError(f"cannot write output file '{target}': "
                                     f"{e.strerror}") from None
            signum = interrupts.take_pending()
            if signum is not None:
                raise interrupts.Interrupted(signum)
        except BaseException:
            _roll_back(directory, stage, done)
            raise


class _DirectoryLock:
    """An exclusive flock on the output directory itself while a set is renamed in: two
    runs writing the same names (the same GEMM with two perf configs) would otherwise
    interleave their renames into a mixed set. No lock file is left behind. Where the
    file system refuses locks, the set is still renamed (unserialised)."""

    def __init__(self, directory: str):
        self.directory = directory
        self.fd = None

    def __enter__(self):
        try:
            self.fd = os.open(self.directory, os.O_RDONLY)
            fcntl.flock(self.fd, fcntl.LOCK_EX)
        except OSError:
            self.__exit__()
        return self

    def __exit__(self, *exc) -> bool:
        if self.fd is not None:
            os.close(self.fd)   # closing releases the lock
            self.fd = None
        return False


def _keep_old(target: str, old: str) -> None:
    """A second name for the file about to be replaced: a hard link keeps `target` in
    place throughout; where links are refused (some file systems) it is moved."""
    try:
        os.link(target, old, follow_symlinks=False)
    except OSError:
        try:
            os.rename(target, old)
        except OSError as e:
            raise AccelError(f"cannot replace output file '{target}': {e.strerror}") from None


def _roll_back(directory: str, stage: str, done: list[tuple[str, bool]]) -> None:
    for name, kept in reversed(done):
        target = os.path.join(directory, name)
        try:
            if kept:
                os.replace(os.path.join(stage, "old", name), target)
            elif os.path.lexists(target) and not os.path.lexists(
                    os.path.join(stage, "new", name)):
                os.unlink(target)  # ours: its staged copy was renamed there
        except OSError:
            pass  # best effort: the error that got us here is the one to report


def _mkdtemp(directory: str, what: str) -> str:
    try:
        return tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=directory)
    except OSError as e:
        raise AccelError(f"cannot write output file '{os.path.join(directory, what)}': "
                         f"{e.strerror}") from None


def _write(path: str, data: str | bytes, shown: str) -> None:
    # Created like a plain open() would: mode 0666 less the umask.
    try:
        if isinstance(data, bytes):
            with open(path, "xb") as f:
                f.write(data)
        else:
            with open(path, "x", encoding="utf-8") as f:
                f.write(data)
    except OSError as e:
        raise AccelError(f"cannot write output file '{shown}': {e.strerror}") from None


def _make_directories(directory: str) -> list[str]:
    """Create `directory` and its missing parents; the ones created, outermost first."""
    missing = []
    d = os.path.abspath(directory)
    while not os.path.isdir(d):
        missing.append(d)
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    created = []
    for d in reversed(missing):
        try:
            os.mkdir(d)
        except FileExistsError:
            if not os.path.isdir(d):
                _undo(created)
                raise AccelError(f"cannot create output directory '{directory}': "
                                 f"File exists") from None
            continue  # a concurrent run made it
        except OSError as e:
            _undo(created)
            raise AccelError(f"cannot create output directory '{directory}': "
                             f"{e.strerror}") from None
        created.append(d)
    return created


def _undo(created: list[str]) -> None:
    for d in reversed(created):
        _rmdir_quietly(d)


def _rmdir_quietly(path: str) -> None:
    try:
        os.rmdir(path)  # only if empty: another run may have written into it
    except OSError:
        pass


def _first_repeat(names: list[str]) -> str:
    seen = set()
    for n in names:
        if n in seen:
            return n
        seen.add(n)
    return names[0]
