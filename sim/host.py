"""Host functions: run the `func.func` that launches the kernels, as the compiled
program would, on numpy arrays.

The host code between the accel passes and `gpu-to-llvm` (func, arith, scf, memref,
gpu.launch_func and the elementwise linalg.generic of the front ends) is interpreted
like a kernel with a single thread: the kernel interpreter's compiler and closures run
it, with the host-only ops of `host_ops` added. A memref is a `memory.View` of a
`memory.Buffer`, so every view op (collapse_shape, expand_shape, subview,
reinterpret_cast, cast) aliases its source, and a caller's numpy array is the buffer
itself: kernels and host ops write through to it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from accel.bindings import ir
from accel.diagnostics import AccelError
from accel.sim import host_ops  # noqa: F401  (registers the host ops)
from accel.sim.arch import sim_arch
from accel.sim.interp import Compiler, State
from accel.sim.memory import Buffer, View
from accel.sim.registry import HOST_OPS, OPS
from accel.sim.run import SimReport, compile_kernel, find_kernel, parse_module
from accel.sim.types import memref_info, value_type

# Host ops taken from the kernel interpreter unchanged: arithmetic, structured control
# flow, plain loads/stores and the view ops (which only re-describe a buffer).
_KERNEL_PREFIXES = ("arith.", "math.", "scf.")
_KERNEL_MEMREF_OPS = ("memref.load", "memref.store", "memref.subview",
                      "memref.reinterpret_cast", "memref.expand_shape",
                      "memref.collapse_shape", "memref.cast", "memref.assume_alignment")


@dataclass
class SimLaunch:
    """One executed gpu.launch_func."""
    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    report: SimReport


@dataclass
class HostReport:
    launches: list[SimLaunch] = field(default_factory=list)
    results: list = field(default_factory=list)   # what the function returned
    seconds: float = 0.0

    @property
    def races(self) -> list[str]:
        return [r for launch in self.launches for r in launch.report.races]


def find_symbol(module: ir.Module, name: str, kind: str = "func.func", location=None):
    """The top-level op `kind` (func.func, memref.global) named `name`."""
    for top in module.body.operations:
        top = top.operation
        if (top.name == kind and "sym_name" in top.attributes
                and ir.StringAttr(top.attributes["sym_name"]).value == name):
            return top
    raise AccelError(f"simulator: no {kind} @{name} in the module", location=location)


class Runtime:
    """What one run_host call shares across functions: the module, compiled kernels and
    functions, global buffers, live allocations and the report."""

    def __init__(self, module: ir.Module, arch: str, strict_races: bool,
                 work_limit: int | None = None, progress=None):
        self.module = module
        self.arch_name = arch
        self.arch = sim_arch(arch)
        self.strict_races = strict_races
        self.work_limit = work_limit   # wave-instructions over all launches (run_host)
        self.work_done = 0
        self.progress = progress
        self.report = HostReport()
        self.kernels: dict = {}
        self.functions: dict = {}
        self.globals: dict = {}       # symbol -> Buffer
        self.constants: list = []     # (symbol, Buffer, pristine copy)
        self.live: set[int] = set()   # id() of buffers from memref.alloc/alloca
        self.scratch = SimReport()    # host ops touch no LDS; State wants a report

    def symbol(self, name: str, kind: str, location):
        return find_symbol(self.module, name, kind, location)

    def kernel(self, name: str, location):
        if name not in self.kernels:
            try:
                self.kernels[name] = compile_kernel(find_kernel(self.module, name), self.arch)
            except AccelError as e:
                e.location = e.location or location
                raise
        return self.kernels[name]

    def function(self, name: str, location) -> "HostFunction":
        if name not in self.functions:
            self.functions[name] = compile_function(self.symbol(name, "func.func", location),
                                                    self)
        return self.functions[name]

    def new_state(self, num_slots: int) -> State:
        return State(num_slots, self.arch, (1, 1, 1), (1, 1, 1), [0], self.scratch,
                     self.strict_races)

    def call(self, fn: "HostFunction", values: list) -> list:
        """Run `fn` on register values (Views for memrefs, (1,) arrays for scalars)."""
        st = self.new_state(fn.num_slots)
        for slot, v in zip(fn.arg_slots, values):
            st.regs[slot] = v
        for closure in fn.closures:
            closure(st)
        return [st.regs[s] for s in fn.result_slots]

    def record_launch(self, kernel: str, grid, block, report: SimReport) -> None:
        self.report.launches.append(SimLaunch(kernel, grid, block, report))


class HostCompiler(Compiler):
    """The kernel compiler with the host's op table in front of the kernel's."""

    def __init__(self, runtime: Runtime):
        super().__init__(runtime.arch)
        self.rt = runtime

    def compile_op(self, op):
        name = op.operation.name
        if name in HOST_OPS:
            return HOST_OPS[name](self, op.operation)
        if name in OPS and (name.startswith(_KERNEL_PREFIXES) or name in _KERNEL_MEMREF_OPS):
            return OPS[name](self, op.operation)
        raise AccelError(f"simulator: host op '{name}' is not supported", location=op.location)


@dataclass
class HostFunction:
    name: str
    closures: list
    num_slots: int
    arg_slots: list
    arg_types: list        # MemRefInfo or ValueType per argument
    result_slots: list
    result_types: list


def compile_function(f, runtime: Runtime) -> HostFunction:
    name = ir.StringAttr(f.attributes["sym_name"]).value
    blocks = list(f.regions[0].blocks)
    if not blocks:
        raise AccelError(f"simulator: @{name} is a declaration without a body",
                         location=f.location)
    if len(blocks) > 1:
        raise AccelError(f"simulator: @{name} has several blocks (unstructured control "
                         "flow is not supported on the host)", location=f.location)
    c = HostCompiler(runtime)
    body = blocks[0]
    arg_slots = [c.define(a) for a in body.arguments]
    arg_types = [memref_info(a.type, f.location) if str(a.type).startswith("memref<")
                 else value_type(a.type, f.location) for a in body.arguments]
    closures, returned = c.compile_block(body, terminators=("func.return",))
    ret = list(body.operations)[-1]
    result_types = [memref_info(v.type, ret.location) if str(v.type).startswith("memref<")
                    else value_type(v.type, ret.location) for v in ret.operands]
    return HostFunction(name, closures, c.num_slots, arg_slots, arg_types, returned,
                        result_types)


def _argument(i: int, info, a):
    """The register value of a caller's argument: an array is used in place."""
    if not hasattr(info, "strides"):
        return np.array([a], dtype=info.dtype)
    if not isinstance(a, np.ndarray) or a.dtype != info.dtype:
        got = a.dtype if isinstance(a, np.ndarray) else type(a).__name__
        raise AccelError(f"simulator: argument {i} must be a numpy array of {info.dtype}, "
                         f"got {got}")
    if not a.flags.c_contiguous:
        raise AccelError(f"simulator: argument {i} must be C-contiguous (it is written "
                         "in place)")
    offset = info.offset or 0
    identity = offset == 0 and info.extent == info.num_elements
    if identity and tuple(a.shape) != info.shape:
        raise AccelError(f"simulator: argument {i} has shape {list(a.shape)}, the memref "
                         f"is {list(info.shape)}")
    if a.size < offset + info.extent:
        raise AccelError(f"simulator: argument {i} has {a.size} elements, the memref spans "
                         f"{offset + info.extent}")
    buf = Buffer(a.reshape(-1), f"argument #{i}", a.size)
    return View(buf, np.zeros(1, np.int64), np.array([offset], np.int64), info)


def as_array(v, info):
    """A returned register value as numpy: a view of the memref's buffer, or a scalar."""
    if not hasattr(info, "strides"):
        return v[0]
    it = v.buf.data.itemsize
    start = int(v.offset[0])
    return np.lib.stride_tricks.as_strided(v.buf.data[start:], info.shape,
                                           [s * it for s in info.strides])


def run_host(module, func_name: str, args=(), arch: str = "gfx942",
             strict_races: bool = True, work_limit: int | None = None,
             progress=None) -> HostReport:
    """Run host function `func_name` of `module` (MLIR text or ir.Module) with `args`:
    numpy arrays for memref arguments (C-contiguous, of the memref's shape; written in
    place) and Python numbers for scalars. Kernels run on `arch`'s simulator.

    `work_limit` bounds the estimated wave-instructions of all launches together: the
    launch that would pass it raises WorkLimitError before it runs.
    `progress(kernel, done, total)` is called after each batch of a launch's workgroups."""
    if isinstance(module, str):
        module = parse_module(module)
    rt = Runtime(module, arch, strict_races, work_limit, progress)
    start = time.perf_counter()
    with module.context:
        fn = rt.function(func_name, None)
        args = list(args)
        if len(args) != len(fn.arg_types):
            raise AccelError(f"simulator: @{func_name} takes {len(fn.arg_types)} arguments, "
                             f"got {len(args)}")
        values = [_argument(i, t, a) for i, (t, a) in enumerate(zip(fn.arg_types, args))]
        with np.errstate(all="ignore"):
            results = rt.call(fn, values)
    for name, buf, pristine in rt.constants:
        if not np.array_equal(buf.data.view(np.uint8), pristine.view(np.uint8)):
            raise AccelError(f"simulator: constant memref.global @{name} was written")
    rt.report.results = [as_array(v, t) for v, t in zip(results, fn.result_types)]
    rt.report.seconds = time.perf_counter() - start
    return rt.report
