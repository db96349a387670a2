"""The one module that imports the MLIR Python bindings.

Everything else in accel takes `ir`, `passmanager` and the dialect op modules from
here, so switching binding provider (flydsl today, upstream `mlir` wheels later)
touches this file only.
"""

from flydsl._mlir import ir, passmanager  # noqa: F401
# Only the op classes accel builds or reads. Every upstream dialect is registered in a
# context without its Python module, and the unused ones cost start-up time: rocdl's
# 42 ms and llvm's 29 ms of a 230 ms import (python -X importtime).
from flydsl._mlir.dialects import arith, func, gpu, memref  # noqa: F401


def new_context() -> ir.Context:
    """A context that accepts our unregistered `accel.*` ops (printed in generic form)."""
    ctx = ir.Context()
    ctx.allow_unregistered_dialects = True
    return ctx
