"""A seeded few hundred random and wrongly typed calls to every public entry point
(benchmarks/fuzz_api.py; the script runs thousands): only one-line AccelErrors escape,
and numpy integers give the answers Python ints give."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "fuzz_api.py"
_spec = importlib.util.spec_from_file_location("fuzz_api", SCRIPT)
fuzz_api = importlib.util.module_from_spec(_spec)
sys.modules["fuzz_api"] = fuzz_api   # its dataclasses look their module up there
_spec.loader.exec_module(fuzz_api)

ENTRIES = {"compile_gemm", "gemm_module_text", "compile_module", "PerfConfig.parse",
           "PerfConfig", "GemmShape", "select", "check_config", "get_arch", "AccelTile",
           "pack", "unpack"}


@pytest.mark.parametrize("seed", [0, 1])
def test_random_calls_raise_only_accel_errors(seed):
    summary = fuzz_api.fuzz(calls=200, seed=seed, compile_share=0.04)
    assert not summary.failures, fuzz_api.report(summary, 0.0)
    assert sum(summary.calls.values()) == 200
    # Both outcomes are exercised: calls that work and calls that are refused.
    assert sum(summary.returned.values()) > 20 and sum(summary.refused.values()) > 100


def test_every_entry_point_is_reached():
    import random
    rng = random.Random(0)
    seen = {fuzz_api.random_call(rng, 0.04).entry for _ in range(1500)}
    assert seen == ENTRIES


def test_the_harness_catches_what_it_looks_for():
    def leaky(x):
        raise TypeError("unhashable type: 'list'")

    def too_long(x):
        raise fuzz_api.AccelError("x" * 1000)   # one line, but unreadably long

    def wrong_answer(x):
        return 3

    summary = fuzz_api.Summary()
    for fn in (leaky, too_long, wrong_answer):
        fuzz_api.run_one(fuzz_api.Call(fn.__name__, fn, ([1],), {},
                                       lambda r: r == 4 or fuzz_api._fail("not 4")), summary)
    kinds = sorted(what.split(":")[0] for (_, what) in summary.failures)
    assert kinds == ["AccelError not one short line", "TypeError", "wrong result"]
