"""run_host: host functions with hand-written kernels, views that alias the caller's
arrays, host memory, globals, calls, loops, elementwise linalg.generic and errors."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from accel.diagnostics import AccelError
from accel.sim import run_host

# A kernel adding 1.0 to a 4x8 buffer, one thread per element of a row.
INC = """
  gpu.module @k {
    gpu.func @inc(%X: memref<4x8xf32>) kernel {
      %t = gpu.thread_id x
      %b = gpu.block_id x
      %one = arith.constant 1.0 : f32
      %v = memref.load %X[%b, %t] : memref<4x8xf32>
      %w = arith.addf %v, %one : f32
      memref.store %w, %X[%b, %t] : memref<4x8xf32>
      gpu.return
    }
  }
"""


def module(host: str, kernels: str = INC) -> str:
    return f"module attributes {{gpu.container_module}} {{\n{kernels}\n{host}\n}}\n"


def launch(arg: str, grid="%c4", block="%c8") -> str:
    return (f"gpu.launch_func @k::@inc blocks in ({grid}, %c1, %c1) threads in ({block}, %c1, "
            f"%c1) args({arg} : memref<4x8xf32>)")


CONSTS = """
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index"""


def test_launch_writes_through_a_collapsed_view_of_the_argument():
    host = f"""
  func.func @main(%x: memref<2x2x8xf32>) {{{CONSTS}
    %v = memref.collapse_shape %x [[0, 1], [2]] : memref<2x2x8xf32> into memref<4x8xf32>
    {launch("%v")}
    return
  }}"""
    x = np.arange(32, dtype=np.float32).reshape(2, 2, 8)
    report = run_host(module(host), "main", [x])
    assert np.array_equal(x, np.arange(32, dtype=np.float32).reshape(2, 2, 8) + 1)
    assert [(la.kernel, la.grid, la.block) for la in report.launches] == \
        [("k::inc", (4, 1, 1), (8, 1, 1))]


def test_subview_and_copy_alias_the_caller_array():
    host = """
  func.func @main(%x: memref<4x8xf32>, %y: memref<2x3xf32>) {
    %s = memref.subview %x[1, 2] [2, 3] [1, 1] : memref<4x8xf32> to memref<2x3xf32, strided<[8, 1], offset: 10>>
    memref.copy %y, %s : memref<2x3xf32> to memref<2x3xf32, strided<[8, 1], offset: 10>>
    return
  }"""
    x = np.zeros((4, 8), np.float32)
    y = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
    run_host(module(host), "main", [x, y])
    want = np.zeros((4, 8), np.float32)
    want[1:3, 2:5] = y
    assert np.array_equal(x, want)


def test_alloc_loop_call_and_copy_back():
    """A temporary buffer, an scf.for of launches in a called function, copied out."""
    host = f"""
  func.func @twice(%t: memref<4x8xf32>) {{{CONSTS}
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    scf.for %i = %c0 to %c2 step %c1 {{
      {launch("%t")}
    }}
    return
  }}
  func.func @main(%x: memref<4x8xf32>, %y: memref<4x8xf32>) {{
    %t = memref.alloc() : memref<4x8xf32>
    memref.copy %x, %t : memref<4x8xf32> to memref<4x8xf32>
    func.call @twice(%t) : (memref<4x8xf32>) -> ()
    memref.copy %t, %y : memref<4x8xf32> to memref<4x8xf32>
    memref.dealloc %t : memref<4x8xf32>
    return
  }}"""
    x = np.random.default_rng(0).uniform(-1, 1, (4, 8)).astype(np.float32)
    y = np.zeros_like(x)
    x0 = x.copy()
    report = run_host(module(host), "main", [x, y])
    assert np.array_equal(x, x0), "the input is untouched"
    assert np.array_equal(y, (x0 + 1) + 1)
    assert len(report.launches) == 2


def test_unwritten_allocation_reads_as_nan():
    host = """
  func.func @main(%y: memref<4x8xf32>) {
    %t = memref.alloc() : memref<4x8xf32>
    memref.copy %t, %y : memref<4x8xf32> to memref<4x8xf32>
    return
  }"""
    y = np.zeros((4, 8), np.float32)
    run_host(module(host), "main", [y])
    assert np.isnan(y).all()


@pytest.mark.parametrize("t,np_t,vals", [
    ("bf16", ml_dtypes.bfloat16, "[[1.5, -2.0], [0.25, 3.0]]"),
    ("i8", np.int8, "[[1, -2], [100, -128]]"),
    ("f16", np.float16, "[[1.5, -2.0], [0.25, 3.0]]")])
def test_constant_globals(t, np_t, vals):
    host = f"""
  memref.global "private" constant @w : memref<2x2x{t}> = dense<{vals}>
  func.func @main(%y: memref<2x2x{t}>) {{
    %w = memref.get_global @w : memref<2x2x{t}>
    memref.copy %w, %y : memref<2x2x{t}> to memref<2x2x{t}>
    return
  }}"""
    y = np.zeros((2, 2), np_t)
    run_host(module(host, ""), "main", [y])
    want = np.array(eval(vals), dtype=np.float64).astype(np_t)
    assert np.array_equal(y, want)


def test_writing_a_constant_global_is_an_error():
    host = f"""
  memref.global "private" constant @w : memref<4x8xf32> = dense<0.0>
  func.func @main() {{{CONSTS}
    %w = memref.get_global @w : memref<4x8xf32>
    {launch("%w")}
    return
  }}"""
    with pytest.raises(AccelError, match="constant memref.global @w was written"):
        run_host(module(host), "main", [])


def test_elementwise_generic_with_broadcast_and_relu():
    host = """
  func.func @main(%x: memref<2x3xf32>, %bias: memref<3xf32>, %y: memref<2x3xf16>) {
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %bias : memref<2x3xf32>, memref<3xf32>) outs(%y : memref<2x3xf16>) {
    ^bb0(%a: f32, %b: f32, %o: f16):
      %zero = arith.constant 0.0 : f32
      %s = arith.addf %a, %b : f32
      %r = arith.maximumf %s, %zero : f32
      %h = arith.truncf %r : f32 to f16
      linalg.yield %h : f16
    }
    return
  }"""
    x = np.array([[1, -5, 2], [0.1, 0.2, -0.3]], np.float32)
    bias = np.array([0.5, 1.0, -1.0], np.float32)
    y = np.zeros((2, 3), np.float16)
    run_host(module(host, ""), "main", [x, bias, y])
    assert np.array_equal(y, np.maximum(x + bias, 0).astype(np.float16))


def test_generic_with_floordiv_mod_maps_copies_a_blocked_view():
    """Copy [4, 6] into the blocked [2, 3, 2, 2] order a materialised view uses."""
    host = """
  func.func @main(%x: memref<4x6xi32>, %y: memref<2x3x2x2xi32>) {
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0 floordiv 2, d1 floordiv 2, d0 mod 2, d1 mod 2)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<4x6xi32>) outs(%y : memref<2x3x2x2xi32>) {
    ^bb0(%a: i32, %o: i32):
      linalg.yield %a : i32
    }
    return
  }"""
    x = np.arange(24, dtype=np.int32).reshape(4, 6)
    y = np.zeros((2, 3, 2, 2), np.int32)
    run_host(module(host, ""), "main", [x, y])
    assert np.array_equal(y, x.reshape(2, 2, 3, 2).transpose(0, 2, 1, 3))


def test_unsupported_host_op_is_located():
    host = """
  func.func @main(%x: memref<4x8xf32>) {
    %c0 = arith.constant 0 : index
    %v = vector.load %x[%c0, %c0] : memref<4x8xf32>, vector<4xf32>
    return
  }"""
    with pytest.raises(AccelError, match="host op 'vector.load' is not supported") as e:
        run_host(module(host, ""), "main", [np.zeros((4, 8), np.float32)])
    assert e.value.file_line_col()[1] == 6


def test_kernel_error_is_located_in_the_kernel():
    host = f"""
  func.func @main(%x: memref<4x8xf32>) {{{CONSTS}
    %c9 = arith.constant 9 : index
    {launch("%x", block="%c9")}
    return
  }}"""
    with pytest.raises(AccelError, match="out-of-bounds memref.load") as e:
        run_host(module(host), "main", [np.zeros((4, 8), np.float32)])
    assert e.value.file_line_col()[1] == 8   # the kernel's memref.load


def test_double_dealloc_and_argument_errors():
    host = """
  func.func @main(%x: memref<4x8xf32>) {
    %t = memref.alloc() : memref<4x8xf32>
    memref.dealloc %t : memref<4x8xf32>
    memref.dealloc %t : memref<4x8xf32>
    return
  }"""
    x = np.zeros((4, 8), np.float32)
    with pytest.raises(AccelError, match="not a live memref.alloc"):
        run_host(module(host, ""), "main", [x])
    with pytest.raises(AccelError, match="takes 1 arguments, got 0"):
        run_host(module(host, ""), "main", [])
    with pytest.raises(AccelError, match="must be a numpy array of float32"):
        run_host(module(host, ""), "main", [x.astype(np.float16)])
    with pytest.raises(AccelError, match="shape \\[8, 4\\]"):
        run_host(module(host, ""), "main", [np.zeros((8, 4), np.float32)])
    with pytest.raises(AccelError, match="C-contiguous"):
        run_host(module(host, ""), "main", [np.zeros((8, 4), np.float32).T])
    with pytest.raises(AccelError, match="no func.func @nope"):
        run_host(module(host, ""), "nope", [x])


def test_call_results_and_returned_memref():
    """A called function's scalar result bounds a loop; the returned memref aliases."""
    host = """
  func.func @trips(%n: index) -> index {
    %c1 = arith.constant 1 : index
    %r = arith.addi %n, %c1 : index
    return %r : index
  }
  func.func @main(%x: memref<3xi32>, %n: index) -> memref<3xi32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %t = func.call @trips(%n) : (index) -> index
    scf.for %i = %c0 to %t step %c1 {
      %j = arith.remui %i, %t : index
      %k = arith.minui %j, %c1 : index
      %v = memref.load %x[%k] : memref<3xi32>
      %one = arith.constant 1 : i32
      %w = arith.addi %v, %one : i32
      memref.store %w, %x[%k] : memref<3xi32>
    }
    return %x : memref<3xi32>
  }"""
    x = np.zeros(3, np.int32)
    report = run_host(module(host, ""), "main", [x, 3])
    # 4 iterations: i=0 -> x[0], i=1..3 -> x[1].
    assert np.array_equal(x, [1, 3, 0])
    (ret,) = report.results
    assert np.shares_memory(ret, x) and np.array_equal(ret, x)
