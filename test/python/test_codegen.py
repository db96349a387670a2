"""accel-gemm-to-gpu kernels, run in the simulator and checked elementwise.

Each case builds an `accel.gemm`, lowers it with the pass, simulates the kernel and
compares every element of C with a float64 numpy product (exact for i8; a bound that
grows with K for f16/bf16/f32 accumulation, plus the output type's rounding). C is a
view into a larger buffer pre-filled with a sentinel: an element the kernel never
wrote, or a store that escaped its mask, shows up in the data or in the guard.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from accel.bindings import func, ir, new_context
from accel.codegen.kernel import build_kernel
from accel.dialect.accel_layout import AccelTile, pack
from accel.dialect.ops import GemmOp
from accel.dialect.perf_config import PerfConfig
from accel.diagnostics import AccelError
from accel.passes.gemm_to_gpu import lower_gemms
from accel.sim import run_kernel

NP = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32, "i8": np.int8,
      "i32": np.int32}
# Relative rounding of one output element (unit roundoff of the output type).
OUT_EPS = {"f32": 2.0**-24, "f16": 2.0**-11, "bf16": 2.0**-8, "i32": 0.0}
GUARD = 64
SENTINEL = {"f32": 12345.0, "f16": 1234.0, "bf16": 1232.0, "i32": 123456789}
ARCHES = ("gfx942", "gfx1100", "gfx1201")


def config(text: str) -> PerfConfig:
    return PerfConfig.parse(text, "mfma")


def plain_shapes(g, m, n, k, a_layout, b_layout, cfg):
    a = {"row": (g, m, k), "transposed": (g, k, m),
         "accel": AccelTile(cfg.m_per_block, cfg.kpack_per_block, cfg.kpack).shape(g, m, k)}
    b = {"row": (g, k, n), "transposed": (g, n, k),
         "accel": AccelTile(cfg.n_per_block, cfg.kpack_per_block, cfg.kpack).shape(g, n, k)}
    return a[a_layout], b[b_layout], (g, m, n)


def gemm_module(arch, in_t, out_t, g, m, n, k, a_layout, b_layout, cfg, accumulate=False):
    a_shape, b_shape, c_shape = plain_shapes(g, m, n, k, a_layout, b_layout, cfg)
    ctx = new_context()
    with ctx, ir.Location.unknown():
        module = ir.Module.create()
        el = {"f16": ir.F16Type.get, "bf16": ir.BF16Type.get, "f32": ir.F32Type.get,
              "i8": lambda: ir.IntegerType.get_signless(8),
              "i32": lambda: ir.IntegerType.get_signless(32)}
        types = [ir.MemRefType.get(list(s), el[t]()) for s, t in
                 ((a_shape, in_t), (b_shape, in_t), (c_shape, out_t))]
        with ir.InsertionPoint(module.body):
            f = func.FuncOp("gemm", (types, []))
            entry = f.add_entry_block()
            with ir.InsertionPoint(entry):
                GemmOp.build(*entry.arguments, arch=arch, a_layout=a_layout, b_layout=b_layout,
                             perf_config=cfg, accumulate=accumulate)
                func.ReturnOp([])
    return ctx, module


def operand_data(rng, in_t, shape):
    if in_t == "i8":
        return rng.integers(-8, 8, size=shape).astype(np.int8)
    return rng.uniform(-1, 1, size=shape).astype(NP[in_t])


def run_gemm(arch, in_t, out_t, g, m, n, k, a_layout="row", b_layout="row", cfg=None,
             accumulate=False, seed=0):
    """Simulate one GEMM; returns (C computed, float64 reference, elementwise bound)."""
    ctx, module = gemm_module(arch, in_t, out_t, g, m, n, k, a_layout, b_layout, cfg, accumulate)
    with ctx:
        (kernel,) = lower_gemms(module)
    rng = np.random.default_rng(seed)
    a = operand_data(rng, in_t, (g, m, k))
    b = operand_data(rng, in_t, (g, k, n))
    tile_a = AccelTile(cfg.m_per_block, cfg.kpack_per_block, cfg.kpack)
    tile_b = AccelTile(cfg.n_per_block, cfg.kpack_per_block, cfg.kpack)
    a_arg = {"row": a, "transposed": np.ascontiguousarray(a.transpose(0, 2, 1)),
             "accel": pack(a, tile_a)}[a_layout]
    b_arg = {"row": b, "transposed": np.ascontiguousarray(b.transpose(0, 2, 1)),
             "accel": pack(b, tile_b, transposed=True)}[b_layout]
    size = g * m * n
    c_buf = np.full(size + GUARD, SENTINEL[out_t], dtype=NP[out_t])
    c0 = None
    if accumulate:
        c0 = operand_data(rng, "i8" if out_t == "i32" else "f16", (g, m, n)).astype(NP[out_t])
        c_buf[:size] = c0.reshape(-1)
    with ctx:
        run_kernel(module, kernel.symbol, grid=kernel.grid, block=(kernel.block_size, 1, 1),
                   args=[a_arg, b_arg, c_buf], arch=arch)
    assert (c_buf[size:] == SENTINEL[out_t]).all(), "a store escaped past C"
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    ref = a64 @ b64
    mag = np.abs(a64) @ np.abs(b64)
    if c0 is not None:
        ref = ref + c0.astype(np.float64)
        mag = mag + np.abs(c0.astype(np.float64))
    tol = (0.0 if in_t == "i8" else max(k, 1) * 2.0**-22 * mag) + OUT_EPS[out_t] * np.abs(ref)
    return c_buf[:size].reshape(g, m, n).astype(np.float64), ref, tol


def check(*args, **kw):
    got, ref, tol = run_gemm(*args, **kw)
    bad = np.argwhere(~(np.abs(got - ref) <= tol))
    assert bad.size == 0, (f"{len(bad)} wrong elements, first at {tuple(bad[0])}: "
                           f"got {got[tuple(bad[0])]}, want {ref[tuple(bad[0])]}")


# ---- smoke: one small case per arch and type ------------------------------------------
MFMA_32 = "v4:32,32,4,32,32,32,8,1,1,2,0,0,1,1"
MFMA_16 = "v4:32,32,4,16,16,16,8,1,1,2,0,0,1,1"
WMMA = "v4:32,32,4,16,16,16,8,1,1,2,0,0,1,1"


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("in_t,out_t", [("f16", "f32"), ("bf16", "bf16"), ("i8", "i32")])
def test_small_gemm(arch, in_t, out_t):
    check(arch, in_t, out_t, 1, 48, 40, 64, cfg=config(MFMA_32 if arch == "gfx942" else WMMA))
