"""Host-only ops: kernel launches, host memory, globals, copies, calls and the
elementwise `linalg.generic` the front ends leave on the host.

Each compile function gets the host compiler `c` (with `c.rt`, the run's Runtime) and
returns a closure over the one-thread `State`; memrefs are `memory.View`s.
"""

from __future__ import annotations

import numpy as np

from accel.bindings import ir
from accel.diagnostics import AccelError
from accel.sim.interp import Compiler
from accel.sim.locations import describe, where
from accel.sim.memory import Buffer, View, poison
from accel.sim.ops_arith import dense_elements
from accel.sim.registry import OPS, host_op
from accel.sim.run import WorkLimitError, run_compiled
from accel.sim.types import memref_info


def element_offsets(info) -> np.ndarray:
    """Element offset of every index of a memref relative to its view start (shape of
    the memref)."""
    rel = np.zeros(info.shape, dtype=np.int64)
    for axis, (n, s) in enumerate(zip(info.shape, info.strides)):
        shape = [1] * len(info.shape)
        shape[axis] = n
        rel = rel + (np.arange(n, dtype=np.int64) * s).reshape(shape)
    return rel


def _new_view(data: np.ndarray, name: str, info) -> View:
    return View(Buffer(data, name, data.size), np.zeros(1, np.int64),
                np.array([info.offset or 0], np.int64), info)


# ---- launches --------------------------------------------------------------------------

@host_op("gpu.launch_func")
def _launch_func(c, o):
    lf = o.opview
    if list(lf.asyncDependencies) or lf.asyncToken is not None:
        raise AccelError("simulator: asynchronous gpu.launch_func is not supported",
                         location=o.location)
    if lf.dynamicSharedMemorySize is not None or lf.clusterSizeX is not None:
        raise AccelError("simulator: gpu.launch_func with dynamic shared memory or "
                         "clusters is not supported", location=o.location)
    name = str(o.attributes["kernel"]).replace("@", "")   # "@mod::@fn" -> "mod::fn"
    kernel = c.rt.kernel(name, o.location)
    grid = [c.use(v) for v in (lf.gridSizeX, lf.gridSizeY, lf.gridSizeZ)]
    block = [c.use(v) for v in (lf.blockSizeX, lf.blockSizeY, lf.blockSizeZ)]
    operands = list(lf.kernelOperands)
    if len(operands) != len(kernel.arg_types):
        raise AccelError(f"simulator: kernel '{name}' takes {len(kernel.arg_types)} "
                         f"arguments, the launch passes {len(operands)}", location=o.location)
    args = [c.use(v) for v in operands]
    loc = where(o)
    rt = c.rt

    def run(st):
        r = st.regs
        values = []
        for i, (slot, t) in enumerate(zip(args, kernel.arg_types)):
            v = r[slot]
            if not isinstance(v, View):
                values.append(v[0].item())
                continue
            # Kernels take bare pointers: the allocation start, with the view offset
            # fixed by the kernel's argument type.
            if int(v.offset[0]) != (t.offset or 0):
                raise AccelError(f"simulator: launch argument {i} starts at element "
                                 f"{int(v.offset[0])} of its buffer; the kernel's bare "
                                 f"pointer argument assumes {t.offset or 0}", location=loc)
            values.append(v.buf.data)
        g = tuple(int(r[x][0]) for x in grid)
        b = tuple(int(r[x][0]) for x in block)
        work = kernel.wave_instructions(g, b, rt.arch.wave_size)
        if rt.work_limit is not None and rt.work_done + work > rt.work_limit:
            raise WorkLimitError(f"simulator: launching '{name.split('::')[-1]}' on grid {g} "
                                 f"brings the run to "
                                 f"about {rt.work_done + work:.3g} wave-instructions, more "
                                 f"than the limit of {rt.work_limit:.3g}",
                                 rt.work_done + work, rt.work_limit, loc)
        progress = None if rt.progress is None else (
            lambda done, total: rt.progress(name.split("::")[-1], done, total))
        try:
            report = run_compiled(kernel, g, b, values, rt.arch_name, rt.strict_races,
                                  progress=progress)
        except AccelError as e:
            e.location = e.location or loc
            raise
        rt.work_done += work
        rt.record_launch(name, g, b, report)

    return run


# ---- memory ----------------------------------------------------------------------------

@host_op("memref.alloc", "memref.alloca")
def _alloc(c, o):
    info = memref_info(o.results[0].type, o.location)
    if info.workgroup:
        raise AccelError("simulator: workgroup memory allocated on the host",
                         location=o.location)
    if len(o.operands):
        raise AccelError(f"simulator: {o.name} with dynamic sizes", location=o.location)
    out = c.define(o.results[0])
    name = f"allocation of {describe(o)}"
    size = (info.offset or 0) + info.extent
    live = c.rt.live

    def run(st):
        view = _new_view(poison(size, info.dtype), name, info)
        live.add(id(view.buf))
        st.regs[out] = view

    return run


@host_op("memref.dealloc")
def _dealloc(c, o):
    src = c.use(o.operands[0])
    loc = where(o)
    live = c.rt.live

    def run(st):
        buf = st.regs[src].buf
        if id(buf) not in live:
            raise AccelError(f"simulator: memref.dealloc of {buf.name}, which is not a live "
                             "memref.alloc", location=loc)
        live.discard(id(buf))
        # A read after the free then sees garbage, as it might on the device.
        buf.data[...] = poison(buf.data.size, buf.data.dtype)

    return run


@host_op("memref.get_global")
def _get_global(c, o):
    sym = ir.FlatSymbolRefAttr(o.attributes["name"]).value
    g = c.rt.symbol(sym, "memref.global", o.location)
    info = memref_info(o.results[0].type, o.location)
    out = c.define(o.results[0])
    rt = c.rt
    size = (info.offset or 0) + info.extent

    def run(st):
        if sym not in rt.globals:
            rt.globals[sym] = _global_buffer(rt, g, sym, info, size)
        st.regs[out] = View(rt.globals[sym], np.zeros(1, np.int64),
                            np.array([info.offset or 0], np.int64), info)

    return run


def _global_buffer(rt, g, sym: str, info, size: int) -> Buffer:
    init = g.attributes["initial_value"] if "initial_value" in g.attributes else None
    if isinstance(init, ir.DenseElementsAttr):
        data = dense_elements(init, info.dtype, (size,) if size != info.num_elements
                              else info.shape, g.location).reshape(-1)
    elif isinstance(init, ir.UnitAttr):
        data = poison(size, info.dtype)
    else:
        raise AccelError(f"simulator: memref.global @{sym} has no initial value "
                         "(external globals are not supported)", location=g.location)
    buf = Buffer(np.ascontiguousarray(data), f"memref.global @{sym}", data.size)
    if "constant" in g.attributes:
        # Checked after the run: a kernel writing a constant weight is a bug.
        rt.constants.append((sym, buf, buf.data.copy()))
    return buf


@host_op("memref.copy")
def _copy(c, o):
    src, dst = (c.use(v) for v in o.operands)
    s_info = memref_info(o.operands[0].type, o.location)
    d_info = memref_info(o.operands[1].type, o.location)
    s_rel, d_rel = element_offsets(s_info), element_offsets(d_info)

    def run(st):
        s, d = st.regs[src], st.regs[dst]
        vals = s.buf.data[int(s.offset[0]) + s_rel]
        d.buf.data[int(d.offset[0]) + d_rel] = vals

    return run


# ---- calls -----------------------------------------------------------------------------

@host_op("func.call")
def _call(c, o):
    callee = ir.FlatSymbolRefAttr(o.attributes["callee"]).value
    args = [c.use(v) for v in o.operands]
    results = [c.define(v) for v in o.results]
    rt = c.rt
    location = o.location

    def run(st):
        # Compiled on first call, so recursion needs no forward declaration.
        fn = rt.function(callee, location)
        vals = rt.call(fn, [st.regs[a] for a in args])
        for slot, v in zip(results, vals):
            st.regs[slot] = v

    return run


# ---- linalg.generic --------------------------------------------------------------------

class _BodyCompiler(Compiler):
    """A linalg.generic body: scalar arith/math only."""

    def compile_op(self, op):
        name = op.operation.name
        if name in OPS and name.startswith(("arith.", "math.")):
            return OPS[name](self, op.operation)
        raise AccelError(f"simulator: op '{name}' in a linalg.generic body is not supported",
                         location=op.location)


def _affine(expr, dims):
    """Evaluate an affine expression on numpy arrays of loop indices."""
    if isinstance(expr, ir.AffineDimExpr):
        return dims[expr.position]
    if isinstance(expr, ir.AffineConstantExpr):
        return np.int64(expr.value)
    if isinstance(expr, ir.AffineSymbolExpr):
        raise AccelError("simulator: affine maps with symbols are not supported")
    lhs, rhs = _affine(expr.lhs, dims), _affine(expr.rhs, dims)
    if isinstance(expr, ir.AffineAddExpr):
        return lhs + rhs
    if isinstance(expr, ir.AffineMulExpr):
        return lhs * rhs
    if isinstance(expr, ir.AffineModExpr):
        return lhs % rhs
    if isinstance(expr, ir.AffineFloorDivExpr):
        return lhs // rhs
    if isinstance(expr, ir.AffineCeilDivExpr):
        return -(-lhs // rhs)
    raise AccelError(f"simulator: unsupported affine expression {expr}")


def _loop_ranges(maps, infos, location) -> list[int]:
    """Each loop's trip count: the size of an operand dimension indexed by that loop
    alone (linalg derives the ranges the same way)."""
    n = maps[0].n_dims
    ranges = [None] * n
    for m, info in zip(maps, infos):
        for j, e in enumerate(m.results):
            if isinstance(e, ir.AffineDimExpr) and ranges[e.position] is None:
                ranges[e.position] = info.shape[j]
    if any(r is None for r in ranges):
        raise AccelError("simulator: cannot derive the loop ranges of this linalg.generic",
                         location=location)
    return ranges


@host_op("linalg.generic")
def _generic(c, o):
    if len(o.results):
        raise AccelError("simulator: linalg.generic on tensors (bufferize first)",
                         location=o.location)
    iters = str(o.attributes["iterator_types"])
    if "reduction" in iters:
        raise AccelError("simulator: linalg.generic with reduction loops is not supported",
                         location=o.location)
    operands = list(o.operands)
    n_in = list(ir.DenseI32ArrayAttr(o.attributes["operandSegmentSizes"]))[0]
    infos = [memref_info(v.type, o.location) for v in operands]
    maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(o.attributes["indexing_maps"])]
    if maps[0].n_symbols:
        raise AccelError("simulator: linalg.generic maps with symbols", location=o.location)
    ranges = _loop_ranges(maps, infos, o.location)
    dims = [x.reshape(-1) for x in np.indices(ranges, dtype=np.int64)] if ranges else []
    # Static part of every access: element offsets relative to the view start, and
    # whether any index leaves its memref.
    rel, oob = [], None
    for m, info in zip(maps, infos):
        idx = [np.broadcast_to(_affine(e, dims), (int(np.prod(ranges, dtype=np.int64)),))
               for e in m.results]
        off = np.zeros(idx[0].shape if idx else (1,), dtype=np.int64)
        for i, n, s in zip(idx, info.shape, info.strides):
            if oob is None and i.size and (i.min() < 0 or i.max() >= n):
                oob = "an indexing map leaves the bounds of its operand"
            off = off + i * s
        rel.append(off)
    body = _BodyCompiler(c.arch)
    block = o.regions[0].blocks[0]
    arg_slots = [body.define(a) for a in block.arguments]
    closures, yielded = body.compile_block(block, terminators=("linalg.yield",))
    slots = [c.use(v) for v in operands]
    rt = c.rt
    loc = where(o)

    def run(st):
        if oob:
            raise AccelError(f"simulator: {oob}", location=loc)
        views = [st.regs[s] for s in slots]
        bst = rt.new_state(body.num_slots)
        for slot, v, off in zip(arg_slots, views, rel):
            bst.regs[slot] = v.buf.data[int(v.offset[0]) + off]
        for fn in closures:
            fn(bst)
        for k, y in enumerate(yielded):
            v = views[n_in + k]
            addr = int(v.offset[0]) + rel[n_in + k]
            v.buf.data[addr] = np.broadcast_to(bst.regs[y], addr.shape)

    return run
