"""MIGraphX text -> generic MLIR: detection, locations, and errors."""

import pathlib

import pytest

from accel.bindings import ir, new_context
from accel.diagnostics import AccelError
from accel.migraphx import looks_like_migraphx, translate

INPUTS = pathlib.Path(__file__).parents[1] / "lit" / "from-migraphx" / "Inputs"


@pytest.mark.parametrize("name", ["seed001_gemm.mlir", "seed001_accel_output.mlir"])
def test_seed_modules_translate_and_parse(name):
    text = (INPUTS / name).read_text().replace("##TOKEN_ARCH##", "gfx942")
    assert looks_like_migraphx(text)
    out = translate(text, name)
    assert not looks_like_migraphx(out)  # our output is never re-translated
    with new_context():
        module = ir.Module.parse(out)
        ops = [op for op in module.body.operations[0].regions[0].blocks[0].operations]
    assert ops[-1].name == "func.return"
    dot = next(op for op in ops if op.name == "migraphx.dot")
    assert str(dot.location) == f'loc("{name}":8:5)'
    assert dot.attributes["perf_config"].value == "v3:32,32,8,16,16,8,1,2,2,1,1"


def test_generic_mlir_is_not_migraphx():
    assert not looks_like_migraphx('"migraphx.dot"(%a, %b) : (!migraphx.shaped<2x2xf16>) -> ()')
    assert not looks_like_migraphx("// migraphx.dot in a comment\nfunc.func @f() { return }")


def test_literal_and_convert_forms():
    text = """func.func @f(%a: !migraphx.shaped<4xf32, 1>) -> !migraphx.shaped<4xf16, 1> {
  %c = migraphx.literal (dense<[1, 2]> : tensor<2xsi32>) : <2xsi32, 1>
  %0 = migraphx.convert %a {target_type = 1 : i64} : <4xf32, 1> to <4xf16, 1>
  return %0 : !migraphx.shaped<4xf16, 1>
}"""
    out = translate(text, "t.mlir")
    assert '"migraphx.literal"() {value = dense<[1, 2]> : tensor<2xsi32>}' in out
    assert '"migraphx.convert"(%a) {target_type = 1 : i64}' in out
    with new_context():
        ir.Module.parse(out)


@pytest.mark.parametrize("text,where,message", [
    ("func.func @f() -> !migraphx.shaped<2xf16, 1> {\n  return %x : !migraphx.shaped<2xf16, 1>\n}",
     (2, 10), "use of undefined value '%x'"),
    ("func.func @f(%a: !migraphx.shaped<2xf16, 1>) -> !migraphx.shaped<2xf16, 1> {\n"
     "  %0 = migraphx.relu %a : <2xf16, 1> -> <2xf16, 1>\n  %0 = migraphx.relu %a : <2xf16, 1> -> <2xf16, 1>\n"
     "  return %0 : !migraphx.shaped<2xf16, 1>\n}", (3, 3), "redefinition of SSA value '%0'"),
    ("func.func @f(%a: !migraphx.shaped<2xq16, 1>", (1, 44), "unexpected end of input"),
    ("func.func @f(%a: !migraphx.shaped<2xf16, 1>) -> !migraphx.shaped<2xf16, 1> {\n"
     "  %0 = foo.relu %a : <2xf16, 1> -> <2xf16, 1>\n  return %0 : !migraphx.shaped<2xf16, 1>\n}",
     (2, 8), "expected a 'migraphx.' op, got 'foo.relu'"),
])
def test_errors_carry_file_line_col(text, where, message):
    with pytest.raises(AccelError) as info:
        translate(text, "bad.mlir")
    assert info.value.file_line_col() == ("bad.mlir", *where)
    assert message in info.value.message
