"""Argument checks at the public entry points (validate.py): every integral type is a
Python int past the boundary, bools are bools, strings strings, and anything else is
one AccelError line naming the argument. The cases are issue 19's reproductions."""

from __future__ import annotations

import decimal
import fractions
import json
import warnings

import numpy as np
import pytest

import accel
from accel import validate
from accel.api import gemm_module_text
from accel.diagnostics import AccelError
from accel.dialect.gemm import GemmShape
from accel.dialect.perf_config import PerfConfig
from accel.target.database import get_arch
from accel.tuning.selection import select
from accel.tuning.validity import check_config

from test_robustness import assert_one_error, run_main

CONFIG = "v4:32,32,4,16,16,16,8,1,1,2,0,0,1,1"
GFX942 = get_arch("gfx942")


@pytest.fixture(autouse=True)
def no_warnings():
    # np.int32 products used to overflow with RuntimeWarnings on stderr.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


# ---- the helpers ---------------------------------------------------------------------
@pytest.mark.parametrize("value", [np.int8(7), np.uint64(7), np.int32(7), 7])
def test_integers_of_any_integral_type_become_python_ints(value):
    v = validate.integer("x", value)
    assert type(v) is int and v == 7


@pytest.mark.parametrize("value", [True, np.bool_(True), 7.0, "7", None, [7],
                                   np.array([7]), fractions.Fraction(7), decimal.Decimal(7)])
def test_non_integers_are_refused_by_name(value):
    with pytest.raises(AccelError, match=r"^error: x must be an integer, got "):
        validate.integer("x", value)


def test_huge_integers_are_shown_by_size():
    with pytest.raises(AccelError, match=r"got an integer of 16610 bits"):
        validate.integer("x", 10**5000, maximum=10)


@pytest.mark.parametrize("value, ok", [(True, True), (np.bool_(False), True), (1, False),
                                       (1.0, False), ("yes", False), (np.array([1, 0]), False)])
def test_bools_are_bools(value, ok):
    if ok:
        assert type(validate.boolean("b", value)) is bool
    else:
        with pytest.raises(AccelError, match="^error: b must be a bool"):
            validate.boolean("b", value)


def test_strings_are_strings():
    assert type(validate.string("s", np.str_("f16"))) is str
    with pytest.raises(AccelError, match="s must be a string, got list"):
        validate.string("s", ["f16"])
    with pytest.raises(AccelError, match="s must be one of row, accel, got 'col'"):
        validate.string("s", "col", ("row", "accel"))


# ---- the selection API -----------------------------------------------------------------
def test_numpy_extents_select_like_python_ints():
    arch = get_arch("gfx1100")
    plain = select(arch, "f16", "f16", GemmShape(1, 4096, 1280, 5120))
    wide = select(arch, "f16", "f16", GemmShape(1, np.int32(4096), np.int32(1280),
                                                np.int32(5120)))
    assert str(wide.best) == str(plain.best)
    assert json.loads(select(GFX942, "f16", "f16",
                             GemmShape(1, np.int64(96), 64, 64)).to_json())["shape"]["m"] == 96
    assert select(GFX942, "f16", "f16", GemmShape(1, np.uint16(96), 64, 64)).best


def test_numpy_extents_cannot_slip_past_the_operand_limit():
    with pytest.raises(AccelError, match="C is 8589934592 bytes"):
        select(GFX942, "f16", "f16", GemmShape(1, np.int32(65536), np.int32(65536),
                                               np.int32(1024)))


@pytest.mark.parametrize("call, message", [
    (lambda: select("gfx942", "f16", "f16", GemmShape(1, 96, 64, 64)),
     "arch must be an ArchInfo (accel.target.database.get_arch), got str"),
    (lambda: select(GFX942, ["f16"], "f16", GemmShape(1, 96, 64, 64)),
     "in_type must be a string, got list"),
    (lambda: select(GFX942, "f16", "f16", (1, 96, 64, 64)), "shape must be a GemmShape"),
    (lambda: select(GFX942, "f16", "f16", GemmShape(1, 96, 64, 64), double_buffer_default=1),
     "double_buffer_default must be a bool"),
    (lambda: check_config("gfx942", "f16", GemmShape(1, 96, 64, 64), PerfConfig.parse(CONFIG)),
     "arch must be an ArchInfo"),
    (lambda: check_config(GFX942, "f16", GemmShape(1, 96, 64, 64), CONFIG),
     "config must be a PerfConfig, got str"),
    (lambda: GemmShape(1, None, 64, 64), "GemmShape m must be an integer in [0, 2**63), got None"),
    (lambda: GemmShape(1, [96], 64, 64), "GemmShape m must be an integer"),
    (lambda: GemmShape(1, fractions.Fraction(96), 64, 64), "GemmShape m must be an integer"),
    (lambda: GemmShape(1, decimal.Decimal(96), 64, 64), "GemmShape m must be an integer"),
    (lambda: GemmShape(1, 2**64, 64, 64), "GemmShape m must be an integer in [0, 2**63)"),
    (lambda: get_arch(["gfx942"]), "unknown arch '['gfx942']'"),
    (lambda: get_arch("gfx942", "64"), "cu_count must be an integer, got '64'"),
    (lambda: PerfConfig(32, 32, 4, 16, 16, 16, np.float32(8)),
     "PerfConfig kpack must be an integer in [1, 2147483647]"),
    (lambda: PerfConfig(32, 32, 4, 16, 16, 16, 0), "PerfConfig kpack must be an integer in [1,"),
])
def test_selection_api_names_the_bad_argument(call, message):
    with pytest.raises(AccelError) as info:
        call()
    assert message in str(info.value) and "\n" not in str(info.value)


def test_a_perf_config_of_numpy_ints_is_plain():
    cfg = PerfConfig(*(np.int64(v) for v in (32, 32, 4, 16, 16, 16, 8)))
    assert str(cfg) == "v4:32,32,4,16,16,16,8,1,1,2,0,0,1,1"
    assert all(type(getattr(cfg, f)) is int for f in ("m_per_block", "kpack"))


# ---- the compile API -------------------------------------------------------------------
TEXT = gemm_module_text("gfx942", g=1, m=64, n=48, k=32, in_type="f16", out_type=None,
                        trans_a=False, trans_b=False, a_layout="row", b_layout="row",
                        perf_config=None, accumulate=False)


@pytest.mark.parametrize("call, message", [
    (lambda: accel.compile_gemm(["gfx942"], m=64, n=64, k=64), "arch must be a string, got list"),
    (lambda: accel.compile_gemm("gfx942", m=64, n=64, k=64, in_type=["f16"]),
     "in_type must be a string, got list"),
    (lambda: accel.compile_module(TEXT, ["x"]), "arch must be a string, got list"),
    (lambda: accel.compile_module(TEXT, 0), "arch must be a string, got int"),
    (lambda: accel.compile_module(TEXT, "gfx7"), "unknown arch 'gfx7'"),
    (lambda: accel.compile_module(TEXT, assembly="no"), "assembly must be a bool"),
    (lambda: accel.compile_gemm("gfx942", m=64, n=64, k=64, trans_a=np.array([1, 0])),
     "trans_a must be a bool, got array([1, 0])"),
    (lambda: accel.compile_gemm("gfx942", m=64, n=64, k=64, trans_a=1.0),
     "trans_a must be a bool, got 1.0"),
    (lambda: accel.compile_gemm("gfx942", m=2**64, n=64, k=64, perf_config=CONFIG),
     "m is 18446744073709551616, too large for 32-bit buffer offsets"),
    (lambda: accel.compile_gemm("gfx942", m=64, n=64, k=64, epilogue=["bias"]),
     "epilogue must be a string, got list"),
    (lambda: accel.compile_gemm("gfx942", m=64, n=64, k=64, out_type=np.float32),
     "out_type must be a string, got type"),
    (lambda: PerfConfig.parse("v4:" + "1" * 5000 + CONFIG[5:]),
     "field 0 (m_per_block) is out of range (at most 2147483647)"),
    (lambda: PerfConfig.parse(CONFIG, ["mfma"]), "mma_kind must be a string, got list"),
])
def test_compile_api_names_the_bad_argument(call, message):
    with pytest.raises(AccelError) as info:
        call()
    text = str(info.value)
    assert message in text and "\n" not in text and len(text) < 300


def test_numpy_arguments_compile_like_python_ones():
    plain = accel.compile_gemm("gfx942", m=64, n=48, k=32, assembly=False)
    wide = accel.compile_gemm(np.str_("gfx942"), g=np.int64(1), m=np.int32(64), n=np.uint16(48),
                              k=np.int8(32), in_type=np.str_("f16"), trans_a=np.bool_(False),
                              assembly=np.bool_(False))
    assert wide.kernels[0].code_object == plain.kernels[0].code_object
    assert json.dumps(wide.metadata()) == json.dumps(plain.metadata())


@pytest.mark.parametrize("tool, argv", [
    ("accel-compile", ["--arch", "gfx942", "-m", "64", "-n", "64", "-k", "64",
                       "--perf-config", "v4:" + "1" * 5000 + CONFIG[5:]]),
    ("accel-select", ["--arch", "gfx942", "-m", "64", "-n", "64", "-k", "64",
                      "--check", "v4:" + "1" * 5000 + CONFIG[5:]]),
    ("accel-run", ["gemm", "--arch", "gfx942", "-m", "64", "-n", "64", "-k", "64",
                   "--perf-config", "v4:" + "1" * 5000 + CONFIG[5:]]),
])
def test_a_4300_digit_perf_config_field_is_one_line_in_every_tool(tool, argv):
    rc, err, _ = run_main(tool, argv)
    assert "is out of range" in assert_one_error(rc, err)
