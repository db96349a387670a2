"""The rules every accel op's verifier applies: where the op may stand, which attribute
names it takes, and what a memref operand must be for a kernel to read it.

Each raises an AccelError without a location; the verifier that calls it places it at
its op (diagnostics.located).
"""

from __future__ import annotations

from accel.bindings import ir
from accel.diagnostics import AccelError

# Ops whose bodies run on the device: an accel op there would launch a kernel from a kernel.
_DEVICE_OPS = ("gpu.module", "gpu.func", "gpu.launch")


def check_host_code(op: ir.Operation) -> None:
    parent = op.parent
    while parent is not None:
        if parent.name in _DEVICE_OPS:
            raise AccelError(f"'{op.name}' must be in host code, not inside '{parent.name}'")
        parent = parent.parent


def check_attribute_names(op: ir.Operation, known: tuple[str, ...]) -> None:
    """A name outside `known` without a dialect prefix is a typo (`accumlate` would
    otherwise be ignored and C silently overwritten); prefixed names ("foo.bar") are
    discardable attributes other tools may attach."""
    for name in op.attributes:   # iterating an op's attributes yields their names
        if "." not in name and name not in known:
            raise AccelError(f"'{op.name}' has no attribute '{name}' "
                             f"(known: {', '.join(known)})")


def check_nonempty(shape: list[int], name: str) -> None:
    # A zero extent has no GEMM to run and would divide by zero in the block arithmetic.
    if 0 in shape:
        raise AccelError(f"{name} has a zero extent: {list(shape)}")


def check_plain_buffer(value: ir.Value, name: str) -> None:
    """A kernel takes each memref as one bare pointer to global memory and indexes it
    row-major, so a strided view (offset, gaps, permuted strides) or another memory
    space would be read wrong: reject it rather than compile wrong code."""
    t = value.type
    if t.memory_space is not None:
        raise AccelError(f"{name} must be in the default (global) memory space, got {t}")
    try:
        strides, offset = t.get_strides_and_offset()
    except RuntimeError:  # a layout map that is not strided at all
        strides, offset = None, None
    expect, row_major = 1, strides is not None and offset == 0
    for d, s in reversed(list(zip(t.shape, strides or []))):
        row_major &= d == 1 or s == expect   # a unit dimension's stride is never used
        expect *= d
    if not row_major:
        raise AccelError(f"{name} must be a contiguous row-major memref, got {t}")


def check_bias_type(bias_t: str, out_t: str) -> None:
    """A fused bias holds values of the output's element type (both GEMM ops)."""
    if bias_t != out_t:
        raise AccelError(f"bias element type {bias_t} differs from the output type {out_t}")
