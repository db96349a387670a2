"""A view (accel.migraphx.view) as a strided memref a kernel reads in place.

accel.gemm's A and B (dialect/operand_layouts.py: check_operand_view) may be any
`memref<X x Y x Z, strided<[sX, sY, 1], offset: o>>` over the buffer underneath: a slice
(the offset, rows further apart than they are long), a batch stride, 0 for a broadcast
batch or a repeated row; or, with K of two digits, the rank-4 [G, D, K1, K0]. A view is
one when each of its dimensions is one (extent, stride) digit, its last element lies
inside the buffer loads' bound max(n * s) (which then covers every one), and either its
last dimension has stride 1 and its offset and outer strides are whole 16-byte
multiples (a vector load of up to 128 bits is then as aligned as in a packed buffer),
or the view has no stride-1 side (`element_loads`: a batch-first operand, a broadcast
scalar of stride 0), which the kernel reads one element per load and needs no
alignment. `as_strided` gives the memref (a `memref.reinterpret_cast` of the flattened
buffer) or the reason it cannot.
"""

from __future__ import annotations

from math import prod

from accel.bindings import ir, memref
from accel.dialect.element_types import ELEMENT_BYTES
from accel.dialect.operand_layouts import descriptor_extent, view_span
from accel.migraphx import memrefs
from accel.migraphx.tensor import Tensor
from accel.migraphx.view import View

# The widest vector a kernel loads (codegen/global_copy.py widest_vector).
VECTOR_BYTES = 16


def single_strides(view: View, names) -> tuple[list[int | None], str]:
    """Each dimension's one stride (None for extent 1), or ([], why not)."""
    out = []
    for dim, name in zip(view.dims, names):
        if len(dim) > 1:
            return [], f"{name} of several strides"
        out.append(dim[0][1] if dim else None)
    return out, ""


def fill_unit_strides(shape, strides: list[int | None]) -> list[int]:
    """Strides for extent-1 dimensions (never used to address): those of a packed
    buffer, so that a view that differs from packed only by its buffer being larger
    (a slice of the batch) keeps the batch its largest n * s."""
    out = list(strides)
    inner = 1
    for i in range(len(shape) - 1, -1, -1):
        if out[i] is None:
            out[i] = inner
        inner = max(inner, shape[i] * out[i])
    return out


def as_strided(t: Tensor, view: View, names,
               element_loads: bool = False) -> tuple[ir.Value | None, str]:
    """(`t`'s buffer seen as the strided memref of `view`, a rank-3 (or 4) view of it
    named `names`, ""), or (None, why it is not one: the copy's reason). Its last
    dimension is contiguous unless `element_loads`."""
    strides, why = single_strides(view, names)
    if why:
        return None, why
    shape = list(view.shape)
    if not element_loads and shape[-1] != 1 and strides[-1] != 1:
        return None, f"{names[-1]} (the contiguous side) of stride {strides[-1]}, not 1"
    strides = fill_unit_strides(shape, strides)
    if not element_loads:
        strides[-1] = 1
    if min(strides) < 0 or view.offset < 0:
        return None, "a negative stride"
    span, bound = view_span(shape, strides), descriptor_extent(shape, strides)
    if span > bound:
        return None, "dimensions that overlap"
    numel = prod(t.base_shape)
    if view.offset + span > numel:
        return None, "a view past its buffer's end"
    elem = str(t.base.type.element_type)
    per_vector = 1 if element_loads else VECTOR_BYTES // ELEMENT_BYTES.get(elem, VECTOR_BYTES)
    if any(x % per_vector for x in [view.offset] + strides[:-1]):
        return None, f"offset or strides not multiples of {VECTOR_BYTES} bytes"
    flat = memrefs.reshape(t.base, [numel])
    layout = f"strided<[{', '.join(map(str, strides))}], offset: {view.offset}>"
    result_t = ir.MemRefType.get(shape, t.base.type.element_type, ir.Attribute.parse(layout))
    cast = memref.ReinterpretCastOp(result_t, flat, [], [], [], [view.offset], shape, strides)
    return cast.result, ""
