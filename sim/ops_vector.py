"""vector dialect register ops (loads and stores live with the other memory ops).

Axis 0 of every value is the thread axis, so a vector position p is axis p+1.
"""

from __future__ import annotations

import numpy as np

from accel.bindings import ir
from accel.sim.registry import op
from accel.sim.types import DYNAMIC, value_type

F64 = np.dtype(np.float64)


def _positions(c, o, dyn_operands):
    static = list(ir.DenseI64ArrayAttr(o.attributes["static_position"]))
    dyn = iter(c.use(v) for v in dyn_operands)
    return [next(dyn) if p == DYNAMIC else int(p) for p in static]


def _index(r, pos, rows):
    """Index tuple for positions, some of them per-thread slots."""
    if all(isinstance(p, int) for p in pos):
        return (slice(None),) + tuple(pos)
    return (np.arange(rows).reshape(-1),) + tuple(
        p if isinstance(p, int) else np.broadcast_to(r[p].astype(np.int64), (rows,))
        for p in pos)


@op("vector.extract")
def _extract(c, o):
    src = c.use(o.operands[0])
    pos = _positions(c, o, list(o.operands)[1:])
    out = c.define(o.results[0])
    if all(isinstance(p, int) for p in pos):
        key = (slice(None),) + tuple(pos)

        def run_static(st):
            r = st.regs
            r[out] = r[src][key]

        return run_static

    def run(st):
        r = st.regs
        v = r[src]
        rows = max(v.shape[0], *(r[p].shape[0] for p in pos if not isinstance(p, int)))
        r[out] = np.broadcast_to(v, (rows,) + v.shape[1:])[_index(r, pos, rows)]

    return run


@op("vector.insert")
def _insert(c, o):
    ops = list(o.operands)
    src, dest = c.use(ops[0]), c.use(ops[1])
    pos = _positions(c, o, ops[2:])
    out = c.define(o.results[0])

    def run(st):
        r = st.regs
        s, d = r[src], r[dest]
        rows = max(s.shape[0], d.shape[0],
                   *(r[p].shape[0] for p in pos if not isinstance(p, int)))
        res = np.array(np.broadcast_to(d, (rows,) + d.shape[1:]))
        key = _index(r, pos, rows)
        res[key] = s
        r[out] = res

    return run


def _to_rank(x, rank):
    """Prepend unit vector dims after the thread axis so x has `rank` vector dims."""
    return x.reshape((x.shape[0],) + (1,) * (rank - (x.ndim - 1)) + x.shape[1:])


@op("vector.broadcast")
def _broadcast(c, o):
    src = c.use(o.operands[0])
    shape = value_type(o.results[0].type, o.location).shape
    out = c.define(o.results[0])

    def run(st):
        r = st.regs
        x = _to_rank(r[src], len(shape))
        r[out] = np.broadcast_to(x, (x.shape[0],) + shape)

    return run


@op("vector.from_elements")
def _from_elements(c, o):
    srcs = [c.use(v) for v in o.operands]
    shape = value_type(o.results[0].type, o.location).shape
    out = c.define(o.results[0])

    def run(st):
        r = st.regs
        xs = np.broadcast_arrays(*[r[s] for s in srcs])
        r[out] = np.stack(xs, axis=1).reshape((xs[0].shape[0],) + shape)

    return run


@op("vector.shuffle")
def _shuffle(c, o):
    # 1-D operands (what codegen emits): result[i] = concat(v1, v2)[mask[i]].
    v1, v2 = c.use(o.operands[0]), c.use(o.operands[1])
    mask = np.array(list(ir.DenseI64ArrayAttr(o.attributes["mask"])), dtype=np.int64)
    out = c.define(o.results[0])

    def run(st):
        r = st.regs
        a, b = r[v1], r[v2]
        rows = max(a.shape[0], b.shape[0])
        both = np.concatenate([np.broadcast_to(a, (rows,) + a.shape[1:]),
                               np.broadcast_to(b, (rows,) + b.shape[1:])], axis=1)
        r[out] = both[:, mask]

    return run


@op("vector.shape_cast")
def _shape_cast(c, o):
    src = c.use(o.operands[0])
    shape = value_type(o.results[0].type, o.location).shape
    out = c.define(o.results[0])

    def run(st):
        r = st.regs
        x = r[src]
        r[out] = x.reshape((x.shape[0],) + shape)

    return run


@op("vector.bitcast")
def _bitcast(c, o):
    src = c.use(o.operands[0])
    dtype = value_type(o.results[0].type, o.location).dtype
    out = c.define(o.results[0])

    def run(st):
        r = st.regs
        r[out] = np.ascontiguousarray(r[src]).view(dtype)

    return run


@op("vector.fma")
def _fma(c, o):
    a, b, acc = (c.use(v) for v in o.operands)
    dtype = value_type(o.results[0].type, o.location).dtype
    out = c.define(o.results[0])

    def run(st):
        r = st.regs
        # f64 holds the exact product of two f32 (or f16/bf16); one add, one rounding.
        r[out] = (r[a].astype(F64) * r[b].astype(F64) + r[acc].astype(F64)).astype(dtype)

    return run


def _int_list(attr):
    """offsets/sizes/strides of the strided-slice ops: an ArrayAttr of i64 IntegerAttrs."""
    return [ir.IntegerAttr(a).value for a in ir.ArrayAttr(attr)]


@op("vector.extract_strided_slice")
def _extract_strided_slice(c, o):
    src = c.use(o.operands[0])
    offsets = _int_list(o.attributes["offsets"])
    sizes = _int_list(o.attributes["sizes"])
    strides = _int_list(o.attributes["strides"])
    key = (slice(None),) + tuple(slice(off, off + n * s, s)
                                 for off, n, s in zip(offsets, sizes, strides))
    out = c.define(o.results[0])

    def run(st):
        r = st.regs
        r[out] = r[src][key]

    return run


@op("vector.insert_strided_slice")
def _insert_strided_slice(c, o):
    src, dest = c.use(o.operands[0]), c.use(o.operands[1])
    offsets = _int_list(o.attributes["offsets"])
    strides = _int_list(o.attributes["strides"])
    src_shape = value_type(o.operands[0].type, o.location).shape
    dest_rank = len(value_type(o.operands[1].type, o.location).shape)
    # The source covers the trailing dims of dest; leading offsets pick one slot.
    lead = dest_rank - len(src_shape)
    key = (slice(None),) + tuple(offsets[:lead]) + tuple(
        slice(off, off + n * s, s) for off, n, s in zip(offsets[lead:], src_shape, strides))
    out = c.define(o.results[0])

    def run(st):
        r = st.regs
        s, d = r[src], r[dest]
        rows = max(s.shape[0], d.shape[0])
        res = np.array(np.broadcast_to(d, (rows,) + d.shape[1:]))
        res[key] = s
        r[out] = res

    return run
