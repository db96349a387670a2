"""Copies a MIGraphX front end makes: a view into a row-major buffer, a value into a
function result. Each is an `accel.copy` kernel (dialect/copy.py) that reads its input
through the input's view (accel.migraphx.view); nothing here computes."""

from __future__ import annotations

from math import prod

from accel.bindings import ir
from accel.dialect.copy import CopyOp
from accel.migraphx import memrefs
from accel.migraphx.tensor import Tensor
from accel.migraphx.view import View


def indexing(t: Tensor, index=None) -> tuple[ir.Value, list[str]]:
    """(memref, index expressions) through which a copy reads `t`: `t`'s own
    base when its view maps onto that base's dimensions, else the base flattened.
    `index`: `t`'s logical index as expressions of the reader's (View.index_exprs)."""
    exprs = t.view.index_exprs(t.base_shape, index)
    if exprs is not None:
        return t.base, exprs
    return memrefs.reshape(t.base, [prod(t.base_shape)]), [t.view.offset_expr(index)]


def materialize(t: Tensor, reason: str, *, arch: str) -> Tensor:
    """Copy `t` into a fresh row-major buffer of its logical shape, on `arch`; `reason`
    says why its reader cannot take the view in place (the copy's `reason`)."""
    elem_t = t.base.type.element_type
    shape = list(t.view.shape)
    base = memrefs.alloc(shape, elem_t)
    out = Tensor(base, View.contiguous(shape), t.st)
    copy_into(t, *indexing(out), arch, reason)
    return out


def copy_into(t: Tensor, out: ir.Value, exprs: list[str], arch: str, reason: str) -> None:
    """Copy `t` into memref `out` at index expressions `exprs` of its logical index, on
    `arch`, for `reason`."""
    src, src_exprs = indexing(t)
    CopyOp.build(src, out, arch=arch, shape=list(t.view.shape), input_exprs=src_exprs,
                 output_exprs=exprs, reason=reason, loc=ir.Location.current)
