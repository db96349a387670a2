"""Targets: the per-arch database and the toolchain that turns LLVM IR into code objects."""
from accel.target.database import ARCHES, ArchInfo, MmaInstr, get_arch  # noqa: F401
