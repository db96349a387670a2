"""A MIGraphX value as accel-from-migraphx holds it: a view of a buffer, and its type."""

from __future__ import annotations

from dataclasses import dataclass

from accel.bindings import ir
from accel.dialect.ir_helpers import memref_info
from accel.migraphx.shaped import ShapedType
from accel.migraphx.view import View


@dataclass
class Tensor:
    """`view` places the value's elements in the identity-layout memref `base`."""
    base: ir.Value
    view: View
    st: ShapedType

    @property
    def base_shape(self) -> list[int]:
        return memref_info(self.base)[0]
