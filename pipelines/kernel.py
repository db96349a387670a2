"""The kernel pipeline: `accel.gemm`, `accel.grouped_gemm` -> Kernel IR -> ROCDL -> `gpu.binary`.

  accel-kernel-pipeline{arch=gfx942 format=bin cu-count=0}

stands for these steps (`KernelPipeline.steps`; `--mlir-print-ir-after-all` dumps each):

  accel-affix-perf-config{arch=.. cu-count=..}  validate the given perf config or choose one
  accel-grouped-dispatch{arch=..}               grouped gemms: perf config and launch mode
  accel-layout                                  fold accel-layout chains, pack constant weights
  accel-lower-pack                              runtime accel.pack/unpack -> copy kernels
  accel-plan-kernel                             record every kernel decision on the gemm
  accel-gemm-to-gpu                             accel.gemm -> MFMA/WMMA kernel + launch
  accel-grouped-gemm-to-gpu                     accel.grouped_gemm -> its kernels + launches
  accel-elementwise-to-gpu                      accel.elementwise -> its kernel + launch
  accel-copy-to-gpu                             accel.copy -> its kernel + launch
  <kernel_lowering(arch)>                       upstream: kernels to ROCDL, target attached
  <HOST_LOWERING>                               upstream: host code to LLVM
  <serialization(format)>                       upstream: gpu.module -> gpu.binary (gfx1100,
                                                gfx1201: assembly, then accel-wmma-banks)

The library (`accel.compile_module`) and the checker (`accel.check`) run the same steps
through `to_kernel_ir`, which also returns the kernels' facts for their metadata; the
library then lowers only the kernels (`kernel_steps`), since its result is code objects.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from accel.bindings import gpu, ir
from accel.codegen.kernel import GemmKernel
from accel.dialect.copy import CopyOp
from accel.dialect.elementwise import ElementwiseOp
from accel.dialect.grouped_gemm import GroupedGemmOp
from accel.passes.accel_layout import AccelLayout
from accel.passes.affix_perf_config import AffixPerfConfig
from accel.passes.gemm_to_gpu import GemmToGpu, lower_gemms
from accel.passes.grouped_dispatch import GroupedDispatch
from accel.passes.lower_pack import LowerPack, PackKernel, lower_packs
from accel.passes.plan_kernel import PlanKernel
from accel.passes.registry import option, register
from accel.pipelines.textual import PipelinePass, Step, UpstreamSegment, run_steps
from accel.target.database import ARCHES

# The grouped-gemm, elementwise and copy lowerings (their codegen and passes: ~20 ms of
# imports, python -X importtime) load where a module holds their ops: a one-GEMM
# compile uses none of them.
if TYPE_CHECKING:
    from accel.codegen.copy import CopyKernel
    from accel.codegen.elementwise import ElementwiseKernel
    from accel.codegen.grouped import GroupedGemmKernel

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


def serialization(fmt: str = "bin") -> str:
    """gpu.module -> gpu.binary. bin: an ELF code object (linked with ld.lld, see
    target/toolchain.py); isa: assembly. The pass's `opts=` does not reach the LLVM
    backend with the pinned bindings (even an unknown -flag is accepted silently), so no
    backend option is tuned here."""
    return f"gpu-module-to-binary{{format={fmt}}}"


def wmma_banks_for(arch: str):
    """passes/wmma_banks.py where its pass serializes `arch`'s kernels, else None. It is
    for WMMA chips alone: an MFMA chip's compile does not load it and its register-value
    analysis (~4 ms of imports, python -X importtime)."""
    if ARCHES[arch].mma_kind != "wmma":
        return None
    from accel.passes import wmma_banks
    return wmma_banks if wmma_banks.applies(arch) else None


def binaries(module: ir.Module) -> dict[str, bytes]:
    """Object bytes of each `gpu.binary` (keyed by symbol) after gpu-module-to-binary."""
    out = {}
    for op in module.body.operations:
        if op.operation.name == "gpu.binary":
            sym = op.attributes["sym_name"].value
            out[sym] = bytes(gpu.ObjectAttr(op.attributes["objects"][0]).object)
    return out


@dataclass(frozen=True)
class KernelIR:
    """What `to_kernel_ir` leaves: the module's kernels, each with its facts."""
    packs: tuple[PackKernel, ...]      # program order
    gemms: tuple[GemmKernel, ...]      # program order
    grouped: tuple[GroupedGemmKernel, ...] = ()   # program order
    elementwise: tuple[ElementwiseKernel, ...] = ()   # program order
    copies: tuple[CopyKernel, ...] = ()   # program order


@register
@dataclass(frozen=True)
class KernelPipeline(PipelinePass):
    NAME = "accel-kernel-pipeline"
    SUMMARY = ("accel.gemm, accel.grouped_gemm, accel.elementwise and accel.copy to "
               "gpu.binary: affix perf config, grouped dispatch, accel layout, pack kernels, "
               "kernel plan, accel-gemm-to-gpu, accel-grouped-gemm-to-gpu, "
               "accel-elementwise-to-gpu, accel-copy-to-gpu, then ROCDL lowering and "
               "serialization")
    arch: str = option("gfx942", "target chip", choices=tuple(ARCHES))
    format: str = option("bin", "bin: ELF code object; isa: assembly text", choices=FORMATS)
    cu_count: int = option(0, "CUs of the target part, for perf-config selection (0 = default)")
    split_k: bool = option(True, "let perf-config selection split skinny, deep GEMMs along K")

    def front_steps(self) -> list[Step]:
        """The accel passes that prepare gemms for kernel generation."""
        return [AffixPerfConfig(cu_count=self.cu_count, arch=self.arch, split_k=self.split_k),
                GroupedDispatch(arch=self.arch), AccelLayout()]

    def kernel_steps(self) -> list[Step]:
        """Kernel IR to a ROCDL gpu.module with its target: upstream's passes on verified
        input, so not re-verified after each (UpstreamSegment.verify)."""
        return [UpstreamSegment(kernel_lowering(self.arch), verify=False)]

    def serialization_steps(self, fmt: str) -> list[Step]:
        """gpu.module -> gpu.binary in `fmt` (the library reads the ELF and its assembly
        from one backend run: pipelines/serialize.py). On WMMA chips LLVM's assembly is
        renumbered by accel-wmma-banks (seed 002's register banks) and assembled there."""
        banks = wmma_banks_for(self.arch)
        if banks is not None:
            return [UpstreamSegment(LLVM_ASSEMBLY, verify=False), banks.WmmaBanks(format=fmt)]
        return [UpstreamSegment(serialization(fmt), verify=False)]

    def steps(self) -> list[Step]:
        from accel.passes.copy_to_gpu import CopyToGpu
        from accel.passes.elementwise_to_gpu import ElementwiseToGpu
        from accel.passes.grouped_gemm_to_gpu import GroupedGemmToGpu
        return [*self.front_steps(), LowerPack(), PlanKernel(), GemmToGpu(), GroupedGemmToGpu(),
                ElementwiseToGpu(arch=self.arch), CopyToGpu(arch=self.arch),
                *self.kernel_steps(),
                UpstreamSegment(HOST_LOWERING, verify=False),
                *self.serialization_steps(self.format)]

    def to_kernel_ir(self, module: ir.Module) -> KernelIR:
        """The steps up to and including accel-gemm-to-gpu, in place; their kernels'
        facts. LowerPack, GemmToGpu, GroupedGemmToGpu and ElementwiseToGpu run through
        their bodies, which return them."""
        run_steps(module, self.front_steps())
        packs = lower_packs(module)
        PlanKernel().run(module)
        # Each lowering finds its ops by walking the whole module, and once the gemms'
        # kernels are in it that walk visits every op of their bodies (2.4 ms of Python
        # callbacks a compile for the three below, gfx942 4096^3): a kind the host code
        # does not hold is not looked for.
        held = host_op_names(module)
        gemms = lower_gemms(module)
        grouped, elementwise, copies = [], [], []
        if GroupedGemmOp.OP_NAME in held:
            from accel.passes.grouped_gemm_to_gpu import lower_grouped_gemms
            grouped = lower_grouped_gemms(module)
        if ElementwiseOp.OP_NAME in held:
            from accel.passes.elementwise_to_gpu import lower_elementwise
            elementwise = lower_elementwise(module, self.arch)
        if CopyOp.OP_NAME in held:
            from accel.passes.copy_to_gpu import lower_copies
            copies = lower_copies(module, self.arch)
        return KernelIR(tuple(packs), tuple(gemms), tuple(grouped), tuple(elementwise),
                        tuple(copies))


def host_op_names(module: ir.Module) -> set[str]:
    """The names of the ops outside the module's kernels (gpu.module bodies unvisited)."""
    names: set[str] = set()

    def visit(op: ir.Operation) -> ir.WalkResult:
        names.add(op.name)
        return ir.WalkResult.SKIP if op.name == "gpu.module" else ir.WalkResult.ADVANCE

    module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    return names
