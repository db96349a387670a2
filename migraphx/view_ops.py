"""MIGraphX's data-movement-free ops (transpose, reshape, multibroadcast, broadcast,
slice) read as views (accel.migraphx.view) of the value they take.

A view op moves no data: its result is the operand's buffer under a composed view,
folded into the addressing of whatever reads it (a slice inside a dimension's digits is
a window of it: accel.migraphx.view). A reshape the view algebra cannot express on the
operand's view (it regroups across merged dimensions, or splits a windowed one) returns
None, and the caller copies the operand row-major first (accel.migraphx.copies).
Errors (bad permutation, element count, axis) are raised at the op's location.
"""

from __future__ import annotations

from math import prod

from accel.bindings import ir
from accel.diagnostics import AccelError
from accel.migraphx.shaped import ShapedType
from accel.migraphx.tensor import Tensor
from accel.migraphx.view import View

# The views that only permute or regroup (no stride 0, no offset): what may sit between
# a producer and `return` when the producer writes the out-parameter in place.
PURE_VIEWS = ("migraphx.transpose", "migraphx.reshape")
VIEW_OPS = PURE_VIEWS + ("migraphx.multibroadcast", "migraphx.broadcast", "migraphx.slice")


def shaped(t: ir.Type) -> ShapedType | None:
    return ShapedType.from_mlir(str(t))


def int_list(op: ir.Operation, name: str) -> list[int]:
    if name not in op.attributes or not isinstance(op.attributes[name], ir.ArrayAttr):
        raise AccelError(f"'{op.name}' requires an integer array attribute '{name}'",
                         op.location)
    values = list(op.attributes[name])
    if not all(isinstance(a, ir.IntegerAttr) for a in values):
        raise AccelError(f"'{op.name}' attribute '{name}' must hold integers", op.location)
    return [a.value for a in values]


def transpose_view(op: ir.Operation, view: View) -> View:
    perm = int_list(op, "permutation")
    if sorted(perm) != list(range(view.rank)):
        raise AccelError(f"permutation {perm} is not a permutation of the {view.rank} "
                         f"dimensions of the operand", op.location)
    return view.transpose(perm)


def reshape_view(op: ir.Operation, view: View) -> View | None:
    dims = int_list(op, "dims")
    if min(dims, default=1) < 1:
        raise AccelError(f"reshape dims {dims} must be positive", op.location)
    if prod(dims) != prod(view.shape):
        raise AccelError(f"reshape to {dims} changes the element count "
                         f"({prod(view.shape)} -> {prod(dims)})", op.location)
    return view.reshape(dims)


def pure_view(op: ir.Operation, view: View) -> View | None:
    """`view` through transpose or reshape `op`."""
    return transpose_view(op, view) if op.name == "migraphx.transpose" else \
        reshape_view(op, view)


def multibroadcast(op: ir.Operation, t: Tensor) -> Tensor:
    """The placement the result type's strides spell where they name one (`by_strides`);
    else numpy's broadcast (aligned right); failing that, the operand as one block at an
    axis, as rocMLIR's tests write `<1x32xi32, 32x1> -> <1x32x1x1024xi32, 32x1x0x0>`
    (the operand at the front, the new dimensions after it, stride 0)."""
    lens = int_list(op, "out_lens")
    out_st = shaped(op.results[0].type)
    view = by_strides(t.view, lens, out_st.strides) if out_st is not None else None
    view = view or t.view.broadcast(lens)
    rank = t.view.rank
    for axis in range(len(lens) - rank + 1) if view is None and out_st is not None else ():
        outside = out_st.strides[:axis] + out_st.strides[axis + rank:]
        placed = t.view.broadcast(lens[axis:axis + rank])
        if len(out_st.strides) == len(lens) and not any(outside) and placed is not None:
            view = placed.placed(lens, axis)
            break
    if view is None:
        raise AccelError(f"cannot broadcast shape {list(t.view.shape)} to {lens}",
                         op.location)
    return Tensor(t.base, view, out_st)


def by_strides(view: View, lens, strides) -> View | None:
    """`view` broadcast to `lens` with its dimensions, in order, where the result's
    `strides` are not 0 and the others repeated, when the strides name that placement:
    as many non-zero-stride dimensions (of extent > 1) as the operand has dimensions of
    extent > 1, with the same extents. rocMLIR places a multibroadcast's operand by the
    result's stride-0 dimensions; numpy's right alignment can read another function from
    the same op (grouped-query attention's `<2x2x32x32> -> <2x2x2x32x32,
    2048x1024x0x32x1>` repeats each key head over its group, not the outer batch)."""
    if len(strides) != len(lens):
        return None
    kept = [i for i, (n, s) in enumerate(zip(lens, strides)) if s != 0 and n != 1]
    own = [a for a, n in enumerate(view.shape) if n != 1]
    if [lens[i] for i in kept] != [view.shape[a] for a in own]:
        return None
    placed = dict(zip(kept, own))
    dims = tuple(view.dims[placed[i]] if i in placed else ((n, 0),) if n != 1 else ()
                 for i, n in enumerate(lens))
    windows = tuple(view.window(placed[i]) if i in placed else None
                    for i in range(len(lens))) if view.windows else ()
    return View(dims, view.offset, windows)


def axis_broadcast(op: ir.Operation, t: Tensor) -> Tensor:
    """MIGraphX broadcast: the operand's dimensions placed at `axis` of `out_lens`,
    every other dimension repeated (stride 0)."""
    lens = int_list(op, "out_lens")
    axis = op.attributes["axis"].value if "axis" in op.attributes else 0
    rank = t.view.rank
    if not (0 <= axis <= len(lens) - rank) or list(t.view.shape) != lens[axis:axis + rank]:
        raise AccelError(f"cannot broadcast shape {list(t.view.shape)} at axis {axis} to "
                         f"{lens}", op.location)
    return Tensor(t.base, t.view.placed(lens, axis), shaped(op.results[0].type))


def slice_view(op: ir.Operation, view: View) -> View:
    axes, starts, ends = (int_list(op, a) for a in ("axes", "starts", "ends"))
    if not len(axes) == len(starts) == len(ends):
        raise AccelError("'migraphx.slice' needs as many starts and ends as axes",
                         op.location)
    for axis, start, end in zip(axes, starts, ends):
        if axis < 0:
            axis += view.rank
        if not 0 <= axis < view.rank:
            raise AccelError(f"slice axis {axis} is out of range for rank {view.rank}",
                             op.location)
        n = view.shape[axis]
        # MIGraphX clamps like numpy: negative bounds count from the end.
        lo, hi = (max(0, min(n, b + n if b < 0 else b)) for b in (start, end))
        if lo >= hi:
            raise AccelError(f"slice [{start}, {end}) of axis {axis} (extent {n}) is "
                             f"empty", op.location)
        view = view.slice(axis, lo, hi)
    return view


def view_op(op: ir.Operation, t: Tensor, out_st: ShapedType, materialize) -> Tensor:
    """`t` through view op `op` (one of VIEW_OPS); a reshape that cannot regroup `t`'s
    view reads a row-major copy, `materialize(t, reason)`, instead."""
    name = op.name
    if name == "migraphx.multibroadcast":
        return multibroadcast(op, t)
    if name == "migraphx.broadcast":
        return axis_broadcast(op, t)
    if name == "migraphx.transpose":
        return Tensor(t.base, transpose_view(op, t.view), out_st)
    if name == "migraphx.slice":
        return Tensor(t.base, slice_view(op, t.view), out_st)
    view = reshape_view(op, t.view)
    if view is None:
        t = materialize(t, f"a '{name}' regrouping dimensions of several strides")
        view = reshape_view(op, t.view)
    return Tensor(t.base, view, out_st)
