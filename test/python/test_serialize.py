"""One backend run for the code object and the assembly (pipelines/serialize.py)."""

from __future__ import annotations

import pytest

import accel.pipelines.serialize as serialize_mod
from accel.api import compile_module, gemm_module_text
from accel.bindings import ir, new_context
from accel.passes.gemm_to_gpu import lower_gemms
from accel.passes.plan_kernel import PlanKernel
from accel.pipelines.kernel import KernelPipeline, binaries
from accel.pipelines.textual import run_steps

# The debug-print path: a chip whose code objects are LLVM's own (WMMA chips go through
# accel-wmma-banks, test_wmma_banks.py).
PIPELINE = KernelPipeline(arch="gfx942")
TEXT = gemm_module_text("gfx942", g=2, m=40, n=72, k=48, in_type="bf16", out_type="f32",
                        trans_a=False, trans_b=True, a_layout="row", b_layout="row",
                        perf_config=None, accumulate=False, epilogue="bias")


def lowered(ctx) -> ir.Module:
    module = ir.Module.parse(TEXT, context=ctx)
    PlanKernel().run(module)
    lower_gemms(module)
    run_steps(module, PIPELINE.kernel_steps())
    return module


def separate_runs() -> tuple[dict, dict]:
    """What two backend runs, format=bin and format=isa, give."""
    with new_context() as ctx:
        a, b = lowered(ctx), lowered(ctx)
        run_steps(a, PIPELINE.serialization_steps("bin"))
        run_steps(b, PIPELINE.serialization_steps("isa"))
        return binaries(a), {s: t.decode() for s, t in binaries(b).items()}


def test_assembly_from_the_one_run_is_format_isa(capfd):
    objects, isa = separate_runs()
    with new_context() as ctx:
        got = serialize_mod.serialize(lowered(ctx), assembly=True, pipeline=PIPELINE)
    assert got == (objects, isa)
    assert capfd.readouterr().err == ""          # the debug print is not echoed
    assert serialize_mod._debug_isa_works is True


def test_without_the_debug_print_a_second_run_makes_the_assembly(monkeypatch):
    objects, isa = separate_runs()
    monkeypatch.setattr(serialize_mod, "_debug_isa_works", None)
    monkeypatch.setattr(serialize_mod, "_serialize_capturing_isa",
                        lambda m: run_steps(m, PIPELINE.serialization_steps("bin")) or "")
    with new_context() as ctx:
        got = serialize_mod.serialize(lowered(ctx), assembly=True, pipeline=PIPELINE)
        assert got == (objects, isa)
    assert serialize_mod._debug_isa_works is False


def test_other_native_output_still_reaches_stderr(monkeypatch, capfd):
    real = serialize_mod._serialize_capturing_isa
    monkeypatch.setattr(serialize_mod, "_serialize_capturing_isa",
                        lambda m: real(m) + "warning: something LLVM said\n")
    with new_context() as ctx:
        objects, isa = serialize_mod.serialize(lowered(ctx), assembly=True, pipeline=PIPELINE)
    assert capfd.readouterr().err == "warning: something LLVM said\n"
    assert all(t.endswith("\t.end_amdgpu_metadata\n") for t in isa.values())


def test_split_isa_of_several_modules():
    text = ('ISA for module: "a"\n\t.text\na:\n\t.end_amdgpu_metadata\n\n'
            'note\nISA for module: "b"\n\t.text\nb:\n\t.end_amdgpu_metadata\n\n')
    isas, rest = serialize_mod._split_isa(text)
    assert isas == {"a": "\t.text\na:\n\t.end_amdgpu_metadata\n",
                    "b": "\t.text\nb:\n\t.end_amdgpu_metadata\n"}
    assert rest == "note\n"


@pytest.mark.parametrize("assembly", [True, False])
def test_compile_module_objects_do_not_depend_on_assembly(assembly):
    a = compile_module(TEXT, assembly=assembly).kernels[0]
    b = compile_module(TEXT, assembly=True).kernels[0]
    assert a.code_object == b.code_object and a.metadata == b.metadata
    assert (a.assembly == b.assembly) if assembly else a.assembly == ""
