"""Simulator op semantics: arith/math, vector, memref views, gpu ids, scf masking."""

import ml_dtypes
import numpy as np
import pytest

from accel.diagnostics import AccelError

from sim_kernel_text import kernel, run

BF16 = ml_dtypes.bfloat16


def test_integer_ops_wrap_and_signedness():
    ops = ["arith.addi", "arith.subi", "arith.muli", "arith.divsi", "arith.divui",
           "arith.remsi", "arith.remui", "arith.shrsi", "arith.shrui", "arith.shli",
           "arith.maxsi", "arith.minui", "arith.ceildivsi", "arith.floordivsi", "arith.xori"]
    body = ["      %a = memref.load %X[%t] : memref<4xi32>", "      %b = memref.load %Y[%t] : memref<4xi32>"]
    for n, o in enumerate(ops):
        body += [f"      %r{n} = {o} %a, %b : i32",
                 f"      %i{n} = arith.constant {n} : index",
                 f"      memref.store %r{n}, %R[%t, %i{n}] : memref<4x{len(ops)}xi32>"]
    x = np.array([7, -7, 2**31 - 1, -2**31], np.int32)
    y = np.array([2, 2, 3, 5], np.int32)
    R = np.zeros((4, len(ops)), np.int32)
    run(kernel(f"%X: memref<4xi32>, %Y: memref<4xi32>, %R: memref<4x{len(ops)}xi32>",
               "\n".join(body)), [x, y, R], block=(4, 1, 1))

    def s32(v):
        return (v + 2**31) % 2**32 - 2**31

    def u(v):
        return v % 2**32

    def trunc_div(a, b):
        q = abs(a) // abs(b)
        return q if (a < 0) == (b < 0) else -q

    for t in range(4):
        a, b = int(x[t]), int(y[t])
        want = [s32(a + b), s32(a - b), s32(a * b), trunc_div(a, b), s32(u(a) // u(b)),
                a - b * trunc_div(a, b), s32(u(a) % u(b)), a >> b, s32(u(a) >> b),
                s32(a << b), max(a, b), s32(min(u(a), u(b))), -((-a) // b), a // b, a ^ b]
        assert list(R[t]) == want, (t, list(R[t]), want)


def test_casts_and_compare():
    body = """
      %a = memref.load %X[%t] : memref<3xi32>
      %n = arith.trunci %a : i32 to i8
      %s = arith.extsi %n : i8 to i32
      %z = arith.extui %n : i8 to i32
      %lt = arith.cmpi ult, %a, %s : i32
      %sel = arith.select %lt, %z, %s : i32
      %f = arith.sitofp %a : i32 to f32
      %h = arith.uitofp %n : i8 to f32
      %ix = arith.index_cast %a : i32 to index
      %back = arith.index_cast %ix : index to i32
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      memref.store %s, %R[%t, %c0] : memref<3x5xi32>
      memref.store %z, %R[%t, %c1] : memref<3x5xi32>
      memref.store %sel, %R[%t, %c2] : memref<3x5xi32>
      memref.store %back, %R[%t, %c3] : memref<3x5xi32>
      memref.store %f, %F[%t, %c0] : memref<3x2xf32>
      memref.store %h, %F[%t, %c1] : memref<3x2xf32>
"""
    x = np.array([300, -1, 127], np.int32)
    R = np.zeros((3, 5), np.int32)
    F = np.zeros((3, 2), np.float32)
    run(kernel("%X: memref<3xi32>, %R: memref<3x5xi32>, %F: memref<3x2xf32>", body),
        [x, R, F], block=(3, 1, 1))
    assert list(R[:, 0]) == [44, -1, 127]          # 300 wraps to 44 in i8
    assert list(R[:, 1]) == [44, 255, 127]
    # ult on i32: 300 <u 44 false -> s; -1 <u -1 false -> s; 127 <u 127 false -> s
    assert list(R[:, 2]) == [44, -1, 127]
    assert list(R[:, 3]) == list(x)
    assert list(F[:, 0]) == [300.0, -1.0, 127.0]
    assert list(F[:, 1]) == [44.0, 255.0, 127.0]


def test_f16_and_bf16_round_to_nearest_even():
    body = """
      %a = memref.load %X[%t] : memref<4xf32>
      %h = arith.truncf %a : f32 to f16
      %one = arith.constant 1.0 : f16
      %tiny = arith.constant 4.8828125e-04 : f16
      %sum = arith.addf %one, %tiny : f16
      %hs = arith.extf %h : f16 to f32
      %b = arith.truncf %a : f32 to bf16
      %bs = arith.extf %b : bf16 to f32
      %bb = arith.mulf %b, %b : bf16
      %bbs = arith.extf %bb : bf16 to f32
      %ss = arith.extf %sum : f16 to f32
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      memref.store %hs, %R[%t, %c0] : memref<4x4xf32>
      memref.store %bs, %R[%t, %c1] : memref<4x4xf32>
      memref.store %bbs, %R[%t, %c2] : memref<4x4xf32>
      memref.store %ss, %R[%t, %c3] : memref<4x4xf32>
"""
    x = np.array([1 + 2**-11, 1 + 3 * 2**-11, 1 + 2**-8, 1 + 3 * 2**-8], np.float32)
    R = np.zeros((4, 4), np.float32)
    run(kernel("%X: memref<4xf32>, %R: memref<4x4xf32>", body), [x, R], block=(4, 1, 1))
    # f16 has 10 fraction bits: ties go to the even neighbour.
    assert list(R[:, 0]) == [1.0, 1 + 2**-9, 1 + 2**-8, 1 + 3 * 2**-8]
    # bf16 has 7 fraction bits.
    assert list(R[:, 1]) == [1.0, 1.0, 1.0, 1 + 2**-6]
    # (1 + 2^-6)^2 = 1 + 2^-5 + 2^-12 rounds to 1 + 2^-5 in bf16.
    assert R[3, 2] == 1 + 2**-5
    # 1 + 2^-11 in f16 is a tie between 1 and 1 + 2^-10: even is 1.
    assert (R[:, 3] == 1.0).all()


def test_float_ops_and_math():
    body = """
      %a = memref.load %X[%t] : memref<2xf32>
      %b = memref.load %Y[%t] : memref<2xf32>
      %m = arith.maximumf %a, %b : f32
      %n = arith.minnumf %a, %b : f32
      %d = arith.divf %a, %b : f32
      %q = math.sqrt %b : f32
      %e = math.fma %a, %b, %a : f32
      %lt = arith.cmpf olt, %a, %b : f32
      %s = arith.select %lt, %a, %b : f32
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %c5 = arith.constant 5 : index
      memref.store %m, %R[%t, %c0] : memref<2x6xf32>
      memref.store %n, %R[%t, %c1] : memref<2x6xf32>
      memref.store %d, %R[%t, %c2] : memref<2x6xf32>
      memref.store %q, %R[%t, %c3] : memref<2x6xf32>
      memref.store %e, %R[%t, %c4] : memref<2x6xf32>
      memref.store %s, %R[%t, %c5] : memref<2x6xf32>
"""
    x = np.array([3.0, np.nan], np.float32)
    y = np.array([4.0, 9.0], np.float32)
    R = np.zeros((2, 6), np.float32)
    run(kernel("%X: memref<2xf32>, %Y: memref<2xf32>, %R: memref<2x6xf32>", body),
        [x, y, R], block=(2, 1, 1))
    assert list(R[0]) == [4.0, 3.0, np.float32(0.75), 2.0, 15.0, 3.0]
    assert np.isnan(R[1, 0]) and R[1, 1] == 9.0 and R[1, 3] == 3.0 and R[1, 5] == 9.0


def test_vector_ops():
    body = """
      %v = vector.load %X[%c0] : memref<8xf16>, vector<8xf16>
      %e = vector.extract %v[3] : f16 from vector<8xf16>
      %ins = vector.insert %e, %v[0] : f16 into vector<8xf16>
      %sh = vector.shape_cast %ins : vector<8xf16> to vector<2x4xf16>
      %row = vector.extract %sh[1] : vector<4xf16> from vector<2x4xf16>
      %sl = vector.extract_strided_slice %v {offsets = [2], sizes = [4], strides = [1]} : vector<8xf16> to vector<4xf16>
      %sum = arith.addf %row, %sl : vector<4xf16>
      %bc = vector.broadcast %e : f16 to vector<4xf16>
      %f = vector.fma %sum, %bc, %row : vector<4xf16>
      %z = arith.constant dense<0.0> : vector<8xf16>
      %put = vector.insert_strided_slice %f, %z {offsets = [4], strides = [1]} : vector<4xf16> into vector<8xf16>
      %te = arith.index_cast %t : index to i32
      %tf = arith.sitofp %te : i32 to f16
      %fe = vector.from_elements %tf, %e : vector<2xf16>
      %put2 = vector.insert_strided_slice %fe, %put {offsets = [0], strides = [1]} : vector<2xf16> into vector<8xf16>
      %bits = vector.bitcast %put2 : vector<8xf16> to vector<4xi32>
      %back = vector.bitcast %bits : vector<4xi32> to vector<8xf16>
      vector.store %back, %R[%t, %c0] : memref<2x8xf16>, vector<8xf16>
      %b0 = vector.extract %bits[0] : i32 from vector<4xi32>
      memref.store %b0, %I[%t] : memref<2xi32>
"""
    X = np.arange(8, dtype=np.float16)
    R = np.zeros((2, 8), np.float16)
    I = np.zeros(2, np.int32)
    run(kernel("%X: memref<8xf16>, %R: memref<2x8xf16>, %I: memref<2xi32>", body),
        [X, R, I], block=(2, 1, 1))
    row = np.array([4, 5, 6, 7], np.float64)       # second half of [3,1,2,...,7]
    sl = np.array([2, 3, 4, 5], np.float64)
    f = (row + sl) * 3 + row
    for t in range(2):
        assert list(R[t]) == [t, 3, 0, 0] + list(f)
        assert I[t] == np.array([t, 3], np.float16).view(np.int32)[0]


def test_thread_and_block_ids_3d():
    body = """
      %ty = gpu.thread_id y
      %tz = gpu.thread_id z
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %bz = gpu.block_id z
      %gx = gpu.grid_dim x
      %dx = gpu.block_dim x
      %dy = gpu.block_dim y
      %c10 = arith.constant 10 : index
      %c100 = arith.constant 100 : index
      %s1 = arith.muli %ty, %c10 : index
      %s2 = arith.muli %tz, %c100 : index
      %tid = arith.addi %t, %s1 : index
      %tid2 = arith.addi %tid, %s2 : index
      %wgy = arith.muli %by, %gx : index
      %wg = arith.addi %bx, %wgy : index
      %c6 = arith.constant 6 : index
      %wgz = arith.muli %bz, %c6 : index
      %wgl = arith.addi %wg, %wgz : index
      %l1 = arith.muli %ty, %dx : index
      %dxy = arith.muli %dx, %dy : index
      %l2 = arith.muli %tz, %dxy : index
      %l = arith.addi %t, %l1 : index
      %lin = arith.addi %l, %l2 : index
      %v = arith.index_cast %tid2 : index to i32
      memref.store %v, %R[%wgl, %lin] : memref<12x12xi32>
"""
    R = np.full((12, 12), -1, np.int32)
    run(kernel("%R: memref<12x12xi32>", body), [R], block=(2, 3, 2), grid=(3, 2, 2))
    for tz in range(2):
        for ty in range(3):
            for tx in range(2):
                assert (R[:, tx + 2 * ty + 6 * tz] == tx + 10 * ty + 100 * tz).all()


def test_scf_if_masks_and_merges():
    body = """
      %c5 = arith.constant 5 : index
      %c4 = arith.constant 4 : index
      %zero = arith.constant 0 : i32
      %lt = arith.cmpi ult, %t, %c5 : index
      %ti = arith.index_cast %t : index to i32
      %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (i32) {
        %y = scf.if %lt -> (i32) {
          memref.store %ti, %W[%t] : memref<8xi32>
          %one = arith.constant 1 : i32
          scf.yield %one : i32
        } else {
          %big = arith.constant 100 : i32
          scf.yield %big : i32
        }
        %n = arith.addi %acc, %y : i32
        scf.yield %n : i32
      }
      memref.store %r, %R[%t] : memref<8xi32>
"""
    W = np.full(8, -1, np.int32)
    R = np.zeros(8, np.int32)
    run(kernel("%W: memref<8xi32>, %R: memref<8xi32>", body), [W, R], block=(8, 1, 1))
    assert list(W) == [0, 1, 2, 3, 4, -1, -1, -1]   # the else threads stored nothing
    assert list(R) == [4] * 5 + [400] * 3


def test_masked_branch_does_not_fault_on_inactive_threads():
    body = """
      %c4 = arith.constant 4 : index
      %in = arith.cmpi ult, %t, %c4 : index
      scf.if %in {
        %v = memref.load %X[%t] : memref<4xf32>
        memref.store %v, %Y[%t] : memref<4xf32>
      }
"""
    X = np.arange(4, dtype=np.float32)
    Y = np.zeros(4, np.float32)
    run(kernel("%X: memref<4xf32>, %Y: memref<4xf32>", body), [X, Y], block=(64, 1, 1))
    assert list(Y) == [0, 1, 2, 3]


def test_loop_bounds_must_be_uniform():
    body = """
      scf.for %i = %c0 to %t step %c1 {
        memref.store %c0, %X[%i] : memref<64xindex>
      }
"""
    with pytest.raises(AccelError, match="not uniform across the workgroup"):
        run(kernel("%X: memref<64xindex>", body), [np.zeros(64, np.int64)], block=(4, 1, 1))


def test_loop_bounds_may_differ_between_workgroups():
    body = """
      %b = gpu.block_id x
      %n = arith.addi %b, %c1 : index
      %zero = arith.constant 0 : index
      %s = scf.for %i = %c0 to %n step %c1 iter_args(%a = %zero) -> (index) {
        %a2 = arith.addi %a, %i : index
        scf.yield %a2 : index
      }
      memref.store %s, %X[%b, %t] : memref<3x2xindex>
"""
    X = np.zeros((3, 2), np.int64)
    run(kernel("%X: memref<3x2xindex>", body), [X], block=(2, 1, 1), grid=(3, 1, 1))
    assert X.tolist() == [[0, 0], [1, 1], [3, 3]]


def test_memref_views():
    body = """
      %sv = memref.subview %X[1, 2] [2, 3] [1, 2] : memref<4x8xf32> to memref<2x3xf32, strided<[8, 2], offset: 10>>
      %v = memref.load %sv[%c1, %c1] : memref<2x3xf32, strided<[8, 2], offset: 10>>
      memref.store %v, %R[%c0] : memref<4xf32>
      %ex = memref.expand_shape %X [[0], [1, 2]] output_shape [4, 2, 4] : memref<4x8xf32> into memref<4x2x4xf32>
      %w = memref.load %ex[%c1, %c1, %c1] : memref<4x2x4xf32>
      memref.store %w, %R[%c1] : memref<4xf32>
      %co = memref.collapse_shape %X [[0, 1]] : memref<4x8xf32> into memref<32xf32>
      %c30 = arith.constant 30 : index
      %u = memref.load %co[%c30] : memref<32xf32>
      %c2 = arith.constant 2 : index
      memref.store %u, %R[%c2] : memref<4xf32>
      %rc = memref.reinterpret_cast %X to offset: [3], sizes: [2, 2], strides: [16, 1] : memref<4x8xf32> to memref<2x2xf32, strided<[16, 1], offset: 3>>
      %q = memref.load %rc[%c1, %c1] : memref<2x2xf32, strided<[16, 1], offset: 3>>
      %c3 = arith.constant 3 : index
      memref.store %q, %R[%c3] : memref<4xf32>
"""
    X = np.arange(32, dtype=np.float32).reshape(4, 8)
    R = np.zeros(4, np.float32)
    run(kernel("%X: memref<4x8xf32>, %R: memref<4xf32>", body), [X, R])
    assert list(R) == [X[2, 4], X[1, 5], 30.0, 3 + 16 + 1]


def test_out_of_bounds_memref_load_is_an_error():
    body = "      %v = memref.load %X[%t] : memref<4xf32>"
    with pytest.raises(AccelError, match=r"out-of-bounds memref.load: index \[4\]") as e:
        run(kernel("%X: memref<4xf32>", body), [np.zeros(4, np.float32)], block=(8, 1, 1))
    assert e.value.file_line_col()[1] == 7


def test_unsupported_op_is_named_with_location():
    body = """
      %v = vector.load %X[%c0] : memref<4xf32>, vector<4xf32>
      %s = vector.reduction <add>, %v : vector<4xf32> into f32"""
    with pytest.raises(AccelError, match="'vector.reduction' is outside the Kernel IR") as e:
        run(kernel("%X: memref<4xf32>", body), [np.zeros(4, np.float32)])
    assert e.value.file_line_col()[1:] == (9, 12)


def test_wrong_argument_dtype_is_an_error():
    with pytest.raises(AccelError, match="argument 0 must be a numpy array of float32"):
        run(kernel("%X: memref<4xf32>", ""), [np.zeros(4, np.float16)])


def test_workgroup_alloca_and_lane_id():
    body = """
      %buf = memref.alloca() : memref<64xi32, #gpu.address_space<workgroup>>
      %lane = gpu.lane_id
      %li = arith.index_cast %lane : index to i32
      %sp = vector.broadcast %li : i32 to vector<2xi32>
      %e = vector.extract %sp[1] : i32 from vector<2xi32>
      memref.store %e, %buf[%t] : memref<64xi32, #gpu.address_space<workgroup>>
      gpu.barrier
      %c63 = arith.constant 63 : index
      %r = arith.subi %c63, %t : index
      %v = memref.load %buf[%r] : memref<64xi32, #gpu.address_space<workgroup>>
      memref.store %v, %R[%t] : memref<64xi32>
"""
    R = np.zeros(64, np.int32)
    report = run(kernel("%R: memref<64xi32>", body), [R], block=(64, 1, 1), arch="gfx1100")
    assert list(R) == [(63 - t) % 32 for t in range(64)]   # wave32: lane = t % 32
    assert report.lds_bytes == 256 and report.races == []


def test_byte_permute_follows_the_isa_table():
    """llvm.amdgcn.perm(s0, s1, sel) (v_perm_b32): each selector byte picks a byte of
    {s0, s1} (0-3 from s1), 8-11 replicate a sign bit, 12 is 0x00, 13 and above 0xff."""
    body = """
      %a = memref.load %X[%t] : memref<4xi32>
      %b = memref.load %Y[%t] : memref<4xi32>
      %s = memref.load %S[%t] : memref<4xi32>
      %r = llvm.call_intrinsic "llvm.amdgcn.perm"(%a, %b, %s) : (i32, i32, i32) -> i32
      memref.store %r, %R[%t] : memref<4xi32>"""
    s0 = np.array([0x11223344, 0x55667788, 0xFFFFFFFF, 0x00008000], np.uint32).view(np.int32)
    s1 = np.array([0x55667788, 0x11223344, 0x00008000, 0x80008000], np.uint32).view(np.int32)
    sel = np.array([0x05040100, 0x07060302, 0x0C0D0809, 0x0B0A0908], np.uint32).view(np.int32)
    R = np.zeros(4, np.int32)
    run(kernel("%X: memref<4xi32>, %Y: memref<4xi32>, %S: memref<4xi32>, %R: memref<4xi32>",
               body), [s0, s1, sel, R], block=(4, 1, 1))
    assert [hex(x) for x in R.view(np.uint32)] == [
        "0x33447788", "0x55661122", "0xffff00", "0xffffff"]


def test_unknown_intrinsic_is_a_diagnostic():
    body = """
      %a = memref.load %X[%t] : memref<4xi32>
      %r = llvm.call_intrinsic "llvm.amdgcn.alignbyte"(%a, %a, %a) : (i32, i32, i32) -> i32
      memref.store %r, %X[%t] : memref<4xi32>"""
    with pytest.raises(AccelError, match="intrinsic llvm.amdgcn.alignbyte is outside"):
        run(kernel("%X: memref<4xi32>", body), [np.zeros(4, np.int32)], block=(4, 1, 1))
