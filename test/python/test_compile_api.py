"""accel.api.compile_gemm and accel-compile: real code objects, metadata, determinism."""

from __future__ import annotations

import json
import struct

import numpy as np
import pytest

from accel.api import compile_gemm, compile_module, gemm_module_text, launch_order
from accel.bindings import ir, new_context
from accel.passes.registry import load_all
from accel.pipelines.kernel import KernelPipeline, binaries, host_op_names
from accel.diagnostics import AccelError
from accel.tools.accel_compile import main as accel_compile
from test_toolchain import EF_AMDGPU_MACH, EF_AMDGPU_MACH_MASK, EM_AMDGPU, elf_symbols

SEED_001 = dict(m=128, n=1280, k=5120, in_type="f16", a_layout="accel", b_layout="accel",
                perf_config="v3:32,32,8,16,16,8,1,2,2,1,1")


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100", "gfx1201"])
@pytest.mark.parametrize("case", [
    SEED_001,
    dict(g=3, m=77, n=1001, k=320, in_type="bf16", out_type="f32", trans_a=True),
    dict(m=200, n=64, k=77, in_type="i8", trans_b=True),
], ids=["seed001", "bf16_ta", "i8_tb"])
def test_code_object_is_amdgpu_elf_with_its_symbol(arch, case):
    result = compile_gemm(arch, **case)
    (kernel,) = result.kernels
    elf = kernel.code_object
    assert elf[:4] == b"\x7fELF"
    assert struct.unpack_from("<H", elf, 0x12)[0] == EM_AMDGPU
    assert struct.unpack_from("<I", elf, 0x30)[0] & EF_AMDGPU_MACH_MASK == EF_AMDGPU_MACH[arch]
    meta = kernel.metadata
    assert meta["symbol"] in elf_symbols(elf)
    assert f"{meta['symbol']}:" in kernel.assembly
    assert meta["mma"] in kernel.assembly
    assert meta["vgprs"] > 0
    assert f".amdhsa_group_segment_fixed_size {meta['lds_bytes']}" in kernel.assembly
    assert [a["name"] for a in meta["args"]] == ["A", "B", "C"]


def test_seed001_metadata():
    meta = compile_gemm("gfx942", **SEED_001).metadata()
    (k,) = meta["kernels"]
    assert meta["arch"] == "gfx942"
    assert k["symbol"] == "accel_gemm_g1_m128_n1280_k5120_f16_f16_xx_gfx942"
    assert k["grid"] == [40, 4, 1] and k["block"] == [256, 1, 1]
    assert k["padded"] == {"m": 128, "n": 1280, "k": 5120}
    assert k["args"][0] == {"name": "A", "kind": "global_buffer", "dtype": "f16",
                            "shape": [1, 4, 80, 8, 32, 8], "layout": "accel",
                            "bytes": 128 * 5120 * 2}
    assert k["mma"] == "v_mfma_f32_16x16x16_f16"


def pipeline_binaries(text: str, arch: str) -> dict[str, bytes]:
    with new_context():
        module = ir.Module.parse(text)
        load_all()["accel-kernel-pipeline"](arch=arch).run(module)
        assert module.operation.verify()
        return binaries(module)


@pytest.mark.parametrize("arch", ["gfx942", "gfx1201"])
def test_library_code_object_is_the_full_pipelines(arch):
    """compile_module lowers only the kernels (not the host function) and skips the
    verifier between upstream passes; accel-kernel-pipeline does the whole module.
    The code objects must be the same bytes."""
    text = gemm_module_text(arch, g=2, m=77, n=100, k=40, in_type="bf16", out_type=None,
                            trans_a=False, trans_b=True, a_layout="row", b_layout="row",
                            perf_config=None, accumulate=False, epilogue="bias_relu")
    lib = compile_module(text, arch, assembly=False).kernels[0]
    assert pipeline_binaries(text, arch) == {lib.symbol: lib.code_object}


def test_host_op_names_and_launch_order_leave_the_kernels_unvisited():
    """After accel-gemm-to-gpu the host code holds the launch; the kernel's ops (its
    MFMAs, its gpu.func) are not looked at, and the launch order is the host's."""
    text = gemm_module_text("gfx942", g=1, m=64, n=64, k=64, in_type="f16", out_type=None,
                            trans_a=False, trans_b=False, a_layout="row", b_layout="row",
                            perf_config=None, accumulate=False)
    with new_context():
        module = ir.Module.parse(text)
        assert "accel.gemm" in host_op_names(module)
        (kernel,) = KernelPipeline(arch="gfx942").to_kernel_ir(module).gemms
        names = host_op_names(module)
        assert {"gpu.module", "gpu.launch_func"} <= names
        assert not names & {"gpu.func", "amdgpu.mfma", "accel.gemm"}
        assert launch_order(module) == [kernel.symbol]


def test_library_runs_the_pipelines_layout_and_pack_steps():
    """One module with a constant weight (packed at compile time by accel-layout), a
    seed-001 transpose/reshape chain (folded by accel-layout) and an explicit runtime
    accel.pack (a copy kernel): the library builds exactly the pipeline's kernels, the
    pack kernel listed before the gemm that reads it."""
    from test_accel_layout_pass import A6, B6, PC, SEED_A_COPY, SEED_B_LINALG, gemm
    rng = np.random.default_rng(3)
    weight = rng.uniform(-1, 1, (1, 48, 32)).astype(np.float16)
    chain = SEED_A_COPY + SEED_B_LINALG + gemm("%a", "%bnk", b_t="memref<1x32x48xf16>",
                                               b_layout="transposed")
    constant = ("  %w = memref.get_global @w : memref<1x48x32xf16>\n"
                + gemm("%a", "%w"))
    runtime_pack = ('  "accel.pack"(%a, %p) {transposed = false} : (memref<1x64x48xf16>, '
                    f"memref<{A6}>) -> ()\n"
                    + gemm("%p", "%b", a_t=f"memref<{A6}>", a_layout="accel"))
    c = "%c: memref<1x64x32xf32>"
    text = (f'memref.global "private" constant @w : memref<1x48x32xf16> = '
            f'dense<"0x{weight.tobytes().hex().upper()}">\n'
            f"func.func @chain(%a6: memref<{A6}>, %b6: memref<{B6}>, {c}) {{\n{chain}\n"
            f"  return\n}}\n"
            f"func.func @constant(%a: memref<1x64x48xf16>, {c}) {{\n{constant}\n  return\n}}\n"
            f"func.func @packed(%a: memref<1x64x48xf16>, %b: memref<1x48x32xf16>, "
            f"%p: memref<{A6}>, {c}) {{\n{runtime_pack}\n  return\n}}\n")
    result = compile_module(text, assembly=False)
    library = {k.symbol: k.code_object for k in result.kernels}
    assert library == pipeline_binaries(text, "gfx942")
    ops = [k.metadata.get("op", "gemm") for k in result.kernels]
    assert ops.count("pack") == 1 and ops.index("pack") < len(ops) - 1
    pack = result.kernels[ops.index("pack")].metadata
    assert [a["name"] for a in pack["args"]] == ["src", "dst"]
    assert pack["args"][1]["shape"] == [1, 2, 3, 4, 32, 4]
    assert pack["block"][0] * pack["grid"][0] >= 1 * 2 * 3 * 4 * 32 * 4


def test_same_input_gives_identical_output():
    a = compile_gemm("gfx1100", m=48, n=77, k=64)
    b = compile_gemm("gfx1100", m=48, n=77, k=64)
    assert a.kernels[0].code_object == b.kernels[0].code_object
    assert a.kernels[0].assembly == b.kernels[0].assembly
    assert json.dumps(a.metadata()) == json.dumps(b.metadata())


def test_unsupported_type_is_a_diagnostic():
    with pytest.raises(AccelError, match="f32.* on gfx1100"):
        compile_gemm("gfx1100", m=16, n=16, k=16, in_type="f32")


def test_cli_writes_all_three_files(tmp_path):
    rc = accel_compile(["--arch", "gfx1201", "-m", "64", "-n", "64", "-k", "64", "-t", "bf16",
                        "-o", str(tmp_path)])
    assert rc == 0
    (js,) = tmp_path.glob("*.json")
    meta = json.loads(js.read_text())
    sym = meta["kernels"][0]["symbol"]
    assert js.name == f"{sym}.json"
    assert (tmp_path / f"{sym}.hsaco").read_bytes()[:4] == b"\x7fELF"
    assert f"{sym}:" in (tmp_path / f"{sym}.s").read_text()


def test_cli_error_leaves_no_output(tmp_path, capsys):
    out = tmp_path / "out"
    rc = accel_compile(["--arch", "gfx942", "-m", "64", "-n", "64", "-k", "64",
                        "--perf-config", "v4:32,32,4,32,32,48,8,1,1,2,0,0,1,1", "-o", str(out)])
    assert rc == 1
    err = capsys.readouterr().err
    assert err.startswith("accel-compile: error:") and "mnPerXdl 48" in err
    assert len(err.strip().splitlines()) == 1
    assert not out.exists() or not any(out.iterdir())


def test_cli_compiles_an_input_file(tmp_path):
    src = tmp_path / "two.mlir"
    src.write_text("""
func.func @f(%a: memref<1x64x32xf16>, %b: memref<1x32x48xf16>, %c: memref<1x64x48xf32>,
             %d: memref<2x16x16xi8>, %e: memref<2x16x16xi8>, %f: memref<2x16x16xi32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", a_layout = "row", b_layout = "row", c_layout = "row", perf_config = "v4:32,32,4,32,32,32,8,1,1,2,0,0,1,1"} : (memref<1x64x32xf16>, memref<1x32x48xf16>, memref<1x64x48xf32>) -> ()
  "accel.gemm"(%d, %e, %f) {arch = "gfx942", a_layout = "row", b_layout = "transposed", c_layout = "row", perf_config = "v4:16,16,2,16,16,16,16,1,1,2,0,0,1,1"} : (memref<2x16x16xi8>, memref<2x16x16xi8>, memref<2x16x16xi32>) -> ()
  return
}
""")
    assert accel_compile([str(src), "-o", str(tmp_path)]) == 0
    meta = json.loads((tmp_path / "two.json").read_text())
    assert [k["mma"] for k in meta["kernels"]] == ["v_mfma_f32_32x32x8_f16",
                                                  "v_mfma_i32_16x16x32_i8"]
    for k in meta["kernels"]:
        assert (tmp_path / k["code_object"]).exists()


@pytest.mark.parametrize("epilogue,batched,bias_shape", [
    ("bias", False, [77]), ("relu", False, None), ("bias_relu", True, [2, 77])])
def test_epilogue_through_the_library_and_cli(tmp_path, epilogue, batched, bias_shape):
    result = compile_gemm("gfx942", g=2, m=40, n=77, k=32, epilogue=epilogue,
                          batched_bias=batched, assembly=False)
    meta = result.kernels[0].metadata
    assert meta["epilogue"] == epilogue
    args = [(a["name"], a["shape"]) for a in meta["args"]]
    assert args[:3] == [("A", [2, 40, 32]), ("B", [2, 32, 77]), ("C", [2, 40, 77])]
    assert args[3:] == ([("bias", bias_shape)] if bias_shape else [])
    flags = ["--epilogue", epilogue] + (["--batched-bias"] if batched else [])
    assert accel_compile(["--arch", "gfx942", "-g", "2", "-m", "40", "-n", "77", "-k", "32",
                          *flags, "-o", str(tmp_path)]) == 0
    (js,) = tmp_path.glob("*.json")
    assert json.loads(js.read_text()) == result.metadata()


def test_epilogue_flags_do_not_combine_with_an_input_file(tmp_path, capsys):
    src = tmp_path / "g.mlir"
    src.write_text("func.func @f() { return }\n")
    assert accel_compile([str(src), "--epilogue", "relu", "-o", str(tmp_path)]) == 1
    assert "--epilogue cannot be combined with an input file" in capsys.readouterr().err


def test_unknown_epilogue_is_a_diagnostic():
    with pytest.raises(AccelError, match="epilogue must be one of"):
        compile_gemm("gfx942", m=16, n=16, k=16, epilogue="gelu")


def test_compiles_from_several_threads_agree():
    from concurrent.futures import ThreadPoolExecutor
    shapes = [(16 + 8 * i, 24, 32) for i in range(6)]
    serial = [compile_gemm("gfx1100", m=m, n=n, k=k, assembly=False).kernels[0].code_object
              for m, n, k in shapes]
    with ThreadPoolExecutor(max_workers=3) as pool:
        threaded = list(pool.map(lambda s: compile_gemm("gfx1100", m=s[0], n=s[1], k=s[2],
                                                        assembly=False).kernels[0].code_object,
                                 shapes))
    assert threaded == serial


def test_one_shape_with_two_perf_configs_gets_two_kernels():
    import numpy as np

    from accel.bindings import ir, new_context
    from accel.check import reference
    from accel.passes.gemm_to_gpu import lower_gemms
    from accel.passes.plan_kernel import PlanKernel
    from accel.sim import run_host
    t = ("memref<1x40x32xf16>", "memref<1x32x48xf16>", "memref<1x40x48xf32>")
    sig = ", ".join(t)
    gemm = ('"accel.gemm"(%a, %b, %{c}) {{arch = "gfx942", perf_config = "{cfg}"}} : '
            f'({sig}) -> ()')
    text = (f"func.func @gemm(%a: {t[0]}, %b: {t[1]}, %c: {t[2]}, %d: {t[2]}) {{\n"
            + gemm.format(c="c", cfg="v4:32,32,4,32,32,32,8,1,1,2,0,0,1,1") + "\n"
            + gemm.format(c="d", cfg="v4:16,16,2,16,16,16,8,1,1,2,0,0,1,1") + "\n"
            + gemm.format(c="c", cfg="v4:32,32,4,32,32,32,8,1,1,2,0,0,1,1") + "\n"
            "return\n}\n")
    from accel.api import compile_module
    symbols = [k.symbol for k in compile_module(text, assembly=False).kernels]
    base = "accel_gemm_g1_m40_n48_k32_f16_f32_gfx942"
    assert symbols == [base, base + "_v1"]
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (1, 40, 32)).astype(np.float16)
    b = rng.uniform(-1, 1, (1, 32, 48)).astype(np.float16)
    c, d = np.full((1, 40, 48), np.nan, np.float32), np.full((1, 40, 48), np.nan, np.float32)
    with new_context():
        module = ir.Module.parse(text)
        PlanKernel().run(module)
        kernels = lower_gemms(module)
        assert [k.symbol for k in kernels] == [base, base + "_v1", base]
        run_host(module, "gemm", [a, b, c, d], arch="gfx942")
    ref, tol = reference(a, b, "f16", "f32")
    for got in (c, d):
        assert (np.abs(got - ref) <= tol).all()


def test_op_list_epilogue_operands_in_metadata():
    """An op-list epilogue's extra operands are kernel arguments after C, each named in
    the metadata with its shape, dtype and broadcast kind."""
    text = """
func.func @f(%a: memref<1x40x32xf16>, %b: memref<1x32x24xf16>, %c: memref<1x40x24xf16>,
             %s: memref<40xf32>, %m: memref<1x40x24xi8>) {
  "accel.gemm"(%a, %b, %c, %s, %m) {arch = "gfx1100", epilogue = "%0 = mul %acc, %e0; %1 = where %e1, %0, 0.0",
      epilogue_operands = ["m", "gmn"]}
      : (memref<1x40x32xf16>, memref<1x32x24xf16>, memref<1x40x24xf16>, memref<40xf32>, memref<1x40x24xi8>) -> ()
  return
}
"""
    (kernel,) = compile_module(text, assembly=False).kernels
    args = kernel.metadata["args"]
    assert [a["name"] for a in args] == ["A", "B", "C", "e0", "e1"]
    assert (args[3]["shape"], args[3]["dtype"], args[3]["broadcast"]) == ([40], "f32", "m")
    assert (args[4]["shape"], args[4]["dtype"], args[4]["broadcast"]) == ([1, 40, 24], "i8", "gmn")
    assert "_ep_mul_where_" in kernel.symbol
