"""scheduleVersion 3 and 4 (direct-to-LDS, codegen/direct_lds_copy.py) on gfx942: exact
against float64 numpy in the simulator on ragged shapes, the simulator's gather_to_lds
semantics on hand-written kernels, the assembly, and the diagnostics."""

from __future__ import annotations

import re

import numpy as np
import pytest

from accel import compile_gemm
from accel.check import check_gemm
from accel.diagnostics import AccelError
from accel.dialect.perf_config import PerfConfig

import sim_kernel_text
from sim_kernel_text import run
from test_codegen import check, gemm_module, plan_and_lower, wave_config

TYPES = (("f16", "f32"), ("bf16", "bf16"), ("i8", "i32"))


@pytest.mark.parametrize("sched", (3, 4))
@pytest.mark.parametrize("in_t,out_t", TYPES)
def test_ragged_gemm_is_exact(sched, in_t, out_t):
    """Edges in M, N and K (K a whole number of dwords, not of k-tiles), two batches,
    A row-major and B transposed, 128-bit LDS rows (swizzled)."""
    kpack = 16 if in_t == "i8" else 8
    cfg = wave_config("gfx942", in_t, 32, 64, 4, kpack, sched=sched)
    k = 5 * cfg.k_per_block - 4
    check("gfx942", in_t, out_t, 2, 77, 90, k, cfg=cfg, b_layout="transposed")


@pytest.mark.parametrize("sched", (3, 4))
@pytest.mark.parametrize("in_t,out_t", TYPES)
def test_unswizzled_rows_and_a_partial_last_round(sched, in_t, out_t):
    """kpack of 64 bits (LDS rows not swizzled) and a tile of fewer dwords than threads:
    A's 128 dwords leave the last two of four waves without a gather."""
    kpack = 8 if in_t == "i8" else 4
    cfg = PerfConfig(m_per_block=16, n_per_block=64, kpack_per_block=4, m_per_wave=16,
                     n_per_wave=16, mn_per_xdl=16, kpack=kpack, schedule_version=sched)
    ctx, module = gemm_module("gfx942", in_t, out_t, 1, 40, 50, 7 * cfg.k_per_block + 4,
                              "row", "transposed", cfg)
    with ctx:
        (kernel,) = plan_and_lower(module)
    assert kernel.plan.direct_to_lds and kernel.block_size == 256
    assert kernel.a.dwords < kernel.block_size
    check("gfx942", in_t, out_t, 1, 40, 50, 7 * cfg.k_per_block + 4, cfg=cfg,
          b_layout="transposed")


@pytest.mark.parametrize("sched", (3, 4))
def test_32x32_mfma_and_one_k_tile(sched):
    cfg = wave_config("gfx942", "f16", 64, 64, 8, 8, mn=32, sched=sched)
    check("gfx942", "f16", "f16", 1, 64, 33, 36, cfg=cfg, b_layout="transposed")


@pytest.mark.parametrize("sched", (3, 4))
@pytest.mark.parametrize("a,b", [("f8E4M3FNUZ", "f8E4M3FNUZ"), ("f8E4M3FNUZ", "f8E5M2FNUZ")])
def test_fp8_with_edge_values(sched, a, b):
    """Each operand moves dwords of 4 of its own format; the formats' largest finite
    values, subnormals and zeros."""
    r = check_gemm("gfx942", g=2, m=37, n=50, k=100, in_type=a, b_type=b, out_type="f32",
                   trans_b=True, perf_config=f"v4:32,64,4,16,32,16,16,1,{sched},2,0,0,1,1",
                   edge_values=True)
    assert r.comparison.ok, r.comparison.describe(r.got, r.ref)


@pytest.mark.parametrize("sched", (3, 4))
def test_c_through_lds_after_a_direct_loop(sched):
    """outputSwizzle 1 stages C in the LDS the loop's gathers wrote: every gather was
    waited for before the loop's last barrier."""
    r = check_gemm("gfx942", m=70, n=77, k=200, in_type="f16", out_type="f16", trans_b=True,
                   perf_config=f"v4:64,64,4,32,32,16,8,1,{sched},1,0,0,1,1")
    assert r.comparison.ok, r.comparison.describe(r.got, r.ref)


def _main_loop(asm: str) -> str:
    """The text of the innermost loop: from the label the last backward branch jumps
    to, to that branch."""
    branches = list(re.finditer(r"s_cbranch_\w+ (\.LBB\d+_\d+)", asm))
    for b in reversed(branches):
        label = asm.find(b.group(1) + ":")
        if 0 <= label < b.start():
            return asm[label:b.end()]
    raise AssertionError("no loop in the assembly")


@pytest.mark.parametrize("sched", (3, 4))
def test_main_loop_loads_straight_into_lds(sched):
    """buffer_load_dword ... lds in the main loop, no LDS store instruction: the
    operands never pass through registers."""
    (kernel,) = compile_gemm("gfx942", m=512, n=512, k=1024, trans_b=True,
                             perf_config=f"v4:128,128,8,64,64,32,8,1,{sched},2,0,0,1,1").kernels
    loop = _main_loop(kernel.assembly)
    assert len(re.findall(r"buffer_load_dword v\d+, s\[\d+:\d+\], 0 offen lds", loop)) > 0
    assert "ds_write" not in loop and "mfma" in loop


@pytest.mark.parametrize("arch", ("gfx1100", "gfx1201"))
@pytest.mark.parametrize("sched", (3, 4))
def test_rdna_has_no_direct_to_lds(arch, sched):
    with pytest.raises(AccelError) as e:
        compile_gemm(arch, m=64, n=64, k=64, trans_b=True,
                     perf_config=f"v4:64,64,4,32,32,16,8,1,{sched},2,0,0,1,1")
    msg = str(e.value)
    assert f"scheduleVersion {sched}" in msg and "no global-to-LDS loads" in msg
    assert "\n" not in msg


@pytest.mark.parametrize("kw,says", [
    (dict(trans_b=False), "needs B K-contiguous in global memory"),
    (dict(trans_a=True, trans_b=True), "needs A K-contiguous in global memory"),
    (dict(trans_b=True, k=63), "must be multiples of 2"),
])
def test_unsupported_operands_are_one_line_diagnostics(kw, says):
    args = dict(m=64, n=64, k=64)
    args.update(kw)
    with pytest.raises(AccelError) as e:
        compile_gemm("gfx942", perf_config="v4:64,64,4,32,32,16,8,1,3,2,0,0,1,1", **args)
    assert says in str(e.value) and "\n" not in str(e.value)


# ---- the simulator's amdgpu.gather_to_lds ------------------------------------------------
SRC = "memref<2x70xf16>"
FAT = "memref<2x70xf16, #amdgpu.address_space<fat_raw_buffer>>"
LDS = "memref<256xf16, #gpu.address_space<workgroup>>"


def gather_kernel(dst_index: str, wait: bool = True) -> str:
    """64-thread waves; thread t loads the dword at X[1, 2t - 2] (row 1, so t = 0's
    address is the end of row 0) into LDS from element `dst_index` on, then every
    thread copies LDS element t of each of its 2 to R."""
    body = f"""
      %ti = arith.index_cast %t : index to i32
      %c2 = arith.constant 2 : index
      %cm2 = arith.constant -2 : index
      %k2 = arith.muli %t, %c2 : index
      %k = arith.addi %k2, %cm2 : index
      %buf = amdgpu.fat_raw_buffer_cast %X : {SRC} to {FAT}
      %c64 = arith.constant 64 : index
      %w = arith.divui %t, %c64 : index
      %wbase = arith.muli %w, %c64 : index
      %wbase2 = arith.muli %wbase, %c2 : index
      amdgpu.gather_to_lds %buf[%c1, %k], %lds[{dst_index}] : vector<2xf16>, {FAT}, {LDS}
      {"amdgpu.memory_counter_wait load(0)" if wait else ""}
      amdgpu.lds_barrier
      %x = vector.load %lds[%k2] : {LDS}, vector<2xf16>
      vector.store %x, %R[%k2] : memref<256xf16>, vector<2xf16>
"""
    return sim_kernel_text.kernel(f"%X: {SRC}, %R: memref<256xf16>", body,
                                  f"%lds: {LDS}")


def test_gather_to_lds_writes_a_wave_consecutively_and_zero_past_the_bound():
    X = (np.arange(140) + 1).astype(np.float16)
    R = np.zeros(256, np.float16)
    run(gather_kernel("%wbase2"), [X, R], block=(128, 1, 1), arch="gfx942")
    k = 2 * np.arange(128) - 2
    flat = 70 + k                                    # element of X[1, k]
    want = np.zeros((128, 2), np.float16)
    inside = flat + 1 < 140                          # the dword's last byte in range
    want[inside] = X[np.stack([flat, flat + 1], 1)[inside]]
    np.testing.assert_array_equal(R.reshape(128, 2), want)
    assert not inside.all() and want[-1].tolist() == [0, 0]


def test_gather_to_lds_destination_must_be_uniform_in_a_wave():
    with pytest.raises(AccelError, match="destination differs within a wave"):
        run(gather_kernel("%k2"), [np.zeros(140, np.float16), np.zeros(256, np.float16)],
            block=(128, 1, 1), arch="gfx942")


def test_barrier_before_the_gather_is_waited_for_is_an_error():
    with pytest.raises(AccelError, match="gather_to_lds writes to LDS in flight"):
        run(gather_kernel("%wbase2", wait=False),
            [np.zeros(140, np.float16), np.zeros(256, np.float16)], block=(128, 1, 1),
            arch="gfx942")


def test_gather_to_lds_is_gfx942_only():
    with pytest.raises(AccelError, match="gather_to_lds on gfx1100"):
        run(gather_kernel("%wbase2"), [np.zeros(140, np.float16), np.zeros(256, np.float16)],
            block=(128, 1, 1), arch="gfx1100")


def test_readfirstlane_takes_each_waves_first_active_thread():
    body = """
      %ti = arith.index_cast %t : index to i32
      %c3 = arith.constant 3 : i32
      %x = arith.muli %ti, %c3 : i32
      %c5 = arith.constant 5 : index
      %late = arith.cmpi uge, %t, %c5 : index
      scf.if %late {
        %f = rocdl.readfirstlane %x : i32
        memref.store %f, %R[%t] : memref<128xi32>
      }
"""
    R = np.full(128, -1, np.int32)
    run(sim_kernel_text.kernel("%R: memref<128xi32>", body), [R], block=(128, 1, 1),
        arch="gfx942")
    np.testing.assert_array_equal(R, [-1] * 5 + [15] * 59 + [192] * 64)
