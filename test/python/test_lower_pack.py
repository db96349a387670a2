"""accel-lower-pack: the kernels, simulated, agree elementwise with numpy pack/unpack,
and they lower to AMDGPU code."""


import ml_dtypes
import numpy as np
import pytest

from accel.bindings import ir, new_context, passmanager
from accel.dialect.accel_tile import AccelTile, pack, unpack
from accel.dialect.ir_helpers import collect_ops
from accel.passes.lower_pack import LowerPack
from accel.sim import run_kernel
from accel.target.toolchain import ensure_linker

DTYPES = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "i8": np.int8, "f32": np.float32}


def _type(shape, element):
    return f"memref<{'x'.join(map(str, shape))}x{element}>"


def lowered(op_name, plain, packed, element, transposed):
    src, dst = (plain, packed) if op_name == "accel.pack" else (packed, plain)
    text = (f"func.func @f(%src: {_type(src, element)}, %dst: {_type(dst, element)}) {{\n"
            f'  "{op_name}"(%src, %dst) {{transposed = {str(transposed).lower()}}} : '
            f"({_type(src, element)}, {_type(dst, element)}) -> ()\n  return\n}}")
    ctx = new_context()
    with ctx:
        module = ir.Module.parse(text)
        LowerPack().run(module)
        module.operation.verify()
        launch = collect_ops(module, "gpu.launch_func")
        assert len(launch) == 1 and not collect_ops(module, op_name)
        kernel = launch[0].attributes["kernel"]
    return ctx, module, str(kernel).split("::@")[-1]


def _random(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "i":
        return rng.integers(-128, 128, size=shape).astype(dtype)
    return (rng.standard_normal(shape) + 0.5).astype(dtype)


# Ragged D and K against the tile, G > 1, both orientations.
CASES = [((1, 77, 40), AccelTile(32, 4, 4)), ((2, 3, 5), AccelTile(16, 2, 8)),
         ((3, 48, 33), AccelTile(16, 4, 8)), ((1, 64, 64), AccelTile(32, 8, 8))]


@pytest.mark.parametrize("element", list(DTYPES))
@pytest.mark.parametrize("transposed", [False, True])
def test_simulated_pack_and_unpack_match_numpy(element, transposed):
    dtype = DTYPES[element]
    for (g, d, k), tile in CASES:
        plain_shape = (g, k, d) if transposed else (g, d, k)
        packed_shape = tile.shape(g, d, k)
        x = _random(plain_shape, dtype, seed=d * 100 + k)
        ctx, module, name = lowered("accel.pack", plain_shape, packed_shape, element, transposed)
        with ctx:
            # Garbage in the destination: the padding must be written as zeros.
            y = np.full(packed_shape, 7, dtype=dtype)
            run_kernel(module, name, grid=(-(-y.size // 256), 1, 1), block=(256, 1, 1),
                       args=[x, y], arch="gfx942")
        want = pack(x, tile, transposed)
        assert np.array_equal(y.view(np.uint8), want.view(np.uint8)), (plain_shape, tile)

        ctx, module, name = lowered("accel.unpack", plain_shape, packed_shape, element,
                                    transposed)
        with ctx:
            back = np.full(plain_shape, 7, dtype=dtype)
            run_kernel(module, name, grid=(-(-back.size // 256), 1, 1), block=(256, 1, 1),
                       args=[want, back], arch="gfx942")
        assert np.array_equal(back.view(np.uint8), unpack(want, d, k, transposed).view(np.uint8))


def test_identical_ops_share_one_kernel():
    text = """func.func @f(%a: memref<1x5x7xf16>, %p: memref<1x1x1x2x8x4xf16>, %q: memref<1x1x1x2x8x4xf16>) {
  "accel.pack"(%a, %p) {transposed = false} : (memref<1x5x7xf16>, memref<1x1x1x2x8x4xf16>) -> ()
  "accel.pack"(%a, %q) {transposed = false} : (memref<1x5x7xf16>, memref<1x1x1x2x8x4xf16>) -> ()
  return
}"""
    with new_context():
        module = ir.Module.parse(text)
        LowerPack().run(module)
        assert len(collect_ops(module, "gpu.module")) == 1
        assert len(collect_ops(module, "gpu.launch_func")) == 2
        assert "gpu.container_module" in module.operation.attributes


@pytest.mark.parametrize("chip", ["gfx942", "gfx1100", "gfx1201"])
@pytest.mark.parametrize("element,op_name", [("f16", "accel.pack"), ("i8", "accel.unpack"),
                                             ("bf16", "accel.pack")])
def test_lowers_to_isa(chip, element, op_name):
    ensure_linker()
    ctx, module, name = lowered(op_name, (2, 40, 77), AccelTile(32, 4, 4).shape(2, 77, 40),
                                element, transposed=True)
    with ctx:
        pm = passmanager.PassManager.parse(
            f"builtin.module(gpu.module(convert-amdgpu-to-rocdl{{chipset={chip}}}, "
            f"convert-gpu-to-rocdl{{use-bare-ptr-memref-call-conv=true}}), "
            f"rocdl-attach-target{{chip={chip}}}, "
            f"gpu-to-llvm{{use-bare-pointers-for-kernels=true}}, "
            f"gpu-module-to-binary{{format=isa}})")
        pm.run(module.operation)
        text = str(module)
    assert name in text and "buffer_load" in text and "buffer_store" in text
