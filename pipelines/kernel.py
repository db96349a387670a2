"""The kernel pipeline: `accel.gemm` -> Kernel IR -> ROCDL -> `gpu.binary`, built in one place.

  accel-kernel-pipeline{arch=gfx942 format=bin cu-count=0}

expands to

  accel-affix-perf-config{cu-count=..}   validate the given perf config or choose one
  accel-layout                           fold accel-layout chains, pack constant weights
  accel-lower-pack                       runtime accel.pack/unpack -> copy kernels
  accel-gemm-to-gpu                      accel.gemm -> MFMA/WMMA kernel + launch
  <kernel_lowering(arch)>                upstream: kernels to ROCDL, target attached
  <HOST_LOWERING>                        upstream: host code to LLVM
  <serialization(arch, format)>          upstream: gpu.module -> gpu.binary (WMMA chips:
                                         assembly, then accel-wmma-banks)

(`accel.compile_module` runs the same without HOST_LOWERING: it returns code objects.)
"""

from __future__ import annotations

from dataclasses import dataclass

from accel.bindings import gpu, ir
from accel.dialect.ops import GemmOp, collect_ops
from accel.diagnostics import AccelError
from accel.passes import wmma_banks
from accel.passes.gemm_to_gpu import lower_gemms
from accel.passes.registry import AccelPass, load_all, option, register
from accel.pipelines.textual import run_pipeline
from accel.target.database import ARCHES
from accel.target.toolchain import ensure_linker

FORMATS = ("bin", "isa")


def kernel_lowering(arch: str) -> str:
    """Upstream passes from Kernel IR (after accel-gemm-to-gpu) to a ROCDL gpu.module with
    its target attached: what `serialization` needs."""
    return ", ".join([
        # Kernel IR's structured loops and ifs become branches before ROCDL conversion.
        "gpu.module(convert-scf-to-cf",
        # amdgpu.mfma/wmma/raw_buffer_* lower per chip: the chipset picks the intrinsic
        # and the buffer descriptor's flag bits (gfx12 differs from gfx9/gfx11).
        f"convert-amdgpu-to-rocdl{{chipset={arch}}}",
        # Bare pointers: the kernel takes one pointer per memref (A, B, C), which is
        # what a graph compiler passes; shapes are static, so nothing else is needed.
        f"convert-gpu-to-rocdl{{chipset={arch} use-bare-ptr-memref-call-conv=true}}",
        # The memref <-> LLVM struct cast pairs at the bare-pointer arguments cancel
        # here, so the gpu.module serializes without the host side being lowered.
        "reconcile-unrealized-casts)",
        # O=2 (the default) stays. Measured over benchmarks/bench_kernel_quality.py's
        # ten kernels: O0 compiles in 81 ms (median) against 101 ms, but spills 2-2.9 KB
        # to scratch at 250 VGPRs, with 5x the code and 10-50x the VALU in the k-tile
        # loop. O1 makes LLVM execute 8-12% fewer instructions (valgrind, three
        # bench_compile kernels), but its code is longer on 15 of the 18 bench_compile
        # kernels, by up to 11% (gfx942 128x1280: 192 -> 213 instructions, 42 -> 50
        # VGPRs): not a trade to make without runtime measurements. What made compiles
        # slow was LLVM fully unrolling the k-tile loop and per-element C stores; codegen
        # avoids both (codegen/kernel.py NO_UNROLL, codegen/epilogue.py).
        f"rocdl-attach-target{{chip={arch} O=2}}",
    ])


# The host side must agree with the kernel's bare-pointer signature.
HOST_LOWERING = "gpu-to-llvm{use-bare-pointers-for-kernels=true}"
# LLVM's assembly of each gpu.module, which accel-wmma-banks takes.
LLVM_ASSEMBLY = "gpu-module-to-binary{format=isa}"


def serialization(arch: str, fmt: str = "bin") -> str:
    """gpu.module -> gpu.binary. bin: an ELF code object (linked with ld.lld, see
    target/toolchain.py); isa: assembly. The pass's `opts=` does not reach the LLVM
    backend with the pinned bindings (even an unknown -flag is accepted silently), so no
    backend option is tuned here. On WMMA chips the kernel is printed as assembly and
    accel-wmma-banks renumbers its VGPRs (each v_wmma's operands on three banks, seed
    002) and, for bin, assembles it (passes/wmma_banks.py)."""
    if wmma_banks.applies(arch):
        return f"{LLVM_ASSEMBLY}, {wmma_banks.WmmaBanks.NAME}{{format={fmt}}}"
    return f"gpu-module-to-binary{{format={fmt}}}"


def lowering(arch: str, fmt: str = "bin") -> str:
    """Everything after accel-gemm-to-gpu: kernels to `gpu.binary`, host code to LLVM."""
    return ", ".join([kernel_lowering(arch), HOST_LOWERING, serialization(arch, fmt)])


def check_arch(module: ir.Module, arch: str) -> None:
    if arch not in ARCHES:
        raise AccelError(f"unknown arch '{arch}' (supported: {', '.join(ARCHES)})")
    for op in collect_ops(module, GemmOp.OP_NAME):
        gemm = GemmOp(op)
        if gemm.arch != arch:
            raise AccelError(f"'accel.gemm' targets {gemm.arch} but the pipeline targets {arch}",
                             gemm.location)


def binaries(module: ir.Module) -> dict[str, bytes]:
    """Object bytes of each `gpu.binary` (keyed by symbol) after gpu-module-to-binary."""
    out = {}
    for op in module.body.operations:
        if op.operation.name == "gpu.binary":
            sym = op.attributes["sym_name"].value
            out[sym] = bytes(gpu.ObjectAttr(op.attributes["objects"][0]).object)
    return out


def lower_to_binaries(module: ir.Module, arch: str, fmt: str = "bin") -> None:
    """Kernel IR module -> gpu.binary ops, in place. The Kernel IR was verified when
    accel-gemm-to-gpu parsed it; the upstream passes after it are not re-verified
    one by one (run_steps' verify_each)."""
    ensure_linker()
    run_pipeline(module, lowering(arch, fmt), verify_each=False)


@register
@dataclass(frozen=True)
class KernelPipeline(AccelPass):
    NAME = "accel-kernel-pipeline"
    SUMMARY = ("accel.gemm to gpu.binary: affix perf config, accel layout, pack kernels, "
               "accel-gemm-to-gpu, then ROCDL lowering and serialization")
    arch: str = option("gfx942", "target chip", choices=tuple(ARCHES))
    format: str = option("bin", "bin: ELF code object; isa: assembly text", choices=FORMATS)
    cu_count: int = option(0, "CUs of the target part, for perf-config selection (0 = default)")

    def run(self, module: ir.Module) -> None:
        check_arch(module, self.arch)
        for step in front_passes(self.cu_count):
            step.run(module)
        lower_gemms(module)
        lower_to_binaries(module, self.arch, self.format)


def front_passes(cu_count: int = 0) -> list[AccelPass]:
    """The accel passes that prepare gemms for accel-gemm-to-gpu, in order."""
    passes = load_all()
    return [passes["accel-affix-perf-config"](cu_count=cu_count),
            passes["accel-layout"](),
            passes["accel-lower-pack"]()]
