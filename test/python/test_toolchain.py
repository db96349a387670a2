"""A trivial gpu.module compiles to a real ELF code object on every arch."""

import os
import re
import struct
import tempfile
import types

import pytest

from accel.bindings import gpu, ir, new_context, passmanager
from accel.diagnostics import AccelError
from accel.target.toolchain import ensure_linker

EM_AMDGPU = 224
# e_flags mach values (llvm/BinaryFormat/ELF.h, EF_AMDGPU_MACH_AMDGCN_*).
EF_AMDGPU_MACH = {"gfx942": 0x04C, "gfx1100": 0x041, "gfx1201": 0x04E}
EF_AMDGPU_MACH_MASK = 0x0FF

TRIVIAL = """
module attributes {gpu.container_module} {
  gpu.module @trivial {
    gpu.func @store_tid(%out: memref<64xi32>) kernel {
      %t = gpu.thread_id x
      %i = arith.index_cast %t : index to i32
      memref.store %i, %out[%t] : memref<64xi32>
      gpu.return
    }
  }
}
"""

def toolchain_tempdir(monkeypatch, tc, where) -> None:
    """The temporary directory as the toolchain module sees it (and nothing else: the
    pass manager's own temporary files must still work)."""
    monkeypatch.setattr(tc, "tempfile", types.SimpleNamespace(
        gettempdir=where, mkstemp=tempfile.mkstemp))



def compile_trivial(arch: str, fmt: str) -> bytes:
    ensure_linker()
    with new_context():
        module = ir.Module.parse(TRIVIAL)
        pm = passmanager.PassManager.parse(
            "builtin.module(gpu.module(convert-gpu-to-rocdl{use-bare-ptr-memref-call-conv=true}),"
            f"rocdl-attach-target{{chip={arch}}},gpu-to-llvm{{use-bare-pointers-for-kernels=true}},"
            f"gpu-module-to-binary{{format={fmt}}})")
        pm.run(module.operation)
        binary = module.body.operations[0]
        return bytes(gpu.ObjectAttr(binary.attributes["objects"][0]).object)


def elf_symbols(data: bytes) -> set[str]:
    """Names in .symtab/.dynsym, read with struct (no ELF library needed)."""
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names = set()
    for sh in sections:
        if sh[1] in (2, 11):  # SHT_SYMTAB, SHT_DYNSYM
            strtab = sections[sh[6]]
            for off in range(sh[4], sh[4] + sh[5], 24):
                name_off, = struct.unpack_from("<I", data, off)
                start = strtab[4] + name_off
                names.add(data[start:data.index(b"\0", start)].decode())
    return names


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100", "gfx1201"])
def test_trivial_kernel_is_amdgpu_elf(arch):
    data = compile_trivial(arch, "bin")
    assert data[:4] == b"\x7fELF"
    assert data[4] == 2  # ELFCLASS64
    e_machine, = struct.unpack_from("<H", data, 0x12)
    assert e_machine == EM_AMDGPU
    e_flags, = struct.unpack_from("<I", data, 0x30)
    assert e_flags & EF_AMDGPU_MACH_MASK == EF_AMDGPU_MACH[arch]
    assert "store_tid" in elf_symbols(data)


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100", "gfx1201"])
def test_trivial_kernel_assembly_names_target(arch):
    asm = compile_trivial(arch, "isa").decode()
    assert re.search(rf'\.amdgcn_target "amdgcn-amd-amdhsa-[a-z]*-{arch}"', asm)
    assert "store_tid:" in asm


# ---- where the ld.lld shim goes when the cache directory cannot take it -------------
@pytest.fixture
def no_rocm(monkeypatch, tmp_path):
    """ROCM_PATH unset and no ROCm install; a cache 'directory' that is a file (as
    read-only for root as anything: mkdir under it fails with ENOTDIR)."""
    import accel.target.toolchain as tc
    monkeypatch.delenv("ROCM_PATH", raising=False)
    monkeypatch.setattr(tc, "_REAL_ROCM_CANDIDATES", ())
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker / "cache"))
    return tc, blocker


def test_unwritable_cache_falls_back_to_a_private_temporary_directory(no_rocm, monkeypatch,
                                                                      tmp_path):
    tc, _ = no_rocm
    toolchain_tempdir(monkeypatch, tc, lambda: str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    root = ensure_linker()
    assert root.startswith(str(tmp_path / "tmp" / f"accel-{os.getuid()}"))
    assert (tmp_path / "tmp" / f"accel-{os.getuid()}").stat().st_mode & 0o777 == 0o700
    assert os.access(os.path.join(root, "llvm", "bin", "ld.lld"), os.X_OK)
    import accel
    kernel = accel.compile_gemm("gfx942", m=64, n=48, k=32, assembly=False).kernels[0]
    assert kernel.code_object[:4] == b"\x7fELF"


def test_no_writable_place_is_an_accel_error(no_rocm, monkeypatch):
    tc, blocker = no_rocm
    toolchain_tempdir(monkeypatch, tc, lambda: str(blocker / "tmp"))
    with pytest.raises(AccelError, match="cannot write the linker shim .*Not a directory.*"
                                         "set ROCM_PATH"):
        ensure_linker()
    import accel
    with pytest.raises(AccelError, match="cannot write the linker shim"):
        accel.compile_gemm("gfx942", m=64, n=48, k=32, assembly=False)


def test_a_shared_temporary_directory_is_not_used(no_rocm, monkeypatch, tmp_path):
    # Someone else's (or a world-writable) accel-UID directory could hold their ld.lld.
    tc, _ = no_rocm
    toolchain_tempdir(monkeypatch, tc, lambda: str(tmp_path))
    shared = tmp_path / f"accel-{os.getuid()}"
    shared.mkdir()
    shared.chmod(0o777)
    with pytest.raises(AccelError, match="not a private directory"):
        ensure_linker()
