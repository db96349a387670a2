"""The one module that imports the MLIR Python bindings.

Everything else in accel takes `ir`, `passmanager` and the dialect op modules from
here, so switching binding provider (flydsl today, upstream `mlir` wheels later)
touches this file only.
"""

from flydsl._mlir import ir, passmanager  # noqa: F401
from flydsl._mlir.dialects import (  # noqa: F401
    arith,
    builtin,
    func,
    gpu,
    llvm,
    math,
    memref,
    rocdl,
    scf,
    vector,
)


def new_context() -> ir.Context:
    """A context that accepts our unregistered `accel.*` ops (printed in generic form)."""
    ctx = ir.Context()
    ctx.allow_unregistered_dialects = True
    return ctx
