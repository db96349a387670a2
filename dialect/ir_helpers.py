"""Generic IR helpers: walking ops, reading a memref's shape and an op's attributes, and
the base of the Python classes that view one op.

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
    value = _attr_value(op, name, ir.StringAttr, "a string")
    return default if value is None else value


def int_attr(op: ir.Operation, name: str) -> int | None:
    """The value of integer attribute `name`, None if absent; AccelError at the op if it
    is not an integer."""
    return _attr_value(op, name, ir.IntegerAttr, "an integer")


def _attr_value(op: ir.Operation, name: str, kind: type, what: str):
    if name not in op.attributes:
        return None
    a = op.attributes[name]
    if not isinstance(a, kind):
        raise AccelError(f"attribute '{name}' must be {what}", op.location)
    return a.value


class OpView:
    """A Python view of one op named OP_NAME (a subclass's), made from the op or any
    object with `.operation`."""
    OP_NAME = ""

    def __init__(self, op):
        self.op: ir.Operation = op.operation
        if self.op.name != self.OP_NAME:
            raise AccelError(f"expected {self.OP_NAME}, got {self.op.name}", self.op.location)

    @classmethod
    def isa(cls, op) -> bool:
        return op.operation.name == cls.OP_NAME
