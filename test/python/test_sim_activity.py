"""The simulator's record of which workgroups loaded each buffer or ran an MMA
(SimReport.active_workgroups), by which the grouped GEMM's idle workgroups are counted."""

import numpy as np

from sim_kernel_text import kernel, run


def test_only_workgroups_with_an_active_thread_are_recorded():
    # Workgroup b loads X in thread t only when t < b: workgroup 0 never loads, and
    # workgroups 1..3 load with part of their threads (masked), in one batch.
    body = """
      %b = gpu.block_id x
      %bi = arith.index_castui %b : index to i32
      %ti = arith.index_castui %t : index to i32
      %p = arith.cmpi ult, %ti, %bi : i32
      scf.if %p {
        %v = amdgpu.raw_buffer_load %X[%ti] : memref<4xi32>, i32 -> i32
        amdgpu.raw_buffer_store %v -> %Y[%ti] : i32 -> memref<4xi32>, i32
      }
      %w = amdgpu.raw_buffer_load %Z[%ti] : memref<4xi32>, i32 -> i32
"""
    x, y, z = (np.arange(4, dtype=np.int32) for _ in range(3))
    report = run(kernel("%X: memref<4xi32>, %Y: memref<4xi32>, %Z: memref<4xi32>", body),
                 [x, y, z], block=(4, 1, 1), grid=(4, 1, 1))
    assert report.active_workgroups == {"load argument #0": {1, 2, 3},
                                        "load argument #2": {0, 1, 2, 3}}
