"""Copies a MIGraphX front end makes on the host: a view into a row-major buffer, a
value into a function result. Each is an all-parallel linalg.generic that reads its
input through the input's view (accel.migraphx.view); nothing here computes."""

from __future__ import annotations

from math import prod

from accel.bindings import ir
from accel.migraphx import memrefs
from accel.migraphx.tensor import Tensor
from accel.migraphx.view import View


def indexing(t: Tensor) -> tuple[ir.Value, list[str]]:
    """(memref, index expressions) through which a linalg.generic reads `t`: `t`'s own
    base when its view maps onto that base's dimensions, else the base flattened."""
    exprs = t.view.index_exprs(t.base_shape)
    if exprs is not None:
        return t.base, exprs
    return memrefs.reshape(t.base, [prod(t.base_shape)]), [t.view.offset_expr()]


def materialize(t: Tensor) -> Tensor:
    """Copy `t` into a fresh row-major buffer of its logical shape."""
    elem_t = t.base.type.element_type
    shape = list(t.view.shape)
    base = memrefs.alloc(shape, elem_t)
    out = Tensor(base, View.contiguous(shape), t.st)
    memrefs.generic([indexing(t)], indexing(out), len(shape), lambda a: a[0])
    return out


def copy_into(t: Tensor, out: ir.Value, exprs: list[str]) -> None:
    """Copy `t` into memref `out` at index expressions `exprs` of its logical index."""
    memrefs.generic([indexing(t)], (out, exprs), len(t.view.shape), lambda a: a[0])
