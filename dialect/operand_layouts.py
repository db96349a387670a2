"""accel.gemm's operand layouts (row, transposed, accel: the shapes dialect/gemm.py lists),
the (G, D, K) extents each one's shape holds, and the strided views an operand in a
plain layout may be. D is A's M or B's N; in the accel layout D and K are only known
padded.

An operand whose K is contiguous-last (A row, B transposed) may also be rank 4,
[G, D, K1, K0]: K of two digits, k -> (k div K0, k mod K0), a view whose K steps
through K0 elements of one stride and K1 runs of another (MIGraphX's heads of a
transpose + reshape merged into K). K = K1 * K0.
"""

from __future__ import annotations

from accel.bindings import ir
from accel.diagnostics import AccelError
from accel.dialect.accel_tile import AccelTile
from accel.dialect.element_types import ELEMENT_BYTES

OPERAND_LAYOUTS = ("row", "transposed", "accel")
# MemRefType reports a dynamic stride or offset as this value (ShapedType::kDynamic).
DYNAMIC = -(2**63)


def k_last(name: str, layout: str) -> bool:
    """Is operand `name` ("A"/"B") in `layout` plain [G, D, K] (K contiguous-last)?"""
    return layout != "accel" and (name.upper() == "A") == (layout == "row")


def reduction_extent(shape, layout: str, operand: str) -> int | None:
    """K of operand "a" or "b" in a plain layout; None in the accel layout."""
    if layout == "accel":
        return None
    if len(shape) == 4:     # [G, D, K1, K0]
        return shape[2] * shape[3]
    if operand == "a":
        return shape[2] if layout == "row" else shape[1]
    return shape[1] if layout == "row" else shape[2]


def plain_view(shape, layout: str, name: str) -> tuple[int, int, int]:
    """(G, D, K) of an operand; D and K are padded for the accel layout."""
    want = 6 if layout == "accel" else 3
    if len(shape) == 4 and k_last(name, layout):
        g, d, k1, k0 = shape
        return g, d, k1 * k0
    if len(shape) != want:
        split = " (or 4, [G, D, K1, K0], K-last)" if k_last(name, layout) else ""
        raise AccelError(f"{name} in '{layout}' layout must be rank {want}{split}, got rank "
                         f"{len(shape)}")
    if layout == "accel":
        return AccelTile.padded(shape)
    g, x, y = shape
    # A row is [G,M,K], B row is [G,K,N]; "transposed" swaps the last two.
    d_first = (name == "A") == (layout == "row")
    return (g, x, y) if d_first else (g, y, x)


def view_strides(t: ir.MemRefType) -> tuple[tuple[int, ...], int] | None:
    """(strides, offset) of a memref type that is not packed row-major, None for a
    packed one (a unit dimension's stride is never used)."""
    strides, offset = t.get_strides_and_offset()
    expect, packed = 1, offset == 0
    for d, s in reversed(list(zip(t.shape, strides))):
        packed &= d == 1 or s == expect
        expect *= d
    return None if packed else (tuple(strides), offset)


def view_span(shape, strides) -> int:
    """Elements from a view's first to one past its last: sum((n - 1) * s) + 1."""
    return sum((n - 1) * s for n, s in zip(shape, strides)) + 1


def descriptor_extent(shape, strides) -> int:
    """The elements a buffer load of a static memref checks its offsets against:
    max(n * s), as convert-amdgpu-to-rocdl sets num_records (sim/memory.num_records)."""
    return max(n * s for n, s in zip(shape, strides))


def bound_dimension(shape, strides) -> int:
    """The first dimension of largest n * s: its index set to its extent places an
    offset at or past the descriptor bound by itself (the other indices are
    non-negative), the way a load is made to read 0. The batch for a packed memref;
    never a broadcast batch (stride 0)."""
    sizes = [n * s for n, s in zip(shape, strides)]
    return sizes.index(max(sizes))


def check_view_alignment(what: str, offset: int, strides, width: int) -> None:
    """AccelError unless loads of `width` elements along a strided view's inner
    dimension start at multiples of `width`, as in a packed memref: the offset and every
    outer stride divisible by it."""
    if offset % width or any(s % width for s in strides[:-1]):
        raise AccelError(f"kernel plan: {what} loads of {width} elements are not aligned "
                         f"in its strided view (offset {offset}, strides {list(strides)}: "
                         f"each must be a multiple of {width})")


def inner_contiguous(t: ir.MemRefType) -> bool:
    """Is the memref's innermost dimension of extent 1 or stride 1 (a packed memref's
    always is)? Vector loads along it need that; an operand without it is read one
    element per load (plan `vector = 1`, codegen/global_copy.py)."""
    view = view_strides(t)
    return view is None or t.shape[-1] == 1 or view[0][-1] == 1


def inner_k_digit(t: ir.MemRefType) -> int | None:
    """K0 of an operand whose K has two digits ([G, D, K1, K0]), else None."""
    return t.shape[-1] if t.rank == 4 else None


def check_operand_view(value: ir.Value, layout: str, name: str,
                       any_inner_stride: bool = False) -> None:
    """A or B may be a strided view of a larger buffer in a plain layout (a slice, a
    batch stride, 0 for a broadcast batch, rows further apart than they are long): the
    kernel's buffer loads index it through its strides (codegen/global_copy.py). The
    inner dimension must be contiguous (the loads are vectors along it) unless
    `any_inner_stride` (A and B, whose copies then load single elements: a view with no
    contiguous side, a broadcast scalar of stride 0), every stride and the offset static
    and non-negative, and every element of the view inside the descriptor bound, so that
    the loads' out-of-range rule (past max(n * s) reads 0) guards the padding exactly
    and never hides an element."""
    view = static_view(value, name)
    if view is None:
        return
    t, (strides, offset) = value.type, view
    if layout == "accel":
        raise AccelError(f"{name} in the accel layout must be a contiguous row-major "
                         f"memref, got {t}")
    shape = list(t.shape)
    if not any_inner_stride and shape[-1] != 1 and strides[-1] != 1:
        raise AccelError(f"{name}'s innermost dimension must have stride 1 (buffer loads "
                         f"read vectors along it), got {t}")
    span, bound = view_span(shape, strides), descriptor_extent(shape, strides)
    if span > bound:
        raise AccelError(f"{name}'s last element lies {span - 1} elements past its first, "
                         f"outside the {bound} a buffer load of {t} checks (max(size * "
                         f"stride)): its dimensions overlap")
    check_offsets_fit(name, t, offset, bound)


def static_view(value: ir.Value, name: str) -> tuple[tuple[int, ...], int] | None:
    """(strides, offset) of a kernel's global memref argument that is a strided view,
    None for a packed one; AccelError unless it is in the global memory space with
    static, non-negative strides and offset (the buffer loads and stores address it by
    constants from a base the caller passes)."""
    t = value.type
    if t.memory_space is not None:
        raise AccelError(f"{name} must be in the default (global) memory space, got {t}")
    try:
        view = view_strides(t)
    except RuntimeError:    # a layout map that is not strided at all
        raise AccelError(f"{name} must be a row-major or strided memref, got {t}") from None
    if view is None:
        return None
    strides, offset = view
    if DYNAMIC in strides or offset == DYNAMIC:
        raise AccelError(f"{name} must have static strides and offset, got {t}")
    if offset < 0 or min(strides) < 0:
        raise AccelError(f"{name} has a negative stride or offset, got {t}")
    return view


def check_offsets_fit(name: str, t: ir.MemRefType, offset: int, bound: int) -> None:
    """The view's elements up to the descriptor bound max(n * s) past its offset must be
    addressable by the buffer instructions' 32-bit byte offsets."""
    if (offset + bound) * ELEMENT_BYTES[str(t.element_type)] >= 2**31:
        raise AccelError(f"{name} spans {offset + bound} elements, too many for 32-bit "
                         f"buffer offsets")
