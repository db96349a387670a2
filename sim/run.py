"""Entry point: find a kernel, compile it once, run the grid in batches of workgroups.

All threads of a batch of workgroups form one flat thread axis (block ids are just
per-thread values), so each op is one numpy call for the whole batch; LDS holds one
region per workgroup of the batch. Batches bound memory on large grids.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from accel.bindings import ir, new_context
from accel.diagnostics import AccelError, mlir_error
from accel.sim.arch import sim_arch
from accel.sim.interp import Compiler, State
from accel.sim.lds import LdsTracker
from accel.sim.memory import Buffer, View, poison
from accel.sim.types import memref_info, value_type

# Threads simulated at once; ~16 workgroups of 256 threads keep values in cache-sized
# arrays while amortising the per-op Python overhead.
MAX_BATCH_THREADS = 16384
LDS_ALIGN = 16


@dataclass
class SimReport:
    races: list[str] = field(default_factory=list)
    # op description ("vector.load at file:line:col") -> extra LDS clocks from bank
    # conflicts summed over all its executions (0 = conflict-free).
    bank_conflicts: dict[str, int] = field(default_factory=dict)
    lds_bytes: int = 0
    workgroups: int = 0
    threads_per_workgroup: int = 0
    wave_size: int = 0
    seconds: float = 0.0
    # What workgroups did, for counting idle ones: "load <buffer>" (a raw buffer load
    # of a kernel argument, e.g. "load argument #0") and "mma" -> the linear ids of the
    # workgroups in which at least one thread executed it.
    active_workgroups: dict[str, set] = field(default_factory=dict)


@dataclass
class SimKernel:
    name: str
    closures: list
    num_slots: int
    arg_slots: list          # slot per kernel argument
    arg_types: list          # MemRefInfo or ValueType per kernel argument
    lds: list                # (slot or None, MemRefInfo, name) per workgroup buffer
    ops: list
    known_block: tuple | None
    known_grid: tuple | None = None
    ops_per_thread: int = 0  # estimated dynamic op count of one thread (`_dynamic_ops`)

    def wave_instructions(self, grid, block, wave_size: int) -> int:
        """Estimated ops the simulator executes for a launch, counted once per wave:
        what a run's time grows with (see WorkLimitError)."""
        threads = block[0] * block[1] * block[2]
        waves = grid[0] * grid[1] * grid[2] * -(-threads // wave_size)
        return waves * self.ops_per_thread


class WorkLimitError(AccelError):
    """A launch (or the launches so far) would exceed the caller's work limit.

    `estimate` and `limit` are wave-instructions (SimKernel.wave_instructions)."""

    def __init__(self, message: str, estimate: int, limit: int, location=None):
        super().__init__(message, location)
        self.estimate = estimate
        self.limit = limit


def parse_module(text: str | None = None, path: str | None = None) -> ir.Module:
    """Parse MLIR text, or the file at `path` (locations then name the file); a
    syntax error becomes an AccelError at its location."""
    ctx = new_context()
    try:
        with ctx:
            return ir.Module.parse(text) if path is None else ir.Module.parseFile(path)
    except ir.MLIRError as e:
        raise mlir_error(e) from None


def find_kernel(module: ir.Module, kernel_name: str):
    mod_name, _, sym = kernel_name.rpartition("::")
    found = []
    for top in module.body.operations:
        top = top.operation
        if top.name != "gpu.module":
            continue
        if mod_name and ir.StringAttr(top.attributes["sym_name"]).value != mod_name:
            continue
        for f in top.regions[0].blocks[0].operations:
            f = f.operation
            if (f.name == "gpu.func" and "kernel" in f.attributes
                    and ir.StringAttr(f.attributes["sym_name"]).value == sym):
                found.append(f)
    if not found:
        raise AccelError(f"simulator: no gpu.func kernel '{kernel_name}' in the module")
    if len(found) > 1:
        raise AccelError(f"simulator: kernel '{sym}' is in several gpu.modules; name it "
                         "as 'module::symbol'")
    return found[0]


def compile_kernel(func, arch) -> SimKernel:
    c = Compiler(arch)
    body = func.regions[0].blocks[0]
    ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
    n_args = len(ftype.inputs)
    n_wg = ir.IntegerAttr(func.attributes["workgroup_attributions"]).value \
        if "workgroup_attributions" in func.attributes else 0
    block_args = list(body.arguments)
    if len(block_args) != n_args + n_wg:
        raise AccelError("simulator: private attributions are outside the Kernel IR subset",
                         location=func.location)
    arg_slots, arg_types = [], []
    for a in block_args[:n_args]:
        arg_slots.append(c.define(a))
        is_mem = str(a.type).startswith("memref<")
        arg_types.append(memref_info(a.type, func.location) if is_mem
                         else value_type(a.type, func.location))
    attributions = []
    for i, a in enumerate(block_args[n_args:]):
        info = memref_info(a.type, func.location)
        attributions.append((c.define(a), c.add_lds(info, f"workgroup attribution #{i}")))
    closures, _ = c.compile_block(body)
    slot_of = {index: slot for slot, index in attributions}
    lds = [(slot_of.get(i), info, name) for i, (info, name) in enumerate(c.lds_buffers)]
    known = {}
    for attr in ("known_block_size", "known_grid_size"):
        if attr in func.attributes:
            known[attr] = tuple(ir.DenseI32ArrayAttr(func.attributes[attr]))
    return SimKernel(ir.StringAttr(func.attributes["sym_name"]).value, closures,
                          c.num_slots, arg_slots, arg_types, lds, c.ops,
                          known.get("known_block_size"), known.get("known_grid_size"),
                          _dynamic_ops(body))


def _dynamic_ops(block) -> int:
    """Ops one thread executes in `block`: an scf.for body counts once per trip when its
    bounds are constants (once otherwise: an underestimate), an scf.if its larger branch."""
    total = 0
    for op in block.operations:
        op = op.operation
        total += 1
        regions = [_dynamic_ops(b) for r in op.regions for b in r.blocks]
        if not regions:
            continue
        if op.name == "scf.for":
            total += _constant_trips(op) * regions[0]
        else:
            total += max(regions)
    return total


def _constant_trips(for_op) -> int:
    bounds = []
    for v in list(for_op.operands)[:3]:
        owner = v.owner
        if not isinstance(owner, ir.OpView) or owner.operation.name != "arith.constant":
            return 1
        bounds.append(ir.IntegerAttr(owner.operation.attributes["value"]).value)
    lo, hi, step = bounds
    return max(0, -(-(hi - lo) // step)) if step > 0 else 1


def _lds_layout(kernel, arch):
    """Byte base of each workgroup buffer, in allocation order, 16-byte aligned (the
    backend's actual placement may differ; it only shifts bank numbers)."""
    bases, top = [], 0
    for _, info, _ in kernel.lds:
        bases.append(top)
        top += -(-info.extent * info.elem_bytes // LDS_ALIGN) * LDS_ALIGN
    if top > arch.lds_bytes:
        raise AccelError(f"simulator: kernel needs {top} bytes of LDS, {arch.name} has "
                         f"{arch.lds_bytes}")
    return bases, top


def _global_buffers(kernel, args):
    if len(args) != len(kernel.arg_types):
        raise AccelError(f"simulator: kernel '{kernel.name}' takes {len(kernel.arg_types)} "
                         f"arguments, got {len(args)}")
    values = []
    for i, (t, a) in enumerate(zip(kernel.arg_types, args)):
        if hasattr(t, "strides"):
            if not isinstance(a, np.ndarray) or a.dtype != t.dtype:
                got = a.dtype if isinstance(a, np.ndarray) else type(a).__name__
                raise AccelError(f"simulator: argument {i} must be a numpy array of "
                                 f"{t.dtype}, got {got}")
            if not a.flags.c_contiguous:
                raise AccelError(f"simulator: argument {i} must be C-contiguous")
            need = (t.offset or 0) + t.extent
            if a.size < need:
                raise AccelError(f"simulator: argument {i} has {a.size} elements, the "
                                 f"memref spans {need}")
            buf = Buffer(a.reshape(-1), f"argument #{i}", a.size)
            values.append(("mem", buf, t))
        else:
            values.append(("scalar", np.array([a], dtype=t.dtype), t))
    return values


def run_compiled(kernel: SimKernel, grid, block, args, arch_name="gfx942",
                 strict_races=True, work_limit: int | None = None,
                 progress=None) -> SimReport:
    """Run `kernel` over `grid` x `block`. `work_limit` refuses, before anything runs, a
    launch estimated above that many wave-instructions (WorkLimitError);
    `progress(done, total)` is called after each batch of workgroups."""
    arch = sim_arch(arch_name)
    grid, block = tuple(int(x) for x in grid), tuple(int(x) for x in block)
    if len(grid) != 3 or len(block) != 3 or min(grid + block) < 1:
        raise AccelError("simulator: grid and block are three positive integers each")
    tpw = block[0] * block[1] * block[2]
    if tpw > 1024:
        raise AccelError(f"simulator: {tpw} threads per workgroup exceeds 1024")
    if kernel.known_block is not None and kernel.known_block != block:
        raise AccelError(f"simulator: kernel '{kernel.name}' is built for block "
                         f"{kernel.known_block}, launched with {block}")
    if kernel.known_grid is not None and kernel.known_grid != grid:
        raise AccelError(f"simulator: kernel '{kernel.name}' is built for grid "
                         f"{kernel.known_grid}, launched with {grid}")
    work = kernel.wave_instructions(grid, block, arch.wave_size)
    if work_limit is not None and work > work_limit:
        raise WorkLimitError(f"simulator: kernel '{kernel.name}' on grid {grid} is about "
                             f"{work:.3g} wave-instructions, more than the limit of "
                             f"{work_limit:.3g}", work, work_limit)
    bases, lds_bytes = _lds_layout(kernel, arch)
    values = _global_buffers(kernel, args)
    report = SimReport(lds_bytes=lds_bytes, workgroups=grid[0] * grid[1] * grid[2],
                       threads_per_workgroup=tpw, wave_size=arch.wave_size)
    start = time.perf_counter()
    per_batch = max(1, MAX_BATCH_THREADS // tpw)
    with np.errstate(all="ignore"):
        for first in range(0, report.workgroups, per_batch):
            wg_ids = np.arange(first, min(first + per_batch, report.workgroups))
            st = State(kernel.num_slots, arch, block, grid, wg_ids, report, strict_races)
            for slot, (kind, v, t) in zip(kernel.arg_slots, values):
                st.regs[slot] = (View(v, np.zeros(1, np.int64), np.full(1, t.offset or 0), t)
                                 if kind == "mem" else v)
            for (slot, info, name), base in zip(kernel.lds, bases):
                n = info.extent
                tracker = LdsTracker(st.W * n, n, name, kernel.ops, report, strict_races)
                buf = Buffer(poison(st.W * n, info.dtype), name, n, tracker, base)
                start_elem = st.wg * n
                view = View(buf, start_elem, start_elem + (info.offset or 0), info)
                st.lds.append(view)
                st.lds_buffers.append(buf)
                if slot is not None:
                    st.regs[slot] = view
            for fn in kernel.closures:
                fn(st)
            if progress is not None:
                progress(int(wg_ids[-1]) + 1, report.workgroups)
    report.seconds = time.perf_counter() - start
    return report


def run_kernel(module, kernel_name: str, grid=(1, 1, 1), block=(1, 1, 1), args=(),
               arch: str = "gfx942", strict_races: bool = True) -> SimReport:
    """Simulate `kernel_name` ("symbol" or "gpu_module::symbol") of `module` (MLIR text
    or ir.Module) over `grid` workgroups of `block` threads. `args` are numpy arrays for
    the memref arguments (written in place) and Python numbers for scalars, in order.
    """
    arch_info = sim_arch(arch)
    if isinstance(module, str):
        module = parse_module(module)
    with module.context:
        kernel = compile_kernel(find_kernel(module, kernel_name), arch_info)
    return run_compiled(kernel, grid, block, list(args), arch, strict_races)


def run_kernel_text(text: str, kernel_name: str, **kwargs) -> SimReport:
    return run_kernel(parse_module(text), kernel_name, **kwargs)
