"""Fused epilogue chains from MIGraphX IR, end to end in the simulator, against numpy.

Each case is a dot followed by an elementwise chain (the ops MIGraphX fuses into GEMM
kernels: scales, biases of every broadcast kind, literals, masks, transcendental gates,
converts) on ragged shapes. accel-from-migraphx must make it ONE kernel with nothing left
on the host; the kernel runs in the simulator on every chip and is compared elementwise
with the same chain applied by numpy in float64.

The operands are small integers (f16 holds them exactly, and K * 3 * 3 < 2^11), so the
product is exact in the f32 accumulator and the comparisons of `greater` and `where`
see the same values as the reference; what remains is f32 arithmetic in the chain
(exp within a few ulp, erf by Abramowitz-Stegun to 1.5e-7, see codegen/epilogue.py) and
the final rounding to C's type.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from accel.bindings import ir, new_context
from accel.dialect.ir_helpers import collect_ops
from accel.migraphx import translate
from accel.pipelines.textual import run_pipeline
from accel.sim import run_host

PIPELINE = ("accel-from-migraphx, accel-affix-perf-config, accel-layout, accel-lower-pack, "
            "accel-plan-kernel, accel-gemm-to-gpu, accel-copy-to-gpu")
ARCHES = ("gfx942", "gfx1100", "gfx1201")
G, M, N, K = 2, 37, 21, 40
NP = {"f16": np.float16, "f32": np.float32, "si8": np.int8, "si32": np.int32}


def strides(dims):
    out, s = [], 1
    for d in reversed(dims):
        out.append(s)
        s *= d
    return out[::-1]


def ty(dims, elem, st=None, bang=False):
    st = strides(dims) if st is None else st
    return (("!migraphx.shaped" if bang else "")
            + f"<{'x'.join(map(str, dims))}x{elem}, {'x'.join(map(str, st))}>")


class Chain:
    """Writes a MIGraphX function `dot -> ops` and applies the same ops with numpy."""

    def __init__(self, in_elem: str, acc_elem: str):
        self.in_elem, self.acc = in_elem, acc_elem
        self.args = [("a", [G, M, K], in_elem), ("b", [G, K, N], in_elem)]
        self.lines = [f"%x0 = migraphx.dot %a, %b : {ty([G, M, K], in_elem)}, "
                      f"{ty([G, K, N], in_elem)} -> {ty([G, M, N], acc_elem)}"]
        self.out = [G, M, N]
        self.value, self.elem, self.count = "%x0", acc_elem, 0
        self.numpy_ops = []

    def _fresh(self):
        self.count += 1
        return f"%x{self.count}"

    def arg(self, name, dims, elem):
        """A function argument broadcast to the output (dims right-aligned, 1 = repeat)."""
        self.args.append((name, dims, elem))
        if list(dims) == self.out:
            return f"%{name}", ty(self.out, elem)
        v = self._fresh()
        bst = [0 if d == 1 else s for d, s in zip(dims, strides(dims))]
        bst = [0] * (3 - len(dims)) + bst
        self.lines.append(f"{v} = migraphx.multibroadcast %{name} {{out_dyn_dims = [], "
                          f"out_lens = [{G}, {M}, {N}]}} : {ty(dims, elem)} -> "
                          f"{ty(self.out, elem, bst)}")
        return v, ty(self.out, elem, bst)

    def literal(self, value, elem):
        v, b = self._fresh(), self._fresh()
        self.lines.append(f"{v} = migraphx.literal(dense<{value}> : tensor<1x{elem}>) "
                          f": <1x{elem}, 1>")
        self.lines.append(f"{b} = migraphx.multibroadcast {v} {{out_dyn_dims = [], out_lens = "
                          f"[{G}, {M}, {N}]}} : <1x{elem}, 1> -> {ty(self.out, elem, [0, 0, 0])}")
        return b, ty(self.out, elem, [0, 0, 0])

    def op(self, name, *operands, fn, out_elem=None):
        """Apply migraphx.`name` to the chain value and `operands` ((ssa, type) pairs or
        "chain"); `fn(x, *numpy operands)` is its numpy meaning."""
        out_elem = out_elem or self.elem
        ins = [(self.value, ty(self.out, self.elem))] + [o for o in operands]
        if name == "where":   # the mask first
            ins = [operands[0], (self.value, ty(self.out, self.elem))] + list(operands[1:])
        v = self._fresh()
        word = " to " if name == "convert" else " -> "
        self.lines.append(f"{v} = migraphx.{name} {', '.join(s for s, _ in ins)} : "
                          f"{', '.join(t for _, t in ins)}{word}{ty(self.out, out_elem)}")
        self.numpy_ops.append((fn, [s for s, _ in operands], name == "where"))
        self.value, self.elem = v, out_elem

    def text(self, arch):
        sig = ", ".join(f"%{n}: {ty(d, e, bang=True)}" for n, d, e in self.args)
        body = "\n    ".join(self.lines)
        return (f"func.func @chain({sig}) -> {ty(self.out, self.elem, bang=True)} attributes "
                f'{{rock.arch = "{arch}"}} {{\n    {body}\n    return {self.value} : '
                f"{ty(self.out, self.elem, bang=True)}\n}}\n")


def run(chain: Chain, inputs: dict, arch: str) -> np.ndarray:
    with new_context():
        # The kernel also becomes a code object (every op of the chain lowers on the chip).
        module = ir.Module.parse(translate(chain.text(arch), "chain.mlir"))
        run_pipeline(module, f"accel-from-migraphx, accel-kernel-pipeline{{arch={arch}}}")
        assert [op.name for op in module.body.operations].count("gpu.binary") == 1
    with new_context():
        module = ir.Module.parse(translate(chain.text(arch), "chain.mlir"))
        run_pipeline(module, PIPELINE)
        assert "linalg.generic" not in str(module), "the whole chain fuses"
        assert len(collect_ops(module, "gpu.launch_func")) == 1
        out = np.full(chain.out, -7, dtype=NP[chain.elem])
        args = [np.ascontiguousarray(inputs[n]) for n, _, _ in chain.args] + [out]
        run_host(module, "chain", args, arch=arch)
    return out


def small_ints(rng, shape, elem, lo=-3, hi=4):
    return rng.integers(lo, hi, size=shape).astype(NP[elem])


ERF = np.vectorize(math.erf)


def case_gate(rng):
    """f16: per-row scale, scalar literal, sigmoid, a convert inside the chain, where
    over an si8 mask with a full f32 tensor, the result in f16."""
    c = Chain("f16", "f32")
    scale = c.arg("scale", [M, 1], "f32")
    c.op("mul", scale, fn=lambda x, s: x * s)
    half = c.literal("0.25", "f32")
    c.op("sub", half, fn=lambda x, h: x - h)
    c.op("sigmoid", fn=lambda x: 1 / (1 + np.exp(-x)))
    c.op("convert", fn=lambda x: x.astype(np.float16).astype(np.float64), out_elem="f16")
    c.op("convert", fn=lambda x: x, out_elem="f32")
    mask = c.arg("mask", [G, M, N], "si8")
    other = c.arg("other", [G, M, N], "f32")
    c.op("where", mask, other, fn=lambda x, m, o: np.where(m != 0, x, o))
    c.op("convert", fn=lambda x: x, out_elem="f16")
    inputs = {"scale": rng.uniform(0.01, 0.05, (M, 1)).astype(np.float32),
              "mask": rng.integers(0, 2, (G, M, N)).astype(np.int8),
              "other": rng.uniform(-1, 1, (G, M, N)).astype(np.float32)}
    return c, inputs


def case_transcendental(rng, in_elem="f16"):
    """tanh, a [N] bias, erf, a [G, 1, N] divisor, clip by scalars, neg."""
    c = Chain(in_elem, "f32")
    s = c.literal("0.02", "f32")
    c.op("mul", s, fn=lambda x, v: x * v)
    c.op("tanh", fn=np.tanh)
    bias = c.arg("bias", [N], "f32")
    c.op("add", bias, fn=lambda x, b: x + b)
    c.op("erf", fn=ERF)
    div = c.arg("div", [G, 1, N], "f32")
    c.op("div", div, fn=lambda x, d: x / d)
    lo, hi = c.literal("-0.5", "f32"), c.literal("0.75", "f32")
    c.op("clip", lo, hi, fn=lambda x, a, b: np.minimum(np.maximum(x, a), b))
    c.op("neg", fn=lambda x: -x)
    inputs = {"bias": rng.uniform(-1, 1, (N,)).astype(np.float32),
              "div": rng.uniform(0.5, 2, (G, 1, N)).astype(np.float32)}
    return c, inputs


def case_exp_greater(rng):
    """f16 -> f32: exp, greater against a full tensor (1/0), mul, relu."""
    c = Chain("f16", "f32")
    s = c.literal("0.01", "f32")
    c.op("mul", s, fn=lambda x, v: x * v)
    c.op("exp", fn=np.exp)
    t = c.arg("t", [G, M, N], "f32")
    c.op("greater", t, fn=lambda x, v: (x > v).astype(np.float64))
    w = c.arg("w", [G, M, N], "f32")
    c.op("mul", w, fn=lambda x, v: x * v)
    c.op("relu", fn=lambda x: np.maximum(x, 0))
    # Thresholds away from exp's values at integer products / 100 (no ties).
    inputs = {"t": (np.exp(rng.integers(-30, 30, (G, M, N)) / 100.0 + 0.005)).astype(np.float32),
              "w": rng.uniform(-1, 1, (G, M, N)).astype(np.float32)}
    return c, inputs


def case_f32_to_f16(rng):
    """f32 inputs written as f16 (MIGraphX's dot_convert): the convert is C's type."""
    c = Chain("f32", "f32")
    s = c.literal("0.125", "f32")
    c.op("mul", s, fn=lambda x, v: x * v)
    c.op("convert", fn=lambda x: x, out_elem="f16")
    return c, {}


def case_int(rng):
    """i8 -> i32, exact: per-row i32 scale, [N] bias, clip by literals, relu."""
    c = Chain("si8", "si32")
    scale = c.arg("scale", [G, M, 1], "si32")
    c.op("mul", scale, fn=lambda x, s: x * s)
    bias = c.arg("bias", [N], "si32")
    c.op("sub", bias, fn=lambda x, b: x - b)
    lo, hi = c.literal("-50", "si32"), c.literal("400", "si32")
    c.op("clip", lo, hi, fn=lambda x, a, b: np.minimum(np.maximum(x, a), b))
    c.op("relu", fn=lambda x: np.maximum(x, 0))
    inputs = {"scale": rng.integers(-3, 4, (G, M, 1)).astype(np.int32),
              "bias": rng.integers(-20, 20, (N,)).astype(np.int32)}
    return c, inputs


def reference(c: Chain, inputs: dict, a, b) -> np.ndarray:
    x = a.astype(np.float64) @ b.astype(np.float64)
    consts = {}
    for line in c.lines:   # the literals' values, by the SSA name of their broadcast
        if "migraphx.literal" in line:
            name, value = line.split(" = ")[0], float(line.split("dense<")[1].split(">")[0])
            consts[name] = value
        if "multibroadcast %x" in line:
            src = line.split("multibroadcast ")[1].split(" ")[0]
            consts[line.split(" = ")[0]] = consts[src]
    for fn, names, _ in c.numpy_ops:
        vals = []
        for nm in names:
            if nm in consts:
                vals.append(consts[nm])
            else:
                arg = nm.lstrip("%")
                if arg in inputs:
                    vals.append(inputs[arg].astype(np.float64))
                else:   # a multibroadcast of an argument: find its source
                    line = next(ln for ln in c.lines if ln.startswith(nm + " ="))
                    src = line.split("multibroadcast %")[1].split(" ")[0]
                    vals.append(np.broadcast_to(inputs[src].astype(np.float64), c.out))
        x = fn(x, *vals)
    return x


CASES = {"gate": case_gate, "transcendental": case_transcendental,
         "transcendental_f32": lambda rng: case_transcendental(rng, "f32"),
         "exp_greater": case_exp_greater, "int": case_int, "f32_to_f16": case_f32_to_f16}


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("case", sorted(CASES))
def test_fused_chain_matches_numpy(case, arch):
    rng = np.random.default_rng(sorted(CASES).index(case))
    c, inputs = CASES[case](rng)
    if c.in_elem == "f32" and arch != "gfx942":
        pytest.skip("f32 GEMMs have no WMMA instruction on gfx11/gfx12")
    a = small_ints(rng, (G, M, K), c.in_elem)
    b = small_ints(rng, (G, K, N), c.in_elem)
    inputs.update(a=a, b=b)
    got = run(c, inputs, arch)
    want = reference(c, inputs, a, b)
    if c.elem == "si32":
        assert (got == want).all(), np.argwhere(got != want)[:5]
        assert (got == 0).any() and (got > 0).any()
        return
    tol = 2e-6 * (1 + np.abs(want))
    if c.elem == "f16":
        tol = tol + 2.0**-11 * np.abs(want) + 2.0**-24
    bad = np.argwhere(~(np.abs(got.astype(np.float64) - want) <= tol))
    assert bad.size == 0, [(tuple(i), got[tuple(i)], want[tuple(i)]) for i in bad[:5]]
