"""accel.sim: runs Kernel IR (docs/contracts.md) on the CPU with numpy, exactly.

Lockstep SIMT over all threads of a batch of workgroups, masked scf.if, MFMA/WMMA by
the lane layouts of docs/layouts.md, raw-buffer bounds as the hardware applies them, an LDS
race detector and an LDS bank-conflict count. Imports no pass or pipeline, so it
cannot share a codegen bug.

Modules: types (MLIR types as numpy), arch (wave size, LDS bank model), interp (the
interpreter compile and the thread-batch state), ops_* (one per op family), memory
(views and addressing), lds (races and banks), layouts (MFMA/WMMA lane tables), run
(public entry points: one kernel), host and host_ops (a whole host function with its
kernel launches, allocations, globals and elementwise linalg.generic).
"""

from accel.sim.run import (SimKernel, SimReport, compile_kernel, find_kernel,  # noqa: F401
                           parse_module, run_compiled, run_kernel, run_kernel_text)
from accel.sim.host import HostReport, SimLaunch, run_host  # noqa: F401,E402
