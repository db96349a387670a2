"""Buffers, memref views and the address arithmetic of every memory access.

A `Buffer` is one flat numpy array: a kernel argument (global memory, shared by all
workgroups) or a workgroup buffer (LDS), which holds one region per workgroup of the
batch side by side. A `View` is a memref value: its buffer, its element offset (a
per-thread array, since an LDS view starts at its own workgroup's region) and the
static shape and strides of its type.

Plain accesses (memref.load/store, vector.load/store) out of bounds are memory faults
and raise. `amdgpu.raw_buffer_*` accesses follow the buffer descriptor: each element
past num_records reads 0 and its store is dropped.
"""

from __future__ import annotations

import numpy as np

from accel.diagnostics import AccelError
from accel.sim.types import MemRefInfo, is_float


class Buffer:
    def __init__(self, data: np.ndarray, name: str, region: int, tracker=None, byte_base=0):
        self.data = data              # flat, C-contiguous
        self.name = name
        self.region = region          # elements per workgroup (LDS) or data.size (global)
        self.tracker = tracker        # lds.LdsTracker for a workgroup buffer, else None
        self.byte_base = byte_base    # LDS byte address of the buffer within a workgroup


def poison(n: int, dtype) -> np.ndarray:
    """Uninitialised memory (LDS, host allocations): NaN for floats, 0xA5 bytes for
    integers, so code reading memory nobody wrote gets visibly wrong results."""
    if is_float(np.dtype(dtype)):
        return np.full(n, np.nan, dtype=dtype)
    data = np.empty(n, dtype=dtype)
    data.view(np.uint8).fill(0xA5)
    return data


class View:
    __slots__ = ("buf", "base", "offset", "info")

    def __init__(self, buf: Buffer, base: np.ndarray, offset: np.ndarray, info: MemRefInfo):
        self.buf = buf
        self.base = base              # allocation start for each thread (its LDS region)
        self.offset = offset          # int64 element offset of the view, (1,) or (T,)
        self.info = info


def take(x: np.ndarray, rows):
    """The active threads' rows of a per-thread value (uniform values stay as is)."""
    if rows is None or x.shape[0] == 1:
        return x
    return x[rows]


class AccessPattern:
    """Static part of an access: which memref dims a vector spans and the element
    offsets of its lanes relative to the first one."""

    def __init__(self, info: MemRefInfo, vshape: tuple[int, ...]):
        rank = len(info.shape)
        if len(vshape) > rank:
            raise AccelError("simulator: vector has more dims than the memref")
        self.info = info
        self.vshape = vshape
        self.extent = (1,) * (rank - len(vshape)) + tuple(vshape)
        minor = info.strides[rank - len(vshape):]
        off = np.zeros(vshape, dtype=np.int64)
        for axis, (n, s) in enumerate(zip(vshape, minor)):
            shape = [1] * len(vshape)
            shape[axis] = n
            off = off + (np.arange(n, dtype=np.int64) * s).reshape(shape)
        self.lane_offsets = off.reshape((1,) + tuple(vshape))
        self.expand = (1,) * len(vshape)


def plain_addresses(st, view: View, idxs, pat: AccessPattern, what: str, where):
    """Element addresses (n, *vshape) of a plain access by the active threads, with
    bounds checked per dim; n is 1 for a uniform address."""
    rows = st.rows
    info = pat.info
    idxs = [take(i, rows) for i in idxs]
    base = take(view.offset, rows)
    for d, (i, n, ext) in enumerate(zip(idxs, info.shape, pat.extent)):
        bad = (i < 0) | (i > n - ext)
        if bad.any():
            r = int(np.flatnonzero(np.broadcast_to(bad, (max(bad.shape[0], 1),)))[0])
            idx_txt = ", ".join(str(int(np.broadcast_to(x, bad.shape)[r])) for x in idxs)
            who = st.thread_name(r if rows is None else int(rows[r])) if bad.shape[0] > 1 else "every thread"
            span = f" (+{ext} vector elements)" if ext > 1 else ""
            raise AccelError(
                f"simulator: out-of-bounds {what}: index [{idx_txt}]{span} outside "
                f"shape {list(info.shape)} of {view.buf.name}, by {who}", location=where)
        base = base + i.astype(np.int64) * info.strides[d]
    addr = base.reshape(base.shape + pat.expand) + pat.lane_offsets
    _check_region(st, view.buf, addr, rows, what, where)
    return addr


def _check_region(st, buf: Buffer, addr, rows, what, where):
    """A view with a bad dynamic offset can pass the per-dim checks; the address must
    still fall inside its own allocation (its workgroup's region for LDS)."""
    if buf.tracker is None:
        lo, hi = 0, buf.data.size
        rel = addr
    else:
        wg = take(st.wg, rows) if addr.shape[0] > 1 else st.wg[:1]
        rel = addr - (wg * buf.region).reshape((-1,) + (1,) * (addr.ndim - 1))
        lo, hi = 0, buf.region
    if rel.size and (rel.min() < lo or rel.max() >= hi):
        raise AccelError(f"simulator: out-of-bounds {what}: address outside {buf.name}",
                         location=where)


def raw_buffer_offsets(idxs, info: MemRefInfo, n: int, index_offset: int, sgpr):
    """(byte offsets, voffsets), both (rows, n): each element's offset from the
    descriptor's base (the view start), and the part of it in the VGPR offset, as the
    lowering computes them.

    convert-amdgpu-to-rocdl (pinned bindings, checked by lowering a strided view):
    voffset = (sum(idx_i * stride_i) + indexOffset) * elem_bytes, soffset =
    sgprOffset * elem_bytes, base = aligned pointer + view offset. Both offsets are
    32-bit unsigned registers, so negative indices wrap to huge offsets (hence OOB).
    """
    eb = info.elem_bytes
    linear = np.zeros((1,), dtype=np.int64)
    for i, s in zip(idxs, info.strides):
        linear = linear + i.astype(np.int64) * s
    voff = ((linear + index_offset) * eb) & 0xFFFFFFFF
    soff = 0 if sgpr is None else (sgpr.astype(np.int64) * eb) & 0xFFFFFFFF
    lanes = np.arange(n, dtype=np.int64) * eb
    return (voff + soff).reshape(-1, 1) + lanes, voff.reshape(-1, 1) + lanes


def num_records(info: MemRefInfo) -> int:
    """Descriptor size in bytes: max_i(size_i * stride_i) * elem_bytes, as
    convert-amdgpu-to-rocdl computes it for a static memref (elem_bytes for rank 0)."""
    if not info.shape:
        return info.elem_bytes
    return max(n * s for n, s in zip(info.shape, info.strides)) * info.elem_bytes
