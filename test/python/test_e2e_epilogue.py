"""Fused bias/relu epilogues end to end through check_gemm: the pass pipeline, the
host function in the simulator, and the shared reference (check.py) with its bias and
relu, elementwise on every arch and input type."""

from __future__ import annotations

import numpy as np
import pytest

from accel.check import check_gemm, reference
from accel.diagnostics import AccelError

ARCHES = ("gfx942", "gfx1100", "gfx1201")


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("in_type,epilogue,batched", [("f16", "bias_relu", True),
                                                     ("bf16", "bias", False),
                                                     ("i8", "relu", False),
                                                     ("i8", "bias_relu", False)])
def test_check_gemm_with_fused_epilogue(arch, in_type, epilogue, batched):
    r = check_gemm(arch, g=2, m=33, n=20, k=40, in_type=in_type, epilogue=epilogue,
                   batched_bias=batched, seed=5)
    assert r.comparison.ok, r.comparison.describe(r.got, r.ref)
    assert len(r.launches) == 1, "the epilogue runs inside the GEMM kernel"
    if "relu" in epilogue:
        assert (r.got == 0).any() and (r.got > 0).any()


def test_reference_applies_bias_per_batch_then_relu():
    a = np.ones((2, 1, 1), np.float16)
    b = np.full((2, 1, 2), -1.0, np.float16)
    bias = np.array([[0.5, 3.0], [2.0, 0.25]], np.float32)
    ref, _ = reference(a, b, "f16", "f32", bias=bias, relu=True)
    assert ref.tolist() == [[[0.0, 2.0]], [[1.0, 0.0]]]
    ref, _ = reference(a, b, "f16", "f32", bias=bias[0])
    assert ref.tolist() == [[[-0.5, 2.0]], [[-0.5, 2.0]]]


def test_unknown_epilogue_is_refused():
    with pytest.raises(AccelError, match="epilogue must be one of"):
        check_gemm("gfx942", m=16, n=16, k=16, epilogue="gelu")
