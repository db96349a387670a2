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

    @property
    def location(self) -> ir.Location:
        return self.op.location


def append_kernel_modules(module: ir.Module, kernels) -> None:
    """Append the gpu.module of each kernel (a `.symbol` and its `.module_text()`) that
    `module` does not hold yet: equal ops, named by their content, share one kernel."""
    existing = {op.attributes["sym_name"].value for op in module.body.operations
                if op.operation.name == "gpu.module"}
    for kernel in kernels:
        if kernel.symbol not in existing:
            parsed = ir.Module.parse(kernel.module_text(), module.context)
            for k in list(parsed.body.operations):
                module.body.append(k)
            existing.add(kernel.symbol)


def write_int_dict(op: ir.Operation, name: str, ints: dict[str, int],
                   strings: dict[str, str]) -> None:
    """Set attribute `name` of `op` to a dictionary of i64 and string entries."""
    i64 = ir.IntegerType.get_signless(64)
    values = {k: ir.IntegerAttr.get(i64, v) for k, v in ints.items()}
    values.update({k: ir.StringAttr.get(v) for k, v in strings.items()})
    op.attributes[name] = ir.DictAttr.get(values)


def read_int_dict(op: ir.Operation, name: str, int_keys: tuple[str, ...],
                  string_keys: tuple[str, ...]) -> tuple[dict[str, int], dict] | None:
    """Attribute `name` of `op` as (its positive integers by key, its other entries by
    key), None if `op` has none; AccelError unless it is a dictionary of exactly those
    keys whose `int_keys` are positive integers."""
    if name not in op.attributes:
        return None
    attr = op.attributes[name]
    if not isinstance(attr, ir.DictAttr):
        raise AccelError(f"attribute '{name}' must be a dictionary")
    keys = sorted(attr[i].name for i in range(len(attr)))
    want = sorted(int_keys + string_keys)
    if keys != want:
        raise AccelError(f"attribute '{name}' must have the keys {', '.join(want)}, "
                         f"got {', '.join(keys) or 'none'}")
    ints = {}
    for k in int_keys:
        a = attr[k]
        if not isinstance(a, ir.IntegerAttr) or isinstance(a, ir.BoolAttr) or a.value < 1:
            raise AccelError(f"'{name}.{k}' must be a positive integer")
        ints[k] = a.value
    return ints, {k: attr[k] for k in string_keys}
