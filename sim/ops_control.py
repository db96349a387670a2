"""gpu ids and barriers, scf.for and scf.if.

Control flow is lockstep: scf.if runs each branch under a mask of the threads taking
it and merges the yielded values with `where`; scf.for needs bounds that are uniform
within each workgroup (a workgroup-divergent loop is outside the Kernel IR), but they
may differ between the workgroups of a batch, which then run masked.
"""

from __future__ import annotations

import numpy as np

from accel.bindings import ir
from accel.diagnostics import AccelError
from accel.sim.locations import where
from accel.sim.registry import op
from accel.sim.types import value_type

_DIMS = {"x": 0, "y": 1, "z": 2}


def _dim(o):
    text = str(o.attributes["dimension"])     # "#gpu<dim x>"
    return _DIMS[text.rstrip(">").split()[-1]]


@op("gpu.thread_id")
def _thread_id(c, o):
    d, out = _dim(o), c.define(o.results[0])

    def run(st):
        st.regs[out] = st.tid[d]

    return run


@op("gpu.block_id")
def _block_id(c, o):
    d, out = _dim(o), c.define(o.results[0])

    def run(st):
        st.regs[out] = st.bid[d]

    return run


@op("gpu.block_dim", "gpu.grid_dim")
def _dims(c, o):
    d, out = _dim(o), c.define(o.results[0])
    grid = o.name == "gpu.grid_dim"

    def run(st):
        st.regs[out] = np.array([(st.grid if grid else st.block)[d]], dtype=np.int64)

    return run


@op("gpu.lane_id")
def _lane_id(c, o):
    out = c.define(o.results[0])
    wave = c.arch.wave_size

    def run(st):
        st.regs[out] = st.lin_in_wg % wave

    return run


@op("amdgpu.sched_barrier", "rocdl.sched.barrier", "rocdl.sched.group.barrier",
    "rocdl.iglp.opt")
def _scheduling_hint(c, o):
    # Instruction-scheduling hints for the LLVM backend: no effect on what runs.
    return lambda st: None


@op("amdgpu.memory_counter_wait")
def _counter_wait(c, o):
    # A wait for the memory operations in flight: the simulator completes each one as
    # it runs, so only gather_to_lds's LDS writes (counted as loads, vmcnt) are tracked:
    # a load(0) wait completes them.
    load = o.attributes["load"] if "load" in o.attributes else None
    if load is None or ir.IntegerAttr(load).value != 0:
        return lambda st: None

    def run(st):
        st.lds_dma_pending = False

    return run


@op("gpu.barrier", "amdgpu.lds_barrier")
def _barrier(c, o):
    loc = where(o)

    def run(st):
        wgs = None
        if st.mask is not None:
            m = st.mask.reshape(st.W, st.tpw)
            arrived = m.any(axis=1)
            partial = arrived & ~m.all(axis=1)
            if partial.any():
                row = int(np.flatnonzero(partial)[0]) * st.tpw
                raise AccelError("simulator: barrier reached by only some threads of "
                                 f"the workgroup of {st.thread_name(row)}", location=loc)
            wgs = np.flatnonzero(arrived)
        if st.lds_dma_pending:
            raise AccelError("simulator: barrier with gather_to_lds writes to LDS in flight "
                             "(no memory_counter_wait load(0) since): other waves may read "
                             "LDS they have not reached", location=loc)
        for buf in st.lds_buffers:
            buf.tracker.barrier(wgs)

    return run


def _merge(mask, new, old):
    """Per-thread choice between two values of the same type."""
    if new is old:
        return new
    m = mask.reshape(mask.shape + (1,) * (max(np.ndim(new), np.ndim(old)) - 1))
    return np.where(m, new, old)


def _run(closures, st):
    for fn in closures:
        fn(st)


@op("scf.for")
def _for(c, o):
    ops = list(o.operands)
    lb, ub, step = (c.use(v) for v in ops[:3])
    inits = [c.use(v) for v in ops[3:]]
    body = o.regions[0].blocks[0]
    args = list(body.arguments)
    iv = c.define(args[0])
    iv_dtype = value_type(args[0].type, o.location).dtype
    carried = [c.define(a) for a in args[1:]]
    closures, yielded = c.compile_block(body)
    results = [c.define(v) for v in o.results]
    loc = where(o)

    def run(st):
        r = st.regs
        lo, hi, s = r[lb], r[ub], r[step]
        for a, i in zip(carried, inits):
            r[a] = r[i]
        if lo.shape[0] == 1 and hi.shape[0] == 1 and s.shape[0] == 1:
            lo_, hi_, s_ = int(lo[0]), int(hi[0]), int(s[0])
            if s_ <= 0:
                raise AccelError("simulator: scf.for step must be positive", location=loc)
            for i in range(lo_, hi_, s_):
                r[iv] = np.array([i], dtype=iv_dtype)
                _run(closures, st)
                vals = [r[y] for y in yielded]
                for a, v in zip(carried, vals):
                    r[a] = v
        else:
            _run_divergent(st, lo, hi, s)
        for res, a in zip(results, carried):
            r[res] = r[a]

    def _run_divergent(st, lo, hi, s):
        r = st.regs
        T = st.T
        lo, hi, s = (np.broadcast_to(x.astype(np.int64), (T,)) for x in (lo, hi, s))
        active = np.ones(T, bool) if st.mask is None else st.mask
        if (s[active] <= 0).any():
            raise AccelError("simulator: scf.for step must be positive", location=loc)
        for x in (lo, hi, s):
            _check_uniform_per_workgroup(st, x, active, loc)
        trips = np.where(hi > lo, (hi - lo + s - 1) // np.maximum(s, 1), 0)
        for it in range(int(trips[active].max(initial=0))):
            on = active & (trips > it)
            prev = st.set_mask(on)
            r[iv] = (lo + it * s).astype(iv_dtype)
            _run(closures, st)
            vals = [r[y] for y in yielded]
            for a, v in zip(carried, vals):
                r[a] = _merge(on, v, r[a])
            st.restore_mask(prev)

    return run


def _check_uniform_per_workgroup(st, x, active, loc):
    xs = x.reshape(st.W, st.tpw)
    act = active.reshape(st.W, st.tpw)
    first = xs[np.arange(st.W), np.argmax(act, axis=1)]
    bad = act & (xs != first[:, None])
    if bad.any():
        row = int(np.flatnonzero(bad.reshape(-1))[0])
        raise AccelError("simulator: scf.for bounds are not uniform across the workgroup "
                         f"(differ at {st.thread_name(row)})", location=loc)


@op("scf.if")
def _if(c, o):
    cond = c.use(o.operands[0])
    then_cl, then_y = c.compile_block(o.regions[0].blocks[0])
    if len(o.regions) > 1 and len(o.regions[1].blocks):
        else_cl, else_y = c.compile_block(o.regions[1].blocks[0])
    else:
        else_cl, else_y = [], []
    results = [c.define(v) for v in o.results]

    def branch(st, closures, yielded):
        _run(closures, st)
        return [st.regs[y] for y in yielded]

    def run(st):
        r = st.regs
        k = r[cond]
        if k.shape[0] == 1:
            vals = branch(st, then_cl, then_y) if k[0] else branch(st, else_cl, else_y)
        else:
            kt = k if st.mask is None else k & st.mask
            kf = ~k if st.mask is None else ~k & st.mask
            any_t, any_f = bool(kt.any()), bool(kf.any())
            if any_t != any_f:
                # Every active thread agrees: no new mask needed.
                vals = branch(st, then_cl, then_y) if any_t else branch(st, else_cl, else_y)
            else:
                prev = st.set_mask(kt)
                tv = branch(st, then_cl, then_y)
                st.set_mask(kf)
                ev = branch(st, else_cl, else_y)
                st.restore_mask(prev)
                vals = [_merge(k, a, b) for a, b in zip(tv, ev)]
        for res, v in zip(results, vals):
            r[res] = v

    return run


@op("rocdl.readfirstlane")
def _readfirstlane(c, o):
    """Each active thread gets the value of its wave's first active thread."""
    src = c.use(o.operands[0])
    out = c.define(o.results[0])
    wave = c.arch.wave_size

    def run(st):
        rows = st.all_rows if st.rows is None else st.rows
        v = st.regs[src]
        if v.shape[0] == 1:
            st.regs[out] = v
            return
        wave_id = st.wg[rows] * (-(-st.tpw // wave)) + st.lin_in_wg[rows] // wave
        ids, first = np.unique(wave_id, return_index=True)
        vals = v[rows]
        full = np.zeros_like(v) if st.rows is not None else np.empty_like(v)
        full[rows] = vals[first][np.searchsorted(ids, wave_id)]
        st.regs[out] = full

    return run
