"""accel.gemm's operand layouts (row, transposed, accel: the shapes dialect/gemm.py lists)
and the (G, D, K) extents each one's shape holds. D is A's M or B's N; in the accel
layout D and K are only known padded.
"""

from __future__ import annotations

from accel.diagnostics import AccelError
from accel.dialect.accel_tile import AccelTile

OPERAND_LAYOUTS = ("row", "transposed", "accel")


def reduction_extent(shape, layout: str, operand: str) -> int | None:
    """K of operand "a" or "b" in a plain layout; None in the accel layout."""
    if layout == "accel":
        return None
    if operand == "a":
        return shape[2] if layout == "row" else shape[1]
    return shape[1] if layout == "row" else shape[2]


def plain_view(shape, layout: str, name: str) -> tuple[int, int, int]:
    """(G, D, K) of an operand; D and K are padded for the accel layout."""
    want = 6 if layout == "accel" else 3
    if len(shape) != want:
        raise AccelError(f"{name} in '{layout}' layout must be rank {want}, got rank {len(shape)}")
    if layout == "accel":
        return AccelTile.padded(shape)
    g, x, y = shape
    # A row is [G,M,K], B row is [G,K,N]; "transposed" swaps the last two.
    d_first = (name == "A") == (layout == "row")
    return (g, x, y) if d_first else (g, y, x)
