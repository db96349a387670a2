"""What a compile returns: code objects, assembly and metadata as plain Python values.

Nothing here touches MLIR, so a result read back from the kernel cache (cache.py) is
built without loading the bindings.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CompiledKernel:
    symbol: str
    code_object: bytes
    assembly: str
    metadata: dict


@dataclass(frozen=True)
class CompileResult:
    arch: str
    kernels: tuple[CompiledKernel, ...]
    # Buffers accel needs beyond the user's (a grouped GEMM's tile list), when the module
    # has a grouped GEMM: {"bytes": total, "buffers": [...]} (api.grouped_workspace).
    workspace: dict | None = None
    # The host functions that launch the kernels: per function its parameters, the
    # buffers it allocates and its launches in program order (launches.host_launches);
    # None where no host function was read (a batch of GEMM specs).
    launches: list | None = None

    def metadata(self) -> dict:
        out = {"arch": self.arch, "kernels": [k.metadata for k in self.kernels]}
        if self.workspace is not None:
            out["workspace"] = self.workspace
        if self.launches is not None:
            out["launches"] = self.launches
        return out
