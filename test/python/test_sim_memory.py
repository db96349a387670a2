"""Raw buffer bounds, LDS races and bank conflicts, and a whole LDS-staged MFMA GEMM."""

import numpy as np
import pytest

from accel.diagnostics import AccelError
from accel.sim import run_kernel_text

import handwritten_gemm
import sim_kernel_text
from sim_kernel_text import run


# Thread id as i32 (%ti) and as a byte offset of 4-byte elements (%t4).
PRELUDE = """      %ti = arith.index_cast %t : index to i32
      %c4i = arith.constant 4 : i32
      %t4 = arith.muli %ti, %c4i : i32
"""


def kernel(args, body, attributions=""):
    return sim_kernel_text.kernel(args, body, attributions, PRELUDE)


def test_raw_buffer_load_past_bound_reads_zero_per_element():
    body = """
      %v = amdgpu.raw_buffer_load %X[%t4] : memref<10xf32>, i32 -> vector<4xf32>
      vector.store %v, %R[%t, %c0] : memref<4x4xf32>, vector<4xf32>
"""
    X = np.arange(1, 17, dtype=np.float32)   # 16 elements; the memref covers 10
    R = np.full((4, 4), -1, np.float32)
    run(kernel("%X: memref<10xf32>, %R: memref<4x4xf32>", body), [X, R], block=(4, 1, 1))
    assert R.tolist() == [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 0, 0], [0, 0, 0, 0]]


def test_raw_buffer_store_past_bound_is_dropped():
    body = """
      %f = arith.sitofp %ti : i32 to f32
      %v = vector.broadcast %f : f32 to vector<4xf32>
      amdgpu.raw_buffer_store %v -> %X[%t4] : vector<4xf32> -> memref<10xf32>, i32
"""
    X = np.full(16, -1, np.float32)
    run(kernel("%X: memref<10xf32>", body), [X], block=(4, 1, 1))
    assert X.tolist() == [0] * 4 + [1] * 4 + [2, 2] + [-1] * 6


def test_raw_buffer_negative_index_and_offsets():
    body = """
      %m1 = arith.constant -1 : i32
      %a = amdgpu.raw_buffer_load %X[%m1] : memref<8xf32>, i32 -> f32
      memref.store %a, %R[%c0] : memref<3xf32>
      %b = amdgpu.raw_buffer_load {indexOffset = 2 : i32} %X[%c4i] : memref<8xf32>, i32 -> f32
      memref.store %b, %R[%c1] : memref<3xf32>
      %c2 = arith.constant 2 : index
      %s = arith.constant 1 : i32
      %c = amdgpu.raw_buffer_load %X[%c0i] sgprOffset %s : memref<8xf32>, i32 -> vector<4xf32>
      %c3 = vector.extract %c[3] : f32 from vector<4xf32>
      memref.store %c3, %R[%c2] : memref<3xf32>
"""
    X = np.arange(10, 18, dtype=np.float32)
    R = np.full(3, -1, np.float32)
    run(kernel("%X: memref<8xf32>, %R: memref<3xf32>", body.replace(
        "%c0i", "%z").replace("      %m1", "      %z = arith.constant 0 : i32\n      %m1", 1)),
        [X, R])
    # -1 wraps to a huge unsigned offset: 0. 4+2 -> X[6]. 0+1+3 -> X[4].
    assert R.tolist() == [0, 16, 14]


def test_raw_buffer_range_check_may_not_depend_on_sgpr_offset():
    """gfx9 leaves soffset out of the range check (LLVM's raw buffer intrinsics): voffset
    X[4] and soffset 1 put element 8 past the end, which reads 0 where soffset counts and
    the memory after X on gfx942. A load that reads different values by chip is refused."""
    body = """
      %s = arith.constant 1 : i32
      %c = amdgpu.raw_buffer_load %X[%c4i] sgprOffset %s : memref<8xf32>, i32 -> vector<4xf32>
"""
    with pytest.raises(AccelError, match="depends on its sgprOffset"):
        run(kernel("%X: memref<8xf32>", body), [np.zeros(8, np.float32)])


def test_raw_buffer_num_records_of_a_strided_view():
    # convert-amdgpu-to-rocdl sets num_records = max(size_i * stride_i) * 4 = 128 bytes
    # from the view start (offset 2), so [3, 7] (element 31) is inside, [3, 8] is not.
    t = "memref<4x4xf32, strided<[8, 1], offset: 2>>"
    body = f"""
      %c3 = arith.constant 3 : i32
      %c7 = arith.constant 7 : i32
      %c8 = arith.constant 8 : i32
      %a = amdgpu.raw_buffer_load %X[%c3, %c7] : {t}, i32, i32 -> f32
      %b = amdgpu.raw_buffer_load %X[%c3, %c8] : {t}, i32, i32 -> f32
      memref.store %a, %R[%c0] : memref<2xf32>
      memref.store %b, %R[%c1] : memref<2xf32>
"""
    X = np.arange(40, dtype=np.float32)
    R = np.full(2, -1, np.float32)
    run(kernel(f"%X: {t}, %R: memref<2xf32>", body), [X, R])
    assert R.tolist() == [2 + 31, 0]


def test_raw_buffer_inside_the_descriptor_but_outside_the_array_faults():
    # The same view over a 30-element buffer: [3, 7] (element 33) is inside the
    # descriptor (max(size * stride) = 32 from offset 2) but past the buffer's end,
    # a real access on hardware, not a dropped one.
    t = "memref<4x4xf32, strided<[8, 1], offset: 2>>"
    body = f"""
      %c3 = arith.constant 3 : i32
      %c7 = arith.constant 7 : i32
      %a = amdgpu.raw_buffer_load %X[%c3, %c7] : {t}, i32, i32 -> f32
"""
    with pytest.raises(AccelError, match="inside its descriptor's range but outside"):
        run(kernel(f"%X: {t}", body), [np.zeros(30, np.float32)])


def test_raw_buffer_without_bounds_check_faults_outside_the_array():
    body = """
      %c9 = arith.constant 9 : i32
      %a = amdgpu.raw_buffer_load {boundsCheck = false} %X[%c9] : memref<8xf32>, i32 -> f32
"""
    with pytest.raises(AccelError, match="boundsCheck = false"):
        run(kernel("%X: memref<8xf32>", body), [np.zeros(8, np.float32)])


LDS = "%L: memref<64xf32, #gpu.address_space<workgroup>>"


def exchange(barrier: str) -> str:
    """Each thread writes LDS[t], then reads its neighbour's slot."""
    return f"""
      %f = arith.sitofp %ti : i32 to f32
      memref.store %f, %L[%t] : memref<64xf32, #gpu.address_space<workgroup>>
{barrier}
      %c63 = arith.constant 63 : index
      %n0 = arith.addi %t, %c1 : index
      %n = arith.andi %n0, %c63 : index
      %v = memref.load %L[%n] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %v, %R[%t] : memref<64xf32>
"""


def test_missing_barrier_is_a_race():
    text = kernel("%R: memref<64xf32>", exchange(""), LDS)
    with pytest.raises(AccelError, match=r"LDS race: memref.load at .* reads .* written by "
                                         r"thread \(1,0,0\) .* with memref.store") as e:
        run(text, [np.zeros(64, np.float32)], block=(64, 1, 1))
    assert e.value.file_line_col()[1] == 17
    report = run(text, [np.zeros(64, np.float32)], block=(64, 1, 1), strict_races=False)
    assert len(report.races) == 1


def test_barrier_orders_the_exchange():
    R = np.zeros(64, np.float32)
    report = run(kernel("%R: memref<64xf32>", exchange("      gpu.barrier"), LDS), [R],
                 block=(64, 1, 1), grid=(2, 1, 1))
    assert report.races == []
    assert R.tolist() == [(t + 1) % 64 for t in range(64)]
    assert report.lds_bytes == 256


def test_write_after_read_without_barrier_is_a_race():
    # A loop reusing one LDS slot needs a barrier before the next iteration's write.
    body = """
      %c3 = arith.constant 3 : index
      %c63 = arith.constant 63 : index
      scf.for %i = %c0 to %c3 step %c1 {
        %f = arith.sitofp %ti : i32 to f32
        memref.store %f, %L[%t] : memref<64xf32, #gpu.address_space<workgroup>>
        amdgpu.lds_barrier
        %n0 = arith.addi %t, %c1 : index
        %n = arith.andi %n0, %c63 : index
        %v = memref.load %L[%n] : memref<64xf32, #gpu.address_space<workgroup>>
      }
"""
    with pytest.raises(AccelError, match="writes .* read by thread"):
        run(kernel("", body, LDS), [], block=(64, 1, 1))


def test_bank_conflicts_by_stride():
    # gfx942: 32 banks of 4 bytes. Stride-1 f32: conflict-free. Stride 32 f32: all 32
    # lanes of a clock hit bank 0 -> 31 extra clocks per half-wave, 2 half-waves.
    lds = "%L: memref<2048xf32, #gpu.address_space<workgroup>>"
    body = """
      %c32 = arith.constant 32 : index
      %s = arith.muli %t, %c32 : index
      %a = memref.load %L[%t] : memref<2048xf32, #gpu.address_space<workgroup>>
      %b = memref.load %L[%s] : memref<2048xf32, #gpu.address_space<workgroup>>
      %z = memref.load %L[%c0] : memref<2048xf32, #gpu.address_space<workgroup>>
"""
    report = run(kernel("", body, lds), [], block=(64, 1, 1))
    by_line = {int(k.rsplit(":", 2)[-2]): v for k, v in report.bank_conflicts.items()}
    assert by_line == {13: 0, 14: 62, 15: 0}    # the broadcast read is free
    report = run(kernel("", body, lds), [], block=(32, 1, 1), arch="gfx1100")
    assert sorted(report.bank_conflicts.values()) == [0, 0, 31]


def test_barrier_in_divergent_code_is_an_error():
    body = """
      %c8 = arith.constant 8 : index
      %lt = arith.cmpi ult, %t, %c8 : index
      scf.if %lt {
        gpu.barrier
      }
"""
    with pytest.raises(AccelError, match="barrier reached by only some threads"):
        run(kernel("", body), [], block=(64, 1, 1))


def test_lds_staged_mfma_gemm_matches_numpy():
    m, n, k = 128, 64, 96
    text = handwritten_gemm.gemm_kernel(m, n, k)
    rng = np.random.default_rng(3)
    a = rng.integers(-3, 4, (m, k)).astype(np.float16)
    b = rng.integers(-3, 4, (k, n)).astype(np.float16)
    c = np.zeros((m, n), np.float32)
    report = run_kernel_text(text, "gemm_module::gemm", grid=(n // 64, m // 64, 1),
                             block=(256, 1, 1), args=[a, b, c])
    assert report.races == []
    np.testing.assert_array_equal(c, a.astype(np.float64) @ b.astype(np.float64))
