"""All-or-nothing output sets under injected faults, and interrupts at any moment.

Faults are injected into the renames that move a staged set into place (the second
of three is where a mixed set used to appear): a failing rename (EIO), SIGINT and
SIGTERM sent to this process right there, a KeyboardInterrupt raised there. Each
time the directory must hold exactly the earlier compile's files, byte for byte,
and no staging directory. Then the real tool in a subprocess is interrupted at
several moments, start-up included.
"""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from accel.diagnostics import AccelError
from accel.tools import interrupts
from accel.tools.output_set import STAGING_PREFIX, write_output_set

from test_robustness import assert_one_error, run_main

GEMM = ["--arch", "gfx942", "-m", "64", "-n", "48", "-k", "32"]
# Two tiles of GEMM: the earlier compile's and the one compiled over it (explicit, so
# what the selector prefers cannot make them equal).
EARLIER_TILE = "v4:32,16,4,16,16,16,8,1,1,2,0,0,1,1"
OTHER_TILE = "v4:16,16,4,16,16,16,8,1,1,2,0,0,1,1"


def snapshot(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


class FaultAt:
    """os.replace that does `fault` on its `nth` call and renames normally otherwise."""

    def __init__(self, nth: int, fault):
        self.nth, self.fault, self.calls = nth, fault, 0
        self.real = os.replace

    def __call__(self, src, dst, **kw):
        self.calls += 1
        if self.calls == self.nth:
            self.fault()
        return self.real(src, dst, **kw)


def eio():
    raise OSError(errno.EIO, os.strerror(errno.EIO))


def send(signum):
    return lambda: os.kill(os.getpid(), signum)


def keyboard_interrupt():
    raise KeyboardInterrupt


SET = [("k.hsaco", b"\x7fELF new"), ("k.s", "new asm\n"), ("k.json", "{\"new\": 1}\n")]


def old_set(tmp_path: Path) -> dict[str, bytes]:
    for name, data in (("k.hsaco", b"\x7fELF old"), ("k.s", "old asm\n"),
                       ("k.json", "{\"old\": 1}\n"), ("unrelated.txt", "keep\n")):
        (tmp_path / name).write_bytes(data if isinstance(data, bytes) else data.encode())
    return snapshot(tmp_path)


@pytest.mark.parametrize("fault, raised", [
    (eio, AccelError), (keyboard_interrupt, KeyboardInterrupt),
    (send(signal.SIGINT), interrupts.Interrupted), (send(signal.SIGTERM), interrupts.Interrupted),
])
@pytest.mark.parametrize("nth", [1, 2, 3])
def test_a_fault_while_renaming_leaves_the_earlier_set(tmp_path, monkeypatch, fault, raised, nth):
    before = old_set(tmp_path)
    monkeypatch.setattr(os, "replace", FaultAt(nth, fault))
    with interrupts.signals_as_exceptions(), pytest.raises(raised):
        write_output_set(str(tmp_path), SET)
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("fault", [eio, send(signal.SIGINT)])
def test_a_fault_while_renaming_a_new_set_leaves_nothing(tmp_path, monkeypatch, fault):
    out = tmp_path / "a" / "b"
    monkeypatch.setattr(os, "replace", FaultAt(2, fault))
    with interrupts.signals_as_exceptions(), pytest.raises((AccelError, interrupts.Interrupted)):
        write_output_set(str(out), SET, create_directory=True)
    assert list(tmp_path.iterdir()) == []   # the directories it made are gone too


def test_without_hard_links_the_old_files_are_moved_and_put_back(tmp_path, monkeypatch):
    before = old_set(tmp_path)

    def no_links(*_, **__):
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    monkeypatch.setattr(os, "replace", FaultAt(3, eio))
    with pytest.raises(AccelError, match="cannot write output file .*k.json.*Input/output"):
        write_output_set(str(tmp_path), SET)
    assert snapshot(tmp_path) == before


def test_a_failing_staged_write_changes_nothing(tmp_path, monkeypatch):
    before = old_set(tmp_path)
    real_open = open

    def full_disk(path, mode="r", *a, **kw):
        if "x" in mode and str(path).endswith(".json"):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_open(path, mode, *a, **kw)

    monkeypatch.setattr("builtins.open", full_disk)
    with pytest.raises(AccelError, match="k.json.*No space left"):
        write_output_set(str(tmp_path), SET)
    assert snapshot(tmp_path) == before


def test_success_replaces_the_set_and_leaves_no_staging(tmp_path):
    old_set(tmp_path)
    umask = os.umask(0)
    os.umask(umask)
    paths = write_output_set(str(tmp_path), SET)
    assert paths == [str(tmp_path / n) for n, _ in SET]
    got = snapshot(tmp_path)
    assert got["k.hsaco"] == b"\x7fELF new" and got["k.json"] == b"{\"new\": 1}\n"
    assert sorted(got) == ["k.hsaco", "k.json", "k.s", "unrelated.txt"]
    assert (tmp_path / "k.s").stat().st_mode & 0o777 == 0o666 & ~umask


def test_a_signal_after_the_last_rename_is_raised_with_the_set_complete(tmp_path, monkeypatch):
    # The held signal is honoured after the set is in: complete, never mixed.
    real_rmtree = __import__("shutil").rmtree

    def signal_then_rmtree(path, *a, **kw):
        os.kill(os.getpid(), signal.SIGINT)
        return real_rmtree(path, *a, **kw)

    monkeypatch.setattr("accel.tools.output_set.shutil.rmtree", signal_then_rmtree)
    with interrupts.signals_as_exceptions(), pytest.raises(interrupts.Interrupted):
        write_output_set(str(tmp_path), SET)
    assert snapshot(tmp_path) == {n: d if isinstance(d, bytes) else d.encode() for n, d in SET}


@pytest.mark.parametrize("name", ["", "a/b", "..", "."])
def test_output_names_are_plain(tmp_path, name):
    with pytest.raises(AccelError, match="plain file name"):
        write_output_set(str(tmp_path), [(name, "x")])


def test_names_up_to_the_file_system_limit(tmp_path):
    # The staging directory's name is short: a 255-byte name fits if it fits at all.
    name = "n" * 250 + ".json"
    write_output_set(str(tmp_path), [(name, "{}\n")])
    assert [p.name for p in tmp_path.iterdir()] == [name]
    with pytest.raises(AccelError, match="File name too long"):
        write_output_set(str(tmp_path), [("n" * 256, "{}\n")])
    assert [p.name for p in tmp_path.iterdir()] == [name]


# ---- accel-compile over an earlier compile of the same symbol ------------------------
@pytest.fixture(scope="module")
def earlier(tmp_path_factory):
    out = tmp_path_factory.mktemp("earlier")
    rc, err, _ = run_main("accel-compile", GEMM + ["--perf-config", EARLIER_TILE, "-o", str(out)])
    assert rc == 0, err
    return snapshot(out)


@pytest.mark.parametrize("fault, code, message", [
    (send(signal.SIGINT), 130, "accel-compile: interrupted"),
    (send(signal.SIGTERM), 143, "accel-compile: terminated by SIGTERM"),
    (eio, 1, "accel-compile: error: cannot write output file"),
])
def test_accel_compile_fault_at_the_second_rename(tmp_path, monkeypatch, earlier, fault, code,
                                                 message):
    for name, data in earlier.items():
        (tmp_path / name).write_bytes(data)
    monkeypatch.setattr(os, "replace", FaultAt(2, fault))
    rc, err, _ = run_main("accel-compile", GEMM + ["--perf-config", OTHER_TILE,
                                                   "-o", str(tmp_path)])
    assert rc == code and err.strip().splitlines() == [err.strip()] and message in err, err
    assert snapshot(tmp_path) == earlier


def test_accel_compile_long_name_fits(tmp_path):
    name = "j" * 250   # + ".json" = 255 bytes, the usual NAME_MAX
    rc, err, _ = run_main("accel-compile", GEMM + ["--name", name, "-o", str(tmp_path)])
    assert rc == 0, err
    assert f"{name}.json" in os.listdir(tmp_path)
    rc, err, _ = run_main("accel-compile", GEMM + ["--name", name + "j", "-o",
                                                   str(tmp_path / "x")])
    assert "File name too long" in assert_one_error(rc, err)
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("file_name, json_name", [(".mlir", "module.json"),
                                                  (".hidden.mlir", "hidden.json"),
                                                  ("two.mlir", "two.json")])
def test_input_file_names_give_visible_json(tmp_path, file_name, json_name):
    gemm = ('  "accel.gemm"(%a, %b, %c) {arch = "gfx942"} : (memref<1x64x32xf16>, '
            'memref<1x32x48xf16>, memref<1x64x48xf32>) -> ()\n')
    text = ("func.func @g(%a: memref<1x64x32xf16>, %b: memref<1x32x48xf16>, "
            "%c: memref<1x64x48xf32>, %d: memref<1x64x48xf32>) {\n" + gemm
            + gemm.replace("%c)", "%d)").replace("arch = \"gfx942\"",
                                                 "arch = \"gfx942\", accumulate")
            + "  return\n}\n")
    (tmp_path / file_name).write_text(text)
    rc, err, _ = run_main("accel-compile", [str(tmp_path / file_name), "-o",
                                            str(tmp_path / "out")])
    assert rc == 0, err
    assert json_name in os.listdir(tmp_path / "out")


# ---- a real process, interrupted at several moments -----------------------------------
def test_interrupting_accel_compile_at_any_moment(tmp_path, earlier):
    """Start-up (imports), selection, LLVM, writing: each SIGINT gives exit 130 and
    one line and leaves the earlier set, or (a signal after the last rename is too
    late to stop it) the run completes."""
    argv = [sys.executable, "-m", "accel.tools.accel_compile", *GEMM,
            "--perf-config", OTHER_TILE, "-o", str(tmp_path)]
    for delay in (0.3, 0.5, 0.8, 1.2):
        for name, data in earlier.items():
            (tmp_path / name).write_bytes(data)
        p = subprocess.Popen(argv, stderr=subprocess.PIPE)
        time.sleep(delay)
        p.send_signal(signal.SIGINT)
        err = p.communicate(timeout=120)[1].decode()
        now = snapshot(tmp_path)
        if p.returncode == 0:   # finished before the signal
            assert set(now) == set(earlier) and now != earlier and err == "", (delay, err)
            continue
        if p.returncode == -signal.SIGINT:
            # Before the interpreter installs its own handler (its first ~25 ms, several
            # times that on a loaded machine) or after it began shutting down, the
            # signal's default action ends the process: silently, and never between two
            # renames of the set.
            assert err == "" and (now == earlier or (set(now) == set(earlier)
                                                     and now != earlier)), (delay, err)
            continue
        assert (p.returncode, err) == (130, "accel-compile: interrupted\n"), (delay, err)
        assert now == earlier
    assert not any(n.startswith(STAGING_PREFIX) for n in os.listdir(tmp_path))


def test_concurrent_writers_of_the_same_names_never_mix(tmp_path):
    """Two writers of the same three names (the same GEMM with two tiles) commit one
    after the other: whenever no commit is under way (a reader holding the same lock),
    the directory holds one writer's whole set."""
    import threading

    from accel.tools.output_set import _DirectoryLock

    names = ("k.hsaco", "k.s", "k.json")
    sets = {w: [(n, f"{w} {n}\n") for n in names] for w in "AB"}
    seen = []

    def writer(w):
        for _ in range(40):
            write_output_set(str(tmp_path), sets[w])

    def reader():
        for _ in range(300):
            with _DirectoryLock(str(tmp_path)):
                if all((tmp_path / n).exists() for n in names):
                    seen.append({(tmp_path / n).read_text().split()[0] for n in names})

    threads = [threading.Thread(target=writer, args=(w,)) for w in "AB"]
    threads.append(threading.Thread(target=reader))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen and all(len(owners) == 1 for owners in seen)
    assert sorted(os.listdir(tmp_path)) == ["k.hsaco", "k.json", "k.s"]
