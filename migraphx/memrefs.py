"""Small memref builders shared by the front ends: reshapes and allocations.

Both emit ops at the current insertion point and location.
"""

from __future__ import annotations

from math import prod

from accel.bindings import ir, memref
from accel.dialect.ir_helpers import memref_info


def reshape(value: ir.Value, shape) -> ir.Value:
    """`value` (an identity-layout memref) seen with another row-major `shape`.

    One collapse_shape or expand_shape when the shapes nest; otherwise through rank 1
    (collapse, then expand), which is valid for any reshape with the same element
    count. No data moves.
    """
    cur, _ = memref_info(value)
    shape = list(shape)
    if cur == shape:
        return value
    elem_t = value.type.element_type
    groups = _nesting(cur, shape)
    if groups is not None:
        return memref.CollapseShapeOp(ir.MemRefType.get(shape, elem_t), value, groups).result
    groups = _nesting(shape, cur)
    if groups is not None:
        return memref.ExpandShapeOp(ir.MemRefType.get(shape, elem_t), value, groups, [],
                                    shape).result
    if len(cur) != 1:
        flat_t = ir.MemRefType.get([prod(cur)], elem_t)
        value = memref.CollapseShapeOp(flat_t, value, [list(range(len(cur)))]).result
    if len(shape) != 1:
        value = memref.ExpandShapeOp(ir.MemRefType.get(shape, elem_t), value,
                                     [list(range(len(shape)))], [], shape).result
    return value


# Ops that only see a buffer differently (what `reshape` and accel.migraphx.strided emit).
_RESHAPES = ("memref.collapse_shape", "memref.expand_shape", "memref.reinterpret_cast")


def erase_unused(value: ir.Value, source: ir.Value) -> None:
    """Erase the reshapes (and reinterpret_casts) that made `value` from `source`, as far
    back as nothing else uses them: a view built and then not taken."""
    while (value != source and isinstance(value, ir.OpResult) and
           value.owner.name in _RESHAPES and not list(value.uses)):
        op = value.owner
        value = op.operands[0]
        op.erase()


def _nesting(big, small) -> list[list[int]] | None:
    """Reassociation grouping consecutive dims of `big` into those of `small`, or None."""
    if len(big) < len(small) or not small:
        return None
    groups, i = [], 0
    for s in small:
        group, p = [], 1
        while i < len(big) and (not group or p < s):
            group.append(i)
            p *= big[i]
            i += 1
        if p != s:
            return None
        groups.append(group)
    while i < len(big) and big[i] == 1:
        groups[-1].append(i)
        i += 1
    return groups if i == len(big) else None


def alloc(shape, elem_t: ir.Type) -> ir.Value:
    return memref.AllocOp(ir.MemRefType.get(list(shape), elem_t), [], []).result
