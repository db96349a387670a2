"""memref and vector memory ops, memref views, workgroup allocations, raw buffers."""

from __future__ import annotations

import numpy as np

from accel.bindings import ir
from accel.diagnostics import AccelError
from accel.sim.lds import bank_conflict_cycles
from accel.sim.locations import describe, where
from accel.sim.memory import (AccessPattern, View, num_records, plain_addresses,
                              raw_buffer_offsets, take)
from accel.sim.registry import op
from accel.sim.types import DYNAMIC, memref_info, value_type


def _segments(o, names):
    """Operand slices of an op with operandSegmentSizes, by segment name."""
    sizes = list(ir.DenseI32ArrayAttr(o.attributes["operandSegmentSizes"]))
    out, start = {}, 0
    for name, n in zip(names, sizes):
        out[name] = list(o.operands)[start:start + n]
        start += n
    return out


def _tids(st):
    return st.all_rows if st.rows is None else st.rows


def _lds_access(st, c_arch, view, addr, op_id, desc, write):
    buf = view.buf
    tids = _tids(st)
    if write:
        buf.tracker.write(st, addr, tids, op_id)
    else:
        buf.tracker.read(st, addr, tids, op_id)
    cycles = bank_conflict_cycles(st, c_arch, addr, tids, buf.byte_base,
                                  buf.data.itemsize, buf.region)
    bc = st.report.bank_conflicts
    bc[desc] = bc.get(desc, 0) + cycles


def _compile_access(c, o, value_ty, mem, idx_vals, store_val):
    """memref.load/store and vector.load/store share everything but direction."""
    info = memref_info(mem.type, o.location)
    vt = value_type(value_ty, o.location)
    if vt.dtype != info.dtype:
        raise AccelError("simulator: access element type differs from the memref's",
                         location=o.location)
    pat = AccessPattern(info, vt.shape)
    m = c.use(mem)
    idx = [c.use(v) for v in idx_vals]
    loc = where(o)
    desc = describe(o)
    op_id = c.op_id(o)
    arch = c.arch
    name = o.name
    if store_val is None:
        out = c.define(o.results[0])

        def load(st):
            r = st.regs
            view = r[m]
            addr = plain_addresses(st, view, [r[i] for i in idx], pat, name, loc)
            if view.buf.tracker is not None:
                _lds_access(st, arch, view, addr, op_id, desc, write=False)
            r[out] = _to_all_threads(st, view.buf.data[addr], vt)

        return load

    val = c.use(store_val)

    def store(st):
        r = st.regs
        view = r[m]
        addr = plain_addresses(st, view, [r[i] for i in idx], pat, name, loc)
        v = take(r[val], st.rows)
        if v.shape[0] > addr.shape[0]:
            addr = np.broadcast_to(addr, v.shape)
        if view.buf.tracker is not None:
            _lds_access(st, arch, view, addr, op_id, desc, write=True)
        view.buf.data[addr] = np.broadcast_to(v, addr.shape)

    return store


def _to_all_threads(st, vals, vt):
    """Loaded values of the active rows (st.rows, under a divergent branch) spread to one
    row per thread, zero for the inactive ones."""
    if st.rows is not None and vals.shape[0] > 1:
        full = np.zeros((st.T,) + vt.shape, dtype=vt.dtype)
        full[st.rows] = vals
        return full
    return vals


@op("memref.load")
def _memref_load(c, o):
    return _compile_access(c, o, o.results[0].type, o.operands[0], list(o.operands)[1:], None)


@op("vector.load")
def _vector_load(c, o):
    return _compile_access(c, o, o.results[0].type, o.operands[0], list(o.operands)[1:], None)


@op("memref.store", "vector.store")
def _store(c, o):
    ops = list(o.operands)
    return _compile_access(c, o, ops[0].type, ops[1], ops[2:], ops[0])


# ---- views ---------------------------------------------------------------------------

def _mixed(c, o, attr, dynamic_operands):
    """Static values of an offsets/sizes/strides attribute, with slots for dynamic ones."""
    static = list(ir.DenseI64ArrayAttr(o.attributes[attr]))
    dyn = iter(c.use(v) for v in dynamic_operands)
    return [next(dyn) if s == DYNAMIC else int(s) for s in static]


def _index_value(regs, v):
    return regs[v].astype(np.int64) if not isinstance(v, int) else v


@op("memref.subview")
def _subview(c, o):
    seg = _segments(o, ["source", "offsets", "sizes", "strides"])
    src = c.use(seg["source"][0])
    src_info = memref_info(seg["source"][0].type, o.location)
    offsets = _mixed(c, o, "static_offsets", seg["offsets"])
    info = memref_info(o.results[0].type, o.location)
    out = c.define(o.results[0])
    src_strides = src_info.strides

    def run(st):
        r = st.regs
        v = r[src]
        off = v.offset
        for x, s in zip(offsets, src_strides):
            off = off + _index_value(r, x) * s
        r[out] = View(v.buf, v.base, off, info)

    return run


@op("memref.reinterpret_cast")
def _reinterpret_cast(c, o):
    seg = _segments(o, ["source", "offsets", "sizes", "strides"])
    src = c.use(seg["source"][0])
    (offset,) = _mixed(c, o, "static_offsets", seg["offsets"])
    info = memref_info(o.results[0].type, o.location)
    out = c.define(o.results[0])

    def run(st):
        r = st.regs
        v = r[src]
        r[out] = View(v.buf, v.base, v.base + _index_value(r, offset), info)

    return run


@op("memref.expand_shape", "memref.collapse_shape", "memref.cast",
    "memref.assume_alignment")
def _same_memory(c, o):
    """Views that keep the start and take shape and strides from the result type."""
    src = c.use(o.operands[0])
    info = memref_info(o.results[0].type, o.location)
    out = c.define(o.results[0])

    def run(st):
        r = st.regs
        v = r[src]
        r[out] = View(v.buf, v.base, v.offset, info)

    return run


@op("memref.alloca", "memref.alloc")
def _alloc(c, o):
    info = memref_info(o.results[0].type, o.location)
    if not info.workgroup:
        raise AccelError(f"simulator: {o.name} outside workgroup memory is outside the "
                         "Kernel IR subset", location=o.location)
    if len(o.operands):
        raise AccelError("simulator: workgroup allocation with dynamic sizes",
                         location=o.location)
    index = c.add_lds(info, f"workgroup buffer of {describe(o)}")
    out = c.define(o.results[0])

    def run(st):
        st.regs[out] = st.lds[index]

    return run


# ---- amdgpu raw buffers ----------------------------------------------------------------

def _raw_buffer_common(c, o, seg):
    mem = seg["memref"][0]
    info = memref_info(mem.type, o.location)
    if info.workgroup:
        raise AccelError("simulator: raw buffer access to workgroup memory", location=o.location)
    check = ir.BoolAttr(o.attributes["boundsCheck"]).value if "boundsCheck" in o.attributes else True
    index_offset = (ir.IntegerAttr(o.attributes["indexOffset"]).value
                    if "indexOffset" in o.attributes else 0)
    sgpr = c.use(seg["sgprOffset"][0]) if seg["sgprOffset"] else None
    return c.use(mem), [c.use(v) for v in seg["indices"]], info, check, index_offset, sgpr


def _raw_elements(st, r, m, idx, info, n, index_offset, sgpr, check, where_, verb):
    """(element addresses, valid mask), both (rows, n), of a raw buffer access."""
    rows = st.rows
    view = r[m]
    sg = None if sgpr is None else take(r[sgpr], rows)
    offs, voffs = raw_buffer_offsets([take(r[i], rows) for i in idx], info, n, index_offset,
                                     sg)
    eb = info.elem_bytes
    start = take(view.offset, rows).reshape(-1, 1)
    elem = start + offs // eb
    if check:
        records = num_records(info)
        valid = offs + eb <= records
        # LLVM's raw buffer intrinsics leave soffset out of the range check on gfx9 and
        # "may or may not" count it on later chips (the amdgpu dialect's words): an
        # element whose check depends on it reads another value on some chip.
        if sg is not None and (valid != (voffs + eb <= records)).any():
            raise AccelError(f"simulator: raw buffer {verb} whose range check depends on its "
                             f"sgprOffset (gfx9 leaves soffset out of it)", location=where_)
        # A strided view's descriptor (max(size * stride) from the view's start) may
        # reach past its buffer's end: an access there is a real one, not a dropped one.
        shape = np.broadcast_shapes(elem.shape, valid.shape)
        inside = np.broadcast_to(elem, shape)[np.broadcast_to(valid, shape)]
        if inside.size and (inside.min() < 0 or inside.max() >= view.buf.data.size):
            raise AccelError(f"simulator: raw buffer {verb} inside its descriptor's range "
                             f"but outside {view.buf.name}: a memory fault on hardware",
                             location=where_)
    else:
        valid = np.ones(offs.shape, dtype=bool)
        if elem.min() < 0 or elem.max() >= view.buf.data.size:
            raise AccelError(f"simulator: raw buffer {verb} with boundsCheck = false outside "
                             f"{view.buf.name}: a memory fault on hardware", location=where_)
    shape = np.broadcast_shapes(elem.shape, valid.shape)
    return view, np.broadcast_to(elem, shape), np.broadcast_to(valid, shape)


@op("amdgpu.raw_buffer_load")
def _raw_buffer_load(c, o):
    seg = _segments(o, ["memref", "indices", "sgprOffset"])
    m, idx, info, check, index_offset, sgpr = _raw_buffer_common(c, o, seg)
    vt = value_type(o.results[0].type, o.location)
    n = int(np.prod(vt.shape, dtype=np.int64))
    out = c.define(o.results[0])
    loc = where(o)

    def run(st):
        r = st.regs
        view, elem, valid = _raw_elements(st, r, m, idx, info, n, index_offset, sgpr,
                                          check, loc, "load")
        st.note_active(f"load {view.buf.name}")
        vals = np.zeros(elem.shape, dtype=vt.dtype)
        vals[valid] = view.buf.data[elem[valid]]
        r[out] = _to_all_threads(st, vals.reshape((elem.shape[0],) + vt.shape), vt)

    return run


@op("amdgpu.raw_buffer_store")
def _raw_buffer_store(c, o):
    seg = _segments(o, ["value", "memref", "indices", "sgprOffset"])
    m, idx, info, check, index_offset, sgpr = _raw_buffer_common(c, o, seg)
    vt = value_type(seg["value"][0].type, o.location)
    n = int(np.prod(vt.shape, dtype=np.int64))
    val = c.use(seg["value"][0])
    loc = where(o)

    def run(st):
        r = st.regs
        v = take(r[val], st.rows).reshape(-1, n)
        view, elem, valid = _raw_elements(st, r, m, idx, info, n, index_offset, sgpr,
                                          check, loc, "store")
        shape = np.broadcast_shapes(elem.shape, v.shape)
        elem, valid = np.broadcast_to(elem, shape), np.broadcast_to(valid, shape)
        view.buf.data[elem[valid]] = np.broadcast_to(v, shape)[valid]

    return run


# ---- direct-to-LDS loads ------------------------------------------------------------------

@op("amdgpu.fat_raw_buffer_cast")
def _fat_raw_buffer_cast(c, o):
    """A buffer descriptor over the whole memref (its num_records: raw_buffer's rule);
    gather_to_lds reads through it. Only the plain form: no validBytes or swizzle
    stride operands, the view's own offset kept."""
    if len(o.operands) != 1 or "resetOffset" in o.attributes:
        raise AccelError("simulator: amdgpu.fat_raw_buffer_cast with validBytes, a cache "
                         "swizzle stride or resetOffset is outside the Kernel IR subset",
                         location=o.location)
    src = c.use(o.operands[0])
    info = memref_info(o.results[0].type, o.location)
    out = c.define(o.results[0])

    def run(st):
        v = st.regs[src]
        st.regs[out] = View(v.buf, v.base, v.offset, info)

    return run


# Bytes one lane moves, as the simulator models them: M0 + lane * 4 is the LDS address
# of buffer_load_dword ... lds; the 1- and 2-byte forms are not modelled.
GATHER_BYTES = (4,)


@op("amdgpu.gather_to_lds")
def _gather_to_lds(c, o):
    """Each active lane loads `transferType` from the fat raw buffer at its source
    indices (0 where any byte is past num_records, as a buffer load returns) and the
    wave writes the values to LDS at its destination, lane l at + l * transfer: the
    destination must be the same for the wave's active lanes (it goes into M0). The LDS
    writes are in flight until a memory_counter_wait load(0) (vmcnt counts them): a
    barrier before that is an error, since other waves may read LDS they have not
    reached yet."""
    if c.arch.name != "gfx942":
        raise AccelError(f"simulator: amdgpu.gather_to_lds on {c.arch.name} (no global-to-LDS "
                         "loads)", location=o.location)
    seg = _segments(o, ["src", "srcIndices", "dst", "dstIndices"])
    src_v, dst_v = seg["src"][0], seg["dst"][0]
    owner = getattr(src_v.owner, "operation", None)   # None for a block argument
    if owner is None or owner.name != "amdgpu.fat_raw_buffer_cast":
        raise AccelError("simulator: amdgpu.gather_to_lds from a source that is not an "
                         "amdgpu.fat_raw_buffer_cast", location=o.location)
    check = (ir.BoolAttr(owner.attributes["boundsCheck"]).value
             if "boundsCheck" in owner.attributes else True)
    src_info = memref_info(src_v.type, o.location)
    dst_info = memref_info(dst_v.type, o.location)
    vt = value_type(ir.TypeAttr(o.attributes["transferType"]).value, o.location)
    n = int(np.prod(vt.shape, dtype=np.int64))
    if not dst_info.workgroup or src_info.workgroup:
        raise AccelError("simulator: amdgpu.gather_to_lds must read global memory into "
                         "workgroup memory", location=o.location)
    if not (vt.dtype == src_info.dtype == dst_info.dtype):
        raise AccelError("simulator: amdgpu.gather_to_lds with differing element types",
                         location=o.location)
    if n * vt.dtype.itemsize not in GATHER_BYTES:
        raise AccelError(f"simulator: amdgpu.gather_to_lds of {n * vt.dtype.itemsize} bytes "
                         f"a lane (modelled: {GATHER_BYTES})", location=o.location)
    src = c.use(src_v)
    dst = c.use(dst_v)
    src_idx = [c.use(v) for v in seg["srcIndices"]]
    dst_idx = [c.use(v) for v in seg["dstIndices"]]
    op_id = c.op_id(o)
    desc = describe(o)
    loc = where(o)
    arch = c.arch
    wave = arch.wave_size

    def run(st):
        r = st.regs
        rows = _tids(st)
        sview = r[src]
        offs, _ = raw_buffer_offsets([take(r[i], st.rows) for i in src_idx], src_info, n, 0,
                                     None)
        elem = take(sview.offset, st.rows).reshape(-1, 1) + offs // src_info.elem_bytes
        elem = np.broadcast_to(elem, (rows.size, n))
        if check:
            valid = offs[:, -1:] + src_info.elem_bytes <= num_records(src_info)
        else:
            valid = np.ones((offs.shape[0], 1), dtype=bool)
        valid = np.broadcast_to(valid, (rows.size, n))
        inside = elem[valid]
        if inside.size and (inside.min() < 0 or inside.max() >= sview.buf.data.size):
            raise AccelError(f"simulator: gather_to_lds load outside {sview.buf.name}: a "
                             f"memory fault on hardware", location=loc)
        vals = np.zeros((rows.size, n), dtype=vt.dtype)
        vals[valid] = sview.buf.data[elem[valid]]
        # The destination: one per wave (M0), lane l's n elements at + l * n.
        dview = r[dst]
        base = np.broadcast_to(take(dview.offset, st.rows), (rows.size,)).astype(np.int64)
        for d, i in enumerate(dst_idx):
            base = base + np.broadcast_to(take(r[i], st.rows), (rows.size,)).astype(
                np.int64) * dst_info.strides[d]
        wave_id = st.wg[rows] * (-(-st.tpw // wave)) + st.lin_in_wg[rows] // wave
        first = np.unique(wave_id, return_index=True)[1]
        wave_base = base[first][np.searchsorted(wave_id[first], wave_id)]
        if (wave_base != base).any():
            bad = int(rows[np.flatnonzero(wave_base != base)[0]])
            raise AccelError(f"simulator: gather_to_lds destination differs within a wave "
                             f"(it is the wave's M0), at {st.thread_name(bad)}", location=loc)
        lane = st.lin_in_wg[rows] % wave
        addr = (wave_base + lane * n).reshape(-1, 1) + np.arange(n, dtype=np.int64)
        rel = addr - (st.wg[rows] * dview.buf.region).reshape(-1, 1)
        if rel.min() < 0 or rel.max() >= dview.buf.region:
            raise AccelError(f"simulator: gather_to_lds writes outside {dview.buf.name}",
                             location=loc)
        st.note_active(f"load {sview.buf.name}")
        _lds_access(st, arch, dview, addr, op_id, desc, write=True)
        dview.buf.data[addr] = vals
        st.lds_dma_pending = True

    return run
