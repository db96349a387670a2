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
