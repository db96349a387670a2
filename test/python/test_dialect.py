"""The accel dialect's Python API: build, read and verify accel.gemm / pack / unpack."""

import pytest

from accel.bindings import func, ir, new_context
from accel.diagnostics import AccelError
from accel.dialect.gemm import GemmOp, GemmShape
from accel.dialect.ir_helpers import collect_ops, memref_info
from accel.dialect.pack import PackOp, UnpackOp
from accel.dialect.verify import module_errors, verify_module
from accel.dialect.perf_config import PerfConfig

CONFIG = "v4:32,32,8,16,16,16,8,1,2,2,0,0,1,1"


def memref(shape, elem="f16"):
    types = {"f16": ir.F16Type.get, "bf16": ir.BF16Type.get, "f32": ir.F32Type.get,
             "i8": lambda: ir.IntegerType.get_signless(8),
             "i32": lambda: ir.IntegerType.get_signless(32)}
    return ir.MemRefType.get(shape, types[elem]())


def build_func(arg_types, body):
    """A module with one func whose body is `body(args)` at the insertion point."""
    module = ir.Module.create()
    with ir.InsertionPoint(module.body):
        f = func.FuncOp("f", ir.FunctionType.get(arg_types, []))
        block = f.add_entry_block()
        with ir.InsertionPoint(block):
            body(block.arguments)
            func.ReturnOp([])
    return module


@pytest.fixture
def ctx():
    with new_context() as c, ir.Location.unknown():
        yield c


def test_gemm_build_and_read(ctx):
    made = {}

    def body(args):
        made["op"] = GemmOp.build(*args, arch="gfx942", b_layout="transposed",
                                  perf_config=PerfConfig.parse(CONFIG), accumulate=True)

    module = build_func([memref([2, 64, 128]), memref([2, 48, 128]), memref([2, 64, 48], "f32")],
                        body)
    verify_module(module)
    op = made["op"]
    assert (op.arch, op.a_layout, op.b_layout, op.c_layout) == ("gfx942", "row", "transposed", "row")
    assert op.accumulate
    assert (op.in_type, op.out_type) == ("f16", "f32")
    assert op.shape() == GemmShape(g=2, m=64, n=48, k=128)
    assert op.perf_config_text == CONFIG
    assert op.perf_config == PerfConfig.parse(CONFIG)
    assert op.block_size is None and op.grid_size is None and op.padded is None
    # The printed form is the generic one, readable by any MLIR tool.
    text = str(module)
    assert '"accel.gemm"(%arg0, %arg1, %arg2) {a_layout = "row", accumulate, arch = "gfx942"' in text
    # ...and it parses back into an op the class reads the same way.
    again = ir.Module.parse(text)
    (gemm,) = collect_ops(again, "accel.gemm")
    assert GemmOp(gemm).shape() == op.shape()


def test_gemm_set_perf_config_and_launch(ctx):
    made = {}
    module = build_func([memref([1, 64, 64]), memref([1, 64, 64]), memref([1, 64, 64], "f32")],
                        lambda a: made.setdefault("op", GemmOp.build(*a, arch="gfx1100")))
    op = made["op"]
    assert op.perf_config is None
    cfg = PerfConfig.parse("v3:32,32,8,16,16,8,1,2,2,1,1", "wmma")
    op.set_perf_config(cfg)
    op.set_launch(block_size=128, grid_size=4, padded=(64, 64, 64))
    assert op.perf_config == cfg
    assert (op.block_size, op.grid_size, op.padded) == (128, 4, (64, 64, 64))
    verify_module(module)


def test_gemm_shape_with_accel_operands(ctx):
    # K=100 packed in blocks of 64 is only known padded (128) when both operands are accel.
    made = {}
    a6, b6 = memref([1, 2, 2, 8, 32, 8]), memref([1, 2, 2, 8, 32, 8])
    module = build_func([a6, b6, memref([1, 64, 48], "f32")], lambda a: made.setdefault(
        "op", GemmOp.build(*a, arch="gfx942", a_layout="accel", b_layout="accel",
                           perf_config=CONFIG)))
    verify_module(module)
    assert made["op"].shape() == GemmShape(1, 64, 48, 128)

    made.clear()
    module = build_func([a6, memref([1, 100, 48]), memref([1, 64, 48], "f32")],
                        lambda a: made.setdefault("op", GemmOp.build(
                            *a, arch="gfx942", a_layout="accel", perf_config=CONFIG)))
    verify_module(module)
    assert made["op"].shape() == GemmShape(1, 64, 48, 100)


def test_pack_unpack_build_and_read(ctx):
    made = {}

    def body(args):
        plain, packed, plain_t = args
        made["pack"] = PackOp.build(plain, packed, transposed=False)
        made["pack_t"] = PackOp.build(plain_t, packed, transposed=True)
        made["unpack"] = UnpackOp.build(packed, plain, transposed=False)

    module = build_func([memref([1, 128, 5120]), memref([1, 4, 80, 8, 32, 8]),
                         memref([1, 5120, 100])], body)
    verify_module(module)
    pack, pack_t, unpack = made["pack"], made["pack_t"], made["unpack"]
    assert not pack.transposed and pack_t.transposed
    assert pack.plain == pack.source and pack.packed == pack.dest
    assert unpack.plain == unpack.dest and unpack.packed == unpack.source
    tile = pack.tile
    assert (tile.d_per_block, tile.kpack_per_block, tile.kpack, tile.k_per_block) == (32, 8, 8, 64)
    assert PackOp.isa(pack.op) and not UnpackOp.isa(pack.op) and UnpackOp.isa(unpack.op)
    assert [o.name for o in collect_ops(module) if o.name.startswith("accel.")] == \
        ["accel.pack", "accel.pack", "accel.unpack"]


def test_memref_info(ctx):
    module = build_func([memref([3, 5, 7], "bf16")], lambda a: None)
    (f,) = collect_ops(module, "func.func")
    arg = f.regions[0].blocks[0].arguments[0]
    assert memref_info(arg) == ([3, 5, 7], "bf16")


SOURCE = """
func.func @f(%a: memref<1x64x32xf16>, %b: memref<1x32x48xf16>, %c: memref<1x64x48xf32>) {
  "accel.gemm"(%a, %b, %c) {arch = "gfx1100"} : (memref<1x64x32xf16>, memref<1x32x48xf16>, memref<1x64x48xf32>) -> ()
  "accel.gemm"(%a, %b, %c) {arch = "gfx7"} : (memref<1x64x32xf16>, memref<1x32x48xf16>, memref<1x64x48xf32>) -> ()
  "accel.gemm"(%a, %b, %c) {arch = "gfx942", perf_config = "v4:1"} : (memref<1x64x32xf16>, memref<1x32x48xf16>, memref<1x64x48xf32>) -> ()
  return
}
"""


def test_verify_errors_are_at_the_op(ctx):
    module = ir.Module.parse(SOURCE)
    errors = module_errors(module)
    assert [e.render("in.mlir") for e in errors] == [
        "in.mlir:4:3: error: unknown arch 'gfx7' (supported: gfx942, gfx1100, gfx1201)",
        "in.mlir:5:3: error: perf config 'v4:1': v4 takes 14 fields, got 1",
    ]
    with pytest.raises(AccelError) as info:
        verify_module(module)
    assert info.value.render("in.mlir") == errors[0].render("in.mlir")


def test_perf_config_property_error_is_at_the_op(ctx):
    module = ir.Module.parse(SOURCE)
    op = GemmOp(collect_ops(module, "accel.gemm")[2])
    with pytest.raises(AccelError) as info:
        op.perf_config
    assert info.value.file_line_col() == ("-", 5, 3)


def test_gemm_class_rejects_other_ops(ctx):
    module = ir.Module.parse(SOURCE)
    (f,) = collect_ops(module, "func.func")
    assert not GemmOp.isa(f)
    with pytest.raises(AccelError, match="expected accel.gemm, got func.func"):
        GemmOp(f)
