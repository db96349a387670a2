"""Shared CLI helpers and accel-opt's pieces that lit reaches only indirectly."""

import os

import pytest

from accel.bindings import ir, new_context
from accel.diagnostics import AccelError
from accel.tools import diagnostic_verifier as dv
from accel.tools.accel_opt import split_chunks
from accel.tools.cli_common import (
    errors_in, read_input, run_cli, write_output_atomic,
)


# ---- output -------------------------------------------------------------------------
def test_write_output_atomic_text_and_bytes(tmp_path):
    out = tmp_path / "out.mlir"
    write_output_atomic(str(out), "module {}\n")
    assert out.read_text() == "module {}\n"
    write_output_atomic(str(out), b"\x7fELF")
    assert out.read_bytes() == b"\x7fELF"
    umask = os.umask(0)
    os.umask(umask)
    assert out.stat().st_mode & 0o777 == 0o666 & ~umask
    assert os.listdir(tmp_path) == ["out.mlir"]


def test_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path, monkeypatch):
    out = tmp_path / "out.mlir"
    out.write_text("old\n")

    def full_disk(*_):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full_disk)
    with pytest.raises(AccelError, match="cannot write output file .*No space left"):
        write_output_atomic(str(out), "new\n")
    assert out.read_text() == "old\n"
    assert os.listdir(tmp_path) == ["out.mlir"]


def test_write_into_missing_directory(tmp_path):
    with pytest.raises(AccelError, match="cannot write output file"):
        write_output_atomic(str(tmp_path / "no" / "out.mlir"), "x")


def test_read_input(tmp_path):
    f = tmp_path / "in.mlir"
    f.write_text("abc")
    assert read_input(str(f)) == ("abc", str(f))
    with pytest.raises(AccelError, match="cannot open input file '.*nothere.mlir': No such file"):
        read_input(str(tmp_path / "nothere.mlir"))


# ---- errors -----------------------------------------------------------------------------
def test_run_cli_renders_errors(capsys):
    def located(argv):
        raise AccelError("bad thing", ("in.mlir", 3, 7))

    def unlocated(argv):
        raise AccelError("bad option")

    def interrupted(argv):
        raise KeyboardInterrupt

    assert run_cli(lambda argv: 0) == 0
    assert run_cli(located, prog="tool") == 1
    assert capsys.readouterr().err == "in.mlir:3:7: error: bad thing\n"
    assert run_cli(unlocated, prog="tool") == 1
    assert capsys.readouterr().err == "tool: error: bad option\n"
    assert run_cli(interrupted, prog="tool") == 130
    assert capsys.readouterr().err == "tool: interrupted\n"


def test_parse_errors_name_the_file():
    with new_context() as ctx:
        with pytest.raises(AccelError) as info:
            with errors_in("model.mlir"):
                ir.Module.parse("func.func @f() {\n  return %x : i32\n}\n", ctx)
    assert info.value.render() == "model.mlir:2:10: error: use of undeclared SSA value name"


def test_run_cli_renders_an_escaped_mlir_error(capsys):
    def parse_bad(argv):
        with new_context():
            ir.Module.parse("func.func @f(")
    assert run_cli(parse_bad) == 1
    assert capsys.readouterr().err == "-:1:13: error: expected non-function type\n"


# ---- --split-input-file ---------------------------------------------------------------------
def test_split_chunks_keeps_line_numbers():
    text = "a\nb\n// -----\nc\n// ----- trailing words\nd\n"
    assert split_chunks(text) == [(0, "a\nb"), (3, "c"), (5, "d\n")]
    assert split_chunks("x") == [(0, "x")]


# ---- --verify-diagnostics ------------------------------------------------------------------
BUFFER = """\
op1 // expected-error {{same line}}
// expected-warning@+2 {{two down}}
// expected-note@below {{next plain line}}
op4
op5 // expected-remark@-1 {{one up}}
// expected-error@above {{previous plain line}}
// expected-error@unknown {{nowhere}}
// expected-error-re@+1 {{value {{[0-9]+}} is {{(odd|even)}}}}
op9
"""


def test_expectation_targets():
    got = [(e.severity, e.line, e.text) for e in dv.parse_expectations(BUFFER, "f.mlir")]
    assert got == [
        ("error", 1, "same line"),
        ("warning", 4, "two down"),
        ("note", 4, "next plain line"),
        ("remark", 4, "one up"),
        ("error", 4, "previous plain line"),  # line 5 holds a designator, so 4
        ("error", None, "nowhere"),
        ("error", 9, "value {{[0-9]+}} is {{(odd|even)}}"),
    ]


def test_check_matches_each_expectation_once():
    produced = [
        dv.Diagnostic("error", "it is the same line", "f.mlir", 1, 1),
        dv.Diagnostic("warning", "two down", "f.mlir", 4, 1),
        dv.Diagnostic("note", "the next plain line", "f.mlir", 4, 1),
        dv.Diagnostic("remark", "one up", "f.mlir", 4, 1),
        dv.Diagnostic("error", "previous plain line", "f.mlir", 4, 1),
        dv.Diagnostic("error", "nowhere"),
        dv.Diagnostic("error", "value 42 is even", "f.mlir", 9, 1),
    ]
    assert dv.check(dv.parse_expectations(BUFFER, "f.mlir"), produced, "f.mlir") == []


def test_check_reports_unexpected_and_missing():
    expected = dv.parse_expectations(BUFFER, "f.mlir")
    produced = [
        dv.Diagnostic("error", "same line", "f.mlir", 1, 5),
        dv.Diagnostic("error", "same line", "f.mlir", 1, 5),     # a second one: unexpected
        dv.Diagnostic("warning", "two down", "f.mlir", 3, 1),    # wrong line
        dv.Diagnostic("error", "value x is even", "f.mlir", 9, 1),  # regex does not match
    ]
    problems = dv.check(expected, produced, "f.mlir")
    assert problems[:3] == [
        "f.mlir:1:5: error: unexpected error: same line",
        "f.mlir:3:1: error: unexpected warning: two down",
        "f.mlir:9:1: error: unexpected error: value x is even",
    ]
    assert 'f.mlir:2:4: error: expected warning "two down" was not produced' in problems
    assert len(problems) == 3 + 6


def test_dangling_below_is_an_error():
    with pytest.raises(AccelError, match="expected-error@below has no line below it"):
        dv.parse_expectations("x\n// expected-error@below {{m}}", "f.mlir")
