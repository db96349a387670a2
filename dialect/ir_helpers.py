"""Generic IR helpers: walking ops, reading a memref's shape and an op's attributes.

Nothing here knows an accel op; the op classes, the passes and the front ends read IR
through these.
"""

from __future__ import annotations

from accel.bindings import ir
from accel.diagnostics import AccelError


def collect_ops(root, name: str | None = None) -> list[ir.Operation]:
    """All ops under `root` (pre-order), or those named `name`.

    Collect first, act after: an exception raised inside an `ir` walk callback comes
    back wrapped in a RuntimeError, so nothing that may raise runs inside the walk.
    """
    found: list[ir.Operation] = []

    def visit(op):
        if name is None or op.name == name:
            found.append(op.operation)
        return ir.WalkResult.ADVANCE

    root.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found


def memref_info(value: ir.Value) -> tuple[list[int], str]:
    """(static shape, element type name) of a memref value; AccelError otherwise."""
    t = value.type
    if not isinstance(t, ir.MemRefType):
        raise AccelError(f"expected a memref operand, got {t}")
    if not t.has_static_shape:
        raise AccelError(f"expected a statically shaped memref, got {t}")
    return list(t.shape), str(t.element_type)


def string_attr(op: ir.Operation, name: str, default: str | None = None) -> str | None:
    """The value of string attribute `name`, `default` if absent; AccelError at the op if
    it is not a string."""
    if name not in op.attributes:
        return default
    a = op.attributes[name]
    if not isinstance(a, ir.StringAttr):
        raise AccelError(f"attribute '{name}' must be a string", op.location)
    return a.value


def int_attr(op: ir.Operation, name: str) -> int | None:
    """The value of integer attribute `name`, None if absent; AccelError at the op if it
    is not an integer."""
    if name not in op.attributes:
        return None
    a = op.attributes[name]
    if not isinstance(a, ir.IntegerAttr):
        raise AccelError(f"attribute '{name}' must be an integer", op.location)
    return a.value
